//! The harness's plan for a workspace script that cannot be run because
//! it lacks its executable bit: a check fails with `./steps/20-render.sh:
//! Permission denied` (exit 126), and that file is a script of the
//! workspace (a `#!` line) whose mode has no `x`. The plan is `chmod +x`
//! of it, with no model call; the checks then show the next one, if any.
//! Found on dev: the planner answered a `Permission denied` with an edit
//! of a data file, and the run spent its time there.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::checks::clauses::single_quote;
use crate::checks::CheckResult;
use crate::PlanStep;

/// `PATH: Permission denied`, as bash and the kernel's `execve` say it.
static DENIED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?m)(?:^|[\s:])((?:\./)?[A-Za-z0-9_][A-Za-z0-9_./-]*): Permission denied").ok()
});

/// The plan for the first failing check in `results` that could not run
/// a workspace script for want of its executable bit; `None` when there
/// is none, or `tried` holds the plan. A file the goal protects is made
/// executable too: protection keeps its contents ([`crate::protect`]),
/// which a mode leaves as they are (found on dev: "without changing what
/// the steps do" protected the very script that lacked its bit).
pub(crate) fn exec_bit_plan(
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let regex = DENIED.as_ref()?;
    let file = results
        .iter()
        .filter(|r| !r.passed)
        .flat_map(|r| regex.captures_iter(&r.output))
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str().trim_start_matches("./").to_string())
        .find(|file| {
            !file.split('/').any(|part| part == "..")
                && not_executable_script(&workspace.join(file))
        })?;
    let plan = vec![PlanStep::command(
        format!("Make {file} executable: running it failed with `Permission denied` (its mode has no x)"),
        format!("chmod +x -- {}", single_quote(&file)),
    )];
    (!tried.contains(&plan)).then_some(plan)
}

/// Whether `path` is a regular file that starts with `#!` and that nobody
/// may execute.
fn not_executable_script(path: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 != 0 {
            return false;
        }
    }
    let mut head = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| &head == b"#!")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn failed(output: &str) -> CheckResult {
        CheckResult {
            command: "./run.sh".to_string(),
            passed: false,
            exit_code: Some(126),
            output: output.to_string(),
            duration_ms: 1,
        }
    }

    #[test]
    fn a_script_without_its_executable_bit_is_made_executable() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("steps")).unwrap();
        std::fs::write(
            dir.path().join("steps/20-render.sh"),
            "#!/bin/sh\necho hi\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("data.txt"), "no shebang\n").unwrap();
        let output =
            "==> steps/20-render.sh\n./run.sh: line 7: ./steps/20-render.sh: Permission denied\n";
        let plan = exec_bit_plan(&[failed(output)], dir.path(), &[]).unwrap();
        assert_eq!(
            plan[0].command.as_deref(),
            Some("chmod +x -- 'steps/20-render.sh'")
        );
        // Tried, not a script, already executable, outside: none.
        assert_eq!(exec_bit_plan(&[failed(output)], dir.path(), &[plan]), None);
        assert_eq!(
            exec_bit_plan(
                &[failed("bash: ./data.txt: Permission denied")],
                dir.path(),
                &[]
            ),
            None
        );
        assert_eq!(
            exec_bit_plan(&[failed("sh: ../x.sh: Permission denied")], dir.path(), &[]),
            None
        );
        // A passing check: none (while the script still lacks its bit).
        let passing = CheckResult {
            passed: true,
            ..failed(output)
        };
        assert_eq!(exec_bit_plan(&[passing], dir.path(), &[]), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let path = dir.path().join("steps/20-render.sh");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            assert_eq!(exec_bit_plan(&[failed(output)], dir.path(), &[]), None);
        }
    }
}
