//! What a goal says of a written file's lines beyond their shape: "each
//! address only once", "sorted alphabetically" (or "in plain byte order,
//! like `LC_ALL=C sort`"), "all lowercase". Each clause is a check on the
//! file the goal asks to be written ([`super::clauses::output_file`]),
//! and a failure says which line breaks it, so a program repaired from
//! the check's output sees what to change.
//!
//! They are conditions, never evidence alone: a file of unique, sorted,
//! lowercase lines may still hold the wrong ones. Each is read leniently
//! (repeats compared as written; "alphabetically" met by byte order or by
//! byte order ignoring case), so a right answer never fails one. Found on
//! dev: lists of addresses and URLs finished unverified and wrong, their
//! only check the line shape.

use std::sync::LazyLock;

use regex::Regex;

/// The rule of "each only once".
pub const RULE_UNIQUE_LINES: &str = "lines only once";

/// The rule of "sorted alphabetically".
pub const RULE_SORTED_LINES: &str = "lines sorted";

/// The rule of "all lowercase".
pub const RULE_LOWERCASE_LINES: &str = "lines in lowercase";

/// "each only once", "each address only once", "no duplicates", "without
/// duplicate lines", "deduplicated", "unique addresses".
static UNIQUE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bonly\s+once\b|\b(?:no|without)\s+(?:any\s+)?duplicat(?:e|es|ed)\b|\bde-?duplicated?\b|\bunique\s+(?:lines|entries|values|addresses|urls|links|names|words|items)\b",
    )
    .ok()
});

/// "sorted alphabetically", "in alphabetical order", "plain byte order",
/// "like `LC_ALL=C sort`" (group 1 when it says byte order).
static SORTED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:alphabetical(?:ly)?|(byte\s+order|LC_ALL=C\s+sort))\b(\s+by\b)?").ok()
});

/// "all lowercase", "in lower case", "lowercased", "lower-case only".
static LOWERCASE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:all\s+lower[\s-]?case|in\s+lower[\s-]?case|lower[\s-]?cased|lower[\s-]?case\s+only)\b")
        .ok()
});

/// The rule of "no trailing period or comma", "no brackets around it".
pub const RULE_LINE_ENDS: &str = "line ends";

/// Words for the characters a line may not end with.
const TRAILING_WORDS: &str = r"periods?|full\s+stops?|dots?|commas?|semicolons?|colons?|slash(?:es)?|spaces?|whitespace|punctuation";

/// Words for what may not be around a line.
const AROUND_WORDS: &str = r"brackets|parentheses|parens|angle\s+brackets|quotes|quotation\s+marks";

/// A list of `words`: "period or comma", "brackets, parentheses".
fn word_list(words: &str) -> String {
    format!(r"(?:{words})(?:\s*(?:,|/|or|and|nor)\s*(?:{words}))*")
}

/// "no trailing period or comma", "without trailing whitespace": the
/// characters named are group 1.
static NO_TRAILING: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:no|without)\s+trailing\s+({})",
        word_list(TRAILING_WORDS)
    ))
    .ok()
});

/// "no markdown brackets or parentheses around it", "without quotes
/// around the names": the kinds named are group 1.
static NOTHING_AROUND: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:no|without)\s+(?:markdown\s+)?({})\s+around\b",
        word_list(AROUND_WORDS)
    ))
    .ok()
});

/// The characters a line may not start and end with, as `goal` says.
fn forbidden_ends(goal: &str) -> (Vec<char>, Vec<char>) {
    let mut starts: Vec<char> = Vec::new();
    let mut ends: Vec<char> = Vec::new();
    if let Some(words) = NO_TRAILING
        .as_ref()
        .and_then(|r| r.captures(goal))
        .and_then(|c| c.get(1))
    {
        let words = words.as_str().to_lowercase();
        for (word, chars) in [
            ("period", "."),
            ("full stop", "."),
            ("dot", "."),
            ("comma", ","),
            ("semicolon", ";"),
            ("colon", ":"),
            ("slash", "/"),
            ("space", " \t"),
            ("whitespace", " \t"),
            ("punctuation", ".,;:!?"),
        ] {
            if words.contains(word) {
                ends.extend(chars.chars());
            }
        }
    }
    if let Some(words) = NOTHING_AROUND
        .as_ref()
        .and_then(|r| r.captures(goal))
        .and_then(|c| c.get(1))
    {
        let words = words.as_str().to_lowercase();
        for (word, open, close) in [
            ("bracket", "[<", "]>"),
            ("paren", "(", ")"),
            ("quot", "\"`", "\"`"),
        ] {
            if words.contains(word) {
                starts.extend(open.chars());
                ends.extend(close.chars());
            }
        }
    }
    for chars in [&mut starts, &mut ends] {
        chars.sort_unstable();
        chars.dedup();
    }
    (starts, ends)
}

/// An awk bracket expression of `chars` (from [`forbidden_ends`]' fixed
/// set): `]` first, `/` and a backslash escaped for a `/.../` literal, a
/// tab written as an escape.
fn bracket(chars: &[char]) -> String {
    let mut inside = String::new();
    if chars.contains(&']') {
        inside.push(']');
    }
    for c in chars.iter().filter(|c| **c != ']') {
        match c {
            '/' => inside.push_str("\\/"),
            '\t' => inside.push_str("\\t"),
            '\\' => inside.push_str("\\\\"),
            c => inside.push(*c),
        }
    }
    format!("[{inside}]")
}

/// Passes when no line of `file` starts with one of `starts` or ends
/// with one of `ends`; a failure names the first such line.
fn ends_check(file: &str, starts: &[char], ends: &[char]) -> String {
    let mut rules = Vec::new();
    if !starts.is_empty() {
        rules.push(format!(
            "/^{}/ {{ printf \"%s line %d starts with %s, which the goal says must not be around a line: %s\\n\", FILENAME, NR, substr($0, 1, 1), $0; exit 1 }}",
            bracket(starts)
        ));
    }
    if !ends.is_empty() {
        rules.push(format!(
            "/{}$/ {{ printf \"%s line %d ends with %s, which the goal says must not end a line: %s\\n\", FILENAME, NR, substr($0, length($0), 1), $0; exit 1 }}",
            bracket(ends)
        ));
    }
    format!("test -s {file} && awk '{}' {file}", rules.join(" "))
}

/// How a goal wants a file's lines ordered as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextOrder {
    /// "plain byte order", `LC_ALL=C sort`: exactly that.
    Bytes,
    /// "alphabetically": byte order, or byte order ignoring case.
    Alphabetical,
}

/// The rule of "oldest first" / "most recent first".
pub const RULE_DATE_ORDER: &str = "lines in date order";

/// "oldest month first", "earliest first", "in chronological order"
/// (ascending), "newest first", "most recent first", "latest entries
/// first" (group 1: descending).
static DATE_ORDER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:oldest|earliest|(newest|latest|most\s+recent))\s+(?:[a-z]+\s+){0,2}?first\b|\bchronological(?:ly)?\b|\bin\s+date\s+order\b",
    )
    .ok()
});

/// The line checks `goal` asks of the file it asks to be written: each
/// `(command, rule)`.
pub fn line_checks(goal: &str) -> Vec<(String, &'static str)> {
    match super::phrases::output_file(goal) {
        Some(file) => line_checks_in(goal, &file),
        None => Vec::new(),
    }
}

/// [`line_checks`] of `file`, the file the goal asks for.
pub(crate) fn line_checks_in(goal: &str, file: &str) -> Vec<(String, &'static str)> {
    let mut checks = Vec::new();
    if UNIQUE.as_ref().is_some_and(|r| r.is_match(goal)) {
        checks.push((unique_check(file), RULE_UNIQUE_LINES));
    }
    if let Some(order) = text_order(goal) {
        checks.push((sorted_check(file, order), RULE_SORTED_LINES));
    }
    if LOWERCASE.as_ref().is_some_and(|r| r.is_match(goal)) {
        checks.push((lowercase_check(file), RULE_LOWERCASE_LINES));
    }
    if let Some(found) = DATE_ORDER.as_ref().and_then(|r| r.captures(goal)) {
        checks.push((
            date_order_check(file, found.get(1).is_some()),
            RULE_DATE_ORDER,
        ));
    }
    let (starts, ends) = forbidden_ends(goal);
    if !starts.is_empty() || !ends.is_empty() {
        checks.push((ends_check(file, &starts, &ends), RULE_LINE_ENDS));
    }
    checks
}

/// The text order `goal` gives the whole of each line: none when it
/// sorts by a part of the line ("alphabetically by name") or orders the
/// lines by a number (then "alphabetical" orders only the ties).
pub fn text_order(goal: &str) -> Option<TextOrder> {
    let captures = SORTED.as_ref()?.captures(goal)?;
    if captures.get(2).is_some() || super::phrases::file_order(goal).is_some() {
        return None;
    }
    let lower = goal.to_lowercase();
    if ["same count", "same number", "ties", "tied"]
        .iter()
        .any(|words| lower.contains(words))
    {
        return None;
    }
    Some(if captures.get(1).is_some() {
        TextOrder::Bytes
    } else {
        TextOrder::Alphabetical
    })
}

/// Passes when no non-blank line of `file` repeats an earlier one; a
/// failure names the first repeat.
fn unique_check(file: &str) -> String {
    format!(
        "test -s {file} && awk 'NF {{ if (seen[$0]++) {{ printf \"%s line %d repeats an earlier line (each must appear only once): %s\\n\", FILENAME, NR, $0; exit 1 }} }}' {file}"
    )
}

/// Passes when `file`'s lines are in `order`; a failure is `sort`'s own
/// ("disorder" and the first line out of place).
fn sorted_check(file: &str, order: TextOrder) -> String {
    match order {
        TextOrder::Bytes => format!("test -s {file} && LC_ALL=C sort -c {file}"),
        TextOrder::Alphabetical => {
            format!(
                "test -s {file} && {{ LC_ALL=C sort -c {file} || LC_ALL=C sort -c -f {file}; }}"
            )
        }
    }
}

/// Passes when the first date (`YYYY-MM` or `YYYY-MM-DD`) of each
/// non-blank line of `file` goes up (`descending`: down), equal dates
/// allowed; a first line with no date is a header, any other line
/// without one fails, and so does a file with no date at all.
fn date_order_check(file: &str, descending: bool) -> String {
    let (wrong, order) = if descending {
        (">", "the most recent first")
    } else {
        ("<", "the oldest first")
    };
    format!(
        "test -s {file} && awk '/[^[:space:]]/ {{ if (!match($0, /[0-9][0-9][0-9][0-9]-[0-1][0-9](-[0-3][0-9])?/)) {{ if (NR == 1) next; printf \"%s line %d has no date: %s\\n\", FILENAME, NR, $0; bad = 1; exit 1 }} d = substr($0, RSTART, RLENGTH); if (seen && d {wrong} prev) {{ printf \"%s is out of date order at line %d: %s after %s; its lines must go {order}\\n\", FILENAME, NR, d, prev; bad = 1; exit 1 }} prev = d; seen = 1 }} END {{ if (!bad && !seen) {{ printf \"%s has no line with a date\\n\", FILENAME; exit 1 }} }}' {file}"
    )
}

/// Passes when no line of `file` has a capital letter; a failure names
/// the first such line.
fn lowercase_check(file: &str) -> String {
    format!(
        "test -s {file} && awk '/[A-Z]/ {{ printf \"%s line %d has capital letters (the lines must be all lowercase): %s\\n\", FILENAME, NR, $0; exit 1 }}' {file}"
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::test_bash as bash;

    const EMAILS: &str = "Collect every e-mail address that appears in the support tickets in tickets/ into emails.txt: one address per line, all lowercase, each address only once (treat different capitalizations as the same address), sorted alphabetically. Don't modify the tickets.";

    fn rules(goal: &str) -> Vec<&'static str> {
        line_checks(goal)
            .into_iter()
            .map(|(_, rule)| rule)
            .collect()
    }

    #[test]
    fn the_clauses_about_a_files_lines_are_read() {
        assert_eq!(
            rules(EMAILS),
            vec![RULE_UNIQUE_LINES, RULE_SORTED_LINES, RULE_LOWERCASE_LINES]
        );
        assert_eq!(
            rules("Write urls.txt with each URL, one per line, each only once, sorted (plain byte order, like `LC_ALL=C sort`)."),
            vec![RULE_UNIQUE_LINES, RULE_SORTED_LINES]
        );
        assert_eq!(
            text_order("Write urls.txt, sorted (plain byte order, like `LC_ALL=C sort`)."),
            Some(TextOrder::Bytes)
        );
        assert_eq!(
            text_order("Write names.txt in alphabetical order."),
            Some(TextOrder::Alphabetical)
        );
        assert!(
            rules("Only once a year, fix calc.py.").is_empty(),
            "no file written"
        );
    }

    #[test]
    fn the_date_order_of_a_files_lines_is_read_and_checked() {
        let goal = "Write months.txt with the signups per month, one line per month like `2023-11 3`, oldest month first.";
        assert_eq!(rules(goal), vec![RULE_DATE_ORDER]);
        assert_eq!(
            rules("Write log.txt with the entries, most recent first."),
            vec![RULE_DATE_ORDER]
        );
        let dir = tempfile::tempdir().unwrap();
        let run = |text: &str, descending: bool| {
            std::fs::write(dir.path().join("m.txt"), text).unwrap();
            let output = bash(dir.path(), &date_order_check("m.txt", descending));
            (
                output.status.success(),
                String::from_utf8_lossy(&output.stdout).to_string(),
            )
        };
        let months = "month,count\n2023-11 3\n2023-12 0\n2024-01 12\n";
        assert_eq!(run(months, false), (true, String::new()));
        assert_eq!(
            run(months, true),
            (
                false,
                "m.txt is out of date order at line 3: 2023-12 after 2023-11; its lines must go the most recent first\n"
                    .into()
            )
        );
        assert_eq!(
            run("2023-11 3\nsoon 1\n", false),
            (false, "m.txt line 2 has no date: soon 1\n".into())
        );
        assert_eq!(
            run("month count\n", false),
            (false, "m.txt has no line with a date\n".into())
        );
    }

    #[test]
    fn what_may_not_end_or_surround_a_line_is_read_and_checked() {
        let goal = "Write urls.txt with each http:// or https:// URL in docs/*.md, one per line. Write the bare URL: no markdown brackets or parentheses around it, and no trailing period or comma from the sentence.";
        let (starts, ends) = forbidden_ends(goal);
        assert_eq!(starts, vec!['(', '<', '[']);
        assert_eq!(ends, vec![')', ',', '.', '>', ']']);
        assert!(rules(goal).contains(&RULE_LINE_ENDS));
        assert_eq!(
            forbidden_ends("Write names.txt without trailing whitespace."),
            (Vec::new(), vec!['\t', ' '])
        );
        assert_eq!(
            forbidden_ends("Write a.txt; it may end with a period."),
            (Vec::new(), Vec::new())
        );
        let dir = tempfile::tempdir().unwrap();
        let command = ends_check("u.txt", &starts, &ends);
        let run = |text: &str| {
            std::fs::write(dir.path().join("u.txt"), text).unwrap();
            let output = bash(dir.path(), &command);
            (
                output.status.success(),
                String::from_utf8_lossy(&output.stdout).to_string(),
            )
        };
        assert_eq!(
            run("https://a.org/x\nhttps://b.org/y?q=1\n"),
            (true, String::new())
        );
        assert_eq!(
            run("https://a.org/x\nhttps://b.org/y).\n"),
            (
                false,
                "u.txt line 2 ends with ., which the goal says must not end a line: https://b.org/y).\n"
                    .into()
            )
        );
        assert_eq!(
            run("[https://a.org/x\n"),
            (
                false,
                "u.txt line 1 starts with [, which the goal says must not be around a line: [https://a.org/x\n"
                    .into()
            )
        );
        assert!(!run("https://a.org/x]\n").0, "a closing bracket");
        let slash = ends_check("u.txt", &[], &['/', '\t', ' ']);
        std::fs::write(dir.path().join("u.txt"), "a/\n").unwrap();
        assert!(!bash(dir.path(), &slash).status.success());
        std::fs::write(dir.path().join("u.txt"), "a\tb\n").unwrap();
        assert!(bash(dir.path(), &slash).status.success());
    }

    #[test]
    fn an_order_by_a_part_of_the_line_or_by_a_number_is_not_a_text_order() {
        assert_eq!(
            text_order(
                "Write report.txt, one `name: count` line per file, sorted alphabetically by name."
            ),
            None
        );
        assert_eq!(
            text_order("Write top.txt: most frequent first, words with the same count in alphabetical order."),
            None
        );
        assert_eq!(
            text_order("Write top.txt, biggest count first, ties alphabetically."),
            None
        );
    }

    #[test]
    fn each_check_fails_on_the_first_line_that_breaks_it_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let run = |command: &str, text: &str| {
            std::fs::write(dir.path().join("out.txt"), text).unwrap();
            let output = bash(dir.path(), command);
            (
                output.status.success(),
                String::from_utf8_lossy(&output.stdout).to_string()
                    + &String::from_utf8_lossy(&output.stderr),
            )
        };
        let unique = unique_check("out.txt");
        assert_eq!(run(&unique, "a\nb\n\n\nc\n"), (true, String::new()));
        assert_eq!(
            run(&unique, "a\nb\na\n"),
            (
                false,
                "out.txt line 3 repeats an earlier line (each must appear only once): a\n".into()
            )
        );
        assert!(!run(&unique, "").0, "an empty file");

        let bytes = sorted_check("out.txt", TextOrder::Bytes);
        assert!(run(&bytes, "B\na\nb\n").0);
        let (passed, said) = run(&bytes, "a\nB\n");
        assert!(!passed);
        assert!(said.contains("disorder"), "{said}");
        let alphabetical = sorted_check("out.txt", TextOrder::Alphabetical);
        assert!(run(&alphabetical, "B\na\nb\n").0, "byte order");
        assert!(run(&alphabetical, "a\nB\nc\n").0, "ignoring case");
        assert!(!run(&alphabetical, "c\na\n").0);

        let lowercase = lowercase_check("out.txt");
        assert!(run(&lowercase, "ann@example.com\nbo-1@x.org\n").0);
        assert_eq!(
            run(&lowercase, "ann@example.com\nBo@x.org\n"),
            (
                false,
                "out.txt line 2 has capital letters (the lines must be all lowercase): Bo@x.org\n"
                    .into()
            )
        );
    }
}
