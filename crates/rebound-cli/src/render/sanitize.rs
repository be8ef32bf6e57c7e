//! Text from models, files, commands and users, made safe for a terminal:
//! every control character but newline and tab, and every escape sequence
//! (window titles, clipboard writes, screen clears, the alternate screen),
//! is shown escaped instead of acting on the terminal. Bidirectional
//! overrides (which reorder what is shown) are escaped too. `--json`
//! output is not sanitized: it is exact, and JSON escapes control
//! characters itself.

use std::borrow::Cow;

/// `text` with control characters and bidi overrides shown as escapes
/// (`\e`, `\x07`, `\u{9b}`, `\u{202e}`); newlines and tabs kept.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !unsafe_char(c) {
            out.push(c);
        } else if c == '\u{1b}' {
            out.push_str("\\e");
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

/// [`sanitize`], and newlines shown as `⏎` too: for a text that must stay
/// on one line.
pub fn one_line(text: &str) -> String {
    sanitize(text.trim()).replace('\n', " ⏎ ")
}

/// Longest string of an event shown, in characters: a longer one is cut
/// in the middle with a marker (the event log and `--json` keep it whole).
pub const MAX_SHOWN_CHARS: usize = 2_000;

/// `value` with every string in it [`sanitize`]d and cut to
/// [`MAX_SHOWN_CHARS`]: an event's payload, ready for a display.
pub fn sanitized(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(text) => Value::String(shown(text)),
        Value::Array(items) => Value::Array(items.iter().map(sanitized).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (shown(key), sanitized(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `text` sanitized and cut to [`MAX_SHOWN_CHARS`].
pub fn shown(text: &str) -> String {
    let count = text.chars().count();
    if count <= MAX_SHOWN_CHARS {
        return sanitize(text).into_owned();
    }
    let half = MAX_SHOWN_CHARS / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!(
        "{}[... {} characters not shown ...]{}",
        sanitize(&head),
        count - 2 * half,
        sanitize(&tail)
    )
}

/// Whether `c` may act on a terminal: C0 controls but `\n` and `\t`, DEL,
/// C1 controls, and the bidirectional embedding, override and isolate
/// characters.
fn unsafe_char(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        let osc52 = "copy \u{1b}]52;c;cm0gLXJmIH4=\u{7}done";
        assert_eq!(sanitize(osc52), "copy \\e]52;c;cm0gLXJmIH4=\\x07done");
        assert_eq!(sanitize("\u{1b}[2J\u{1b}[?1049h"), "\\e[2J\\e[?1049h");
        assert_eq!(sanitize("a\u{9b}31mb"), "a\\u{9b}31mb", "C1 CSI");
        assert_eq!(sanitize("x\u{202e}gpj.exe"), "x\\u{202e}gpj.exe");
        assert_eq!(sanitize("back\rspace\u{8}"), "back\\x0dspace\\x08");
        assert!(matches!(sanitize("plain\ttext\nok ✓"), Cow::Borrowed(_)));
        assert_eq!(one_line(" a\nb\u{1b}[1m "), "a ⏎ b\\e[1m");
    }

    #[test]
    fn every_string_of_a_payload_is_sanitized_and_long_ones_are_cut() {
        let payload = serde_json::json!({
            "review": {"reason": "done\u{1b}]0;pwned\u{7}", "n": 3},
            "steps": [{"description": "x".repeat(MAX_SHOWN_CHARS + 10)}],
        });
        let clean = sanitized(&payload);
        assert_eq!(clean["review"]["reason"], "done\\e]0;pwned\\x07");
        assert_eq!(clean["review"]["n"], 3);
        let cut = clean["steps"][0]["description"].as_str().unwrap();
        assert!(cut.contains("[... 10 characters not shown ...]"));
        assert!(cut.chars().count() < MAX_SHOWN_CHARS + 50);
    }
}
