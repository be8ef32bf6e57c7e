//! Python tracebacks: `Traceback (most recent call last):`, the
//! `File "x.py", line N, in f` frames, and the exception. Also read inside
//! unittest reports and pytest's `--tb=native` sections.

use super::{data, Claims, Context, Found};
use crate::failure::{innermost_project_frame, Failure, FailureKind, Location};
use crate::text::{indent, is_cut_marker, one_line};

/// The line that starts a traceback.
const HEADER: &str = "Traceback (most recent call last):";

/// The most exception lines kept (PyYAML's errors take four).
const MAX_EXCEPTION_LINES: usize = 12;

/// A frame as printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawFrame {
    pub(crate) path: String,
    pub(crate) line: u32,
    pub(crate) function: Option<String>,
}

/// One traceback as printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Traceback {
    /// Outermost first.
    pub(crate) frames: Vec<RawFrame>,
    /// The exception's lines, the first being `Type: message`.
    pub(crate) exception: Vec<String>,
    /// The index after its last line.
    pub(crate) end: usize,
}

impl Traceback {
    /// The exception's type as printed (`json.decoder.JSONDecodeError`).
    pub(crate) fn exception_type(&self) -> &str {
        let first = self.exception.first().map_or("", |l| l.trim());
        let head = first.split(": ").next().unwrap_or(first);
        if head
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            head
        } else {
            ""
        }
    }

    /// The exception on one line.
    pub(crate) fn message(&self) -> String {
        if self.exception.is_empty() {
            return "traceback cut before its exception".to_string();
        }
        one_line(self.exception.iter().map(String::as_str))
    }
}

/// Whether `line` starts a traceback.
pub(crate) fn is_header(line: &str) -> bool {
    line.trim() == HEADER
}

/// Reads `  File "x.py", line 12, in f` (the `, in f` is missing for a
/// `SyntaxError`).
pub(crate) fn frame_line(line: &str) -> Option<RawFrame> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let quote = rest.find("\", line ")?;
    let path = &rest[..quote];
    let after = &rest[quote + "\", line ".len()..];
    let digits = after
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(after.len());
    let number = after[..digits].parse().ok()?;
    let tail = &after[digits..];
    let function = match tail.strip_prefix(", in ") {
        Some(name) => Some(name.trim().to_string()),
        None if tail.trim().is_empty() => None,
        None => return None,
    };
    Some(RawFrame {
        path: path.to_string(),
        line: number,
        function,
    })
}

/// Reads the traceback whose header is line `start`.
pub(crate) fn read_traceback(lines: &[String], start: usize) -> Option<Traceback> {
    let header_indent = indent(lines.get(start)?);
    if !is_header(&lines[start]) {
        return None;
    }
    let mut frames = Vec::new();
    let mut i = start + 1;
    while let Some(line) = lines.get(i) {
        if let Some(frame) = frame_line(line) {
            frames.push(frame);
        } else if line.trim().is_empty() || indent(line) <= header_indent || is_cut_marker(line) {
            break;
        }
        i += 1;
    }
    let mut exception = Vec::new();
    if let Some(first) = lines.get(i) {
        if !first.trim().is_empty() && !is_cut_marker(first) && !is_header(first) {
            exception.push(first.trim().to_string());
            i += 1;
            while let Some(line) = lines.get(i) {
                if ends_exception(line) || exception.len() >= MAX_EXCEPTION_LINES {
                    break;
                }
                exception.push(line.trim().to_string());
                i += 1;
            }
        }
    }
    Some(Traceback {
        frames,
        exception,
        end: i,
    })
}

/// Whether `line` cannot continue an exception's message.
fn ends_exception(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.is_empty()
        || is_cut_marker(line)
        || is_header(line)
        || chain_word(line).is_some()
        || trimmed.starts_with("====")
        || trimmed.starts_with("----")
        || trimmed.starts_with("____")
        || trimmed.starts_with("make: ***")
        || trimmed.starts_with("make[")
}

/// How a chained traceback relates to the one before it.
fn chain_word(line: &str) -> Option<&'static str> {
    match line.trim() {
        "During handling of the above exception, another exception occurred:" => {
            Some("while handling")
        }
        "The above exception was the direct cause of the following exception:" => Some("caused by"),
        _ => None,
    }
}

/// The failure a traceback shows: a data-format error when its exception
/// is one (located in the data file when it can be told), otherwise `kind`.
pub(crate) fn failure(traceback: &Traceback, kind: FailureKind, context: &Context) -> Failure {
    let frames: Vec<Location> = traceback
        .frames
        .iter()
        .map(|f| context.location(&f.path, f.line, None, f.function.as_deref()))
        .collect();
    let classified = data::classify(
        traceback.exception_type(),
        &traceback.exception,
        context,
        &frames,
    );
    let (kind, data_location) = match classified {
        Some((data_kind, location)) if kind == FailureKind::PythonTraceback => {
            (data_kind, location)
        }
        _ => (kind, None),
    };
    let location = data_location.or_else(|| innermost_project_frame(&frames));
    Failure {
        kind,
        test: None,
        message: traceback.message(),
        location,
        frames,
    }
}

/// Reads the unclaimed bare tracebacks (a chain of them is one failure: the
/// last, with what it followed in its message).
pub(crate) fn parse(lines: &[String], claims: &mut Claims, context: &Context) -> Vec<Found> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if claims.is_claimed(i) || !is_header(&lines[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let Some(mut traceback) = read_traceback(lines, i) else {
            i += 1;
            continue;
        };
        let mut earlier: Vec<(&'static str, String)> = Vec::new();
        while let Some((word, next_start)) = chained(lines, traceback.end) {
            let Some(next) = read_traceback(lines, next_start) else {
                break;
            };
            earlier.push((word, traceback.message()));
            traceback = next;
        }
        claims.claim(start..traceback.end);
        i = traceback.end.max(start + 1);
        let mut failure = failure(&traceback, FailureKind::PythonTraceback, context);
        if let Some((word, cause)) = earlier.last() {
            failure.message = one_line([format!("{} ({word} {cause})", failure.message).as_str()]);
        }
        found.push(Found::at(start, failure));
    }
    found
}

/// The chain sentence and the next traceback's header line, when the
/// traceback ending before `end` is followed by a chained one.
fn chained(lines: &[String], end: usize) -> Option<(&'static str, usize)> {
    let mut i = end;
    while lines.get(i).is_some_and(|l| l.trim().is_empty()) {
        i += 1;
    }
    let word = chain_word(lines.get(i)?)?;
    i += 1;
    while lines.get(i).is_some_and(|l| l.trim().is_empty()) {
        i += 1;
    }
    is_header(lines.get(i)?).then_some((word, i))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::path::Path;

    use super::*;
    use crate::failure::Place;
    use crate::parse::parse as parse_output;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn frames_are_read() {
        assert_eq!(
            frame_line("  File \"/tmp/w/calc.py\", line 13, in div"),
            Some(RawFrame {
                path: "/tmp/w/calc.py".into(),
                line: 13,
                function: Some("div".into())
            })
        );
        assert_eq!(
            frame_line("  File \"app/stats.py\", line 1"),
            Some(RawFrame {
                path: "app/stats.py".into(),
                line: 1,
                function: None
            })
        );
        assert_eq!(frame_line("  File \"x.py\", line twelve, in f"), None);
        assert_eq!(frame_line("print('File \"x\"')"), None);
    }

    #[test]
    fn a_traceback_skips_code_and_carets() {
        let text = lines(
            "Traceback (most recent call last):\n  File \"main.py\", line 9, in main\n    print(report(groups))\n          ^^^^^^^^^^^^^^\n  File \"stats.py\", line 5, in mean\n    return total / len(values)\n           ~~~~~~^~~~~~~~~~~~~\nZeroDivisionError: division by zero\n\nafter\n",
        );
        let traceback = read_traceback(&text, 0).unwrap();
        assert_eq!(traceback.frames.len(), 2);
        assert_eq!(traceback.exception_type(), "ZeroDivisionError");
        assert_eq!(traceback.message(), "ZeroDivisionError: division by zero");
        assert_eq!(traceback.end, 8);
    }

    #[test]
    fn a_chain_is_one_failure_with_its_cause() {
        let output = "Traceback (most recent call last):\n  File \"/lib/x.py\", line 3, in get\n    return d[k]\nKeyError: 'port'\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n  File \"/lib/x.py\", line 5, in load\n    raise ConfigError('no port') from e\nConfigError: no port\n";
        let failures = parse_output("python3 x.py", output, Path::new("/nonexistent"));
        assert_eq!(failures.len(), 1);
        assert_eq!(
            failures[0].message,
            "ConfigError: no port (caused by KeyError: 'port')"
        );
        assert_eq!(
            failures[0].location,
            Some(Location {
                file: "/lib/x.py".into(),
                line: 5,
                column: None,
                function: Some("load".into()),
                place: Place::Outside
            })
        );
    }

    #[test]
    fn a_traceback_cut_before_its_exception_is_still_a_failure() {
        let output = "Traceback (most recent call last):\n  File \"/lib/x.py\", line 3, in get\n[... 900 bytes cut (2000 bytes in all); the full output was not saved ...]\nrest\n";
        let failures = parse_output("python3 x.py", output, Path::new("/nonexistent"));
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].kind, FailureKind::PythonTraceback);
        assert_eq!(failures[0].message, "traceback cut before its exception");
    }
}
