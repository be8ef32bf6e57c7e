//! Checks detected from a workspace's files, for goals about tests or
//! builds: the project's own test command.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::{Check, CheckSource};

/// The check of a goal to commit, or of one that asks for a clean working
/// tree: nothing is left uncommitted, and what is left is printed. (No
/// shell variable or command substitution: the approval policy asks about
/// those in `on-risk` mode, and a check the harness makes must not wait
/// on a user.) rebound's own `.rebound/` ignores itself.
pub(crate) const COMMIT_CHECK: &str = "! git status --porcelain --untracked-files=all | grep .";

/// A goal about commits that leaves work uncommitted on purpose: "undo the
/// last commit but keep its changes staged", "the edit I haven't staged
/// should stay unstaged", "stash it", "reset": nothing-left-uncommitted
/// cannot be its evidence (found on dev: that check failed with the goal
/// done, and the run spent its time against it).
static LEAVES_WORK_UNCOMMITTED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:un)?staged\b|\bthe\s+index\b|\bundo\b|\buncommit|\bstash|\breset\b|\bdo\s*n[o']?t\s+commit\b|\bnot\s+(?:yet\s+)?(?:be\s+)?committed\b",
    )
    .ok()
});

/// Words that make a goal about tests or builds (its evidence is the
/// project's tests).
const TEST_WORDS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "unittest",
    "pytest",
    "build",
    "builds",
    "compile",
    "compiles",
    "compiling",
    "fix",
    "fixes",
    "bug",
    "bugs",
    "broken",
    "failing",
    "fails",
    "fail",
    "error",
    "errors",
    "crash",
    "crashes",
    "syntax",
    "invalid",
    "parse",
    "parses",
    "load",
    "loads",
    "rejects",
    "valid",
    "commit",
];

/// The checks `workspace` suggests for `goal`: nothing unless the goal is
/// about tests or builds; then `cargo test` (Cargo.toml), `npm test`
/// (package.json with a real test script), `go test ./...` (go.mod),
/// `python3 -m pytest -q` (pytest configuration or tests that import
/// pytest) or `python3 -m unittest` (test_*.py files), and `make test`,
/// `make check` or `make` (a Makefile with such a target, or a build goal);
/// a parse of each JSON, TOML or YAML file the goal names; and, for a goal
/// to commit in a git work tree, that nothing is left uncommitted. Only
/// commands whose program is installed are proposed.
pub fn detect(goal: &str, workspace: &Path) -> Vec<Check> {
    let lower = goal.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if !words.iter().any(|w| TEST_WORDS.contains(w)) {
        return Vec::new();
    }
    let mut checks = Vec::new();
    let add = |checks: &mut Vec<Check>, command: &str, program: &str, reason: &str| {
        if on_path(program) {
            checks.push(Check::new(
                command,
                CheckSource::Detected {
                    reason: reason.to_string(),
                },
            ));
        }
    };
    if workspace.join("Cargo.toml").is_file() {
        add(&mut checks, "cargo test", "cargo", "Cargo.toml");
    }
    if let Some(script) = npm_test_script(workspace) {
        add(
            &mut checks,
            "npm test",
            "npm",
            &format!("package.json test script `{script}`"),
        );
    }
    if workspace.join("go.mod").is_file() {
        add(&mut checks, "go test ./...", "go", "go.mod");
    }
    match python_tests(workspace) {
        Some(PythonTests::Pytest(reason)) => {
            add(&mut checks, "python3 -m pytest -q", "python3", &reason)
        }
        Some(PythonTests::Unittest(reason)) => {
            add(&mut checks, "python3 -m unittest", "python3", &reason)
        }
        None => {}
    }
    for (file, format) in data_files(goal, workspace) {
        if let Some(command) = format.parse_command(&file) {
            add(
                &mut checks,
                &command,
                "python3",
                &format!(
                    "the goal names {file}, which must parse as {}",
                    format.name()
                ),
            );
        }
    }
    // A merge git stopped: its own condition ([`super::merge`]) says
    // when it is committed; a clean tree after it would settle a
    // resolution that dropped a side.
    if words.contains(&"commit")
        && workspace.join(".git").exists()
        && !LEAVES_WORK_UNCOMMITTED
            .as_ref()
            .is_none_or(|regex| regex.is_match(goal))
        && crate::git::git_blocking(workspace, &["rev-parse", "-q", "--verify", "MERGE_HEAD"])
            .is_err()
    {
        add(
            &mut checks,
            COMMIT_CHECK,
            "git",
            "a goal to commit, in a git work tree: nothing left uncommitted (what is, is printed)",
        );
    }
    if let Some(makefile) = read_makefile(workspace) {
        let build_goal = words.iter().any(|w| {
            [
                "build",
                "builds",
                "compile",
                "compiles",
                "compiling",
                "make",
            ]
            .contains(w)
        });
        if has_target(&makefile, "test") {
            add(&mut checks, "make test", "make", "Makefile target `test`");
        } else if has_target(&makefile, "check") {
            add(&mut checks, "make check", "make", "Makefile target `check`");
        } else if build_goal || checks.is_empty() {
            add(&mut checks, "make", "make", "Makefile");
        }
    }
    checks
}

/// A data format whose files a check can parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DataFormat {
    Json,
    Toml,
    Yaml,
}

impl DataFormat {
    fn of(file: &str) -> Option<DataFormat> {
        let extension = file.rsplit_once('.')?.1.to_ascii_lowercase();
        match extension.as_str() {
            "json" => Some(DataFormat::Json),
            "toml" => Some(DataFormat::Toml),
            "yaml" | "yml" => Some(DataFormat::Yaml),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            DataFormat::Json => "JSON",
            DataFormat::Toml => "TOML",
            DataFormat::Yaml => "YAML",
        }
    }

    /// The command that parses `file` with Python's standard library (or
    /// PyYAML, when it is installed).
    fn parse_command(self, file: &str) -> Option<String> {
        Some(match self {
            DataFormat::Json => format!("python3 -m json.tool {file} > /dev/null"),
            DataFormat::Toml => format!(
                "python3 -c 'import sys, tomllib; tomllib.load(open(sys.argv[1], \"rb\"))' {file}"
            ),
            DataFormat::Yaml => {
                let has_yaml = std::process::Command::new("python3")
                    .args(["-c", "import yaml"])
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .status()
                    .is_ok_and(|status| status.success());
                if !has_yaml {
                    return None;
                }
                format!("python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' {file}")
            }
        })
    }
}

/// The data files (JSON, TOML, YAML) the goal names that exist in the
/// workspace, as plain relative paths (nothing a shell would expand).
fn data_files(goal: &str, workspace: &Path) -> Vec<(String, DataFormat)> {
    let mut files: Vec<(String, DataFormat)> = Vec::new();
    for word in goal.split(|c: char| c.is_whitespace() || "`'\"(),;:".contains(c)) {
        let word = word.trim_end_matches(['.', '!', '?']);
        let plain = !word.is_empty()
            && !word.starts_with('-')
            && !word.starts_with('/')
            && !word.split('/').any(|part| part == "..")
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c));
        let Some(format) = DataFormat::of(word).filter(|_| plain) else {
            continue;
        };
        if workspace.join(word).is_file() && !files.iter().any(|(f, _)| f == word) {
            files.push((word.to_string(), format));
        }
    }
    files
}

/// Whether `program` is an executable file in a `PATH` directory.
/// (Hand-written: a dozen lines, where the `which` crate would add a
/// dependency tree for the same loop.)
pub(crate) fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        std::fs::metadata(dir.join(program))
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    })
}

/// The test script of `package.json`, unless it is npm's placeholder.
fn npm_test_script(workspace: &Path) -> Option<String> {
    let text = std::fs::read_to_string(workspace.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let script = json.get("scripts")?.get("test")?.as_str()?.to_string();
    (!script.contains("no test specified")).then_some(script)
}

enum PythonTests {
    Pytest(String),
    Unittest(String),
}

/// How the Python tests of `workspace` run, if it has any.
fn python_tests(workspace: &Path) -> Option<PythonTests> {
    for (file, marker) in [
        ("pytest.ini", ""),
        ("conftest.py", ""),
        ("pyproject.toml", "[tool.pytest"),
        ("setup.cfg", "[tool:pytest]"),
        ("tox.ini", "[pytest]"),
    ] {
        if let Ok(text) = std::fs::read_to_string(workspace.join(file)) {
            if text.contains(marker) {
                return Some(PythonTests::Pytest(file.to_string()));
            }
        }
    }
    let mut tests = Vec::new();
    for dir in [workspace.to_path_buf(), workspace.join("tests")] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let is_test =
                (name.starts_with("test_") || name.ends_with("_test.py")) && name.ends_with(".py");
            if is_test {
                tests.push(entry.path());
            }
        }
    }
    tests.sort();
    let first = tests.first()?;
    let name = first
        .strip_prefix(workspace)
        .unwrap_or(first)
        .display()
        .to_string();
    let uses_pytest = tests.iter().any(|path| {
        std::fs::read_to_string(path)
            .is_ok_and(|text| text.contains("import pytest") || text.contains("from pytest"))
    });
    if uses_pytest {
        Some(PythonTests::Pytest(format!("{name} imports pytest")))
    } else {
        Some(PythonTests::Unittest(format!("Python tests ({name})")))
    }
}

/// The workspace's Makefile (`Makefile`, `makefile` or `GNUmakefile`).
pub(super) fn read_makefile(workspace: &Path) -> Option<String> {
    ["Makefile", "makefile", "GNUmakefile"]
        .iter()
        .find_map(|name| std::fs::read_to_string(workspace.join(name)).ok())
}

/// Whether `makefile` defines `target` (a line `target:`).
pub(super) fn has_target(makefile: &str, target: &str) -> bool {
    makefile.lines().any(|line| {
        line.split_once(':').is_some_and(|(names, rest)| {
            !rest.starts_with('=') && names.split_whitespace().any(|name| name == target)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(goal: &str, files: &[(&str, &str)]) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        detect(goal, dir.path())
            .into_iter()
            .map(|c| c.command)
            .collect()
    }

    #[test]
    fn python_projects_get_unittest_or_pytest() {
        let unittest = [("test_calc.py", "import unittest\n")];
        assert_eq!(
            commands("Fix the bug in calc.py", &unittest),
            ["python3 -m unittest"]
        );
        let pytest = [("tests/test_a.py", "import pytest\n")];
        assert_eq!(
            commands("make the tests pass", &pytest),
            ["python3 -m pytest -q"]
        );
        let configured = [("pyproject.toml", "[tool.pytest.ini_options]\n")];
        assert_eq!(
            commands("tests fail", &configured),
            ["python3 -m pytest -q"]
        );
    }

    #[test]
    fn makefiles_prefer_a_test_target() {
        assert_eq!(
            commands(
                "fix the failing build",
                &[("Makefile", "all:\n\tcc a.c\ntest: all\n\t./a\n")]
            ),
            ["make test"]
        );
        assert_eq!(
            commands(
                "the build is broken",
                &[("Makefile", "all:\n\tcc a.c\nCC := gcc\n")]
            ),
            ["make"]
        );
    }

    #[test]
    fn goals_not_about_tests_or_builds_detect_nothing() {
        let files = [("test_calc.py", "import unittest\n")];
        assert!(commands("Write a summary of the logs into report.txt", &files).is_empty());
    }

    #[test]
    fn a_data_file_the_goal_names_must_parse() {
        let files = [("config.json", "{\"a\": 1,}"), ("app.py", "")];
        assert_eq!(
            commands("config.json is not valid JSON: fix its syntax.", &files),
            ["python3 -m json.tool config.json > /dev/null"]
        );
        let toml = [("settings.toml", "a = ")];
        assert_eq!(
            commands("Fix settings.toml so the app loads", &toml),
            ["python3 -c 'import sys, tomllib; tomllib.load(open(sys.argv[1], \"rb\"))' settings.toml"]
        );
        assert!(
            commands("Fix ../etc/x.json and `$(rm).json`", &files).is_empty(),
            "only plain paths inside the workspace"
        );
        assert!(
            commands("fix missing.json", &files).is_empty(),
            "it must exist"
        );
    }

    #[test]
    fn a_goal_to_commit_in_a_git_tree_checks_that_nothing_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| crate::checks::test_git(dir.path(), args);
        git(&["init", "-q"]);
        let checks = detect("Commit all my changes with the message 'x'", dir.path());
        assert_eq!(checks.len(), 1);
        assert_eq!(checks[0].command, COMMIT_CHECK);
        assert!(detect("Commit all my changes", &dir.path().join("nope")).is_empty());
        for goal in [
            "I committed 'Add VAT' too early. Undo that last commit, but keep its changes staged; the README edit I haven't staged should stay unstaged.",
            "Stash my uncommitted work, then commit the fix with the message 'Fix'.",
        ] {
            assert!(detect(goal, dir.path()).is_empty(), "{goal}");
        }

        // The harness's own safety rules let it run (a variable holding a
        // command's output was once taken for a path under /proc).
        crate::checks::assert_allowed(COMMIT_CHECK);

        // It fails, printing what is left, until everything is committed.
        let run = || {
            std::process::Command::new("bash")
                .args(["-c", COMMIT_CHECK])
                .current_dir(dir.path())
                .output()
                .unwrap()
        };
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        let dirty = run();
        assert!(!dirty.status.success());
        assert!(String::from_utf8_lossy(&dirty.stdout).contains("?? a.txt"));
        git(&["add", "a.txt"]);
        git(&["commit", "-qm", "x"]);
        let clean = run();
        assert!(clean.status.success(), "{clean:?}");
    }

    #[test]
    fn npm_placeholder_test_scripts_are_not_checks() {
        let placeholder = r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#;
        assert!(commands("fix the tests", &[("package.json", placeholder)]).is_empty());
    }
}
