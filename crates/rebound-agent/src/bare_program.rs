//! A workspace program named bare in a command: `total.sh | grep ...`
//! runs nothing (the shell looks for `total.sh` on `PATH` and exits 127),
//! while the author meant the project's own `total.sh`. A small planner
//! writes this often (found on dev: a run step and a proposed check of a
//! shell task both said `total.sh`, and the run spent its plans on
//! "command not found"). The intent is clear, so the command is repaired:
//! the program is run the way its file says (`./name` when it is
//! executable, else its interpreter by shebang or extension).

use std::path::Path;

use crate::checks::detect_on_path;

/// `command` with each program it starts that is a bare name of a file in
/// `workspace` (no `/`, not on `PATH`, not a shell word) run as that file;
/// `None` when there is none or one cannot be run (a data file, a
/// directory, an unknown kind of script).
pub fn repaired(command: &str, workspace: &Path) -> Option<String> {
    let mut text = String::with_capacity(command.len() + 16);
    let mut copied = 0;
    let mut changed = false;
    for (start, word) in command_starts(command) {
        if let Some(run) = run_as(word, workspace) {
            text.push_str(&command[copied..start]);
            text.push_str(&run);
            copied = start + word.len();
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
    if name.is_empty()
        || name.contains(['/', '=', '$', '`', '\'', '"', '\\'])
        || name.starts_with('-')
        || SHELL_WORDS.contains(&name)
        || detect_on_path(name)
    {
        return None;
    }
    let path = workspace.join(name);
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    if is_executable(&meta) {
        return Some(format!("./{name}"));
    }
    let head = std::fs::read(&path).ok()?;
    let first = head.split(|b| *b == b'\n').next().unwrap_or_default();
    let shebang = String::from_utf8_lossy(first);
    let interpreter = if let Some(line) = shebang.strip_prefix("#!") {
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
    } else {
        None
    };
    let interpreter = interpreter.or_else(|| match Path::new(name).extension()?.to_str()? {
        "sh" | "bash" => Some("bash"),
        "py" => Some("python3"),
        "js" | "mjs" | "cjs" => Some("node"),
        _ => None,
    })?;
    Some(format!("{interpreter} {name}"))
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    false
}

/// Words that are the shell's, not programs on `PATH`.
const SHELL_WORDS: &[&str] = &[
    "cd", "echo", "export", "printf", "source", "set", "unset", "test", "[", "if", "then", "else",
    "fi", "for", "while", "do", "done", "case", "esac", "time", "!", "{", "}", "(", ")",
];

/// The first word of each simple command in `command` (after the start,
/// `|`, `||`, `&&`, `;`, `(` or a newline, outside quotes), with its byte
/// offset.
fn command_starts(command: &str) -> Vec<(usize, &str)> {
    let bytes = command.as_bytes();
    let mut starts = Vec::new();
    let mut at_start = true;
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(q) = quote {
            if b == b'\\' && q == b'"' {
                i += 2;
                continue;
            }
            if b == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match b {
            b'\'' | b'"' => {
                quote = Some(b);
                at_start = false;
            }
            b'|' | b'&' | b';' | b'(' | b'\n' => at_start = true,
            b' ' | b'\t' => {}
            _ if at_start => {
                let end = command[i..]
                    .find(|c: char| c.is_whitespace() || "|&;()<>".contains(c))
                    .map_or(command.len(), |n| i + n);
                starts.push((i, &command[i..end]));
                at_start = false;
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    starts
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
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let run = dir.path().join("run");
            std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
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
        #[cfg(unix)]
        assert_eq!(repaired("run --fast", ws).as_deref(), Some("./run --fast"));
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
        ] {
            assert_eq!(repaired(command, ws), None, "{command}");
        }
    }
}
