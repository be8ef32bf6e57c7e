//! "`X` should print `A` and end with `B`": lines a longer output must
//! hold, and its last line. A goal that quotes one line of a program's
//! output and how the output ends does not quote the whole output, so
//! the "prints" rule's comparison of the whole output
//! ([`super::clauses::prints`]) cannot be its check: this rule checks
//! that each quoted line is printed and that the last line is the one
//! quoted. Found on dev: "it should print `NJ 40466 ...` and end with
//! `longest: ...`" had no check, and the planner's own check of it left
//! out the line's first word, so no fix could pass it.

use std::sync::LazyLock;

use regex::Regex;

use super::clauses::{listed, printing_program, PRINTS};
use super::phrases::{quoted_value, single_quote, PROGRAM_PRINTS, QUOTED_TEXT};

/// The rule of "`X` prints `A` and ends with `B`".
pub const RULE_OUTPUT_LINES: &str = "output lines";

/// "and end with `B`", ", and ends with the line `B`", "then finishes
/// with `B`": the last line, right after the printed values (group 1-4).
static ENDS_WITH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)^\s*,?\s*(?:and\s+|then\s+)*(?:(?:should|must|will|it|to)\s+)*(?:end|ends|finish|finishes)\s+with\s+(?:the\s+line\s+|a\s+line\s+)?:?\s*{QUOTED_TEXT}"
    ))
    .ok()
});

/// "`X` should end with `B`": the last line alone.
static PROGRAM_ENDS_WITH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"{PROGRAM_PRINTS}(?:end|ends|finish|finishes)\s+with\s+(?:the\s+line\s+|a\s+line\s+)?:?\s*{QUOTED_TEXT}"
    ))
    .ok()
});

/// What a program's output must hold: these lines somewhere, and this
/// last line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputLines {
    /// The command the goal quotes.
    pub program: String,
    /// Lines the output must have, in any place.
    pub lines: Vec<String>,
    /// The output's last line.
    pub last: String,
}

/// Whether `rest`, the goal after a printed value, says next how the
/// output ends ("and end with `B`").
pub(super) fn ends_with_next(rest: &str) -> bool {
    ENDS_WITH.as_ref().is_some_and(|ends| ends.is_match(rest))
}

/// The goal's "`X` prints `A` [, `A2` and `A3`] and ends with `B`" and
/// "`X` should end with `B`" clauses. The program is a backticked
/// command or a `./path`, as the prints rule's.
pub fn output_lines(goal: &str) -> Vec<OutputLines> {
    let (Some(prints), Some(ends), Some(alone)) = (
        PRINTS.as_ref(),
        ENDS_WITH.as_ref(),
        PROGRAM_ENDS_WITH.as_ref(),
    ) else {
        return Vec::new();
    };
    let with_lines = prints.captures_iter(goal).filter_map(|c| {
        let program = c.get(1).or_else(|| c.get(2))?.as_str();
        let rest = &goal[c.get(0)?.end()..];
        let (lines, _, at) = listed(quoted_value(&c, 3)?, rest);
        let last = quoted_value(&ends.captures(&rest[at..])?, 1)?;
        Some((program, lines, last))
    });
    let alone = alone.captures_iter(goal).filter_map(|c| {
        let program = c.get(1).or_else(|| c.get(2))?.as_str();
        Some((program, Vec::new(), quoted_value(&c, 3)?))
    });
    let mut found: Vec<OutputLines> = Vec::new();
    for (program, lines, last) in with_lines.chain(alone) {
        let Some(program) = printing_program(program) else {
            continue;
        };
        let lines: Vec<String> = lines
            .into_iter()
            .filter(|line| !line.trim().is_empty())
            .collect();
        if last.trim().is_empty() || found.iter().any(|f| f.program == program) {
            continue;
        }
        found.push(OutputLines {
            program,
            lines,
            last,
        });
    }
    found
}

/// The command that runs `expected.program` and passes when its output
/// (standard output) has each of the lines and ends with the last one.
/// A failure says which line is missing or what the last line should
/// be, then shows the output, so a repair sees what to change. It holds
/// no shell variable or command substitution (the approval policy asks
/// about what it cannot know before the line runs), so the program runs
/// once per line checked.
pub fn output_lines_check(expected: &OutputLines) -> String {
    let program = &expected.program;
    let mut parts: Vec<String> = expected
        .lines
        .iter()
        .map(|line| {
            let said = single_quote(&format!("missing the line: {line}"));
            let line = single_quote(line);
            format!("{{ {program} | grep -Fqx -e {line} || {{ echo {said}; false; }}; }}")
        })
        .collect();
    let said = single_quote(&format!("the last line should be: {}", expected.last));
    let last = single_quote(&expected.last);
    parts.push(format!(
        "{{ {program} | tail -n 1 | grep -Fqx -e {last} || {{ echo {said}; false; }}; }}"
    ));
    format!(
        "{} || {{ echo 'the output was:'; {program}; false; }}",
        parts.join(" && ")
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::checks::{assert_allowed, test_bash as bash};

    const NIGHT: &str = "`python3 trips.py` gets the night trains wrong: it should print `NJ 1  A -> B  21:40-07:49  10h09` and end with `longest: NJ 2 A -> C (13h13)`, but every train that arrives after midnight gets a negative time. Fix trips.py.";

    #[test]
    fn a_printed_line_and_the_last_line_are_read_from_the_goal() {
        assert_eq!(
            output_lines(NIGHT),
            vec![OutputLines {
                program: "python3 trips.py".to_string(),
                lines: vec!["NJ 1  A -> B  21:40-07:49  10h09".to_string()],
                last: "longest: NJ 2 A -> C (13h13)".to_string(),
            }]
        );
        // The whole-output rule leaves it to this one: one line of a
        // longer output is not the whole of it.
        assert!(crate::checks::clauses::prints(NIGHT).is_empty());
        assert_eq!(
            output_lines(
                "`./report` prints `a: 1`, `b: 2` and then ends with the line `total: 3`."
            ),
            vec![OutputLines {
                program: "./report".to_string(),
                lines: vec!["a: 1".to_string(), "b: 2".to_string()],
                last: "total: 3".to_string(),
            }]
        );
        assert_eq!(
            output_lines("After the fix `bash sum.sh` should end with `sum: 12`."),
            vec![OutputLines {
                program: "bash sum.sh".to_string(),
                lines: Vec::new(),
                last: "sum: 12".to_string(),
            }]
        );
        // A whole output is the prints rule's, not this one's.
        assert!(output_lines("`./x` should print `a: 1`.").is_empty());
        assert!(output_lines("`./x` should print `a: 1`. The file ends with `z`.").is_empty());
        assert!(output_lines("`./x` should print `a` and end with ``.").is_empty());
        assert!(
            output_lines("`calc.py` should end with `total: 3`.").is_empty(),
            "a file, not a command"
        );
    }

    #[test]
    fn a_pronoun_after_a_clause_about_the_program_names_it() {
        assert_eq!(
            crate::checks::clauses::prints(
                "`python3 a.py` is wrong for leap years: it should print `29`."
            ),
            vec![("python3 a.py".to_string(), "29".to_string())]
        );
        // Not across a sentence, nor past another quoted command.
        assert!(
            crate::checks::clauses::prints("`python3 a.py` is wrong. It should print `29`.")
                .is_empty()
        );
        assert_eq!(
            crate::checks::clauses::prints("Run `make`, then `./app` fails; it should print `ok`."),
            vec![("./app".to_string(), "ok".to_string())]
        );
        // "should not print" is no output to compare.
        assert!(
            crate::checks::clauses::prints("`./app` is noisy: it should not print `debug`.")
                .is_empty()
        );
    }

    #[test]
    fn the_check_passes_on_the_lines_and_the_last_line_and_says_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let expected = OutputLines {
            program: "cat out.txt".to_string(),
            lines: vec!["NJ 1  A -> B  10h09".to_string(), "it's $HOME".to_string()],
            last: "longest: NJ 2 (13h13)".to_string(),
        };
        let check = output_lines_check(&expected);
        assert_allowed(&check);
        let write = |body: &str| std::fs::write(dir.path().join("out.txt"), body).unwrap();
        write("head\nNJ 1  A -> B  10h09\nit's $HOME\nlongest: NJ 2 (13h13)");
        let out = bash(dir.path(), &check);
        assert!(out.status.success(), "{out:?}");
        // A line with different spacing is not the line.
        write("NJ 1 A -> B 10h09\nit's $HOME\nlongest: NJ 2 (13h13)\n");
        let out = bash(dir.path(), &check);
        assert!(!out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(
                "missing the line: NJ 1  A -> B  10h09\nthe output was:\nNJ 1 A -> B 10h09"
            ),
            "{text}"
        );
        // The right lines, but not last.
        write("longest: NJ 2 (13h13)\nNJ 1  A -> B  10h09\nit's $HOME\n");
        let out = bash(dir.path(), &check);
        assert!(!out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(
                "the last line should be: longest: NJ 2 (13h13)\nthe output was:\nlongest"
            ),
            "{text}"
        );
        // A program that prints nothing fails.
        write("");
        assert!(!bash(dir.path(), &check).status.success());
    }
}
