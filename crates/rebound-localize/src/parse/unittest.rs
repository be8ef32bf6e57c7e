//! `unittest` reports: the `FAIL:` and `ERROR:` blocks between `=====`
//! rules, each with its test id and traceback.

use super::python::{self, read_traceback};
use super::{Claims, Context, Found};
use crate::failure::{Failure, FailureKind};
use crate::text::one_line;

/// Reads the `FAIL:` and `ERROR:` blocks.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, context: &Context) -> Vec<Found> {
    let mut found = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        let Some(test) = is_rule(&lines[i], '=')
            .then(|| block_test(&lines[i + 1]))
            .flatten()
        else {
            i += 1;
            continue;
        };
        let start = i;
        let body_start = (i + 2..lines.len().min(i + 8))
            .find(|&j| is_rule(&lines[j], '-'))
            .map_or(i + 2, |j| j + 1);
        let end = (body_start..lines.len())
            .find(|&j| is_rule(&lines[j], '=') || is_rule(&lines[j], '-'))
            .unwrap_or(lines.len());
        let body = &lines[body_start..end];
        let traceback = body
            .iter()
            .position(|l| python::is_header(l))
            .and_then(|at| read_traceback(body, at));
        let mut failure = match traceback {
            Some(traceback) => python::failure(&traceback, FailureKind::UnittestFailure, context),
            None => Failure::new(
                FailureKind::UnittestFailure,
                one_line(body.iter().map(String::as_str)),
            ),
        };
        failure.test = Some(test);
        claims.claim(start..end);
        found.push(Found::at(start, failure));
        i = end;
    }
    found
}

/// Whether `line` is a rule of at least 20 `c`s.
fn is_rule(line: &str, c: char) -> bool {
    let line = line.trim_end();
    line.len() >= 20 && line.chars().all(|x| x == c)
}

/// The test id of a block's first line: `FAIL: test_sub (test_calc.T.test_sub)`
/// (Python 3.11 and later) or `ERROR: test_sub (test_calc.T)` (earlier,
/// the method name is appended).
fn block_test(line: &str) -> Option<String> {
    let rest = line
        .strip_prefix("FAIL: ")
        .or_else(|| line.strip_prefix("ERROR: "))?;
    let (name, after) = rest.split_once(" (")?;
    let id = after.split_once(')').map_or(after, |(id, _)| id);
    if id.is_empty() || id.contains(' ') {
        return Some(name.to_string());
    }
    if id == name || id.ends_with(&format!(".{name}")) {
        Some(id.to_string())
    } else {
        Some(format!("{id}.{name}"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::path::Path;

    use super::*;
    use crate::parse::parse as parse_output;

    #[test]
    fn test_ids_of_each_python() {
        assert_eq!(
            block_test("FAIL: test_sub (test_calc.T.test_sub)").as_deref(),
            Some("test_calc.T.test_sub")
        );
        assert_eq!(
            block_test("ERROR: test_sub (test_calc.T)").as_deref(),
            Some("test_calc.T.test_sub")
        );
        assert_eq!(
            block_test("FAIL: test_x (m.T.test_x) (i=1)").as_deref(),
            Some("m.T.test_x")
        );
        assert_eq!(block_test("FAILED (failures=1)"), None);
    }

    #[test]
    fn a_block_without_a_traceback_keeps_its_text() {
        let output = "======================================================================\nFAIL: test_x (m.T.test_x)\n----------------------------------------------------------------------\nsomething odd\n\n----------------------------------------------------------------------\nRan 1 test in 0.001s\n\nFAILED (failures=1)\n";
        let failures = parse_output("python3 -m unittest", output, Path::new("/nonexistent"));
        let mut expected = Failure::new(FailureKind::UnittestFailure, "something odd");
        expected.test = Some("m.T.test_x".into());
        assert_eq!(failures, [expected]);
    }
    #[test]
    fn carets_and_source_lines_are_not_the_message() {
        let output = "======================================================================\nERROR: test_c (test_users.UsersTest.test_c)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"/w/test_users.py\", line 11, in test_c\n    self.assertEqual(contact_line(self.users[0]), \"Ada\")\n                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  File \"/w/users.py\", line 13, in contact_line\n    return f\"{user['name']} ({user['phone_number']})\"\n                              ~~~~^^^^^^^^^^^^^^^^\nKeyError: 'phone_number'\n\n----------------------------------------------------------------------\nRan 3 tests in 0.001s\n\nFAILED (errors=1)\n";
        let failures = parse_output("python3 -m unittest", output, Path::new("/w"));
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert_eq!(failures[0].message, "KeyError: 'phone_number'");
    }
}
