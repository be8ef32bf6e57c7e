//! A failed check a test program printed with its place, in no framework's
//! format: `FAIL test_strutil.c:19: starts_with("makefile", "make")`,
//! `test.sh:12: expected 3, got 2`, `assertion failed at tests/t.c:9`.
//! A line is read only when it says it failed and names a test file of
//! the workspace with a line number; the rest of the output stays for the
//! other parsers (and for the unknown tail).

use std::sync::LazyLock;

use regex::Regex;

use super::{Claims, Context, Found};
use crate::failure::{Failure, FailureKind, Place};
use crate::text::one_line;

/// `path:line` (with an optional column): the path has an extension.
static PLACE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?:^|[\s(\[,])((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]+\.[A-Za-z0-9]{1,5}):([0-9]{1,7})(?::[0-9]{1,5})?\b").ok()
});

/// Words that say a line reports a failure.
const FAILED: &[&str] = &[
    "fail",
    "failed",
    "failure",
    "assert",
    "assertion",
    "expected",
    "error",
    "not ok",
];

/// The most such failures read from one output.
const MAX_FOUND: usize = 20;

/// Reads each unclaimed line that says it failed and names a test file
/// of the workspace at a line, as a [`FailureKind::TestAssertion`] located
/// there.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, context: &Context) -> Vec<Found> {
    let Some(place) = PLACE.as_ref() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if found.len() >= MAX_FOUND || claims.is_claimed(index) {
            continue;
        }
        let lower = line.to_lowercase();
        let says_failed = FAILED.iter().any(|word| {
            lower
                .split(|c: char| !c.is_alphanumeric() && c != ' ')
                .any(|part| {
                    part.split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                        .contains(word)
                })
        });
        if !says_failed {
            continue;
        }
        let Some((file, number)) = place.captures_iter(line).find_map(|c| {
            let file = c.get(1)?.as_str();
            let number: u32 = c.get(2)?.as_str().parse().ok()?;
            crate::is_test_file(file).then_some((file.to_string(), number))
        }) else {
            continue;
        };
        let location = context.location(&file, number, None, None);
        if location.place != Place::Workspace {
            continue;
        }
        claims.claim(index..index + 1);
        let mut failure = Failure::new(FailureKind::TestAssertion, one_line([line.trim()]));
        failure.location = Some(location);
        found.push(Found::at(index, failure));
    }
    found
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::failure::FailureKind;
    use crate::parse::parse as parse_output;

    #[test]
    fn a_failed_check_printed_with_its_test_files_place_is_located_there() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("test_strutil.c"),
            "int main(void) { return 0; }\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("strutil.c"), "\n").unwrap();
        let output = "cc -o test_strutil test_strutil.c strutil.c\n./test_strutil\nFAIL test_strutil.c:19: starts_with(\"makefile\", \"make\")\nFAIL test_strutil.c:21: starts_with(\"anything\", \"\")\n3 of 9 checks failed\nmake: *** [Makefile:5: test] Error 1\n";
        let failures = parse_output("make test", output, dir.path());
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert!(failures
            .iter()
            .all(|f| f.kind == FailureKind::TestAssertion));
        let location = failures[0].location.as_ref().unwrap();
        assert_eq!(
            (location.file.as_str(), location.line),
            ("test_strutil.c", 19)
        );
        assert!(failures[0]
            .message
            .contains("starts_with(\"makefile\", \"make\")"));
    }

    #[test]
    fn the_failed_line_leads_to_the_function_it_calls() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("test_strutil.c"),
            "#include \"strutil.h\"\nint main(void) {\n    check(starts_with(\"makefile\", \"make\"), 3);\n    return 0;\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("strutil.c"),
            "int starts_with(const char *s, const char *p) {\n    return s == p;\n}\n",
        )
        .unwrap();
        let failures = parse_output(
            "make test",
            "FAIL test_strutil.c:3: starts_with(\"makefile\", \"make\")\n",
            dir.path(),
        );
        let suspects = crate::locate(dir.path(), &failures);
        assert_eq!(suspects.len(), 1, "{suspects:?}");
        assert_eq!(suspects[0].file, "strutil.c");
        assert_eq!(suspects[0].span.as_ref().unwrap().name, "starts_with");
    }

    #[test]
    fn a_place_in_a_line_that_reports_no_failure_or_in_code_under_test_is_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("test_a.c"), "\n").unwrap();
        std::fs::write(dir.path().join("a.c"), "\n").unwrap();
        let failures = parse_output(
            "make test",
            "running test_a.c:3: ok\nFAIL a.c:3: wrong\n",
            dir.path(),
        );
        assert!(
            failures
                .iter()
                .all(|f| f.kind != FailureKind::TestAssertion),
            "{failures:?}"
        );
    }
}
