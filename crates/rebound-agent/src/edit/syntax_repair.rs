//! Syntax mutants: a file that does not parse, repaired line by line at
//! the line its parser names.
//!
//! A broken data file or a mis-indented line is the error a parser
//! locates best and a small model fixes worst (asked to quote one value it
//! rewrites the whole file, and a file with two errors is rarely fixed in
//! one answer). The harness tries the edits that fix most syntax errors
//! of one line — its indentation set to its neighbours', a bracket closed,
//! a bare TOML value quoted, a JSON comma added or dropped, JSON's single
//! quotes made double — at the line the parser names (and the line
//! before, where a missing comma shows). An edit is taken only when the
//! parser then no longer stops at that line (its first error is on
//! another line, or there is none);
//! after each, the parser is asked again, so a file with several errors
//! is repaired in one go. Only a file that parses in the end is a
//! candidate, and the checks judge it like any other. A JSON file
//! written as JavaScript (JSON5) is rewritten whole first
//! ([`super::json5`]), and a TOML file's repeated tables and settings
//! merged ([`super::toml_merge`]).

use super::syntax::{check_syntax, Syntax};

/// A file made to parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxRepair {
    /// The whole file, repaired.
    pub(crate) text: String,
    /// What changed, for a user: `line 2: quoted the value; line 5: closed `[``.
    pub(crate) change: String,
}

/// The most line edits one repair makes.
const MAX_ROUNDS: usize = 8;

/// `original` (the text of `file`) repaired so that it parses, when the
/// line edits can do it; `None` when it parses already, its kind has no
/// checker, or the edits do not get the parser to the end.
pub(crate) fn repair_syntax(file: &str, original: &str) -> Option<SyntaxRepair> {
    let format = Format::of(file);
    // Whole-file repairs first: JavaScript-style JSON, and a TOML file
    // with repeated tables or settings, however many lines they spoil.
    let whole = match format {
        Format::Json => super::json5::json5_as_json(original).map(|text| (text, "rewrote JavaScript-style JSON as JSON (keys and strings double-quoted, trailing commas and comments dropped)")),
        Format::Toml => super::toml_merge::merge_duplicates(original).map(|text| (text, "merged the repeated tables and dropped the settings repeated with the same value")),
        Format::Other => None,
    };
    if let Some((text, change)) = whole {
        return Some(SyntaxRepair {
            text,
            change: change.to_string(),
        });
    }
    let mut text = original.to_string();
    let mut changes: Vec<String> = Vec::new();
    let mut syntax = check_syntax(file, &text);
    for _ in 0..MAX_ROUNDS {
        let Syntax::Invalid(message) = &syntax else {
            break;
        };
        let stop = error_position(message)?;
        let line = stop.line;
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let advanced = [line, line.saturating_sub(1)]
            .into_iter()
            .filter(|l| *l >= 1 && *l <= lines.len())
            .flat_map(|l| {
                line_edits(format, &lines, l - 1)
                    .into_iter()
                    .map(move |(edited, what)| (l, edited, what))
            })
            .find_map(|(at, edited, what)| {
                let mut next: Vec<&str> = lines.clone();
                next[at - 1] = &edited;
                let candidate = next.concat();
                let parsed = check_syntax(file, &candidate);
                let further = match &parsed {
                    Syntax::Valid => true,
                    Syntax::Invalid(m) => error_position(m).is_some_and(|after| {
                        stop.passed_by(
                            after,
                            (at == line).then(|| (lines[at - 1], edited.as_str())),
                        )
                    }),
                    Syntax::Unchecked => false,
                };
                further.then(|| (candidate, parsed, format!("line {at}: {what}")))
            });
        let (candidate, parsed, what) = advanced?;
        text = candidate;
        syntax = parsed;
        changes.push(what);
    }
    (syntax == Syntax::Valid && !changes.is_empty()).then(|| SyntaxRepair {
        text,
        change: changes.join("; "),
    })
}

/// Where a parser stopped, as a checker's message says (`line 4: …`,
/// `line 4, column 2: …`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stop {
    /// The line, from 1.
    line: usize,
    /// The column, from 1, when the checker gives one.
    column: Option<usize>,
}

impl Stop {
    /// Whether the parser, stopping at `after` once a line was edited,
    /// got past this stop: it stops on another line, or further along
    /// the same line (columns compared after the edit's shift when the
    /// edited line, `(before, after)`, is the stop's own line and the
    /// edit starts at or before the stop's column).
    fn passed_by(self, after: Stop, edited: Option<(&str, &str)>) -> bool {
        if after.line != self.line {
            return true;
        }
        let (Some(column), Some(now)) = (self.column, after.column) else {
            return false;
        };
        let shift = edited.map_or(0, |(old, new)| {
            let first_difference = old
                .chars()
                .zip(new.chars())
                .take_while(|(a, b)| a == b)
                .count();
            // The edit starts at or before the stop (columns from 1).
            if first_difference < column {
                new.chars().count() as i64 - old.chars().count() as i64
            } else {
                0
            }
        });
        now as i64 > column as i64 + shift
    }
}

/// Where a checker's message says the parser stopped.
fn error_position(message: &str) -> Option<Stop> {
    let rest = message.strip_prefix("line ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let line = digits.parse().ok().filter(|n| *n > 0)?;
    let column = rest[digits.len()..]
        .strip_prefix(", column ")
        .and_then(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        });
    Some(Stop { line, column })
}

/// The file formats with edits of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Toml,
    Other,
}

impl Format {
    fn of(file: &str) -> Format {
        let extension = std::path::Path::new(file)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        match extension.as_str() {
            "json" => Format::Json,
            "toml" => Format::Toml,
            _ => Format::Other,
        }
    }
}

/// The edits of line `index` of `lines` (each with its line end), most
/// likely first, with what each does.
fn line_edits(format: Format, lines: &[&str], index: usize) -> Vec<(String, String)> {
    let Some(full) = lines.get(index) else {
        return Vec::new();
    };
    let body = full.trim_end_matches(['\n', '\r']);
    let ending = &full[body.len()..];
    let content = body.trim_start();
    if content.is_empty() {
        return Vec::new();
    }
    let indent = body.len() - content.len();
    let mut edits: Vec<(String, String)> = Vec::new();
    let mut push = |text: String, what: String| {
        if text != *full && !edits.iter().any(|(t, _)| *t == text) {
            edits.push((text, what));
        }
    };
    for width in indentations(lines, index) {
        if width != indent {
            push(
                format!("{}{content}{ending}", " ".repeat(width)),
                format!("indented by {width} spaces"),
            );
        }
    }
    let prefix = &body[..indent];
    for (closed, bracket) in closings(content) {
        push(
            format!("{prefix}{closed}{ending}"),
            format!("closed `{bracket}`"),
        );
    }
    match format {
        Format::Toml => {
            if let Some(quoted) = quote_bare_value(content) {
                push(
                    format!("{prefix}{quoted}{ending}"),
                    "quoted the value".to_string(),
                );
            }
        }
        Format::Json => {
            for (comma, close) in [(",]", "]"), (", ]", "]"), (",}", "}"), (", }", "}")] {
                if content.contains(comma) {
                    push(
                        format!("{prefix}{}{ending}", content.replace(comma, close)),
                        format!("dropped the comma before `{close}`"),
                    );
                }
            }
            if let Some(stripped) = content.strip_suffix(',') {
                push(
                    format!("{prefix}{stripped}{ending}"),
                    "dropped the trailing comma".to_string(),
                );
            } else if !content.ends_with(['{', '[', ',', ':']) {
                push(
                    format!("{prefix}{content},{ending}"),
                    "added a comma".to_string(),
                );
            }
            if content.contains('\'') && !content.contains('"') {
                push(
                    format!("{prefix}{}{ending}", content.replace('\'', "\"")),
                    "made the quotes double".to_string(),
                );
            }
        }
        Format::Other => {}
    }
    edits
}

/// The indentations a line may want: the column of the previous line's
/// content after a list marker (`- `), the previous line's, the next
/// line's, and one level (the previous line's step, else 4) deeper and
/// shallower than the previous line.
fn indentations(lines: &[&str], index: usize) -> Vec<usize> {
    let indent_of = |line: &str| line.len() - line.trim_start().len();
    let blank = |line: &&str| line.trim().is_empty();
    let previous = lines[..index].iter().rev().find(|l| !blank(l));
    let next = lines[index + 1..].iter().find(|l| !blank(l));
    let mut widths = Vec::new();
    if let Some(previous) = previous {
        let at = indent_of(previous);
        let content = previous.trim_start();
        if let Some(item) = content.strip_prefix("- ") {
            widths.push(at + 2 + (item.len() - item.trim_start().len()));
        }
        widths.push(at);
        widths.push(at + 4);
        widths.push(at.saturating_sub(4));
    }
    if let Some(next) = next {
        widths.push(indent_of(next));
    }
    widths.dedup();
    widths
}

/// `content` with its unclosed brackets closed at the end of the line
/// (`[server` → `[server]`, `print(x` → `print(x)`), one edit per kind of
/// bracket; brackets inside quotes are not counted.
fn closings(content: &str) -> Vec<(String, char)> {
    let mut depth = [0i32; 3];
    let mut quote: Option<char> = None;
    for c in content.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => break,
            (None, c) => {
                if let Some(i) = "([{".find(c) {
                    depth[i] += 1;
                } else if let Some(i) = ")]}".find(c) {
                    depth[i] -= 1;
                }
            }
        }
    }
    let mut closed = Vec::new();
    for (i, close) in [')', ']', '}'].into_iter().enumerate() {
        if depth[i] > 0 && quote.is_none() {
            let count = usize::try_from(depth[i]).unwrap_or(1);
            let end = content.trim_end();
            closed.push((format!("{end}{}", close.to_string().repeat(count)), close));
        }
    }
    closed
}

/// A TOML `key = value` line whose value is a bare word (`name =
/// mail-relay`) with the value quoted; `None` for a value TOML reads
/// as it is (a string, number, boolean, date, array or table).
fn quote_bare_value(content: &str) -> Option<String> {
    let (key, value) = content.split_once('=')?;
    let key = key.trim_end();
    let value = value.trim();
    let bare_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '"' | ' '));
    // A number or a date: a digit or sign first, then digits, `._:-+`,
    // spaces and letters (exponents, `T`, hex), but no letter second.
    let numeric = value.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-')
        && value
            .chars()
            .skip(1)
            .all(|c| c.is_ascii_alphanumeric() || "._:-+ ".contains(c))
        && value
            .chars()
            .nth(1)
            .is_none_or(|c| !c.is_ascii_alphabetic());
    let typed = value.is_empty()
        || value.starts_with(['"', '\'', '[', '{'])
        || numeric
        || matches!(value, "true" | "false" | "inf" | "nan" | "+inf" | "-inf");
    if !bare_key || typed || value.contains('"') || value.contains('\\') {
        return None;
    }
    Some(format!("{key} = \"{value}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toml_file_with_two_errors_is_repaired_in_one_go() {
        let broken = "# Settings.\nname = mail-relay\nversion = \"1.4.0\"\n\n[server\nhost = \"127.0.0.1\"\nport = 2525\n";
        let repaired = repair_syntax("settings.toml", broken).expect("repaired");
        assert_eq!(
            repaired.text,
            "# Settings.\nname = \"mail-relay\"\nversion = \"1.4.0\"\n\n[server]\nhost = \"127.0.0.1\"\nport = 2525\n"
        );
        assert_eq!(
            repaired.change,
            "line 5: closed `]`; line 2: quoted the value"
        );
    }

    #[test]
    fn a_mis_indented_yaml_line_is_indented_as_its_item() {
        let broken = "steps:\n  - name: build\n    run: make build\n  - name: test\n     run: make test\n  - name: deploy\n    run: make deploy\n";
        let repaired = repair_syntax("deploy.yml", broken).expect("repaired");
        assert_eq!(
            repaired.text,
            broken.replace("     run: make test", "    run: make test")
        );
        assert_eq!(repaired.change, "line 5: indented by 4 spaces");
    }

    #[test]
    fn json_commas_and_quotes_are_repaired() {
        let broken = "{\n  \"a\": 1\n  \"b\": [1, 2],\n  'c': true,\n}\n";
        let repaired = repair_syntax("data.json", broken).expect("repaired");
        let value: serde_json::Value = serde_json::from_str(&repaired.text).unwrap();
        assert_eq!(value, serde_json::json!({"a": 1, "b": [1, 2], "c": true}));
    }

    #[test]
    fn a_file_that_parses_or_cannot_be_repaired_gives_nothing() {
        assert_eq!(repair_syntax("ok.toml", "a = 1\n"), None);
        assert_eq!(repair_syntax("notes.txt", "anything (\n"), None);
        assert_eq!(repair_syntax("bad.toml", "a = \"open\nb = 1\n"), None);
    }

    #[test]
    fn typed_toml_values_are_not_quoted() {
        for value in [
            "a = 1",
            "a = -2.5",
            "a = true",
            "a = 1979-05-27",
            "a = [1]",
            "a = \"x\"",
        ] {
            assert_eq!(quote_bare_value(value), None, "{value}");
        }
        assert_eq!(
            quote_bare_value("name = mail-relay"),
            Some("name = \"mail-relay\"".to_string())
        );
    }

    #[test]
    fn a_missing_comma_then_a_trailing_one_on_the_same_line() {
        let broken = "{\n  \"db\": {\n    \"pool\": 4\n  }\n  \"features\": [\"search\", \"reports\",],\n  \"admins\": [\"ada\"]\n}\n";
        let repaired = repair_syntax("config.json", broken).expect("repaired");
        assert_eq!(
            repaired.text,
            broken
                .replace("  }\n", "  },\n")
                .replace("\"reports\",]", "\"reports\"]")
        );
        assert_eq!(
            repaired.change,
            "line 4: added a comma; line 5: dropped the comma before `]`"
        );
    }

    #[test]
    fn an_edit_that_only_shifts_the_error_is_no_progress() {
        let stop = Stop {
            line: 3,
            column: Some(5),
        };
        let shifted = Stop {
            line: 3,
            column: Some(9),
        };
        assert!(!stop.passed_by(shifted, Some(("  x", "      x"))));
        assert!(stop.passed_by(shifted, None));
        assert!(stop.passed_by(
            Stop {
                line: 4,
                column: None
            },
            None
        ));
        assert!(!stop.passed_by(
            Stop {
                line: 3,
                column: None
            },
            None
        ));
    }
}
