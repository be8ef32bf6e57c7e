//! Check output made ready for the parsers: colours and control characters
//! removed, head/tail cut markers on lines of their own; and small string
//! helpers shared by the parsers.

/// The lines of a check's output, cleaned.
#[derive(Debug, Clone)]
pub(crate) struct Output {
    lines: Vec<String>,
}

impl Output {
    /// `raw` split into lines, without ANSI escape sequences or other
    /// control characters (tabs stay), with each `[... N bytes cut ...]`
    /// marker on a line of its own.
    pub(crate) fn new(raw: &str) -> Self {
        let clean = strip_controls(raw);
        let mut lines = Vec::new();
        for line in clean.split('\n') {
            split_cut_marker(line, &mut lines);
        }
        while lines.last().is_some_and(|l: &String| l.trim().is_empty()) {
            lines.pop();
        }
        Output { lines }
    }

    /// The lines.
    pub(crate) fn lines(&self) -> &[String] {
        &self.lines
    }

    /// Whether there is nothing but whitespace.
    pub(crate) fn is_blank(&self) -> bool {
        self.lines.iter().all(|l| l.trim().is_empty())
    }
}

/// Pushes `line` onto `lines`, with a cut marker in it on a line of its own.
fn split_cut_marker(line: &str, lines: &mut Vec<String>) {
    let marker = line
        .find("[... ")
        .filter(|&start| line[start..].contains(" bytes cut"));
    match marker {
        Some(start) => {
            let end = line[start..]
                .find("...]")
                .map_or(line.len(), |i| start + i + "...]".len());
            if !line[..start].trim().is_empty() {
                lines.push(line[..start].to_string());
            }
            lines.push(line[start..end].to_string());
            if !line[end..].trim().is_empty() {
                lines.push(line[end..].to_string());
            }
        }
        None => lines.push(line.to_string()),
    }
}

/// Whether `line` is a head/tail cut marker: the shell tool's (`bytes
/// cut`) or the agent's own (`characters cut`).
pub(crate) fn is_cut_marker(line: &str) -> bool {
    line.starts_with("[... ") && (line.contains(" bytes cut") || line.contains(" characters cut"))
}

/// `raw` without ANSI escape sequences (CSI and OSC) or control characters
/// other than newline and tab; carriage returns end lines.
fn strip_controls(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    // Parameters and intermediates, then one final byte.
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                _ => {
                    chars.next();
                }
            },
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to at most `max` characters, with `…` where it was cut.
pub(crate) fn bounded(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` keeping only its last `max` characters, with `…` where it was cut.
pub(crate) fn bounded_tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let mut out = String::from("…");
    out.extend(text.chars().skip(count - max.saturating_sub(1)));
    out
}

/// `lines` trimmed and joined with `; ` (empty lines dropped), bounded to a
/// message's length.
pub(crate) fn one_line<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let joined = lines
        .into_iter()
        .map(collapse_spaces)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    bounded(&joined, super::failure::MAX_MESSAGE_CHARS)
}

/// `line` trimmed, with runs of whitespace made single spaces.
pub(crate) fn collapse_spaces(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The leading whitespace width of `line`, in characters.
pub(crate) fn indent(line: &str) -> usize {
    line.chars().take_while(|c| c.is_whitespace()).count()
}

/// Parses `path:line[:column]` at the start of `text`, for the `:`-separated
/// positions of rustc, gcc, make and pytest. Returns the path, line, column
/// and what follows (after the `:` that ends the position, if any).
pub(crate) fn split_position(text: &str) -> Option<(&str, u32, Option<u32>, &str)> {
    // The path may itself contain `:` only in odd cases (Windows drives);
    // take the first `:<digits>` that is followed by `:` or the end.
    let bytes = text.as_bytes();
    let mut search = 0;
    while let Some(offset) = text[search..].find(':') {
        let colon = search + offset;
        let digits_end = bytes[colon + 1..]
            .iter()
            .position(|b| !b.is_ascii_digit())
            .map_or(bytes.len(), |p| colon + 1 + p);
        if digits_end > colon + 1 && colon > 0 {
            let path = &text[..colon];
            let line = text[colon + 1..digits_end].parse::<u32>().ok()?;
            let rest = &text[digits_end..];
            let (column, rest) = match rest.strip_prefix(':') {
                Some(after) => {
                    let col_end = after
                        .bytes()
                        .position(|b| !b.is_ascii_digit())
                        .unwrap_or(after.len());
                    if col_end > 0 {
                        let column = after[..col_end].parse::<u32>().ok();
                        let tail = &after[col_end..];
                        match tail.strip_prefix(':') {
                            Some(tail) => (column, tail),
                            None if tail.is_empty() => (column, tail),
                            None => (None, after),
                        }
                    } else {
                        (None, after)
                    }
                }
                None if rest.is_empty() => (None, rest),
                None => {
                    search = colon + 1;
                    continue;
                }
            };
            if path.contains(char::is_whitespace) && !path.starts_with('/') {
                return None;
            }
            return Some((path, line, column, rest));
        }
        search = colon + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn colours_and_controls_are_removed() {
        let output = Output::new("\u{1b}[1m\u{1b}[31merror\u{1b}[0m: boom\r\nnext\u{7}\n\n");
        assert_eq!(output.lines(), ["error: boom", "next"]);
    }

    #[test]
    fn a_cut_marker_gets_a_line_of_its_own() {
        let output = Output::new(
            "head line\npartial[... 120 bytes cut (400 bytes in all); the full output is saved in /x.log ...]\ntail\n",
        );
        assert_eq!(
            output.lines(),
            [
                "head line",
                "partial",
                "[... 120 bytes cut (400 bytes in all); the full output is saved in /x.log ...]",
                "tail"
            ]
        );
        assert!(is_cut_marker(&output.lines()[2]));
        assert!(is_cut_marker("[... 92 characters cut ...]"));
        assert!(!is_cut_marker("[... not a marker"));
    }

    #[test]
    fn blank_output_is_blank() {
        assert!(Output::new("  \n\t\n").is_blank());
        assert!(!Output::new("x").is_blank());
    }

    #[test]
    fn bounded_cuts_on_characters() {
        assert_eq!(bounded("abcdef", 4), "abc…");
        assert_eq!(bounded("ab", 4), "ab");
        assert_eq!(bounded("ééééé", 3), "éé…");
        assert_eq!(bounded_tail("abcdef", 4), "…def");
    }

    #[test]
    fn one_line_joins_and_collapses() {
        assert_eq!(
            one_line(["  assertion failed ", "", "  left:  6"]),
            "assertion failed; left: 6"
        );
    }

    #[test]
    fn positions_are_split() {
        assert_eq!(
            split_position("src/lib.rs:2:21"),
            Some(("src/lib.rs", 2, Some(21), ""))
        );
        assert_eq!(
            split_position("main.c:7:20: error: x"),
            Some(("main.c", 7, Some(20), " error: x"))
        );
        assert_eq!(
            split_position("tests/test_cart.py:8: AssertionError"),
            Some(("tests/test_cart.py", 8, None, " AssertionError"))
        );
        assert_eq!(
            split_position("Makefile:4: *** missing separator."),
            Some(("Makefile", 4, None, " *** missing separator."))
        );
        assert_eq!(split_position("no position here"), None);
        assert_eq!(split_position("at 12:30 we met"), None);
    }
}
