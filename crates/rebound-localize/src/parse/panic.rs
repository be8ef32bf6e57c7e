//! Rust panics: `thread 'tests::t' panicked at src/lib.rs:10:9:` and the
//! message after it (Rust 1.73 and later; 1.88 and later add the thread
//! id), or `thread 'main' panicked at 'message', src/main.rs:2:5` (before
//! 1.73); with the frames of a `stack backtrace:` when there is one.

use super::{Claims, Context, Found};
use crate::failure::{Failure, FailureKind, Location};
use crate::text::{indent, is_cut_marker, one_line, split_position};

/// The most message lines kept.
const MAX_MESSAGE_LINES: usize = 12;

/// A position as printed: path, line, column.
type Position<'a> = (&'a str, u32, Option<u32>);

/// A panic's first line, read.
struct PanicLine<'a> {
    thread: &'a str,
    /// After `panicked at `.
    rest: &'a str,
}

/// Reads the panics.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, context: &Context) -> Vec<Found> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(panic) = (!claims.is_claimed(i))
            .then(|| panic_line(&lines[i]))
            .flatten()
        else {
            i += 1;
            continue;
        };
        let start = i;
        let (location, message, mut end) = match new_format(panic.rest) {
            Some((path, line, column)) => {
                let (message, end) = message_lines(lines, i + 1);
                (Some((path, line, column)), message, end)
            }
            None => old_format(lines, i, panic.rest),
        };
        let location =
            location.map(|(path, line, column)| context.location(path, line, column, None));
        let mut frames = Vec::new();
        if lines
            .get(end)
            .is_some_and(|l| l.trim() == "stack backtrace:")
        {
            let (backtrace, after) = backtrace(lines, end + 1, context);
            frames = backtrace;
            end = after;
        } else if let Some(location) = &location {
            frames.push(location.clone());
        }
        let test = test_name(lines, start, panic.thread);
        claims.claim(start..end);
        found.push(Found::at(
            start,
            Failure {
                kind: FailureKind::RustPanic,
                test,
                message: one_line(message.iter().map(String::as_str)),
                location,
                frames,
            },
        ));
        i = end.max(start + 1);
    }
    found
}

/// Reads `thread 'name' (1234) panicked at …`.
fn panic_line(line: &str) -> Option<PanicLine<'_>> {
    let rest = line.trim_start().strip_prefix("thread '")?;
    let (thread, after) = rest.split_once('\'')?;
    let after = after.trim_start();
    let after = match after.strip_prefix('(') {
        Some(id) => id.split_once(')')?.1.trim_start(),
        None => after,
    };
    let rest = after.strip_prefix("panicked at ")?;
    Some(PanicLine { thread, rest })
}

/// Reads the new format's `src/lib.rs:10:9:`.
fn new_format(rest: &str) -> Option<Position<'_>> {
    let rest = rest.trim_end().strip_suffix(':')?;
    let (path, line, column, tail) = split_position(rest)?;
    tail.is_empty().then_some((path, line, column))
}

/// Reads the old format, `'message', src/main.rs:2:5`, whose message may
/// span lines. Returns the position, the message lines and the index after
/// the panic's last line.
fn old_format<'a>(
    lines: &'a [String],
    start: usize,
    rest: &'a str,
) -> (Option<Position<'a>>, Vec<String>, usize) {
    let mut message = Vec::new();
    let mut text = rest.strip_prefix('\'').unwrap_or(rest);
    let mut i = start;
    loop {
        if let Some(quote) = text.rfind("', ") {
            if let Some((path, line, column, tail)) = split_position(&text[quote + 3..]) {
                if tail.is_empty() {
                    message.push(text[..quote].to_string());
                    return (Some((path, line, column)), message, i + 1);
                }
            }
        }
        message.push(text.to_string());
        i += 1;
        match lines.get(i) {
            Some(next) if i - start < MAX_MESSAGE_LINES && !next.trim().is_empty() => {
                text = next;
            }
            _ => return (None, message, i),
        }
    }
}

/// The message lines from `start` up to a blank line, a `note:` or the
/// backtrace. Returns them and the index after them.
fn message_lines(lines: &[String], start: usize) -> (Vec<String>, usize) {
    let mut message = Vec::new();
    let mut i = start;
    while let Some(line) = lines.get(i) {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed == "stack backtrace:" || is_cut_marker(line) {
            break;
        }
        if trimmed.starts_with("note: ") {
            i += 1;
            break;
        }
        if message.len() < MAX_MESSAGE_LINES {
            message.push(trimmed.to_string());
        }
        i += 1;
    }
    (message, i)
}

/// Reads a backtrace's `  N: symbol` / `at path:line:col` pairs from
/// `start`. Returns the frames outermost first (a backtrace prints them
/// innermost first) and the index after the backtrace.
fn backtrace(lines: &[String], start: usize, context: &Context) -> (Vec<Location>, usize) {
    let mut frames = Vec::new();
    let mut symbol: Option<String> = None;
    let mut i = start;
    while let Some(line) = lines.get(i) {
        let trimmed = line.trim();
        if trimmed.starts_with("note: ") {
            i += 1;
            break;
        }
        if let Some(at) = trimmed.strip_prefix("at ") {
            if let Some((path, number, column, _)) = split_position(at) {
                frames.push(context.location(path, number, column, symbol.as_deref()));
            }
        } else if let Some((index, name)) = trimmed.split_once(": ") {
            if !index.chars().all(|c| c.is_ascii_digit()) || indent(line) == 0 {
                break;
            }
            symbol = Some(name.to_string());
        } else {
            break;
        }
        i += 1;
    }
    frames.reverse();
    (frames, i)
}

/// The test a panic failed: the `---- name stdout ----` header above it,
/// else its thread's name (unless `main`).
fn test_name(lines: &[String], start: usize, thread: &str) -> Option<String> {
    let header = lines[..start]
        .iter()
        .rev()
        .take(3)
        .find_map(|l| l.strip_prefix("---- ")?.strip_suffix(" stdout ----"));
    match header {
        Some(name) => Some(name.to_string()),
        None if thread != "main" && thread != "<unnamed>" => Some(thread.to_string()),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::failure::Place;
    use crate::parse::parse as parse_output;

    fn missing(file: &str, line: u32, column: u32) -> Location {
        Location {
            file: file.into(),
            line,
            column: Some(column),
            function: None,
            place: Place::Missing,
        }
    }

    #[test]
    fn the_format_before_rust_1_73() {
        let output = "thread 'main' panicked at 'assertion failed: `(left == right)`\n  left: `1`,\n right: `2`', src/main.rs:2:5\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        let failures = parse_output("cargo run", output, Path::new("/nonexistent"));
        assert_eq!(
            failures,
            [Failure {
                kind: FailureKind::RustPanic,
                test: None,
                message: "assertion failed: `(left == right)`; left: `1`,; right: `2`".into(),
                location: Some(missing("src/main.rs", 2, 5)),
                frames: vec![missing("src/main.rs", 2, 5)],
            }]
        );
    }

    #[test]
    fn the_format_since_rust_1_73_without_a_thread_id() {
        let output = "thread 'main' panicked at src/main.rs:4:5:\nexplicit panic\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        let failures = parse_output("cargo run", output, Path::new("/nonexistent"));
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].message, "explicit panic");
        assert_eq!(failures[0].test, None);
        assert_eq!(failures[0].location, Some(missing("src/main.rs", 4, 5)));
    }
}
