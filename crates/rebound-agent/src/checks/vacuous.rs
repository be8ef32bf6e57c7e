//! A test run that ran no test: it exits 0, and proves nothing. Python's
//! unittest says `Ran 0 tests ... OK` when its discovery finds no test
//! file (`*_test.py` instead of `test_*.py`), node's test runner reports
//! `tests 0`, `go test` reports `[no test files]` for every package. Such
//! a check counts as failed, with the reason, so that it is something the
//! run must fix rather than the evidence that it is done.

/// Why `output` (a check's output, after a success) shows a test run
/// that ran no test; `None` when it ran some, or is not a test report
/// this reads.
pub fn no_tests_ran(output: &str) -> Option<&'static str> {
    let lines = || output.lines().map(str::trim);
    // unittest: "Ran 0 tests in 0.000s", and no run of more.
    let unittest: Vec<u64> = lines()
        .filter_map(|l| l.strip_prefix("Ran "))
        .filter_map(|rest| rest.split_once(' '))
        .filter(|(_, word)| word.starts_with("test"))
        .filter_map(|(n, _)| n.parse().ok())
        .collect();
    if !unittest.is_empty() && unittest.iter().all(|n| *n == 0) {
        return Some("the test run found no test (\"Ran 0 tests\")");
    }
    // node --test: "# tests 0" (TAP) or "ℹ tests 0" (spec).
    let node: Vec<u64> = lines()
        .filter_map(|l| {
            l.strip_prefix("# tests ")
                .or_else(|| l.strip_prefix("ℹ tests "))
        })
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    if !node.is_empty() && node.iter().all(|n| *n == 0) {
        return Some("the test run found no test (\"tests 0\")");
    }
    // go test: every package line says it has no test files or no test.
    let packages: Vec<&str> = lines()
        .filter(|l| l.starts_with("ok ") || l.starts_with("ok\t") || l.starts_with('?'))
        .collect();
    if !packages.is_empty()
        && packages
            .iter()
            .all(|l| l.ends_with("[no test files]") || l.ends_with("[no tests to run]"))
    {
        return Some("the test run found no test (\"[no test files]\")");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_no_test_are_told_from_runs_of_some() {
        let empty = [
            "\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nOK\n",
            "TAP version 13\n# tests 0\n# suites 0\n# pass 0\n# fail 0\n",
            "ℹ tests 0\nℹ suites 0\nℹ pass 0\n",
            "?   \texample.com/x\t[no test files]\n?   \texample.com/x/y\t[no test files]\n",
            "testing: warning: no tests to run\nok  \tx\t0.002s [no tests to run]\n",
        ];
        for output in empty {
            assert!(no_tests_ran(output).is_some(), "{output}");
        }
        let some = [
            "...\n----------------------------------------------------------------------\nRan 3 tests in 0.001s\n\nOK\n",
            "# tests 9\n# pass 9\n",
            "?   \tx/cmd\t[no test files]\nok  \tx/size\t0.003s\n",
            // Not a test report: a program that prints these words.
            "Ran 0 miles today\n",
            "build ok\n",
            "",
        ];
        for output in some {
            assert_eq!(no_tests_ran(output), None, "{output}");
        }
    }
}
