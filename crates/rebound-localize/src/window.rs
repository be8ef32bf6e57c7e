//! A numbered window of code: the whole definition when it is short, else
//! the lines around the line of interest.

use serde::{Deserialize, Serialize};

use super::definitions::{line_count, Span};
use super::text::bounded;

/// The most lines in a window.
pub const MAX_WINDOW_LINES: u32 = 60;

/// The longest line shown, in characters (longer ones end with `…`).
pub const MAX_LINE_CHARS: usize = 200;

/// Consecutive lines of a file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Window {
    /// The number of the first line, from 1.
    pub start_line: u32,
    /// The lines, without their line ends.
    pub lines: Vec<String>,
}

impl Window {
    /// The window of `source` for `line` (from 1): the whole of `span` when
    /// it has at most [`MAX_WINDOW_LINES`] lines; otherwise that many lines
    /// centred on `line`, kept inside `span` when there is one.
    pub fn around(source: &str, span: Option<&Span>, line: u32) -> Window {
        let total = line_count(source).max(1);
        let (first, last) = match span {
            Some(span) if span.line_count() <= MAX_WINDOW_LINES => (span.start_line, span.end_line),
            _ => {
                let (low, high) = span.map_or((1, total), |s| (s.start_line, s.end_line));
                let line = line.clamp(low, high.max(low));
                let half = MAX_WINDOW_LINES / 2;
                let mut first = line.saturating_sub(half).max(low);
                let last = first.saturating_add(MAX_WINDOW_LINES - 1).min(high);
                if last - first + 1 < MAX_WINDOW_LINES {
                    first = last.saturating_sub(MAX_WINDOW_LINES - 1).max(low);
                }
                (first, last)
            }
        };
        let first = first.clamp(1, total);
        let last = last.clamp(first, total);
        let lines = source
            .split('\n')
            .skip(first as usize - 1)
            .take((last - first + 1) as usize)
            .map(|l| bounded(l.strip_suffix('\r').unwrap_or(l), MAX_LINE_CHARS))
            .collect();
        Window {
            start_line: first,
            lines,
        }
    }

    /// The number of the last line.
    pub fn end_line(&self) -> u32 {
        let count = u32::try_from(self.lines.len()).unwrap_or(u32::MAX);
        (self.start_line + count)
            .saturating_sub(1)
            .max(self.start_line)
    }

    /// The lines, each after its number: ` 4 | def sub(a, b):`.
    pub fn numbered_lines(&self) -> Vec<String> {
        let width = self.end_line().to_string().len();
        self.lines
            .iter()
            .zip(self.start_line..)
            .map(|(text, number)| format!(" {number:>width$} | {text}").trim_end().to_string())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definitions::DefinitionKind;

    fn numbered_source(lines: u32) -> String {
        (1..=lines).map(|n| format!("line {n}\n")).collect()
    }

    fn span(start_line: u32, end_line: u32) -> Span {
        Span {
            name: "f".into(),
            kind: DefinitionKind::Function,
            start_line,
            end_line,
        }
    }

    #[test]
    fn a_short_definition_is_shown_whole() {
        let source = "x = 1\n\ndef sub(a, b):\n    return b - a\n";
        let window = Window::around(source, Some(&span(3, 4)), 4);
        assert_eq!(
            window.numbered_lines(),
            [" 3 | def sub(a, b):", " 4 |     return b - a"]
        );
    }

    #[test]
    fn a_long_definition_is_cut_around_the_line() {
        let source = numbered_source(300);
        let window = Window::around(&source, Some(&span(10, 200)), 100);
        assert_eq!((window.start_line, window.end_line()), (70, 129));
        let near_start = Window::around(&source, Some(&span(10, 200)), 12);
        assert_eq!((near_start.start_line, near_start.end_line()), (10, 69));
        let near_end = Window::around(&source, Some(&span(10, 200)), 199);
        assert_eq!((near_end.start_line, near_end.end_line()), (141, 200));
    }

    #[test]
    fn without_a_definition_the_lines_around_are_shown() {
        let source = numbered_source(8);
        let window = Window::around(&source, None, 2);
        assert_eq!((window.start_line, window.end_line()), (1, 8));
        let window = Window::around(&numbered_source(500), None, 250);
        assert_eq!((window.start_line, window.end_line()), (220, 279));
        assert_eq!(window.numbered_lines()[0], " 220 | line 220");
    }

    #[test]
    fn a_line_past_the_end_shows_the_end() {
        let window = Window::around(&numbered_source(5), None, 99);
        assert_eq!((window.start_line, window.end_line()), (1, 5));
        let window = Window::around("", None, 3);
        assert_eq!(window.lines, [""]);
    }

    #[test]
    fn long_lines_are_cut() {
        let source = "x".repeat(500);
        let window = Window::around(&source, None, 1);
        assert_eq!(window.lines[0].chars().count(), MAX_LINE_CHARS);
        assert!(window.lines[0].ends_with('…'));
    }
}
