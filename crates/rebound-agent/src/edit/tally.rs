//! How the failing checks stand before and after an edit ([`Tally`]):
//! what a candidate is judged by, and when one is progress.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::checks::CheckResult;
use crate::localize::{self, FailureKind};

/// How the failing checks stand: what an edit is judged by.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Checks that fail.
    pub failing_checks: usize,
    /// The failures read from their output: a test's id, else the kind and
    /// message; a failing check whose output names none counts as one.
    pub failures: BTreeSet<String>,
    /// The ids of the failing tests among them.
    pub tests: BTreeSet<String>,
    /// Where a parser of a data file or a Makefile stopped, by file: the
    /// line of its first error (a later line is progress through the
    /// file).
    pub stopped_at: BTreeMap<String, u32>,
    /// Compiler errors (Rust, C): a build that fails hides the tests it
    /// would have run, so it is never progress over failing tests.
    #[serde(default)]
    pub compile_errors: usize,
}

impl Tally {
    /// The tally of `results` (`workspace` resolves the paths in their
    /// output).
    pub fn of(workspace: &std::path::Path, results: &[CheckResult]) -> Tally {
        let mut tally = Tally::default();
        for result in results.iter().filter(|r| !r.passed) {
            tally.failing_checks += 1;
            let failures = localize::parse(&result.command, &result.output, workspace);
            let known: Vec<_> = failures
                .iter()
                .filter(|f| f.kind != FailureKind::Unknown)
                .collect();
            if known.is_empty() {
                tally.failures.insert(format!("check:{}", result.command));
            }
            for failure in known {
                if matches!(
                    failure.kind,
                    FailureKind::RustCompileError
                        | FailureKind::CCompileError
                        | FailureKind::GoCompileError
                ) {
                    tally.compile_errors += 1;
                }
                let parser = matches!(
                    failure.kind,
                    FailureKind::JsonParseError
                        | FailureKind::TomlParseError
                        | FailureKind::YamlParseError
                        | FailureKind::MakeError
                );
                if let Some(at) = failure.location.as_ref().filter(|_| parser) {
                    let line = tally.stopped_at.entry(at.file.clone()).or_insert(at.line);
                    *line = (*line).min(at.line);
                }
                match &failure.test {
                    Some(test) => {
                        tally.failures.insert(format!("test:{test}"));
                        tally.tests.insert(test.clone());
                    }
                    None => {
                        tally
                            .failures
                            .insert(format!("{:?}:{}", failure.kind, failure.message));
                    }
                }
            }
        }
        tally
    }

    /// Whether nothing fails.
    pub fn passed(&self) -> bool {
        self.failing_checks == 0
    }

    /// Whether this is strictly better than `before`: no more failing
    /// checks, no compiler error where the build passed before, no test
    /// failing that did not before, and fewer failures or
    /// a test module that failed to load now loads. A module that failed
    /// to load (unittest's `unittest.loader._FailedTest.m`, a pytest
    /// collection error of `tests/test_m.py`) stood for all its tests:
    /// once it loads, its failing tests are not new.
    pub fn improves_on(&self, before: &Tally) -> bool {
        let masked: Vec<String> = before.tests.iter().filter_map(|t| unloaded(t)).collect();
        let no_new = self
            .tests
            .iter()
            .all(|t| before.tests.contains(t) || masked.iter().any(|m| t.starts_with(m.as_str())));
        let loads = before
            .tests
            .iter()
            .any(|t| unloaded(t).is_some() && !self.tests.contains(t));
        // The same number of failures, but a parser got further through a
        // file and stopped earlier in none.
        let further = self.failures.len() == before.failures.len()
            && self
                .stopped_at
                .iter()
                .any(|(file, line)| before.stopped_at.get(file).is_some_and(|was| line > was))
            && before
                .stopped_at
                .iter()
                .all(|(file, was)| self.stopped_at.get(file).is_none_or(|line| line >= was));
        // A build that newly fails hides the tests it ran: fewer failures
        // counted is not progress.
        let builds = self.compile_errors == 0 || before.compile_errors > 0;
        self.failing_checks <= before.failing_checks
            && builds
            && no_new
            && (self.failures.len() < before.failures.len() || loads || further)
    }
}

/// The prefix of the test ids a test module that failed to load stands
/// for (`m.` for unittest's `unittest.loader._FailedTest.m`,
/// `tests/test_m.py::` for pytest's collection error of that file), or
/// `None` for a test.
fn unloaded(test: &str) -> Option<String> {
    if let Some(module) = test.strip_prefix("unittest.loader._FailedTest.") {
        return Some(format!("{module}."));
    }
    test.ends_with(".py").then(|| format!("{test}::"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn result(command: &str, passed: bool, output: &str) -> CheckResult {
        CheckResult {
            command: command.to_string(),
            passed,
            exit_code: Some(if passed { 0 } else { 1 }),
            output: output.to_string(),
            duration_ms: 1,
        }
    }

    const TWO_FAIL: &str = "FF\n======================================================================\nFAIL: test_a (test_m.T.test_a)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"test_m.py\", line 5, in test_a\n    self.assertEqual(f(1), 2)\nAssertionError: 3 != 2\n\n======================================================================\nFAIL: test_b (test_m.T.test_b)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"test_m.py\", line 7, in test_b\n    self.assertEqual(f(2), 3)\nAssertionError: 4 != 3\n\n----------------------------------------------------------------------\nRan 2 tests in 0.001s\n\nFAILED (failures=2)\n";

    #[test]
    fn tallies_compare_by_failures_and_tests() {
        let dir = tempfile::tempdir().unwrap();
        let two = Tally::of(
            dir.path(),
            &[result("python3 -m unittest", false, TWO_FAIL)],
        );
        assert_eq!(two.failing_checks, 1);
        assert_eq!(two.failures.len(), 2, "{two:?}");
        let one_output = TWO_FAIL.replace(
            "FAIL: test_b (test_m.T.test_b)",
            "FAIL: test_a (test_m.T.test_a)",
        );
        let one = Tally::of(
            dir.path(),
            &[result("python3 -m unittest", false, &one_output)],
        );
        assert_eq!(one.failures.len(), 1, "{one:?}");
        assert!(one.improves_on(&two));
        assert!(!two.improves_on(&one));
        assert!(!two.improves_on(&two), "the same is not better");
        let other = TWO_FAIL
            .replace("test_b (test_m.T.test_b)", "test_c (test_m.T.test_c)")
            .replace(
                "FAIL: test_a (test_m.T.test_a)",
                "FAIL: test_c (test_m.T.test_c)",
            );
        let new_test = Tally::of(dir.path(), &[result("python3 -m unittest", false, &other)]);
        assert!(
            !new_test.improves_on(&two),
            "a test failing that did not before is not progress: {new_test:?}"
        );
        let unknown = Tally::of(dir.path(), &[result("./check.sh", false, "nope\n")]);
        assert_eq!(unknown.failures.len(), 1);
        let passed = Tally::of(dir.path(), &[result("./check.sh", true, "")]);
        assert!(passed.passed());
    }

    #[test]
    fn a_build_that_newly_fails_is_not_progress() {
        let dir = tempfile::tempdir().unwrap();
        let three = Tally::of(
            dir.path(),
            &[result("python3 -m unittest", false, TWO_FAIL)],
        );
        let broken = Tally {
            failing_checks: 1,
            failures: ["RustCompileError:function is private".to_string()].into(),
            compile_errors: 1,
            ..Tally::default()
        };
        assert!(broken.failures.len() < three.failures.len());
        assert!(!broken.improves_on(&three), "{broken:?}");
        let worse = Tally {
            failures: [
                "RustCompileError:function is private".to_string(),
                "RustCompileError:not found in this scope".to_string(),
            ]
            .into(),
            compile_errors: 2,
            ..broken.clone()
        };
        assert!(
            broken.improves_on(&worse),
            "fewer compiler errors than a build that failed already"
        );
    }

    #[test]
    fn a_module_that_loads_again_is_progress() {
        let tally = |tests: &[&str]| Tally {
            failing_checks: 1,
            failures: tests.iter().map(|t| format!("test:{t}")).collect(),
            tests: tests.iter().map(|t| t.to_string()).collect(),
            ..Tally::default()
        };
        let unloaded = tally(&["unittest.loader._FailedTest.test_docs"]);
        let one_fails = tally(&["test_docs.DocsTest.test_minutes"]);
        assert!(one_fails.improves_on(&unloaded));
        let other_module = tally(&["test_other.T.test_x"]);
        assert!(
            !other_module.improves_on(&unloaded),
            "a new failure elsewhere"
        );
        assert!(!unloaded.improves_on(&one_fails));
        let collection = tally(&["tests/test_cart.py"]);
        let collected = tally(&[
            "tests/test_cart.py::test_add",
            "tests/test_cart.py::test_sum",
        ]);
        assert!(collected.improves_on(&collection));
        assert!(!collection.improves_on(&collection));
    }

    #[test]
    fn a_parser_that_gets_further_is_progress() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.toml"), "a = 1\nb = x\n[c\nd = 2\n").unwrap();
        std::fs::write(
            dir.path().join("show.py"),
            "import tomllib\nwith open('s.toml', 'rb') as f:\n    tomllib.load(f)\n",
        )
        .unwrap();
        let error = |line: u32| {
            format!(
                "Traceback (most recent call last):\n  File \"{}/show.py\", line 3, in <module>\n    tomllib.load(f)\ntomllib.TOMLDecodeError: Invalid value (at line {line}, column 5)\n",
                dir.path().display()
            )
        };
        let tally = |line| {
            Tally::of(
                dir.path(),
                &[result("python3 show.py", false, &error(line))],
            )
        };
        assert_eq!(
            tally(2).stopped_at.get("s.toml"),
            Some(&2),
            "{:?}",
            tally(2)
        );
        assert!(tally(3).improves_on(&tally(2)));
        assert!(!tally(2).improves_on(&tally(3)));
        assert!(!tally(2).improves_on(&tally(2)));
    }
}
