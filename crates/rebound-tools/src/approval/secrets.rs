//! Reading another process's environment, command line or memory through
//! `/proc` (`/proc/<pid>/environ`, `/proc/self/cmdline`, `/proc/*/mem`):
//! forbidden in every mode, whatever reads it. The path may be written
//! with globs (`/proc/*/environ`), variables (`/proc/$PPID/environ`), or
//! reached by a `cd /proc/1` earlier on the line.

use super::paths::leading_expansion;
use super::rules::command_name;
use super::syntax::Script;

/// The files under `/proc/<pid>/` that hold what a process keeps secret.
const SECRET_FILES: &[&str] = &["environ", "cmdline", "mem"];

/// Process directories a pattern is tried against: a pid, `self`,
/// `thread-self` and a thread's.
const PROCESSES: &[&str] = &["1", "self", "thread-self", "1/task/1", "self/task/1"];

/// Why `script` is forbidden for reading a process's secrets, if it is.
pub(super) fn reads_process_secrets(script: &Script) -> Option<String> {
    if let Some(text) = script.texts().find(|t| names_secret(t)) {
        return Some(forbidden(text));
    }
    let into_proc = script.commands.iter().any(|c| {
        c.words
            .first()
            .is_some_and(|w| matches!(command_name(w), "cd" | "pushd"))
            && c.words[1..].iter().any(|w| could_be_in_proc(w))
    }) || script.commands.iter().any(|c| {
        c.assignments
            .iter()
            .any(|a| could_be_in_proc(a.split_once('=').map_or("", |(_, v)| v)))
    });
    if into_proc {
        let last_part = |t: &str| t.rsplit('/').next().unwrap_or(t).to_string();
        if let Some(text) = script.texts().find(|t| {
            let last = tokens(&last_part(t));
            SECRET_FILES.iter().any(|f| matches(&last, f))
        }) {
            return Some(forbidden(text));
        }
    }
    None
}

fn forbidden(text: &str) -> String {
    format!(
        "`{text}` reads a process's environment, command line or memory under `/proc` (secrets \
         such as API keys live there)"
    )
}

/// Whether `text`, read as a path pattern, can name a secret file of some
/// process under `/proc`.
fn names_secret(text: &str) -> bool {
    let cheap_miss =
        !text.contains(['*', '?', '[', '$', '`']) && !SECRET_FILES.iter().any(|f| text.contains(f));
    if cheap_miss {
        return false;
    }
    let pattern = tokens(&tidy(text));
    let starts = starts(&pattern);
    // Without a literal `proc`, only a last part with a literal character
    // in it can name the file: `$dir/*` and `$x` do not.
    let literal_proc = starts
        .iter()
        .any(|(at, _)| pattern.get(*at) == Some(&Token::Char('p')));
    let last = pattern
        .rsplit(|t| *t == Token::Char('/'))
        .next()
        .unwrap_or_default();
    if !literal_proc && !last.iter().any(|t| matches!(t, Token::Char(_))) {
        return false;
    }
    starts.into_iter().any(|(at, absolute)| {
        PROCESSES.iter().any(|process| {
            SECRET_FILES.iter().any(|file| {
                let probe = format!("{}proc/{process}/{file}", if absolute { "/" } else { "" });
                matches(&pattern[at..], &probe)
            })
        })
    })
}

/// Whether `text` can be `/proc` or a directory under it.
fn could_be_in_proc(text: &str) -> bool {
    let pattern = tokens(&tidy(text));
    starts(&pattern).into_iter().any(|(at, absolute)| {
        let slash = if absolute { "/" } else { "" };
        ["proc", "proc/1", "proc/self", "proc/1/task/1"]
            .iter()
            .any(|dir| matches(&pattern[at..], &format!("{slash}{dir}")))
    })
}

/// Where in `pattern` a `/proc` path may begin: at the start of an
/// absolute or unknown path, and at each literal `proc` component.
fn starts(pattern: &[Token]) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    if matches!(pattern.first(), Some(Token::Char('/') | Token::Anything)) {
        out.push((0, matches!(pattern.first(), Some(Token::Char('/')))));
    }
    for i in 0..pattern.len() {
        let at_component = i == 0 || pattern[i - 1] == Token::Char('/');
        let literal: String = pattern[i..]
            .iter()
            .take(5)
            .map(|t| match t {
                Token::Char(c) => *c,
                _ => '\0',
            })
            .collect();
        if at_component && (literal == "proc/" || literal == "proc") {
            out.push((i, false));
        }
    }
    out
}

/// `//` as `/`, `/./` as `/`.
fn tidy(text: &str) -> String {
    let mut out = text.to_string();
    while out.contains("//") || out.contains("/./") {
        out = out.replace("//", "/").replace("/./", "/");
    }
    out
}

/// A piece of a path pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// A literal character.
    Char(char),
    /// `*`: any characters but `/`.
    Star,
    /// `?` or `[...]`: one character but `/`.
    One,
    /// An expansion or substitution: anything at all.
    Anything,
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some((expansion, after)) = leading_expansion(rest) {
            if !expansion.is_empty() {
                out.push(Token::Anything);
                rest = after;
                continue;
            }
        }
        let (token, len) = match c {
            '*' => (Token::Star, 1),
            '?' => (Token::One, 1),
            '[' => match rest.find(']') {
                Some(end) if end > 1 => (Token::One, end + 1),
                _ => (Token::Char('['), 1),
            },
            c => (Token::Char(c), c.len_utf8()),
        };
        out.push(token);
        rest = rest.get(len..).unwrap_or_default();
    }
    out
}

/// Whether `pattern` matches all of `text` (dynamic programming, so no
/// pattern can make it slow).
fn matches(pattern: &[Token], text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    // row[j]: pattern[..i] matches text[..j].
    let mut row = vec![false; text.len() + 1];
    row[0] = true;
    for token in pattern {
        let mut next = vec![false; text.len() + 1];
        for j in 0..=text.len() {
            next[j] = match token {
                Token::Char(c) => j > 0 && row[j - 1] && text[j - 1] == *c,
                Token::One => j > 0 && row[j - 1] && text[j - 1] != '/',
                Token::Star => row[j] || (j > 0 && next[j - 1] && text[j - 1] != '/'),
                Token::Anything => row[j] || (j > 0 && next[j - 1]),
            };
        }
        row = next;
    }
    row[text.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_paths() {
        for text in [
            "/proc/self/environ",
            "/proc/1/cmdline",
            "/proc/$PPID/environ",
            "/proc/*/mem",
            "/proc/[0-9]*/environ",
            "/pro?/self/env*",
            "/proc//self/./environ",
            "../../proc/1/environ",
            "/proc/self/task/*/environ",
            "${p}/self/environ",
            "/proc/self/$f",
        ] {
            assert!(names_secret(text), "{text}");
        }
        for text in [
            "/proc/cpuinfo",
            "/proc/meminfo",
            "src/*/*/*",
            "*",
            "environment.rs",
            "/proc/self/status",
            "$(whoami)",
            "`date`",
            "$EDITOR",
            "$dir/$file",
            "$STEAMROOT/*",
            "/*/*/*",
        ] {
            assert!(!names_secret(text), "{text}");
        }
    }

    #[test]
    fn into_proc() {
        assert!(could_be_in_proc("/proc/1"));
        assert!(could_be_in_proc("/pr*"));
        assert!(!could_be_in_proc("/tmp"));
        assert!(!could_be_in_proc("src"));
    }
}
