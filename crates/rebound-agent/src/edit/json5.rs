//! A JSON file written as JavaScript (JSON5: unquoted keys, single
//! quotes, trailing commas, comments) rewritten as JSON, its layout kept:
//! keys quoted, strings double-quoted, trailing commas and comments
//! dropped, nothing else touched. The rewrite is taken only when the JSON
//! it gives holds exactly the values the `json5` crate reads from the
//! original, so a mistake of this small lexer can never change a value.
//!
//! Written here rather than with a crate: `json5` reads values but writes
//! no text, and `serde_json` writes a whole new layout (and, without
//! `preserve_order`, sorted keys); a user's hand-kept file keeps its
//! order, indentation and line breaks this way. Found on dev: a settings
//! file with a dozen such errors, one per line, was beyond the line-by-line
//! syntax repair and beyond the model (26 calls, time limit).

/// `text` (JSON5) as JSON with the same layout and values; `None` when it
/// is not JSON5, is JSON already, or uses what JSON has no spelling for
/// here (`Infinity`, hex numbers, `\x` escapes).
pub(crate) fn json5_as_json(text: &str) -> Option<String> {
    if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        return None;
    }
    let values = json5::from_str::<serde_json::Value>(text).ok()?;
    let rewritten = rewrite(text)?;
    let reread = serde_json::from_str::<serde_json::Value>(&rewritten).ok()?;
    (reread == values).then_some(rewritten)
}

/// The token-by-token rewrite (not yet checked).
fn rewrite(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '/' if matches!(chars.get(i + 1), Some('/' | '*')) => {
                let end = comment_end(&chars, i)?;
                if chars[i + 1] == '/' {
                    // A line comment: dropped, with the spaces before it.
                    trim_trailing_blanks(&mut out);
                } else {
                    // A block comment's line breaks stay, so lines keep
                    // their numbers.
                    out.extend(chars[i..end].iter().filter(|c| **c == '\n'));
                }
                i = end;
            }
            '"' | '\'' => {
                let (string, next) = string(&chars, i)?;
                out.push_str(&string);
                i = next;
            }
            ',' => {
                let next = next_token(&chars, i + 1);
                if !matches!(next.map(|j| chars[j]), Some('}' | ']')) {
                    out.push(',');
                }
                i += 1;
            }
            c if c.is_alphabetic() || c == '_' || c == '$' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
                {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let is_key = next_token(&chars, i).is_some_and(|j| chars[j] == ':');
                if is_key {
                    out.push_str(&serde_json::to_string(&word).ok()?);
                } else if matches!(word.as_str(), "true" | "false" | "null") {
                    out.push_str(&word);
                } else {
                    return None;
                }
            }
            c if c.is_ascii_digit() || c == '-' => {
                // A number, copied: JSON reads it or the rewrite fails.
                let start = i;
                i += 1;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric()
                        || chars[i] == '.'
                        || (matches!(chars[i], '+' | '-') && matches!(chars[i - 1], 'e' | 'E')))
                {
                    i += 1;
                }
                out.extend(&chars[start..i]);
            }
            '+' | '.' => return None,
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Some(out)
}

/// The string starting at `chars[start]` (a `"` or `'`) as a JSON string,
/// and the index after it; `None` for an escape JSON does not have
/// (`\x41`, `\v`, `\0`, a line continuation) or an unclosed string.
fn string(chars: &[char], start: usize) -> Option<(String, usize)> {
    let quote = chars[start];
    let mut out = String::from('"');
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            c if c == quote => {
                out.push('"');
                return Some((out, i + 1));
            }
            '\\' => {
                let escaped = *chars.get(i + 1)?;
                match escaped {
                    '\'' => out.push('\''),
                    '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u' => {
                        out.push('\\');
                        out.push(escaped);
                    }
                    _ => return None,
                }
                i += 2;
            }
            '"' => {
                out.push_str("\\\"");
                i += 1;
            }
            '\n' => return None,
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    None
}

/// The index of the next character after `from` that is not blank or in
/// a comment.
fn next_token(chars: &[char], from: usize) -> Option<usize> {
    let mut i = from;
    while i < chars.len() {
        match chars[i] {
            c if c.is_whitespace() => i += 1,
            '/' if matches!(chars.get(i + 1), Some('/' | '*')) => i = comment_end(chars, i)?,
            _ => return Some(i),
        }
    }
    None
}

/// The index after the comment that starts at `start` (`//`: up to its
/// line break, which is not part of it; `/* */`: after its `*/`); `None`
/// for a block comment that is never closed.
fn comment_end(chars: &[char], start: usize) -> Option<usize> {
    if chars.get(start + 1) == Some(&'/') {
        return Some(
            (start..chars.len())
                .find(|&j| chars[j] == '\n')
                .unwrap_or(chars.len()),
        );
    }
    (start + 2..chars.len().saturating_sub(1))
        .find(|&j| chars[j] == '*' && chars[j + 1] == '/')
        .map(|close| close + 2)
}

/// `out` without the spaces and tabs at its end.
fn trim_trailing_blanks(out: &mut String) {
    let kept = out.trim_end_matches([' ', '\t']).len();
    out.truncate(kept);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn javascript_style_json_is_rewritten_in_place() {
        let text = "{\n  appName: 'Recipe Box', // the name\n  \"tagline\": \"Grandma's recipes\",\n  'theme': {\n    primary: '#d35400',\n    dark: false,\n  },\n  /* locales */\n  \"locales\": ['en', 'de', \"fr\",],\n  quote: 'say \"hi\"',\n  it: 'it\\'s',\n}\n";
        let json = json5_as_json(text).unwrap();
        assert_eq!(
            json,
            "{\n  \"appName\": \"Recipe Box\",\n  \"tagline\": \"Grandma's recipes\",\n  \"theme\": {\n    \"primary\": \"#d35400\",\n    \"dark\": false\n  },\n  \n  \"locales\": [\"en\", \"de\", \"fr\"],\n  \"quote\": \"say \\\"hi\\\"\",\n  \"it\": \"it's\"\n}\n"
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&json).unwrap(),
            json5::from_str::<serde_json::Value>(text).unwrap()
        );
    }

    #[test]
    fn json_already_not_json5_or_no_json_spelling_is_left_alone() {
        assert_eq!(json5_as_json("{\"a\": 1}"), None);
        assert_eq!(json5_as_json("{a: }"), None);
        assert_eq!(json5_as_json("{a: Infinity}"), None);
        assert_eq!(json5_as_json("{a: 0x1F}"), None);
        assert_eq!(json5_as_json("{a: '\\x41'}"), None);
        assert_eq!(json5_as_json("{a: .5}"), None);
        assert_eq!(json5_as_json("{a: 5.}"), None);
        // Numbers stay as written.
        assert_eq!(
            json5_as_json("{a: -1.5e+3, b: [0, 2E-2,]}").as_deref(),
            Some("{\"a\": -1.5e+3, \"b\": [0, 2E-2]}")
        );
    }
}
