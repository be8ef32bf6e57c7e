//! Path arguments as the shell would resolve them, lexically and without
//! touching the filesystem: `/tmp/..` is `/`, `~/` is the home directory,
//! `$HOME/x` is in it, `$dir/x` starts with something unknown.

use std::path::Path;

/// Directories whose recursive deletion (or mode change) wrecks the system
/// or the user's home.
pub(super) fn is_precious(path: &str) -> bool {
    const PRECIOUS: &[&str] = &[
        "/", "~", "$HOME", "${HOME}", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32",
        "/lib64", "/opt", "/proc", "/root", "/sbin", "/srv", "/sys", "/usr", "/var",
    ];
    PRECIOUS.contains(&normalise_path(path).as_str())
}

/// A path from the root or the home directory, resolved lexically:
/// `//usr/./` as `/usr`, `/tmp/..` as `/`, `/*` as `/`, `~/` as `~`,
/// `$HOME/*` as `$HOME`; going above the home directory gives `/`. A
/// relative path is returned as it is.
pub(super) fn normalise_path(path: &str) -> String {
    let root = ["${HOME}", "$HOME", "~", "/"].into_iter().find(|root| {
        path == *root || path.starts_with(&format!("{}/", root.trim_end_matches('/')))
    });
    let Some(root) = root else {
        return path.to_string();
    };
    let rest = &path[root.len()..];
    let parts: Vec<&str> = rest.split('/').collect();
    let mut kept: Vec<&str> = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        match *part {
            "" | "." => {}
            // `dir/*` is everything in `dir`.
            "*" if i + 1 == parts.len() => {}
            ".." => {
                if kept.pop().is_none() && root != "/" {
                    // Above the home directory.
                    return "/".to_string();
                }
            }
            other => kept.push(other),
        }
    }
    match (root, kept.is_empty()) {
        (root, true) => root.to_string(),
        ("/", false) => format!("/{}", kept.join("/")),
        (root, false) => format!("{root}/{}", kept.join("/")),
    }
}

/// Whether a relative path climbs above the directory it starts from
/// (`../x`, `a/../../b`), read lexically.
pub(super) fn climbs_out(relative: &str) -> bool {
    let mut depth = 0usize;
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => return true,
            },
            _ => depth += 1,
        }
    }
    false
}

/// Whether the absolute, normalised `path` is `root` or inside it.
pub(super) fn is_within(path: &str, root: &Path) -> bool {
    let Some(root) = root.to_str() else {
        return false;
    };
    let root = normalise_path(root);
    if root == "/" {
        return true;
    }
    path == root || path.strip_prefix(&root).is_some_and(|r| r.starts_with('/'))
}

/// The unknown part a word starts with, if it starts with one: `$x`,
/// `${x...}`, `$(...)` or `` `...` ``; and the rest of the word.
pub(super) fn leading_expansion(word: &str) -> Option<(&str, &str)> {
    let bytes = word.as_bytes();
    let end = match bytes {
        [b'`', ..] => word[1..].find('`').map_or(word.len(), |at| at + 2),
        [b'$', b'(', ..] => closing(word, 1, b'(', b')'),
        [b'$', b'{', ..] => closing(word, 1, b'{', b'}'),
        [b'$', c, ..] if c.is_ascii_alphabetic() || *c == b'_' => {
            1 + word[1..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(word.len() - 1)
        }
        [b'$', _, ..] => 2,
        _ => return None,
    };
    let end = end.min(word.len());
    Some((word.get(..end)?, word.get(end..)?))
}

/// The index just past the bracket closing the one at `open_at`.
fn closing(word: &str, open_at: usize, open: u8, close: u8) -> usize {
    let mut depth = 0usize;
    for (i, b) in word.bytes().enumerate().skip(open_at) {
        if b == open {
            depth += 1;
        } else if b == close {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return i + 1;
            }
        }
    }
    word.len()
}

/// The variable a `$x` or `${x...}` expansion names.
pub(super) fn expansion_name(expansion: &str) -> Option<&str> {
    let inner = expansion
        .strip_prefix("${")
        .or_else(|| expansion.strip_prefix('$'))?;
    let end = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(inner.len());
    inner.get(..end).filter(|name| !name.is_empty())
}

/// For a path in the home directory (`~`, `~/x`, `$HOME/x`, `${HOME:?}/x`),
/// the part after the home directory (`""`, `/x`).
pub(super) fn home_relative(word: &str) -> Option<&str> {
    if word == "~" || word.starts_with("~/") {
        return Some(&word[1..]);
    }
    let (expansion, rest) = leading_expansion(word)?;
    (expansion_name(expansion) == Some("HOME")).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_expansions() {
        assert_eq!(leading_expansion("$h"), Some(("$h", "")));
        assert_eq!(leading_expansion("$dir/build"), Some(("$dir", "/build")));
        assert_eq!(leading_expansion("${HOME:?}/x"), Some(("${HOME:?}", "/x")));
        assert_eq!(leading_expansion("$(echo ~)"), Some(("$(echo ~)", "")));
        assert_eq!(leading_expansion("`pwd`/x"), Some(("`pwd`", "/x")));
        assert_eq!(leading_expansion("$1x"), Some(("$1", "x")));
        assert_eq!(leading_expansion("build"), None);
        assert_eq!(expansion_name("${HOME:?}"), Some("HOME"));
        assert_eq!(home_relative("~/a"), Some("/a"));
        assert_eq!(home_relative("${HOME}"), Some(""));
        assert_eq!(home_relative("$HOMEX"), None);
    }

    #[test]
    fn climbing_and_containment() {
        assert!(climbs_out("../x"));
        assert!(climbs_out("a/../../b"));
        assert!(!climbs_out("a/../b"));
        assert!(!climbs_out("*/.."));
        assert!(is_within("/ws/a", Path::new("/ws")));
        assert!(is_within("/ws", Path::new("/ws/")));
        assert!(!is_within("/wsx", Path::new("/ws")));
    }
}
