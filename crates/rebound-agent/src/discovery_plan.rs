//! The harness's plan for Python tests that `unittest` does not find: a
//! check that runs unittest found no test ("Ran 0 tests",
//! [`crate::checks::vacuous`]) while the workspace holds test modules
//! named apart from unittest's default pattern `test*.py`
//! (`tests/parse_test.py`, `checks.py` with `unittest.TestCase` classes).
//! The plan renames each to a name the pattern matches
//! (`tests/test_parse.py`), with `mv -n` (nothing overwritten), which
//! changes no test's contents.
//!
//! Only modules discovery would reach once renamed: in the workspace's
//! root, or in a package whose every directory from the root has an
//! `__init__.py` (unittest does not enter other directories). A module
//! that another Python file imports by its name is left to the planner
//! (the rename would break that import). A protected test may be renamed:
//! protection keeps contents, and a move keeps them ([`crate::protect`]). Found
//! on dev: three plans of `pip install` and of edits to the README while
//! the tests sat in `*_test.py` files.

use std::path::Path;

use crate::checks::CheckResult;
use crate::PlanStep;

/// Most Python files read.
const MAX_FILES_READ: usize = 500;

/// Most modules renamed by one plan.
const MAX_RENAMES: usize = 20;

/// The rename plan when a failing unittest check of `results` ran no
/// test; `None` when there is none, no module is named apart, or `tried`
/// holds the plan.
pub(crate) fn discovery_plan(
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    results.iter().find(|r| {
        !r.passed
            && r.command.contains("unittest")
            && r.output.contains("Ran 0 tests")
            && !r.command.contains(" -p ")
            && !r.command.contains("--pattern")
    })?;
    let sources: Vec<crate::localize::SourceFile> = crate::localize::source_files(workspace)
        .take(MAX_FILES_READ)
        .filter(|source| source.relative.ends_with(".py"))
        .collect();
    let mut renames: Vec<(String, String)> = Vec::new();
    for source in &sources {
        let Some(to) = discoverable_name(&source.relative) else {
            continue;
        };
        if crate::checks::vacuous::unittest_methods(&source.source) == 0
            || !reachable(workspace, &source.relative)
            || workspace.join(&to).exists()
            || imported_elsewhere(&sources, &source.relative)
        {
            continue;
        }
        renames.push((source.relative.clone(), to));
    }
    if renames.is_empty() || renames.len() > MAX_RENAMES {
        return None;
    }
    // One step: the checks run after a step, and a run that found some of
    // the tests must not be judged before the rest are renamed.
    let command = renames
        .iter()
        .map(|(from, to)| {
            format!(
                "mv -n {} {}",
                crate::checks::clauses::single_quote(from),
                crate::checks::clauses::single_quote(to)
            )
        })
        .collect::<Vec<_>>()
        .join(" && ");
    let names = renames
        .iter()
        .map(|(from, to)| format!("{from} to {to}"))
        .collect::<Vec<_>>()
        .join(", ");
    let plan = vec![PlanStep::command(
        format!("Rename {names}, which unittest's discovery (test*.py) finds: their contents stay as they are"),
        command,
    )];
    (!tried.contains(&plan)).then_some(plan)
}

/// The name unittest's default pattern `test*.py` matches for the module
/// at `path` (relative): `parse_test.py` → `test_parse.py`, `checks.py` →
/// `test_checks.py`; `None` when it matches already, or is a package's
/// `__init__.py`, `__main__.py`, `setup.py` or `conftest.py`.
fn discoverable_name(path: &str) -> Option<String> {
    let (dir, file) = match path.rsplit_once('/') {
        Some((dir, file)) => (format!("{dir}/"), file),
        None => (String::new(), path),
    };
    let stem = file.strip_suffix(".py")?;
    if stem.starts_with("test") || ["__init__", "__main__", "setup", "conftest"].contains(&stem) {
        return None;
    }
    let base = stem
        .strip_suffix("_tests")
        .or_else(|| stem.strip_suffix("_test"))
        .or_else(|| stem.strip_suffix("tests"))
        .or_else(|| stem.strip_suffix("test"))
        .filter(|base| !base.is_empty())
        .unwrap_or(stem)
        .trim_end_matches('_');
    Some(format!("{dir}test_{base}.py"))
}

/// Whether unittest's discovery from the root enters the directory of
/// `path`: every directory on the way holds an `__init__.py`.
fn reachable(workspace: &Path, path: &str) -> bool {
    let mut dir = workspace.to_path_buf();
    let parts: Vec<&str> = path.split('/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        dir.push(part);
        if !dir.join("__init__.py").is_file() {
            return false;
        }
    }
    true
}

/// Whether a Python file other than `path` imports `path`'s module by
/// name (`import parse_test`, `from tests.parse_test import ...`, `from
/// tests import parse_test`).
fn imported_elsewhere(sources: &[crate::localize::SourceFile], path: &str) -> bool {
    let stem = Path::new(path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    // `import parse_test`, `from tests.parse_test import T`, `from tests
    // import parse_test`.
    let Ok(import) = regex::Regex::new(&format!(
        r"(?m)^\s*(?:from\s+[\w.]*\b{0}\b|(?:from\s+[\w.]+\s+)?import\s+[^\n]*\b{0}\b)",
        regex::escape(stem)
    )) else {
        return true;
    };
    sources
        .iter()
        .any(|source| source.relative != path && import.is_match(&source.source))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_bash;

    const CASE: &str = "import unittest\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertTrue(True)\n";

    use crate::checks::test_workspace as workspace;

    fn ran_none() -> CheckResult {
        CheckResult {
            command: "python3 -m unittest".to_string(),
            passed: false,
            exit_code: Some(0),
            output: "Ran 0 tests in 0.000s\n\nOK\n".to_string(),
            duration_ms: 1,
        }
    }

    #[test]
    fn test_modules_named_apart_are_renamed_so_discovery_finds_them() {
        let dir = workspace(&[
            ("tests/__init__.py", ""),
            ("tests/parse_test.py", CASE),
            ("tests/report_tests.py", CASE),
            ("tests/helpers.py", "def helper():\n    return 1\n"),
            ("tally/__init__.py", ""),
            ("loose/checks.py", CASE),
        ]);
        let root = dir.path();
        let plan = discovery_plan(&[ran_none()], root, &[]).unwrap();
        let commands: Vec<&str> = plan.iter().filter_map(|s| s.command.as_deref()).collect();
        assert_eq!(
            commands,
            ["mv -n 'tests/parse_test.py' 'tests/test_parse.py' && mv -n 'tests/report_tests.py' 'tests/test_report.py'"],
            "one step; helpers.py has no test case; loose/ is no package"
        );
        for command in &commands {
            assert!(test_bash(root, command).status.success());
        }
        let run = test_bash(root, "python3 -m unittest 2>&1");
        assert!(
            String::from_utf8_lossy(&run.stdout).contains("Ran 2 tests"),
            "{run:?}"
        );
        assert!(discovery_plan(&[ran_none()], root, &[]).is_none(), "done");
    }

    #[test]
    fn an_imported_or_found_module_is_not_renamed() {
        let imported = workspace(&[
            ("parse_test.py", CASE),
            ("run.py", "from parse_test import T\n"),
        ]);
        assert!(discovery_plan(&[ran_none()], imported.path(), &[]).is_none());
        let found = CheckResult {
            output: "Ran 3 tests in 0.001s\n\nOK\n".to_string(),
            ..ran_none()
        };
        let alone = workspace(&[("parse_test.py", CASE)]);
        assert!(discovery_plan(&[found], alone.path(), &[]).is_none());
        assert_eq!(
            discoverable_name("a/b_test.py").as_deref(),
            Some("a/test_b.py")
        );
        assert_eq!(discoverable_name("test_b.py"), None);
    }
}
