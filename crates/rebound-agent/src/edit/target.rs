//! What an edit step's target names: the whole file, a range of lines, or
//! a definition (told the way a model writes it: `def subtract`,
//! `Calc::subtract`, `subtract()`).

/// A target, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// The whole file (`file`, `whole file`, `all`, or nothing).
    WholeFile,
    /// Lines `start..=end` as written (from 1; not yet checked against the
    /// file).
    Lines {
        /// The first line.
        start: u32,
        /// The last line.
        end: u32,
    },
    /// A definition.
    Name {
        /// Its name (the last segment of a qualified name).
        name: String,
        /// The segment before it (`Calc` in `Calc.subtract`), if any.
        qualifier: Option<String>,
    },
}

/// Words that may stand before a definition's name.
const KEYWORDS: &[&str] = &[
    "def",
    "fn",
    "function",
    "func",
    "class",
    "struct",
    "enum",
    "union",
    "impl",
    "trait",
    "interface",
    "type",
    "typedef",
    "method",
    "const",
    "let",
    "var",
    "static",
    "async",
    "pub",
    "export",
    "default",
    "mod",
    "module",
    "namespace",
    "macro",
    "macro_rules!",
    "unsafe",
    "extern",
    "the",
];

/// Words that name the whole file.
const WHOLE_FILE: &[&str] = &[
    "",
    "file",
    "whole file",
    "the whole file",
    "the file",
    "entire file",
    "all",
    "whole",
];

/// `target` read (surrounding space and keyword case do not matter).
pub(crate) fn parse_target(target: &str) -> Target {
    let trimmed = target.trim();
    let lower = trimmed.to_lowercase();
    if WHOLE_FILE.contains(&lower.as_str()) {
        return Target::WholeFile;
    }
    if let Some((start, end)) = parse_lines(&lower) {
        return Target::Lines { start, end };
    }
    let (name, qualifier) = definition_name(trimmed);
    Target::Name { name, qualifier }
}

/// A line range: `12-20`, `12..20`, `lines 12-20`, `line 7`, `L12-L20`,
/// `L7` (lowercased).
fn parse_lines(lower: &str) -> Option<(u32, u32)> {
    let rest = lower
        .strip_prefix("lines")
        .or_else(|| lower.strip_prefix("line"))
        .unwrap_or(lower);
    let rest = rest.trim_start().trim_start_matches(':').trim();
    for separator in ["..=", "...", "..", "-", "–", "—", " to "] {
        if let Some((first, last)) = rest.split_once(separator) {
            return Some((line_number(first)?, line_number(last)?));
        }
    }
    let line = line_number(rest)?;
    Some((line, line))
}

/// `12` or `l12`.
fn line_number(text: &str) -> Option<u32> {
    let text = text.trim();
    let digits = text.strip_prefix('l').unwrap_or(text).trim();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The name a definition target gives, and the segment before it: leading
/// keywords, an argument list, generics and quotes are dropped.
fn definition_name(target: &str) -> (String, Option<String>) {
    let mut words: Vec<&str> = target
        .split_whitespace()
        .map(|w| w.trim_matches(|c| matches!(c, '`' | '"' | '\'')))
        .filter(|w| !w.is_empty())
        .collect();
    while words.len() > 1 && is_keyword(words[0]) {
        words.remove(0);
    }
    let word = words.first().copied().unwrap_or_default();
    let end = word.find(['(', '<', '{', '[']).unwrap_or(word.len());
    let word = word[..end].trim_end_matches([':', ';', '!', ',']);
    let segments: Vec<&str> = word
        .split("::")
        .flat_map(|s| s.split('.'))
        .filter(|s| !s.is_empty())
        .collect();
    match segments.as_slice() {
        [] => (String::new(), None),
        [name] => ((*name).to_string(), None),
        [.., qualifier, name] => ((*name).to_string(), Some((*qualifier).to_string())),
    }
}

/// Whether `word` is a keyword that may stand before a name.
fn is_keyword(word: &str) -> bool {
    let lower = word.to_lowercase();
    KEYWORDS.contains(&lower.as_str()) || lower.starts_with("pub(")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(name: &str, qualifier: Option<&str>) -> Target {
        Target::Name {
            name: name.into(),
            qualifier: qualifier.map(Into::into),
        }
    }

    #[test]
    fn the_whole_file() {
        for target in ["", "  ", "file", "Whole File", "ALL"] {
            assert_eq!(parse_target(target), Target::WholeFile, "{target:?}");
        }
    }

    #[test]
    fn line_ranges() {
        let lines = |start, end| Target::Lines { start, end };
        assert_eq!(parse_target("12-20"), lines(12, 20));
        assert_eq!(parse_target("12..20"), lines(12, 20));
        assert_eq!(parse_target("lines 12 - 20"), lines(12, 20));
        assert_eq!(parse_target("Line 7"), lines(7, 7));
        assert_eq!(parse_target("L12-L20"), lines(12, 20));
        assert_eq!(parse_target("L7"), lines(7, 7));
        assert_eq!(parse_target("lines: 3 to 9"), lines(3, 9));
        assert_eq!(parse_target("20-12"), lines(20, 12), "checked later");
    }

    #[test]
    fn definition_names() {
        assert_eq!(parse_target("subtract"), name("subtract", None));
        assert_eq!(parse_target("def subtract"), name("subtract", None));
        assert_eq!(parse_target("pub(crate) fn main()"), name("main", None));
        assert_eq!(parse_target("async function f(a, b)"), name("f", None));
        assert_eq!(parse_target("class Cart:"), name("Cart", None));
        assert_eq!(
            parse_target("Calc.subtract"),
            name("subtract", Some("Calc"))
        );
        assert_eq!(
            parse_target("fn Calc::subtract(&self)"),
            name("subtract", Some("Calc"))
        );
        assert_eq!(parse_target("`subtract()`"), name("subtract", None));
        assert_eq!(parse_target("linear"), name("linear", None));
        assert_eq!(parse_target("def"), name("def", None));
    }
}
