//! "`bash tempstats.sh temps.csv` prints `min: 0.0` although the coldest
//! day was 3.5": a goal that tells what a program prints wrongly and, in
//! the same breath, the right value. The symptom is not the expected
//! output (the prints rule skips it: [`super::clauses::prints`]), but the
//! correction is half of one: the fixed program must print the right
//! value where it printed the wrong one (`min: 3.5`), or, when the goal
//! gives the wrong value bare ("says the TOTAL is 189.25, but the amounts
//! add up to 685.80"), print the right value somewhere. Each becomes a
//! condition: it must pass for a finish, and cannot verify one alone (a
//! program can print the right total for this file and still be wrong for
//! another). Found on dev: three goals of this kind had no check at all,
//! so a run could finish with the program still printing the wrong value,
//! and no failure showed the model what it printed.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::phrases::{single_quote, SENTENCE_END};

/// The rule of "`X` prints `A: wrong` although ... right".
pub const RULE_CORRECTED: &str = "corrected value";

/// A number as a goal writes one: an optional minus, digits, an optional
/// fraction; not part of a date, a time or a version (no digit, `-`, `:`
/// or `.digit` right before or after it).
const NUMBER: &str = r"(-?\d+(?:\.\d+)?)";

/// A program, then a verb that tells what it prints: "`go run .` says",
/// "./report shows", "node streak.js tells me". The program is a
/// backticked command (group 1), a `./path` (group 2) or an interpreter
/// and a script with plain arguments (group 3: the script must exist).
static TELLS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:`([^`\n]+)`|(\./[A-Za-z0-9_./-]+)|\b((?:node|python3?|bash|sh|ruby|perl|php)\s+[A-Za-z0-9_./-]+\.[A-Za-z0-9]+(?:\s+[A-Za-z0-9_./-]+)*?))\s+(?:(?:now|currently|still|always|only|just|then)\s+)?(?:says|tells\s+(?:me|us)|prints|reports|shows|outputs|displays|gives(?:\s+(?:me|us))?|claims|returns|comes\s+out\s+with)\b",
    )
    .ok()
});

/// A wrong value as the goal quotes what was printed: backticks, double
/// or curly quotes (single quotes are too often apostrophes), group 1-3.
static QUOTED_SYMPTOM: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"`([^`\n]{1,120})`|"([^"\n]{1,120})"|“([^”\n]{1,120})”"#).ok());

/// A wrong value said bare: "is 189.25", "was 5", right at the start of
/// what the program tells ("prints 0"), group 1.
static BARE_SYMPTOM: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)(?:^\s*|\b(?:is|are|was|were|as|of|at)\s+|=\s*){NUMBER}"
    ))
    .ok()
});

/// The turn from what is printed to what is true, soon after the wrong
/// value: "although", "but", "where", "whereas", "instead of".
static CONTRAST: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:although|though|but|whereas|where|while|yet|instead\s+of|when\s+in\s+fact)\b",
    )
    .ok()
});

/// How far after the wrong value the contrast may start: "is 5 days
/// (2024-02-10 to 2024-02-14), but" is 33 characters.
const CONTRAST_WITHIN: usize = 80;

/// The right value after the contrast: a number right after "is", "was",
/// "add up to", "should be" (group 1); "2000 was a leap year" gives none.
static RIGHT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:is|are|was|were|be|equals?|makes?|totals?|(?:adds?|comes?|sums?)\s+up\s+to|(?:comes?|sums?|amounts?)\s+to|should\s+(?:print|say|show|read)|gives?)\s+(?:(?:actually|really|only|just|exactly|in\s+fact|about|roughly)\s+)?{NUMBER}"
    ))
    .ok()
});

/// One number in a text (its minus included), for finding the one a
/// quoted symptom holds.
static ANY_NUMBER: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(NUMBER).ok());

/// What a fixed program must print, from one wrong value and its
/// correction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corrected {
    /// The command the goal names, as it is run.
    pub program: String,
    /// The wrong value as the goal gives it (`min: 0.0`, `189.25`).
    pub wrong: String,
    /// What the output must hold instead: the quoted line with the right
    /// number (`min: 3.5`), or the right number alone (`685.80`).
    pub right: String,
    /// The extended regular expression (for `grep -E`) a line of the
    /// output must match.
    pub pattern: String,
}

/// The corrections the goal gives for what its programs print, in order.
/// A program named as an interpreter and a script (`node streak.js`)
/// counts only when the script is in `workspace`.
pub fn corrected(goal: &str, workspace: &Path) -> Vec<Corrected> {
    let Some(tells) = TELLS.as_ref() else {
        return Vec::new();
    };
    let mut found: Vec<Corrected> = Vec::new();
    for c in tells.captures_iter(goal) {
        let program = match (c.get(1), c.get(2), c.get(3)) {
            (Some(quoted), _, _) => quoted.as_str().trim().to_string(),
            (None, Some(path), _) => path.as_str().trim_end_matches('.').to_string(),
            (None, None, Some(bare)) => {
                let text = bare.as_str().trim();
                let script_exists = text
                    .split_whitespace()
                    .nth(1)
                    .is_some_and(|script| workspace.join(script).is_file());
                if !script_exists {
                    continue;
                }
                text.to_string()
            }
            _ => continue,
        };
        if program.is_empty() || super::phrases::is_file_name(&program) {
            continue;
        }
        let Some(whole) = c.get(0) else { continue };
        let rest = &goal[whole.end()..];
        let sentence = SENTENCE_END
            .as_ref()
            .and_then(|end| end.find(rest))
            .map_or(rest, |end| &rest[..end.start()]);
        for (wrong, right) in corrections(sentence) {
            let Some(expected) = expected_text(&wrong, &right) else {
                continue;
            };
            let pattern = pattern_of(&expected, wrong.quoted);
            if !found
                .iter()
                .any(|f| f.program == program && f.pattern == pattern)
            {
                found.push(Corrected {
                    program: program.clone(),
                    wrong: wrong.text,
                    right: expected,
                    pattern,
                });
            }
        }
    }
    found
}

/// A wrong value the goal says a program prints.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Wrong {
    /// The quoted text, or the bare number.
    text: String,
    /// Whether the goal quoted it (a piece of the output as printed).
    quoted: bool,
}

/// The (wrong value, right number) pairs of `sentence`, the words after
/// "X prints": each wrong value followed soon by a contrast, then a right
/// number before the next wrong value.
fn corrections(sentence: &str) -> Vec<(Wrong, String)> {
    let (Some(quoted), Some(bare), Some(contrast), Some(right)) = (
        QUOTED_SYMPTOM.as_ref(),
        BARE_SYMPTOM.as_ref(),
        CONTRAST.as_ref(),
        RIGHT.as_ref(),
    ) else {
        return Vec::new();
    };
    let mut pairs = Vec::new();
    let mut at = 0;
    while at < sentence.len() {
        let rest = &sentence[at..];
        // The next wrong value: a quoted text, or a bare number, whichever
        // comes first.
        let next_quoted = quoted.captures(rest).and_then(|c| {
            let whole = c.get(0)?;
            let text = (1..=3).find_map(|i| c.get(i))?.as_str().to_string();
            Some((whole.start(), whole.end(), text, true))
        });
        let next_bare = bare.captures_iter(rest).find_map(|c| {
            let (whole, number) = (c.get(0)?, c.get(1)?);
            standalone(rest, number.start(), number.end()).then(|| {
                (
                    whole.start(),
                    number.end(),
                    number.as_str().to_string(),
                    false,
                )
            })
        });
        let next = match (next_quoted, next_bare) {
            (Some(q), Some(b)) => Some(if b.0 < q.0 { b } else { q }),
            (q, b) => q.or(b),
        };
        let Some((_, end, text, is_quoted)) = next else {
            break;
        };
        at += end;
        let after = &sentence[at..];
        let Some(turn) = contrast.find(after) else {
            break;
        };
        if turn.start() > CONTRAST_WITHIN {
            continue;
        }
        // The right number comes before the next quoted wrong value.
        let tail_end = quoted
            .find(&after[turn.end()..])
            .map_or(after.len(), |q| turn.end() + q.start());
        let tail = &after[turn.end()..tail_end];
        let number = right
            .captures_iter(tail)
            .filter_map(|c| c.get(1))
            .find(|number| standalone(tail, number.start(), number.end()));
        let Some(number) = number else {
            at += tail_end;
            continue;
        };
        pairs.push((
            Wrong {
                text,
                quoted: is_quoted,
            },
            number.as_str().to_string(),
        ));
        at += turn.end() + number.end();
    }
    pairs
}

/// Whether the number at `start..end` of `text` stands alone: not a
/// piece of a date, a time, a version or a longer number.
fn standalone(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let mut after = text[end..].chars();
    let next = after.next();
    let next_next = after.next();
    let joined_before = before.is_some_and(|c| c.is_ascii_digit() || c == '-' || c == ':');
    let joined_after = match next {
        Some(c) if c.is_ascii_digit() || c == '-' || c == ':' => true,
        Some('.') => next_next.is_some_and(|c| c.is_ascii_digit()),
        _ => false,
    };
    !joined_before && !joined_after
}

/// What the fixed output holds: the quoted wrong text with its one
/// number replaced by `right`, or `right` alone for a bare wrong value;
/// `right` written with as many decimals as the wrong value had (the
/// program prints both with one format). `None` when the quote holds no
/// number or several, the right value needs more decimals than the
/// wrong one shows, or the two are the same.
fn expected_text(wrong: &Wrong, right: &str) -> Option<String> {
    let numbers = ANY_NUMBER.as_ref()?;
    let (before, number, after) = if wrong.quoted {
        let mut found = numbers.find_iter(&wrong.text);
        let (Some(one), None) = (found.next(), found.next()) else {
            return None;
        };
        if !standalone(&wrong.text, one.start(), one.end()) {
            return None;
        }
        (
            &wrong.text[..one.start()],
            one.as_str(),
            &wrong.text[one.end()..],
        )
    } else {
        ("", wrong.text.as_str(), "")
    };
    let right = with_decimals(right, decimals(number))?;
    let same = match (number.parse::<f64>(), right.parse::<f64>()) {
        (Ok(a), Ok(b)) => (a - b).abs() < f64::EPSILON,
        _ => true,
    };
    (!same).then(|| format!("{before}{right}{after}"))
}

/// How many decimals `number` is written with.
fn decimals(number: &str) -> usize {
    number
        .split_once('.')
        .map_or(0, |(_, fraction)| fraction.len())
}

/// `number` written with `places` decimals, by adding zeros; `None` when
/// it has more (rounding would guess at the program's format).
fn with_decimals(number: &str, places: usize) -> Option<String> {
    let has = decimals(number);
    match has.cmp(&places) {
        std::cmp::Ordering::Equal => Some(number.to_string()),
        std::cmp::Ordering::Greater => None,
        std::cmp::Ordering::Less => {
            let mut text = number.to_string();
            if has == 0 {
                text.push('.');
            }
            text.extend(std::iter::repeat_n('0', places - has));
            Some(text)
        }
    }
}

/// The `grep -E` pattern of a line holding `expected`: as written (runs
/// of spaces as one or more), not glued to a word or a number before it,
/// and, when it ends in its number, not followed by more digits.
fn pattern_of(expected: &str, quoted: bool) -> String {
    let mut pattern = String::from("(^|[^[:alnum:].");
    // "3.5" must not be found in "-3.5".
    if !expected.starts_with('-') {
        pattern.push('-');
    }
    pattern.push_str("])");
    let mut spaces = false;
    for c in expected.chars() {
        if c == ' ' {
            if !spaces {
                pattern.push_str(" +");
            }
            spaces = true;
            continue;
        }
        spaces = false;
        if ".[]()*+?{}|^$\\".contains(c) {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    let ends_in_number = expected.ends_with(|c: char| c.is_ascii_digit());
    if ends_in_number || !quoted {
        pattern.push_str("([^0-9.]|[.]([^0-9]|$)|$)");
    }
    pattern
}

/// The condition of `corrected`: run its program (after `make` when
/// make builds it), and fail, showing what it printed (the program run
/// again: no shell variable, which the approval policy cannot see
/// through), unless a line of the output matches the right value's
/// pattern.
pub fn corrected_check(corrected: &Corrected) -> String {
    let message = format!(
        "rebound: the output should show {} where it showed {} (the goal's correction)",
        corrected.right, corrected.wrong
    );
    format!(
        "{program} | grep -qE -e {pattern} || {{ {program} 2>&1 | head -n 40; printf '%s\\n' {message}; false; }}",
        program = corrected.program,
        pattern = single_quote(&corrected.pattern),
        message = single_quote(&message),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rights(goal: &str, workspace: &Path) -> Vec<(String, String)> {
        corrected(goal, workspace)
            .into_iter()
            .map(|c| (c.program, c.right))
            .collect()
    }

    #[test]
    fn a_quoted_wrong_line_and_its_correction_give_the_line_to_print() {
        let dir = tempfile::tempdir().unwrap();
        let goal = "tempstats.sh reports nonsense for April: `bash tempstats.sh temps.csv` prints `min: 0.0` although the coldest day was 3.5, and `avg: 9.2` where the real average is 10.6. Please fix the script; it has to give the right min, max and average for any file in this format, also in winter when all the readings are below zero. temps.csv must stay as it is.";
        assert_eq!(
            rights(goal, dir.path()),
            vec![
                (
                    "bash tempstats.sh temps.csv".to_string(),
                    "min: 3.5".to_string()
                ),
                (
                    "bash tempstats.sh temps.csv".to_string(),
                    "avg: 10.6".to_string()
                ),
            ]
        );
    }

    #[test]
    fn a_bare_wrong_number_gives_the_right_number_at_its_precision() {
        let dir = tempfile::tempdir().unwrap();
        let goal = "`go run .` says the TOTAL in expenses.csv is 189.25, but the amounts in that file add up to 685.80. Payees with a comma in their name are missing.";
        assert_eq!(
            rights(goal, dir.path()),
            vec![("go run .".to_string(), "685.80".to_string())]
        );
        let goal = "`./report` prints 12.50 but the invoices come to 14.";
        assert_eq!(
            rights(goal, dir.path()),
            vec![("./report".to_string(), "14.00".to_string())]
        );
    }

    #[test]
    fn a_script_run_by_its_interpreter_counts_when_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let goal = "node streak.js tells me my longest workout streak is 5 days (2024-02-10 to 2024-02-14), but I worked out every single day from 2024-01-29 to 2024-02-03, which is 6. It looks like a streak gets cut in two.";
        assert!(rights(goal, dir.path()).is_empty(), "no streak.js yet");
        std::fs::write(dir.path().join("streak.js"), "").unwrap();
        assert_eq!(
            rights(goal, dir.path()),
            vec![("node streak.js".to_string(), "6".to_string())]
        );
    }

    #[test]
    fn no_correction_no_program_or_no_number_gives_nothing() {
        let dir = tempfile::tempdir().unwrap();
        for goal in [
            // The right value is no number after "was".
            "The calendar crate says February 2000 had 28 days, but 2000 was a leap year.",
            // What the program should print is the prints rule's.
            "`python3 wc.py sample.txt` should print `4 16 81`, but the word count is wrong.",
            // No program named.
            "Requests wait 2500 seconds instead of 2.5.",
            // A quote with several numbers: which one is wrong is unclear.
            "`go run .` shows every parcel at `2024-03-02 05:10  Oxford depot`, but PX-1042 is 3 stops further.",
            // The contrast gives no number.
            "`./bars` prints `cherry: ` although cherry got a vote.",
            // The same value.
            "`./sum` says the total is 5, but it is 5.0.",
        ] {
            assert!(rights(goal, dir.path()).is_empty(), "{goal}");
        }
    }

    #[test]
    fn more_decimals_than_the_program_prints_are_not_guessed() {
        let dir = tempfile::tempdir().unwrap();
        let goal = "`./avg` prints `avg: 9.2` although the real average is 10.63.";
        assert!(rights(goal, dir.path()).is_empty());
    }

    fn passes(pattern: &str, output: &str) -> bool {
        let status = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "printf '%s\\n' {} | grep -qE -e {}",
                single_quote(output),
                single_quote(pattern)
            ))
            .status()
            .unwrap();
        status.success()
    }

    #[test]
    fn the_pattern_finds_the_right_value_and_not_a_longer_or_negative_one() {
        let quoted = pattern_of("min: 3.5", true);
        assert!(passes(&quoted, "days: 7\nmin: 3.5\nmax: 17.2"));
        assert!(passes(&quoted, "min:   3.5"));
        assert!(!passes(&quoted, "min: 3.55"));
        assert!(!passes(&quoted, "min: -3.5"));
        assert!(!passes(&quoted, "dmin: 3.5"));
        assert!(!passes(&quoted, "min: 0.0\nmax: 3.5"));
        let bare = pattern_of("685.80", false);
        assert!(passes(&bare, "TOTAL                           685.80"));
        assert!(!passes(&bare, "TOTAL 1685.80"));
        assert!(!passes(&bare, "TOTAL 685.801"));
        let six = pattern_of("6", false);
        assert!(passes(
            &six,
            "longest streak: 6 days (2024-01-29 to 2024-02-03)"
        ));
        assert!(passes(&six, "longest: 6."));
        assert!(!passes(&six, "longest streak: 6.5 days"));
        assert!(!passes(&six, "from 2024-02-06: 16 days"));
        let negative = pattern_of("min: -4.5", true);
        assert!(passes(&negative, "min: -4.5"));
        assert!(!passes(&negative, "min: -4.55"));
    }

    #[test]
    fn the_check_fails_showing_the_output_and_passes_on_the_right_value() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("t.sh"), "echo 'min: 0.0'\n").unwrap();
        let goal = "`bash t.sh` prints `min: 0.0` although the coldest day was 3.5.";
        let found = corrected(goal, dir.path());
        assert_eq!(found.len(), 1);
        let check = corrected_check(&found[0]);
        let run = |dir: &Path| {
            std::process::Command::new("bash")
                .arg("-c")
                .arg(&check)
                .current_dir(dir)
                .output()
                .unwrap()
        };
        let before = run(dir.path());
        assert!(!before.status.success());
        let text = String::from_utf8_lossy(&before.stdout);
        assert!(text.contains("min: 0.0"), "{text}");
        assert!(
            text.contains("should show min: 3.5 where it showed min: 0.0"),
            "{text}"
        );
        std::fs::write(dir.path().join("t.sh"), "echo 'min: 3.5'\n").unwrap();
        assert!(run(dir.path()).status.success());
        // No guard stops it: a shell variable holding the output was
        // forbidden as a possible `/proc` read.
        crate::checks::assert_not_forbidden(&check);
    }
}
