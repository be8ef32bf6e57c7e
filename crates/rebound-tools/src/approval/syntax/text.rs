//! The text of a word once the shell has removed its quotes: backslash
//! escapes outside and inside double quotes, and `$'...'` strings.

/// An unquoted word's text with its backslash escapes removed: `\;` is
/// `;`, `\rm` is `rm`, a backslash-newline disappears.
pub(super) fn unescape_unquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\n') => {}
            Some(next) => out.push(next),
            None => out.push('\\'),
        }
    }
    out
}

/// The inside of a double-quoted string with its escapes removed: only
/// `\$`, `` \` ``, `\"`, `\\` and backslash-newline are escapes there.
pub(super) fn unescape_double_quoted(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some(next @ ('$' | '`' | '"' | '\\')) => {
                chars.next();
                out.push(next);
            }
            Some('\n') => {
                chars.next();
            }
            _ => out.push('\\'),
        }
    }
    out
}

/// The inside of a backtick substitution as bash reads it again: `\\`,
/// `` \` `` and `\$` lose their backslash, so `` `echo \`id\`` `` runs `id`.
pub(super) fn unescape_backticks(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next @ ('\\' | '`' | '$')) = chars.peek().copied() {
                chars.next();
                out.push(next);
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// The body of a here-document whose delimiter is not quoted, as the
/// shell passes it on: `\$`, `` \` `` and `\\` lose their backslash, a
/// backslash-newline disappears.
pub(super) fn unescape_heredoc(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek().copied() {
                Some(next @ ('\\' | '`' | '$')) => {
                    chars.next();
                    out.push(next);
                    continue;
                }
                Some('\n') => {
                    chars.next();
                    continue;
                }
                _ => {}
            }
        }
        out.push(c);
    }
    out
}

/// The value of a `$'...'` string (`raw` with the `$'` and `'`), or `None`
/// when it holds an escape this decoder does not know.
pub(super) fn decode_ansi_c(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix("$'")?.strip_suffix('\'')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escape = chars.next()?;
        let simple = match escape {
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(escape),
            _ => None,
        };
        if let Some(decoded) = simple {
            out.push(decoded);
            continue;
        }
        let (radix, max_digits, mut value) = match escape {
            'x' => (16, 2, 0),
            'u' => (16, 4, 0),
            'U' => (16, 8, 0),
            '0'..='7' => (8, 2, escape.to_digit(8)?),
            _ => return None,
        };
        let mut digits = 0;
        while digits < max_digits {
            let Some(digit) = chars.peek().and_then(|d| d.to_digit(radix)) else {
                break;
            };
            chars.next();
            value = value * radix + digit;
            digits += 1;
        }
        if radix == 16 && digits == 0 {
            return None;
        }
        out.push(char::from_u32(value)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquoted_escapes() {
        assert_eq!(unescape_unquoted(r"\rm"), "rm");
        assert_eq!(unescape_unquoted(r"e\;f"), "e;f");
        assert_eq!(unescape_unquoted("a\\\nb"), "ab");
        assert_eq!(unescape_unquoted("a\\"), "a\\");
    }

    #[test]
    fn double_quoted_escapes() {
        assert_eq!(
            unescape_double_quoted(r#"a\"b \$c \\ d \n"#),
            r#"a"b $c \ d \n"#
        );
    }

    #[test]
    fn backtick_escapes() {
        assert_eq!(
            unescape_backticks(r"echo \`id\` \$x \n"),
            r"echo `id` $x \n"
        );
    }

    #[test]
    fn heredoc_escapes() {
        assert_eq!(unescape_heredoc("\\$(id) \\\\\\\na"), "$(id) \\a");
    }

    #[test]
    fn ansi_c_strings() {
        assert_eq!(decode_ansi_c(r"$'\x72m'").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"$'\057'").as_deref(), Some("/"));
        assert_eq!(decode_ansi_c(r"$'a\tb\u00e9'").as_deref(), Some("a\tbé"));
        assert_eq!(decode_ansi_c(r"$'\cA'"), None);
        assert_eq!(decode_ansi_c(r"$'\x'"), None);
    }
}
