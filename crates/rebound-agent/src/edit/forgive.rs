//! Targets as a small model writes them: a target that names nothing in
//! the file is read word by word, taken as a new definition, or widened
//! to a small file whole or the definition around the suspect line.

use super::{end_of_file, resolve_target, EditError, EditSpan};

/// Files of at most this many lines are rewritten whole when an edit's
/// target names nothing in them.
const SMALL_FILE_LINES: u32 = 80;

/// Words of a target that name nothing by themselves.
const FILLER: &[&str] = &[
    "def", "fn", "function", "class", "method", "line", "lines", "the", "in", "of", "and", "to",
    "a", "an", "import", "from", "file",
];

/// [`resolve_target`], forgiving what a small model writes as a target: a
/// target that names nothing in the file (`4-6, def format_price` copied
/// from a report, `import math`, lines past the end) is read word by word
/// for a definition's name or a line range; failing that, the file is
/// taken whole when it is small, else the definition around `hint`. The
/// second value says what was edited instead, when the target was not
/// taken as written.
pub(super) fn resolve_forgiving(
    workspace: &std::path::Path,
    file: &str,
    target: &str,
    hint: Option<u32>,
) -> Result<(EditSpan, Option<String>), EditError> {
    let error = match resolve_target(workspace, file, target, hint) {
        Ok(span) => return Ok((span, None)),
        Err(error @ (EditError::TargetNotFound { .. } | EditError::BadRange { .. })) => error,
        Err(other) => return Err(other),
    };
    if let (EditError::TargetNotFound { .. }, Some(name)) = (&error, new_definition(target)) {
        // `def median(values):` where there is no `median` yet: a new
        // definition, added at the end.
        return Ok((end_of_file(workspace, file, name)?, None));
    }
    let instead = |span: EditSpan| {
        let note = format!(
            "the target `{}` names nothing in {}: edited {} instead",
            target.trim(),
            span.file,
            span.label
        );
        (span, Some(note))
    };
    let words = target
        .split(|c: char| {
            c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | ':' | '`' | '\'' | '"')
        })
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .filter(|word| !FILLER.contains(&word.to_ascii_lowercase().as_str()))
        .filter(|word| *word != target.trim());
    for word in words {
        if let Ok(span) = resolve_target(workspace, file, word, hint) {
            return Ok(instead(span));
        }
    }
    if let Ok(span) = resolve_target(workspace, file, "", None) {
        if span.line_count() <= SMALL_FILE_LINES {
            return Ok(instead(span));
        }
    }
    if hint.is_some() {
        if let Ok(span) = resolve_target(workspace, file, "", hint) {
            return Ok(instead(span));
        }
    }
    Err(error)
}

/// Words that start a definition in a target (`def median(values):`).
const DEFINING: &[&str] = &[
    "def",
    "fn",
    "function",
    "class",
    "struct",
    "enum",
    "trait",
    "interface",
];

/// The name a target declares when it is written as a definition's head
/// (`def median(values):`, `fn parse(`, `class Cart:`), for a definition
/// that does not exist yet.
fn new_definition(target: &str) -> Option<&str> {
    let mut words = target.split_whitespace();
    let keyword = words.find(|w| !matches!(*w, "pub" | "async" | "export"))?;
    if !DEFINING.contains(&keyword) {
        return None;
    }
    let rest = words.next()?;
    let name = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .filter(|name| !name.is_empty())?;
    Some(name)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::edit::splice;

    #[test]
    fn a_target_written_as_a_new_definition_is_added() {
        assert_eq!(new_definition("def median(values):"), Some("median"));
        assert_eq!(new_definition("pub fn parse(text: &str)"), Some("parse"));
        assert_eq!(new_definition("class Cart:"), Some("Cart"));
        assert_eq!(new_definition("median"), None);
        assert_eq!(new_definition("lines 3-9"), None);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("stats.py"),
            "def mean(v):\n    return sum(v) / len(v)\n",
        )
        .unwrap();
        let (span, note) =
            resolve_forgiving(dir.path(), "stats.py", "def median(values):", None).unwrap();
        assert!(span.is_insertion(), "{span:?}");
        assert_eq!(note, None);
        let added = splice(
            "def mean(v):\n    return sum(v) / len(v)\n",
            &span,
            "def median(values):\n    return sorted(values)[len(values) // 2]\n",
        )
        .unwrap();
        assert_eq!(
            added,
            "def mean(v):\n    return sum(v) / len(v)\n\ndef median(values):\n    return sorted(values)[len(values) // 2]\n"
        );
        let (existing, _) =
            resolve_forgiving(dir.path(), "stats.py", "def mean(v):", None).unwrap();
        assert!(
            !existing.is_insertion(),
            "an existing definition is rewritten"
        );
    }
}
