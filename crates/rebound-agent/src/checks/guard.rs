//! The files a run's checks read: the project's tests and the scripts a
//! check names. A check that passes only because the agent rewrote its
//! tests proves nothing, so their contents are recorded when the checks
//! first run, and a finish after one of them changed is not verified.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

use super::Check;

/// Guarded files looked at, at most.
const MAX_FILES: usize = 2_000;

/// Bytes of a guarded file hashed, at most (a bigger file is hashed by its
/// head and its size).
const MAX_BYTES: usize = 1 << 20;

/// Each guarded file's path (relative to `workspace`) and a hash of its
/// contents: the files that look like tests, and the scripts the checks
/// run ([`script`]). Data files a check reads are not guarded: they are
/// often what the goal asks to change.
pub fn guarded_files(workspace: &Path, checks: &[Check]) -> BTreeMap<String, u64> {
    let mut files = BTreeMap::new();
    for entry in super::fingerprint::project_files(workspace).flatten() {
        if files.len() >= MAX_FILES {
            break;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(workspace) else {
            continue;
        };
        let name = relative.to_string_lossy().to_string();
        if is_test_file(&name) {
            if let Some(hash) = content_hash(entry.path()) {
                files.insert(name, hash);
            }
        }
    }
    for check in checks {
        let Some(script) = script(&check.command) else {
            continue;
        };
        let script = script.trim_start_matches("./");
        if script.contains("..") || Path::new(script).is_absolute() {
            continue;
        }
        let path = workspace.join(script);
        if path.is_file() {
            if let Some(hash) = content_hash(&path) {
                files.insert(script.to_string(), hash);
            }
        }
    }
    files
}

/// Interpreters whose first argument is the script they run.
const INTERPRETERS: &[&str] = &[
    "python", "python3", "bash", "sh", "zsh", "node", "ruby", "perl",
];

/// The script a command runs, as written: its program when that is a path
/// (`./verify.sh`), or an interpreter's first argument that looks like a
/// file (`python3 check.py`); `None` for `python3 -c ...`, `-m ...` and
/// commands that run an installed program.
pub fn script(command: &str) -> Option<&str> {
    let program = super::goal::program(command)?;
    if program.contains('/') {
        return Some(program);
    }
    if !INTERPRETERS.contains(&program) {
        return None;
    }
    let mut words = command.split_whitespace().skip_while(|w| *w != program);
    words.next();
    for word in words {
        if matches!(word, "-c" | "-m" | "-e") {
            return None;
        }
        if word.starts_with('-') {
            continue;
        }
        let word = word.trim_matches(|c| c == '"' || c == '\'');
        return (word.contains('.') || word.contains('/')).then_some(word);
    }
    None
}

/// The guarded files of `before` that `after` no longer has or has with
/// other contents, by path. A file that moved with its contents as they
/// were (a test renamed so that its runner finds it) is not changed: its
/// contents are found at a path `before` did not have.
pub fn changed(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>) -> Vec<String> {
    let mut moved: Vec<u64> = after
        .iter()
        .filter(|(path, _)| !before.contains_key(*path))
        .map(|(_, hash)| *hash)
        .collect();
    before
        .iter()
        .filter(|(path, hash)| match after.get(*path) {
            Some(now) => now != *hash,
            None => match moved.iter().position(|m| m == *hash) {
                Some(at) => {
                    moved.swap_remove(at);
                    false
                }
                None => true,
            },
        })
        .map(|(path, _)| path.clone())
        .collect()
}

/// Whether `path` (relative, `/`-separated) looks like a test by the usual
/// conventions of Python, Go, JavaScript/TypeScript, Rust and C projects
/// ([`crate::localize::is_test_file`]; `testdata/` counts too).
pub fn is_test_file(path: &str) -> bool {
    path.split('/').any(|dir| dir == "testdata") || crate::localize::is_test_file(path)
}

/// A hash of the file's size and (first [`MAX_BYTES`] of) contents.
fn content_hash(path: &Path) -> Option<u64> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let size = file.metadata().ok()?.len();
    let mut bytes = Vec::new();
    file.take(MAX_BYTES as u64).read_to_end(&mut bytes).ok()?;
    let mut hasher = DefaultHasher::new();
    size.hash(&mut hasher);
    bytes.hash(&mut hasher);
    Some(hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::CheckSource;

    #[test]
    fn the_script_a_command_runs() {
        assert_eq!(script("./verify.sh --all"), Some("./verify.sh"));
        assert_eq!(script("bash -x run_tests.sh"), Some("run_tests.sh"));
        assert_eq!(script("CI=1 python3 'check.py' a"), Some("check.py"));
        assert_eq!(script("python3 -m unittest"), None);
        assert_eq!(script("python3 -c 'import a.b'"), None);
        assert_eq!(script("grep -q x a.py"), None);
        assert_eq!(script("make test"), None);
    }

    #[test]
    fn test_files_by_convention() {
        for path in [
            "test_calc.py",
            "tests/helpers.py",
            "pkg/calc_test.go",
            "src/app.test.ts",
            "web/button.spec.js",
            "conftest.py",
            "src/__tests__/a.js",
            "crate/tests/it.rs",
            "parse_test.c",
        ] {
            assert!(is_test_file(path), "{path}");
        }
        for path in ["calc.py", "src/testing.rs", "contest.py", "latest.txt"] {
            assert!(!is_test_file(path), "{path}");
        }
    }

    #[test]
    fn a_changed_or_deleted_test_or_check_script_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("calc.py"), "x = 1\n").unwrap();
        std::fs::write(root.join("test_calc.py"), "assert True\n").unwrap();
        std::fs::write(root.join("verify.sh"), "exit 1\n").unwrap();
        let checks = vec![
            Check::new("bash ./verify.sh", CheckSource::Flag),
            Check::new("grep -q 1 calc.py", CheckSource::Agent),
        ];
        let before = guarded_files(root, &checks);
        assert_eq!(
            before.keys().cloned().collect::<Vec<_>>(),
            vec!["test_calc.py".to_string(), "verify.sh".to_string()]
        );
        std::fs::write(root.join("calc.py"), "x = 2\n").unwrap();
        assert!(changed(&before, &guarded_files(root, &checks)).is_empty());
        std::fs::write(root.join("verify.sh"), "exit 0\n").unwrap();
        std::fs::remove_file(root.join("test_calc.py")).unwrap();
        assert_eq!(
            changed(&before, &guarded_files(root, &checks)),
            vec!["test_calc.py".to_string(), "verify.sh".to_string()]
        );
    }

    #[test]
    fn a_test_moved_with_its_contents_is_not_changed() {
        let map = |entries: &[(&str, u64)]| -> BTreeMap<String, u64> {
            entries.iter().map(|(p, h)| (p.to_string(), *h)).collect()
        };
        let before = map(&[("tests/parse_test.py", 1), ("tests/report_test.py", 2)]);
        let renamed = map(&[("tests/test_parse.py", 1), ("tests/test_report.py", 2)]);
        assert!(changed(&before, &renamed).is_empty());
        let rewritten = map(&[("tests/test_parse.py", 1), ("tests/test_report.py", 3)]);
        assert_eq!(changed(&before, &rewritten), ["tests/report_test.py"]);
        // One copy stands for one moved file, not two.
        let one = map(&[("tests/test_parse.py", 1)]);
        let twice = map(&[("a_test.py", 1), ("b_test.py", 1)]);
        assert_eq!(changed(&twice, &one).len(), 1);
    }
}
