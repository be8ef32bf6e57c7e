//! pytest reports: the sections under `FAILURES` and `ERRORS` (with their
//! `path:line:` frames and `E   ` lines) and the short test summary
//! (`FAILED tests/test_x.py::test_y - AssertionError: …`).

use super::python::{self, read_traceback};
use super::{Claims, Context, Found};
use crate::failure::{innermost_project_frame, Failure, FailureKind, Location};
use crate::text::{one_line, split_position};

/// A `FAILED` or `ERROR` line of the short test summary.
#[derive(Debug)]
struct SummaryEntry {
    line: usize,
    node_id: String,
    message: Option<String>,
}

/// A section of the `FAILURES` or `ERRORS` part: its title and body lines.
#[derive(Debug)]
struct Section {
    title: String,
    start: usize,
    end: usize,
}

/// Reads a pytest report's failures.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, context: &Context) -> Vec<Found> {
    if !lines.iter().any(|l| is_banner(l)) {
        return Vec::new();
    }
    let mut summary = summary_entries(lines, claims);
    let mut found = Vec::new();
    for section in sections(lines, claims) {
        let matched = summary
            .iter()
            .position(|entry| title_matches(&section.title, &entry.node_id));
        let entry = matched.map(|at| summary.remove(at));
        let body = &lines[section.start + 1..section.end];
        let mut failure = section_failure(body, context);
        failure.test = Some(match &entry {
            Some(entry) => entry.node_id.clone(),
            None => fallback_id(&section.title, &failure),
        });
        if failure.message.is_empty() {
            failure.message = entry
                .as_ref()
                .and_then(|e| e.message.clone())
                .unwrap_or_else(|| section.title.clone());
        }
        claims.claim(section.start..section.end);
        if let Some(entry) = &entry {
            claims.claim(entry.line..entry.line + 1);
        }
        found.push(Found::at(section.start, failure));
    }
    for entry in summary {
        let mut failure = Failure::new(
            FailureKind::PytestFailure,
            entry.message.clone().unwrap_or_default(),
        );
        failure.test = Some(entry.node_id.clone());
        claims.claim(entry.line..entry.line + 1);
        found.push(Found::at(entry.line, failure));
    }
    found
}

/// Whether `line` is one of pytest's `=====` banners.
fn is_banner(line: &str) -> bool {
    line.starts_with("===")
        && [
            " FAILURES ",
            " ERRORS ",
            " short test summary info ",
            " test session starts ",
        ]
        .iter()
        .any(|word| line.contains(word))
}

/// The `FAILED …` and `ERROR …` lines of the short test summary.
fn summary_entries(lines: &[String], claims: &Claims) -> Vec<SummaryEntry> {
    let mut entries = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if claims.is_claimed(i) {
            continue;
        }
        let Some(rest) = line
            .strip_prefix("FAILED ")
            .or_else(|| line.strip_prefix("ERROR "))
        else {
            continue;
        };
        let (node_id, message) = match rest.split_once(" - ") {
            Some((id, message)) => (id.trim(), Some(one_line([message]))),
            None => (rest.trim(), None),
        };
        if node_id.is_empty() || node_id.starts_with('(') || node_id.contains(' ') {
            continue;
        }
        entries.push(SummaryEntry {
            line: i,
            node_id: node_id.to_string(),
            message,
        });
    }
    entries
}

/// The titled sections under the `FAILURES` and `ERRORS` banners.
fn sections(lines: &[String], claims: &Claims) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    let mut inside = false;
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("===") {
            inside = line.contains(" FAILURES ") || line.contains(" ERRORS ");
            if let Some(last) = sections.last_mut() {
                last.end = last.end.min(i);
            }
            continue;
        }
        if !inside || claims.is_claimed(i) {
            continue;
        }
        if let Some(title) = section_title(line) {
            if let Some(last) = sections.last_mut() {
                last.end = last.end.min(i);
            }
            sections.push(Section {
                title,
                start: i,
                end: lines.len(),
            });
        }
    }
    sections
}

/// The title of `____ test_total ____`; `None` for other lines, and for
/// the `_ _ _ _` rules between the frames of one test.
fn section_title(line: &str) -> Option<String> {
    let line = line.trim_end();
    if !(line.starts_with("___") && line.ends_with("___")) {
        return None;
    }
    let title = line.trim_matches('_').trim();
    (!title.is_empty()).then(|| title.to_string())
}

/// Whether section `title` is the test `node_id` of the summary:
/// `TestCart.test_empty` is `tests/test_x.py::TestCart::test_empty`,
/// `ERROR collecting tests/test_x.py` is `tests/test_x.py`, `ERROR at
/// setup of test_y` is `tests/test_x.py::test_y`.
fn title_matches(title: &str, node_id: &str) -> bool {
    let name = node_id.split("::").skip(1).collect::<Vec<_>>().join(".");
    (!name.is_empty() && (title == name || title.ends_with(&format!(" of {name}"))))
        || title == format!("ERROR collecting {node_id}")
}

/// A test id for a section the summary does not list:
/// `tests/test_x.py::TestCart::test_empty` from its first frame's file.
fn fallback_id(title: &str, failure: &Failure) -> String {
    match failure.frames.first() {
        Some(frame) if !title.contains(' ') => {
            format!("{}::{}", frame.file, title.replace('.', "::"))
        }
        _ => title.to_string(),
    }
}

/// The failure one section shows: its frames (pytest's `path:line:` lines,
/// or a native traceback), its `E   ` lines as the message.
fn section_failure(body: &[String], context: &Context) -> Failure {
    let native = body
        .iter()
        .position(|l| python::is_header(l))
        .and_then(|at| read_traceback(body, at));
    let mut frames: Vec<Location> = Vec::new();
    let mut errors: Vec<&str> = Vec::new();
    for line in body {
        if let Some(text) = line.strip_prefix("E ") {
            errors.push(text);
        } else if let Some(frame) = frame(line, context) {
            frames.push(frame);
        }
    }
    let mut failure = match native {
        Some(traceback) if frames.is_empty() => {
            python::failure(&traceback, FailureKind::PytestFailure, context)
        }
        _ => {
            let location = innermost_project_frame(&frames);
            Failure {
                kind: FailureKind::PytestFailure,
                test: None,
                message: String::new(),
                location,
                frames,
            }
        }
    };
    if !errors.is_empty() {
        failure.message = one_line(errors);
    }
    failure
}

/// A pytest frame line: `tests/test_x.py:8: AssertionError` (long),
/// `tests/test_x.py:8: in test_total` (short), `tests/test_x.py:12: `.
fn frame(line: &str, context: &Context) -> Option<Location> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (path, number, column, rest) = split_position(line)?;
    if column.is_some() || path.contains(' ') || !path.contains('.') {
        return None;
    }
    let function = rest.trim().strip_prefix("in ").map(str::trim);
    Some(context.location(path, number, None, function))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_match_node_ids() {
        assert!(title_matches(
            "test_total",
            "tests/test_cart.py::test_total"
        ));
        assert!(title_matches(
            "TestCart.test_empty",
            "tests/test_cart.py::TestCart::test_empty"
        ));
        assert!(title_matches(
            "test_p[1-2]",
            "tests/test_cart.py::test_p[1-2]"
        ));
        assert!(title_matches(
            "ERROR collecting tests/test_broken.py",
            "tests/test_broken.py"
        ));
        assert!(title_matches(
            "ERROR at setup of test_db",
            "tests/test_db.py::test_db"
        ));
        assert!(!title_matches(
            "test_total",
            "tests/test_cart.py::test_totals"
        ));
    }

    #[test]
    fn section_titles_are_not_frame_rules() {
        assert_eq!(
            section_title(
                "__________________________________ test_total __________________________________"
            )
            .as_deref(),
            Some("test_total")
        );
        assert_eq!(
            section_title("_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _"),
            None
        );
    }
}
