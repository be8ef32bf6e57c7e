//! The harness's plan for a workspace script whose `#!` line names an
//! interpreter this machine does not have (`#!/usr/local/opt/python@3.9/
//! bin/python3.9`, written on another machine): a failing check's output
//! names the script (`./tools/csv2md.py: not found`, `bad interpreter`,
//! `cannot execute: required file not found`), and its first line's
//! interpreter is an absolute path that does not exist, or ends in a
//! carriage return. The plan rewrites that one line to `#!/usr/bin/env
//! <name>`, the interpreter found on the `PATH` (`python3.9` becomes
//! `python3`); nothing below it changes. Found on dev: `make` failed on
//! such a script and the planner's plans edited the Makefile it was told
//! to leave.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::checks::clauses::single_quote;
use crate::checks::CheckResult;
use crate::PlanStep;

/// A path word in a command's output.
static PATH_WORD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?:\./)?[A-Za-z0-9_][A-Za-z0-9_./-]*").ok());

/// What a shell or the kernel says of a script it could not start.
static NOT_STARTED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)not\s+found|bad\s+interpreter|required\s+file\s+not\s+found|no\s+such\s+file")
        .ok()
});

/// The longest first line read, in bytes.
const MAX_LINE: usize = 512;

/// The plan for the first script a failing check in `results` could not
/// start for its `#!` line; `None` when there is none, or `tried` holds
/// the plan.
pub(crate) fn shebang_plan(
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let words = PATH_WORD.as_ref()?;
    let not_started = NOT_STARTED.as_ref()?;
    let (file, interpreter) = results
        .iter()
        .filter(|r| !r.passed && not_started.is_match(&r.output))
        .flat_map(|r| words.find_iter(&r.output))
        .map(|m| m.as_str().trim_start_matches("./").trim_end_matches('.'))
        .filter(|file| file.contains(['.', '/']) && !file.split('/').any(|p| p == ".."))
        .find_map(|file| {
            Some((
                file.to_string(),
                missing_interpreter(&workspace.join(file))?,
            ))
        })?;
    let line = format!("#!/usr/bin/env {interpreter}");
    let plan = vec![PlanStep::command(
        format!("Make {file} start with `{line}`: the interpreter its first line names is not on this machine"),
        format!(
            "sed -i {} -- {}",
            single_quote(&format!("1s|^#!.*$|{line}|")),
            single_quote(&file)
        ),
    )];
    (!tried.contains(&plan)).then_some(plan)
}

/// The interpreter to name with `env` when `path` is a file whose `#!`
/// line names one this machine lacks (an absolute path that does not
/// exist, or a line ending in a carriage return); `None` otherwise.
fn missing_interpreter(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let first = bytes.split(|b| *b == b'\n').next()?;
    if first.len() > MAX_LINE || !first.starts_with(b"#!") {
        return None;
    }
    let line = std::str::from_utf8(&first[2..]).ok()?;
    let carriage = line.ends_with('\r');
    let mut words = line.split_whitespace();
    let program = words.next()?;
    let named = if program.rsplit('/').next() == Some("env") {
        words.find(|w| !w.starts_with('-'))?
    } else {
        program
    };
    let name = named.rsplit('/').next()?;
    let absent = program.starts_with('/') && !Path::new(program).exists();
    if !(absent || carriage) {
        return None;
    }
    let name = if name.starts_with("python3") {
        "python3"
    } else {
        name
    };
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    plain.then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::test_bash as bash;

    fn failed(output: &str) -> CheckResult {
        crate::checks::test_failed("make", output)
    }

    #[test]
    fn a_script_for_another_machines_interpreter_gets_env() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir(ws.join("tools")).unwrap();
        let body = "import sys\nprint(sys.argv[1])\n";
        std::fs::write(
            ws.join("tools/csv2md.py"),
            format!("#!/usr/local/opt/python@3.9/bin/python3.9\n{body}"),
        )
        .unwrap();
        let result = failed("./tools/csv2md.py prices.csv > docs/p.md\n/bin/sh: 1: ./tools/csv2md.py: not found\nmake: *** [Makefile:3: docs/p.md] Error 127\n");
        let plan = shebang_plan(std::slice::from_ref(&result), ws, &[]).unwrap();
        assert_eq!(
            shebang_plan(
                std::slice::from_ref(&result),
                ws,
                std::slice::from_ref(&plan)
            ),
            None,
            "tried"
        );
        let output = bash(ws, plan[0].command.as_deref().unwrap());
        assert!(output.status.success(), "{output:?}");
        assert_eq!(
            std::fs::read_to_string(ws.join("tools/csv2md.py")).unwrap(),
            format!("#!/usr/bin/env python3\n{body}")
        );
        assert_eq!(shebang_plan(&[result], ws, &[]), None, "fixed");
    }

    #[test]
    fn a_carriage_return_is_a_bad_line_and_a_good_one_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("run.sh"), "#!/bin/bash\r\necho hi\r\n").unwrap();
        let result =
            failed("bash: ./run.sh: /bin/bash^M: bad interpreter: No such file or directory");
        let plan = shebang_plan(std::slice::from_ref(&result), ws, &[]).unwrap();
        assert!(plan[0]
            .command
            .as_deref()
            .unwrap()
            .contains("#!/usr/bin/env bash"));
        std::fs::write(ws.join("run.sh"), "#!/bin/bash\necho hi\n").unwrap();
        assert_eq!(shebang_plan(&[result], ws, &[]), None, "bash is there");
        assert_eq!(
            shebang_plan(&[failed("./missing.sh: not found")], ws, &[]),
            None
        );
    }
}
