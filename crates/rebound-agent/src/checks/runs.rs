//! "`./wordstat sample.txt` should then print the line, word and
//! longest-word counts": a command the goal says prints something it
//! describes in words, not quotes. The harness cannot tell the right
//! output from the words, but it can tell that the command runs (exit 0)
//! and prints something: a condition a finish needs, never evidence
//! alone. Found on dev: an edit deleted the Makefile's rule for the
//! program the goal named, `make` passed, and nothing ran the program,
//! so the run finished (unverified) with no program at all.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::phrases::{PROGRAM_PRINTS, QUOTED_TEXT};

/// The rule of "`X` should print <words>".
pub const RULE_RUNS: &str = "runs and prints";

/// "`X` should then print", "./x prints", "`X` must output", "`X` lists":
/// the program is group 1 (backticked) or 2 (a `./path`); what follows
/// the verb is group 3.
static PRINTS_WORDS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"{PROGRAM_PRINTS}(?:print|prints|output|outputs|display|displays|show|shows|list|lists|report|reports)\b([^\n]{{0,12}})"
    ))
    .ok()
});

/// A quoted value right after the verb: the "prints 'Y'" rule's.
static QUOTED_NEXT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(&format!(r"^\s*(?:exactly|out)?\s*:?\s*{QUOTED_TEXT}")).ok());

/// The commands `goal` says print something it describes in words (not a
/// quoted output: that is [`super::clauses::prints`]), whose program runs
/// here (on `PATH`, or a `./path`), each once.
pub fn described_outputs(goal: &str, workspace: &Path) -> Vec<String> {
    let (Some(regex), Some(quoted)) = (PRINTS_WORDS.as_ref(), QUOTED_NEXT.as_ref()) else {
        return Vec::new();
    };
    let mut commands: Vec<String> = Vec::new();
    for captures in regex.captures_iter(goal) {
        let Some(program) = captures.get(1).or_else(|| captures.get(2)) else {
            continue;
        };
        let after = captures.get(3).map_or("", |m| m.as_str());
        // The rest of the line, for a quoted value that starts past the
        // twelve characters read.
        let rest = &goal[captures.get(0).map_or(0, |m| m.end())..];
        let line_rest = format!("{after}{}", rest.lines().next().unwrap_or(""));
        if line_rest.trim_end().ends_with(':') || quoted.is_match(&line_rest) {
            // A quoted output, or a block after "prints:": the prints rule's.
            continue;
        }
        let command = program
            .as_str()
            .trim()
            .trim_end_matches(['.', ','])
            .to_string();
        if command.is_empty()
            || super::phrases::is_file_name(&command)
            || !super::goal::runnable(&command, workspace)
            || commands.contains(&command)
        {
            continue;
        }
        commands.push(command);
    }
    commands
}

/// The check that `command` exits 0 and prints something: its last 40
/// lines are shown, and `grep .` fails when none has a character. Only
/// commands the approval policy allows as they are: no shell variable
/// (an expansion it cannot read), `tail` (it reads the whole output, so
/// a long one breaks no pipe) rather than `sed`.
pub fn runs_check(command: &str) -> String {
    format!("set -o pipefail; {{ {command}; }} | tail -n 40 | grep .")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::checks::{assert_allowed, test_bash as bash};

    fn described(goal: &str) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        described_outputs(goal, dir.path())
    }

    #[test]
    fn a_command_said_to_print_what_words_describe_is_found() {
        assert_eq!(
            described("Fix the Makefile so that `make` builds ./wordstat; `./wordstat sample.txt` should then print the line, word and longest-word counts of sample.txt."),
            vec!["./wordstat sample.txt"]
        );
        assert_eq!(
            described("`cargo run` should print the three most common words of words.txt"),
            vec!["cargo run"]
        );
        assert_eq!(
            described("Make ./report list the failed tests."),
            vec!["./report"]
        );
    }

    #[test]
    fn a_quoted_output_a_block_a_file_name_or_a_missing_program_is_not() {
        for goal in [
            "`./hello` should print 'hello, world'",
            "./hello prints \"hello, world\"",
            "`python3 calc.py 2 3` must print exactly: `5`",
            "`./stats` should print:\n  mean 2\n",
            "`bash greet.sh` must print exactly:\n\nHello, Ana!\n",
            "`calc.py` prints the sum",
            "`no-such-program-here --x` prints the sum",
        ] {
            assert!(described(goal).is_empty(), "{goal}");
        }
    }

    #[test]
    fn the_check_needs_exit_0_and_some_output() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(bash(root, &runs_check("echo 3 lines")).status.success());
        assert!(!bash(root, &runs_check("true")).status.success());
        let out = bash(root, &runs_check("echo partial; exit 3"));
        assert_eq!(out.status.code(), Some(3));
        assert!(!bash(root, &runs_check("./missing")).status.success());
        // Long output is fine (no broken pipe), and it shows its end.
        let long = bash(root, &runs_check("seq 1 100000"));
        assert!(long.status.success(), "{long:?}");
        assert_eq!(String::from_utf8_lossy(&long.stdout).lines().count(), 40);
        // The harness's own safety rules let it run without asking (a
        // command the goal names is judged as any).
        assert_allowed(&runs_check("ls"));
    }
}
