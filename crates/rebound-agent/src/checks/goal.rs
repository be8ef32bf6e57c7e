//! The commands a goal quotes as its evidence: `` `python3 -m unittest`
//! must succeed ``.

use std::path::Path;

/// Words that say a quoted command's success is what the goal asks for.
const SUCCESS_WORDS: &[&str] = &[
    "pass",
    "passes",
    "passing",
    "succeed",
    "succeeds",
    "success",
    "successfully",
    "green",
    "exit 0",
    "exits 0",
    "exit code 0",
    "exit status 0",
    "works",
    "working",
    "clean",
];

/// Words that report a quoted command's failure as the problem to fix
/// ("`make` stops with ...", "`bash backup.sh` fails on ..."): its
/// success is what the goal asks for.
const FAILURE_WORDS: &[&str] = &[
    "fails", "fail", "failing", "crashes", "crash", "stops", "errors", "broken", "breaks",
    "rejects", "dies", "died", "raises", "throws", "panics", "aborts",
];

/// The commands `goal` quotes in backticks in a sentence that asks for
/// their success ("must pass", "succeeds", "exits 0"...) or reports their
/// failure as the problem ("fails", "crashes", "stops with"...), and whose
/// program exists: on `PATH`, or a path (`./build.sh`) that is or will be
/// in `workspace`. File names (`calc.py`) and code (`a - b`) are not
/// commands.
pub fn quoted_commands(goal: &str, workspace: &Path) -> Vec<String> {
    let mut commands = Vec::new();
    for (start, end) in backtick_spans(goal) {
        let command = goal[start + 1..end - 1].trim();
        if command.is_empty() || commands.iter().any(|c| c == command) {
            continue;
        }
        let sentence = sentence_around(goal, start, end);
        if !has_phrase(&sentence, SUCCESS_WORDS) && !has_phrase(&sentence, FAILURE_WORDS) {
            continue;
        }
        if runnable(command, workspace) {
            commands.push(command.to_string());
        }
    }
    commands
}

/// The workspace programs `goal` names by path (`./stats prints the
/// mean`, `` `./hello` ``): a goal that says what one of them does asks
/// for more than checks that never run it can show.
pub fn named_programs(goal: &str) -> Vec<String> {
    let mut programs: Vec<String> = Vec::new();
    let words =
        goal.split(|c: char| c.is_whitespace() || matches!(c, '`' | '"' | '\'' | '(' | ','));
    for word in words {
        let word = word.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
        let Some(rest) = word.strip_prefix("./") else {
            continue;
        };
        let is_path = !rest.is_empty()
            && rest
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
        if is_path && !programs.iter().any(|p| p == word) {
            programs.push(word.to_string());
        }
    }
    programs
}

/// Whether `command` runs `program` (a `./path` from [`named_programs`]):
/// one of its words is that path, with or without the `./`.
pub fn runs_program(command: &str, program: &str) -> bool {
    let bare = program.trim_start_matches("./");
    command
        .split(|c: char| c.is_whitespace() || ";&|()$`\"'<>=".contains(c))
        .any(|word| word == program || word == bare || word.ends_with(&format!("/{bare}")))
}

/// Byte ranges of single-backtick spans (with their backticks) on one line.
fn backtick_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut open: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match (c, open) {
            ('`', None) => open = Some(i),
            ('`', Some(start)) => {
                if i > start + 1 {
                    spans.push((start, i + 1));
                }
                open = None;
            }
            ('\n', Some(_)) => open = None,
            _ => {}
        }
    }
    spans
}

/// The sentence around the span `start..end`, with every quoted span
/// blanked out (a command's own dots do not end a sentence), lowercase.
/// Sentence ends are ASCII, so the text is scanned as bytes.
fn sentence_around(text: &str, start: usize, end: usize) -> String {
    let mut masked = text.as_bytes().to_ascii_lowercase();
    for (from, to) in backtick_spans(text) {
        masked[from..to].fill(b' ');
    }
    let ends_sentence = |i: usize| match masked[i] {
        b'\n' | b';' | b'!' | b'?' => true,
        b'.' => masked.get(i + 1).is_none_or(u8::is_ascii_whitespace),
        _ => false,
    };
    let from = (0..start)
        .rev()
        .find(|&i| ends_sentence(i))
        .map_or(0, |i| i + 1);
    let to = (end..masked.len())
        .find(|&i| ends_sentence(i))
        .unwrap_or(masked.len());
    String::from_utf8_lossy(&masked[from..to]).to_string()
}

/// Whether `sentence` has one of `phrases` as whole words.
fn has_phrase(sentence: &str, phrases: &[&str]) -> bool {
    let words: Vec<&str> = sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    phrases.iter().any(|phrase| {
        let phrase: Vec<&str> = phrase.split(' ').collect();
        words
            .windows(phrase.len())
            .any(|window| window == phrase.as_slice())
    })
}

/// The program a command line runs: its first word after any leading
/// `NAME=value` assignments.
pub(crate) fn program(command: &str) -> Option<&str> {
    command.split_whitespace().find(|word| !is_assignment(word))
}

/// Whether `command`'s program can run: found on `PATH`, or a path.
pub(crate) fn runnable(command: &str, workspace: &Path) -> bool {
    let Some(program) = program(command) else {
        return false;
    };
    if program.contains('/') {
        return program.starts_with("./") || workspace.join(program).exists();
    }
    super::detect::on_path(program)
}

/// `NAME=value`, as a command's leading environment assignment.
pub(crate) fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(goal: &str) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        quoted_commands(goal, dir.path())
    }

    #[test]
    fn a_quoted_command_that_must_succeed_is_a_check() {
        assert_eq!(
            quoted("Make the tests pass: `python3 -m unittest` must succeed. Fix calc.py; do not change test_calc.py."),
            vec!["python3 -m unittest"]
        );
        assert_eq!(quoted("Fix the build so that `make` exits 0"), vec!["make"]);
        assert_eq!(
            quoted("`bash ./check.sh` should pass after you write check.sh"),
            vec!["bash ./check.sh"]
        );
    }

    #[test]
    fn a_quoted_command_whose_failure_is_the_problem_is_a_check() {
        assert_eq!(
            quoted("`python3 show_settings.py` fails because settings.toml has syntax errors. Fix settings.toml."),
            vec!["python3 show_settings.py"]
        );
        assert_eq!(
            quoted("`make` stops with \"missing separator\". Fix the Makefile."),
            vec!["make"]
        );
        assert!(quoted("`ls` lists the files. Write them to a report.").is_empty());
        // Found on dev: "dies with" and "get it working" were not read.
        assert_eq!(
            quoted("In a fresh clone, `python3 -c pass` dies with `KeyError: 'paths'`."),
            vec!["python3 -c pass"]
        );
        assert_eq!(
            quoted("Get it working so that `python3 -c pass` writes digest.txt."),
            vec!["python3 -c pass"]
        );
    }

    #[test]
    fn file_names_code_and_commands_without_a_success_word_are_not() {
        assert!(
            quoted("Fix `calc.py` so the tests pass").is_empty(),
            "not a program"
        );
        assert!(quoted("`subtract` returns `b - a`; the tests must pass").is_empty());
        assert!(quoted("Run `ls` and tell me what is there.").is_empty());
        assert!(
            quoted("Use `git log`. The tests pass already.").is_empty(),
            "another sentence"
        );
        assert!(quoted("unterminated `python3 -m unittest must pass").is_empty());
    }

    #[test]
    fn programs_named_by_path_are_found_and_matched_to_the_commands_that_run_them() {
        assert_eq!(
            named_programs(
                "Fix it so that it builds with make and ./stats prints the correct mean."
            ),
            vec!["./stats"]
        );
        assert_eq!(
            named_programs("`make` builds ./hello, which prints \"hello, world\". Run `./hello`."),
            vec!["./hello"]
        );
        assert!(named_programs("Fix calc.py; ./ alone and a/b.py are not programs").is_empty());
        assert!(runs_program("test \"$(./stats)\" = 4", "./stats"));
        assert!(runs_program("make && bin/stats", "./bin/stats"));
        assert!(runs_program("stats --all", "./stats"));
        assert!(!runs_program("make", "./stats"));
        assert!(!runs_program("python3 -m stats_test", "./stats"));
    }

    #[test]
    fn environment_assignments_are_skipped_to_find_the_program() {
        assert_eq!(
            quoted("`PYTHONPATH=src python3 -m pytest -q` must pass."),
            vec!["PYTHONPATH=src python3 -m pytest -q"]
        );
    }
}
