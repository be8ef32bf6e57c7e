//! Names a failure says are not defined: Python's `NameError`,
//! `ImportError: cannot import name` and `AttributeError: … has no
//! attribute`, rustc's `cannot find function` and `unresolved import`,
//! gcc's `implicit declaration of function` and `undeclared`, the
//! linker's `undefined reference`, JavaScript's `ReferenceError`; and
//! keys a mapping lacks (Python's `KeyError: 'phone_number'`).
//!
//! These are read from the failure's one-line message (compiler and
//! interpreter wording, not code), so plain string matching is the right
//! tool; every name found is checked to be an identifier.

use super::failure::Failure;

/// What kind of name is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NameKind {
    /// An identifier: a function, variable, type, field or module member.
    Identifier,
    /// A key of a mapping, written in the code as a string literal.
    Key,
}

/// A name a failure says is not defined.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UndefinedName {
    /// The name as the code uses it (`word_count`).
    pub name: String,
    /// Whether it is an identifier or a key.
    pub kind: NameKind,
    /// The module it was looked up in, when the message says
    /// (`textstats` of `cannot import name 'word_count' from 'textstats'`).
    pub module: Option<String>,
    /// The name the tool itself suggests (Python's `Did you mean: 'x'?`,
    /// rustc's `a function with a similar name exists: `x``).
    pub suggestion: Option<String>,
}

/// Where a message names a missing name: the words before the quoted
/// name. The name is the first quoted token after them.
const BEFORE_NAME: &[&str] = &[
    "cannot import name ",
    "has no attribute ",
    "NameError: name ",
    "cannot find function ",
    "cannot find value ",
    "cannot find type ",
    "cannot find struct ",
    "cannot find macro ",
    "unresolved import ",
    "no method named ",
    "no function or associated item named ",
    "implicit declaration of function ",
    "undefined reference to ",
];

/// Where a message names the module a name was looked up in.
const BEFORE_MODULE: &[&str] = &["' from ", "module "];

/// Where a message suggests a name.
const BEFORE_SUGGESTION: &[&str] = &["Did you mean: ", "with a similar name exists: "];

/// The name `failure`'s message says is not defined (a message reports
/// one error).
pub fn undefined_name(failure: &Failure) -> Option<UndefinedName> {
    let message = failure.message.as_str();
    if let Some(key) = message
        .split_once("KeyError: ")
        .and_then(|(_, rest)| first_quoted(rest))
        .filter(|key| is_key(key))
    {
        return Some(UndefinedName {
            name: key.to_string(),
            kind: NameKind::Key,
            module: None,
            suggestion: None,
        });
    }
    let name = BEFORE_NAME
        .iter()
        .find_map(|before| {
            let (_, rest) = message.split_once(before)?;
            first_quoted(rest)
        })
        .or_else(|| quoted_before(message, " undeclared"))
        .or_else(|| word_before(message, " is not defined"))
        .or_else(|| word_before(message, " is not a function"))?;
    // `crate::text::word_count` and `m.word_count`: the last segment.
    let name = name.rsplit([':', '.']).next().unwrap_or(name);
    if !is_identifier(name) {
        return None;
    }
    let module = BEFORE_MODULE
        .iter()
        .find_map(|before| {
            let (_, rest) = message.split_once(before)?;
            first_quoted(rest)
        })
        .filter(|m| m.split('.').all(is_identifier))
        .map(str::to_string);
    let suggestion = BEFORE_SUGGESTION
        .iter()
        .find_map(|before| {
            let (_, rest) = message.split_once(before)?;
            first_quoted(rest)
        })
        .filter(|s| is_identifier(s) && *s != name)
        .map(str::to_string);
    Some(UndefinedName {
        name: name.to_string(),
        kind: NameKind::Identifier,
        module,
        suggestion,
    })
}

/// The first token of `text` in quotes (`'x'`, `` `x` ``, `‘x’`, `"x"`,
/// or the linker's `` `x' ``), when it starts the text.
fn first_quoted(text: &str) -> Option<&str> {
    let mut chars = text.char_indices();
    let (_, open) = chars.next()?;
    if !matches!(open, '\'' | '`' | '‘' | '"') {
        return None;
    }
    let start = open.len_utf8();
    let end = text[start..].find(['\'', '`', '’', '"'])? + start;
    Some(&text[start..end]).filter(|t| !t.is_empty())
}

/// The quoted token right before `marker` (gcc's `‘x’ undeclared`).
fn quoted_before<'m>(message: &'m str, marker: &str) -> Option<&'m str> {
    let (head, _) = message.split_once(marker)?;
    let head = head.strip_suffix(['\'', '’', '"'])?;
    let start = head.rfind(['\'', '‘', '"', '`'])?;
    let open_len = head[start..].chars().next().map_or(1, char::len_utf8);
    Some(&head[start + open_len..]).filter(|t| !t.is_empty())
}

/// The word right before `marker` (`ReferenceError: total is not defined`,
/// `TypeError: m.total is not a function`).
fn word_before<'m>(message: &'m str, marker: &str) -> Option<&'m str> {
    let (head, _) = message.split_once(marker)?;
    head.rsplit(' ').next().filter(|w| !w.is_empty())
}

/// Whether `text` is a key worth renaming: a short word of letters,
/// digits, `_`, `-` and `.`.
fn is_key(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 64
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Whether `text` is an identifier in the languages read here.
fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::FailureKind;

    fn named(message: &str) -> Option<(String, Option<String>, Option<String>)> {
        undefined_name(&Failure::new(FailureKind::Unknown, message))
            .filter(|u| u.kind == NameKind::Identifier)
            .map(|u| (u.name, u.module, u.suggestion))
    }

    #[test]
    fn a_key_error_names_a_missing_key() {
        let missing = undefined_name(&Failure::new(
            FailureKind::UnittestFailure,
            "KeyError: 'phone_number'",
        ))
        .unwrap();
        assert_eq!(missing.name, "phone_number");
        assert_eq!(missing.kind, NameKind::Key);
        let odd = Failure::new(FailureKind::UnittestFailure, "KeyError: 'a b; c'");
        assert_eq!(undefined_name(&odd), None);
    }

    fn some(
        name: &str,
        module: Option<&str>,
        suggestion: Option<&str>,
    ) -> Option<(String, Option<String>, Option<String>)> {
        Some((
            name.to_string(),
            module.map(str::to_string),
            suggestion.map(str::to_string),
        ))
    }

    #[test]
    fn python_errors_name_the_missing_name_and_its_module() {
        assert_eq!(
            named(
                "ImportError: cannot import name 'word_count' from 'textstats' (/w/textstats.py)"
            ),
            some("word_count", Some("textstats"), None)
        );
        assert_eq!(
            named("AttributeError: module 'textstats' has no attribute 'word_count'"),
            some("word_count", Some("textstats"), None)
        );
        assert_eq!(
            named("NameError: name 'totl' is not defined. Did you mean: 'total'?"),
            some("totl", None, Some("total"))
        );
        assert_eq!(
            named("AttributeError: 'Cart' object has no attribute 'totl'"),
            some("totl", None, None)
        );
    }

    #[test]
    fn compiler_and_linker_errors_name_the_missing_name() {
        assert_eq!(
            named("error[E0425]: cannot find function `word_count` in this scope"),
            some("word_count", None, None)
        );
        assert_eq!(
            named("error[E0432]: unresolved import `crate::text::word_count`"),
            some("word_count", None, None)
        );
        assert_eq!(
            named("main.c:7:5: error: implicit declaration of function ‘wordcount’ [-Werror]"),
            some("wordcount", None, None)
        );
        assert_eq!(
            named("main.c:9:12: error: ‘totl’ undeclared (first use in this function)"),
            some("totl", None, None)
        );
        assert_eq!(
            named("main.c:(.text+0x1e): undefined reference to `wordcount'"),
            some("wordcount", None, None)
        );
        assert_eq!(
            named("ReferenceError: totl is not defined"),
            some("totl", None, None)
        );
        assert_eq!(
            named("TypeError: stats.wordCount is not a function"),
            some("wordCount", None, None)
        );
    }

    #[test]
    fn other_messages_name_nothing() {
        assert_eq!(named("AssertionError: 3 != 4"), None);
        assert_eq!(named("ImportError: cannot import name '' from 'x'"), None);
        assert_eq!(named("NameError: name '1x; rm' is not defined"), None);
        assert_eq!(named("error: expected `;`, found `}`"), None);
    }
}
