//! Failures and their suspects as compact text for a prompt, bounded and
//! deterministic.

use std::collections::HashSet;

use super::failure::{Failure, FailureKind, Location, Place};
use super::languages::Language;
use super::locate::Suspect;
use super::text::bounded;

/// The most workspace frames listed on a failure's `frames:` line.
const MAX_FRAMES_LISTED: usize = 6;

/// The most characters of a source line [`failing_lines`] quotes.
const MAX_QUOTED_LINE_CHARS: usize = 160;

/// The source lines where `failures` show, as `file:line: code`, at most
/// `max` of them, one per place, skipping `except_file` (whose code the
/// prompt shows anyway): for a failed assertion, the test's line with the
/// call and the value it expects (`test_calc.py:11:
/// self.assertEqual(subtract(5, 3), 2)`), the fact a small model needs to
/// tell what the code must return. Only workspace files are read.
pub fn failing_lines(
    workspace: &std::path::Path,
    failures: &[Failure],
    except_file: &str,
    max: usize,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut seen: HashSet<(&str, u32)> = HashSet::new();
    for location in failures.iter().filter_map(|f| f.location.as_ref()) {
        if lines.len() >= max {
            break;
        }
        if !location.in_workspace()
            || location.file == except_file
            || !seen.insert((location.file.as_str(), location.line))
        {
            continue;
        }
        let Some(source) = super::paths::read_workspace_file(workspace, &location.file) else {
            continue;
        };
        let index = usize::try_from(location.line.saturating_sub(1)).unwrap_or(usize::MAX);
        let Some(code) = source.lines().nth(index).map(str::trim) else {
            continue;
        };
        if !code.is_empty() {
            lines.push(format!(
                "{}:{}: {}",
                location.file,
                location.line,
                bounded(code, MAX_QUOTED_LINE_CHARS)
            ));
        }
    }
    lines
}

/// The failures and the code they point at, as text of at most
/// `max_chars` characters:
///
/// ```text
/// FAIL test_calc.T.test_sub: AssertionError: -2 != 2
/// at test_calc.py:11 (in test_sub)
/// suspect: calc.py:8-9, def sub
///  8 | def sub(a, b):
///  9 |     return b - a
/// ```
///
/// Every failure's header (its message and location) comes before any
/// code: when they do not all fit, the last ones are counted in a final
/// `[... N more failures]` line, and code windows are cut (`...`) to what
/// is left. Empty for no failures.
pub fn render(failures: &[Failure], suspects: &[Suspect], max_chars: usize) -> String {
    if failures.is_empty() || max_chars == 0 {
        return String::new();
    }
    let headers: Vec<String> = failures.iter().map(header).collect();
    let mut shown = 0;
    let mut used = 0;
    for (i, header) in headers.iter().enumerate() {
        let cost = chars(header) + if i > 0 { 2 } else { 0 };
        let rest = failures.len() - i - 1;
        let reserve = if rest > 0 { chars(&more(rest)) + 1 } else { 0 };
        if used + cost + reserve > max_chars {
            break;
        }
        used += cost;
        shown += 1;
    }
    if shown == 0 {
        // Not even the first header fits: it is cut.
        let rest = failures.len() - 1;
        let note = if rest > 0 { more(rest) } else { String::new() };
        let room = max_chars.saturating_sub(chars(&note) + 1);
        let text = format!("{}\n{note}", bounded(&headers[0], room));
        return bounded(text.trim_end(), max_chars);
    }
    let note = (shown < failures.len()).then(|| more(failures.len() - shown));
    let mut budget = max_chars - used - note.as_ref().map_or(0, |n| chars(n) + 1);
    let mut out = String::new();
    let mut rendered = HashSet::new();
    for (i, header) in headers.iter().enumerate().take(shown) {
        if i > 0 {
            out.push_str("\n\n");
        }
        out.push_str(header);
        for suspect in suspects.iter().filter(|s| s.failure == i) {
            let lines = suspect_lines(suspect, &mut rendered);
            for (n, line) in lines.iter().enumerate() {
                let cost = chars(line) + 1;
                // Room for the ` ...` that says a window was cut.
                let ellipsis = if n + 1 < lines.len() { 5 } else { 0 };
                if cost + ellipsis <= budget {
                    out.push('\n');
                    out.push_str(line);
                    budget -= cost;
                } else {
                    if n > 0 && budget >= 5 {
                        out.push_str("\n ...");
                        budget -= 5;
                    }
                    break;
                }
            }
        }
    }
    if let Some(note) = note {
        out.push('\n');
        out.push_str(&note);
    }
    bounded(&out, max_chars)
}

/// The line counting the failures left out.
fn more(count: usize) -> String {
    match count {
        1 => "[... 1 more failure]".to_string(),
        n => format!("[... {n} more failures]"),
    }
}

/// A failure's header: its headline, where it is, and the workspace frames
/// that led there.
fn header(failure: &Failure) -> String {
    if failure.kind == FailureKind::Unknown {
        return format!("OUTPUT (no known format), last lines:\n{}", failure.message);
    }
    let mut lines = vec![match &failure.test {
        Some(test) => format!("{} {test}: {}", label(failure), failure.message),
        None => format!("{}: {}", label(failure), failure.message),
    }];
    if let Some(location) = &failure.location {
        lines.push(format!("at {}", position(location)));
    }
    let frames: Vec<&Location> = failure.frames.iter().filter(|f| f.in_workspace()).collect();
    if frames.len() >= 2 {
        let listed: Vec<String> = frames
            .iter()
            .skip(frames.len().saturating_sub(MAX_FRAMES_LISTED))
            .map(|f| match &f.function {
                Some(function) => format!("{}:{} ({function})", f.file, f.line),
                None => format!("{}:{}", f.file, f.line),
            })
            .collect();
        lines.push(format!("frames: {}", listed.join(" > ")));
    }
    lines.join("\n")
}

/// The word a failure's headline starts with.
fn label(failure: &Failure) -> &'static str {
    match failure.kind {
        FailureKind::UnittestFailure
        | FailureKind::PytestFailure
        | FailureKind::NodeTestFailure
        | FailureKind::GoTestFailure
        | FailureKind::TestAssertion => "FAIL",
        FailureKind::GoPanic if failure.test.is_some() => "FAIL",
        FailureKind::GoPanic => "PANIC",
        FailureKind::RustPanic if failure.test.is_some() => "FAIL",
        FailureKind::RustPanic => "PANIC",
        FailureKind::PythonTraceback => "ERROR",
        FailureKind::RustCompileError
        | FailureKind::CCompileError
        | FailureKind::GoCompileError => "BUILD",
        FailureKind::MakeError => "MAKE",
        FailureKind::JsonParseError => "JSON",
        FailureKind::TomlParseError => "TOML",
        FailureKind::YamlParseError => "YAML",
        FailureKind::Uncommitted => "GIT",
        FailureKind::Unknown => "OUTPUT",
    }
}

/// `file:line[:column] (in f)`, saying when the file is not in the
/// workspace.
fn position(location: &Location) -> String {
    let mut text = format!("{}:{}", location.file, location.line);
    if let Some(column) = location.column {
        text.push_str(&format!(":{column}"));
    }
    if let Some(function) = &location.function {
        text.push_str(&format!(" (in {function})"));
    }
    match location.place {
        Place::Workspace => {}
        Place::Outside => text.push_str(" (outside the workspace)"),
        Place::Missing => text.push_str(" (file not found)"),
    }
    text
}

/// A suspect's header line and numbered window; only the header when the
/// same code was rendered above.
fn suspect_lines(suspect: &Suspect, rendered: &mut HashSet<(String, u32, u32)>) -> Vec<String> {
    let window = &suspect.window;
    let mut title = match &suspect.span {
        Some(span) => {
            let keyword = span.kind.keyword(Language::from_path(&suspect.file));
            let what = if span.name.is_empty() {
                keyword.to_string()
            } else {
                format!("{keyword} {}", span.name)
            };
            let mut title = format!(
                "suspect: {}:{}-{}, {what}",
                suspect.file, span.start_line, span.end_line
            );
            if window.start_line > span.start_line || window.end_line() < span.end_line {
                title.push_str(&format!(
                    " (lines {}-{} shown)",
                    window.start_line,
                    window.end_line()
                ));
            }
            title
        }
        None => format!(
            "suspect: {}:{}-{}, lines around {}",
            suspect.file,
            window.start_line,
            window.end_line(),
            suspect.line
        ),
    };
    let key = (suspect.file.clone(), window.start_line, window.end_line());
    if !rendered.insert(key) {
        title.push_str(" (shown above)");
        return vec![title];
    }
    let mut lines = vec![title];
    lines.extend(window.numbered_lines());
    lines
}

/// The length of `text` in characters.
fn chars(text: &str) -> usize {
    text.chars().count()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::definitions::{DefinitionKind, Span};
    use crate::locate::SuspectReason;
    use crate::window::Window;

    fn failure(test: &str, message: &str) -> Failure {
        Failure {
            kind: FailureKind::UnittestFailure,
            test: Some(test.into()),
            message: message.into(),
            location: Some(Location {
                file: "test_calc.py".into(),
                line: 7,
                column: None,
                function: Some(test.rsplit('.').next().unwrap().into()),
                place: Place::Workspace,
            }),
            frames: vec![],
        }
    }

    #[test]
    fn a_failed_assertion_is_quoted_from_its_test_file() {
        let dir = tempfile::tempdir().unwrap();
        let test = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n\n        self.assertEqual(sub(5, 3), 2)\n";
        std::fs::write(dir.path().join("test_calc.py"), test).unwrap();
        let failures = [
            failure("test_calc.T.test_sub", "AssertionError: -2 != 2"),
            failure("test_calc.T.test_sub", "AssertionError: -2 != 2"),
        ];
        assert_eq!(
            failing_lines(dir.path(), &failures, "calc.py", 3),
            vec!["test_calc.py:7: self.assertEqual(sub(5, 3), 2)"],
            "one line per place"
        );
        assert!(failing_lines(dir.path(), &failures, "test_calc.py", 3).is_empty());
        let mut outside = failure("t", "m");
        outside.location.as_mut().unwrap().place = Place::Outside;
        let mut past_end = failure("t", "m");
        past_end.location.as_mut().unwrap().line = 99;
        assert!(failing_lines(dir.path(), &[outside, past_end], "calc.py", 3).is_empty());
    }

    fn sub_suspect(failure: usize) -> Suspect {
        Suspect {
            failure,
            file: "calc.py".into(),
            line: 4,
            span: Some(Span {
                name: "sub".into(),
                kind: DefinitionKind::Function,
                start_line: 4,
                end_line: 5,
            }),
            reason: SuspectReason::Called { name: "sub".into() },
            window: Window {
                start_line: 4,
                lines: vec!["def sub(a, b):".into(), "    return b - a".into()],
            },
        }
    }

    #[test]
    fn a_failure_and_its_window() {
        let text = render(
            &[failure("test_calc.T.test_sub", "AssertionError: -2 != 2")],
            &[sub_suspect(0)],
            1500,
        );
        assert_eq!(
            text,
            "FAIL test_calc.T.test_sub: AssertionError: -2 != 2\nat test_calc.py:7 (in test_sub)\nsuspect: calc.py:4-5, def sub\n 4 | def sub(a, b):\n 5 |     return b - a"
        );
    }

    #[test]
    fn code_shown_above_is_not_repeated() {
        let failures = [
            failure("t.T.test_a", "AssertionError: 1 != 2"),
            failure("t.T.test_b", "AssertionError: 3 != 4"),
        ];
        let text = render(&failures, &[sub_suspect(0), sub_suspect(1)], 1500);
        assert!(text.ends_with(
            "at test_calc.py:7 (in test_b)\nsuspect: calc.py:4-5, def sub (shown above)"
        ));
    }

    #[test]
    fn headers_come_before_code_and_the_rest_is_counted() {
        let failures: Vec<Failure> = (0..30)
            .map(|n| failure(&format!("t.T.test_{n}"), "AssertionError: x"))
            .collect();
        let suspects: Vec<Suspect> = (0..30).map(sub_suspect).collect();
        for max in [0, 10, 60, 100, 200, 333, 1000] {
            let text = render(&failures, &suspects, max);
            assert!(text.chars().count() <= max, "{max}: {text}");
        }
        let text = render(&failures, &suspects, 200);
        assert_eq!(
            text,
            "FAIL t.T.test_0: AssertionError: x\nat test_calc.py:7 (in test_0)\nsuspect: calc.py:4-5, def sub\n ...\n\nFAIL t.T.test_1: AssertionError: x\nat test_calc.py:7 (in test_1)\n[... 28 more failures]"
        );
        assert_eq!(render(&failures, &suspects, 200), text);
    }

    #[test]
    fn a_window_is_cut_to_the_budget() {
        let mut suspect = sub_suspect(0);
        suspect.window.lines = (0..50).map(|n| format!("    line_{n} = {n}")).collect();
        suspect.span = None;
        let text = render(&[failure("t.T.test_a", "boom")], &[suspect], 300);
        assert!(text.chars().count() <= 300);
        assert!(text.ends_with("\n ..."), "{text}");
        assert!(text.contains("suspect: calc.py:4-53, lines around 4\n  4 |     line_0 = 0"));
    }

    #[test]
    fn nothing_to_render() {
        assert_eq!(render(&[], &[], 100), "");
    }
}
