//! A workspace program named bare in a command: `total.sh | grep ...`
//! runs nothing (the shell looks for `total.sh` on `PATH` and exits 127),
//! while the author meant the project's own `total.sh`. A small planner
//! writes this often (found on dev: a run step and a proposed check of a
//! shell task both said `total.sh`, and the run spent its plans on
//! "command not found"). The intent is clear, so the command is repaired:
//! the program is run the way its file says (`./name` when it is
//! executable, else its interpreter by shebang or extension).

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::checks::detect_on_path;
use crate::step_check::SHELL_WORDS;

/// `command` with each program it starts that is a bare name of a file in
/// `workspace` (no `/`, not on `PATH`, not a shell word) run as that file;
/// `None` when there is none, one cannot be run (a data file, a
/// directory, an unknown kind of script) or the line does not parse.
/// Where a program is started is read by the approval policy's bash
/// parser ([`rebound_tools::approval::program_spans`]).
pub fn repaired(command: &str, workspace: &Path) -> Option<String> {
    let mut text = String::with_capacity(command.len() + 16);
    let mut copied = 0;
    let mut changed = false;
    for span in rebound_tools::approval::program_spans(command)? {
        if let Some(run) = run_as(&command[span.clone()], workspace) {
            text.push_str(&command[copied..span.start]);
            text.push_str(&run);
            copied = span.end;
            changed = true;
        }
    }
    if !changed {
        return None;
    }
    text.push_str(&command[copied..]);
    Some(text)
}

/// How `name` is run as the workspace file it names, when it is one.
fn run_as(name: &str, workspace: &Path) -> Option<String> {
    if name.contains(['/', '$', '\\']) || SHELL_WORDS.contains(&name) || detect_on_path(name) {
        return None;
    }
    let path = workspace.join(name);
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    if meta.permissions().mode() & 0o111 != 0 {
        return Some(format!("./{name}"));
    }
    let mut head = Vec::with_capacity(128);
    std::fs::File::open(&path)
        .and_then(|file| file.take(128).read_to_end(&mut head))
        .ok()?;
    let interpreter =
        shebang_program(&String::from_utf8_lossy(&head)).or_else(|| {
            match Path::new(name).extension()?.to_str()? {
                "sh" | "bash" => Some("bash"),
                "py" => Some("python3"),
                "js" | "mjs" | "cjs" => Some("node"),
                _ => None,
            }
        })?;
    Some(format!("{interpreter} {name}"))
}

/// The interpreter the `#!` line at the top of `text` names, as the
/// program to run it with: `bash` (for bash or sh), `python3` or `node`.
pub(crate) fn shebang_program(text: &str) -> Option<&'static str> {
    let line = text.trim_start().lines().next()?.strip_prefix("#!")?;
    let words: Vec<&str> = line.split(['/', ' ']).collect();
    if words.iter().any(|w| matches!(*w, "bash" | "sh")) {
        Some("bash")
    } else if words.iter().any(|w| w.starts_with("python")) {
        Some("python3")
    } else if words.contains(&"node") {
        Some("node")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("total.sh"), "#!/bin/bash\necho 3\n").unwrap();
        std::fs::write(dir.path().join("report.py"), "print(1)\n").unwrap();
        std::fs::write(dir.path().join("data.txt"), "1\n").unwrap();
        std::fs::write(dir.path().join("run"), "#!/bin/sh\necho hi\n").unwrap();
        let run = dir.path().join("run");
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
        dir
    }

    #[test]
    fn a_bare_workspace_program_is_run_as_its_file() {
        let dir = workspace();
        let ws = dir.path();
        assert_eq!(repaired("total.sh", ws).as_deref(), Some("bash total.sh"));
        assert_eq!(
            repaired("total.sh | grep -qxF '3 expenses' && report.py", ws).as_deref(),
            Some("bash total.sh | grep -qxF '3 expenses' && python3 report.py")
        );
        assert_eq!(
            repaired("total.sh expenses.txt; echo done", ws).as_deref(),
            Some("bash total.sh expenses.txt; echo done")
        );
        assert_eq!(repaired("run --fast", ws).as_deref(), Some("./run --fast"));
        assert_eq!(
            repaired("if total.sh; then echo $(report.py); fi", ws).as_deref(),
            Some("if bash total.sh; then echo $(python3 report.py); fi")
        );
    }

    #[test]
    fn commands_that_run_what_they_name_are_left_alone() {
        let dir = workspace();
        let ws = dir.path();
        for command in [
            "bash total.sh",
            "./total.sh",
            "python3 report.py | grep -q 1",
            "grep -q 'total.sh | x' data.txt",
            "cat data.txt",
            "data.txt",
            "missing.sh",
            "echo total.sh",
            "FOO=1 make",
            "for x in a; do echo $x; done",
            "echo 'unclosed",
        ] {
            assert_eq!(repaired(command, ws), None, "{command}");
        }
    }
}
