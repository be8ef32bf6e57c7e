//! Making captured bytes fit to show a model.

use std::iter::Peekable;
use std::str::Chars;

/// How far an OSC escape sequence (`ESC ] ... BEL`) may run before it is
/// taken for garbage rather than a sequence.
const MAX_OSC: usize = 512;

/// `bytes` as printable text: invalid UTF-8 becomes U+FFFD, ANSI escape
/// sequences (colours, cursor moves, titles) are dropped, `\r\n` becomes
/// `\n` and a lone `\r` (progress bars) a `\n`, and every other control
/// character except `\n` and `\t` becomes U+FFFD.
pub(crate) fn printable(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\u{1b}' => {
                if !skip_escape(&mut chars) {
                    out.push(char::REPLACEMENT_CHARACTER);
                }
            }
            c if c.is_control() => out.push(char::REPLACEMENT_CHARACTER),
            c => out.push(c),
        }
    }
    out
}

/// Skips the rest of an escape sequence whose `ESC` was just read; `false`
/// when what follows is not one (then nothing is skipped).
fn skip_escape(chars: &mut Peekable<Chars<'_>>) -> bool {
    match chars.peek().copied() {
        // CSI: parameters and intermediates, then one final byte.
        Some('[') => {
            chars.next();
            while let Some(&c) = chars.peek() {
                if ('\u{20}'..='\u{3f}').contains(&c) {
                    chars.next();
                } else {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        chars.next();
                    }
                    break;
                }
            }
            true
        }
        // OSC: up to BEL or ST (`ESC \`).
        Some(']') => {
            let mut look = chars.clone();
            look.next();
            for taken in 0..MAX_OSC {
                match look.next() {
                    Some('\u{7}') => {
                        skip(chars, taken + 2);
                        return true;
                    }
                    Some('\u{1b}') if look.peek() == Some(&'\\') => {
                        skip(chars, taken + 3);
                        return true;
                    }
                    Some(_) => {}
                    None => break,
                }
            }
            false
        }
        // Two-character sequences, with an optional intermediate
        // (`ESC ( B` selects a character set).
        Some(c) if ('\u{20}'..='\u{2f}').contains(&c) => {
            chars.next();
            chars.next();
            true
        }
        Some(c) if ('\u{30}'..='\u{7e}').contains(&c) => {
            chars.next();
            true
        }
        _ => false,
    }
}

fn skip(chars: &mut Peekable<Chars<'_>>, n: usize) {
    for _ in 0..n {
        chars.next();
    }
}

/// `bytes` without a UTF-8 character cut off at its end.
pub(crate) fn trim_partial_end(bytes: &[u8]) -> &[u8] {
    let len = bytes.len();
    for back in 1..=len.min(4) {
        let byte = bytes[len - back];
        if byte & 0xC0 != 0x80 {
            let needed = match byte {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            return if needed > back {
                &bytes[..len - back]
            } else {
                bytes
            };
        }
    }
    bytes
}

/// `bytes` without a UTF-8 character cut off at its start.
pub(crate) fn trim_partial_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .take(3)
        .take_while(|&&byte| byte & 0xC0 == 0x80)
        .count();
    &bytes[skip..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_controls_are_cleaned() {
        let raw = b"\x1b[1;31merror\x1b[0m: bad\r\nline\ttab\x07\x00 \x1b]0;title\x07done\rnext";
        assert_eq!(
            printable(raw),
            "error: bad\nline\ttab\u{FFFD}\u{FFFD} done\nnext"
        );
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(printable(b"a\xffb"), "a\u{FFFD}b");
    }

    #[test]
    fn cut_characters_are_trimmed() {
        let text = "aé€😀".as_bytes();
        for cut in 0..=text.len() {
            let head = trim_partial_end(&text[..cut]);
            assert!(std::str::from_utf8(head).is_ok(), "head cut at {cut}");
            assert!(cut - head.len() < 4);
            let tail = trim_partial_start(&text[cut..]);
            assert!(std::str::from_utf8(tail).is_ok(), "tail cut at {cut}");
        }
    }
}
