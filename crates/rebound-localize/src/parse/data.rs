//! Errors of data files: JSON as Python's `json` module (`python3 -m
//! json.tool`, `json.load`) or `jq` reports it, TOML as `tomllib` does,
//! YAML as PyYAML does. Most come at the end of a Python traceback
//! ([`classify`]); `json.tool` and `jq` print a bare line ([`parse`]).

use super::{Claims, Context, Found};
use crate::failure::{Failure, FailureKind, Location};
use crate::text::one_line;

/// The extensions of each data format's files.
const JSON: &[&str] = &[".json"];
const TOML: &[&str] = &[".toml"];
const YAML: &[&str] = &[".yaml", ".yml"];

/// The data-format error a Python exception is, if it is one, and where in
/// the data file it is (when the file can be told: PyYAML names it, for
/// JSON and TOML it is the file the command names).
pub(crate) fn classify(
    exception_type: &str,
    exception: &[String],
    context: &Context,
    frames: &[Location],
) -> Option<(FailureKind, Option<Location>)> {
    let first = exception.first().map_or("", String::as_str);
    if exception_type.ends_with("JSONDecodeError") {
        let location = json_position(first).and_then(|(line, column)| {
            let file = context.data_file(JSON, frames)?;
            Some(context.location(&file, line, Some(column), None))
        });
        return Some((FailureKind::JsonParseError, location));
    }
    if exception_type.ends_with("TOMLDecodeError") {
        let location = toml_position(first).and_then(|(line, column)| {
            let file = context.data_file(TOML, frames)?;
            Some(context.location(&file, line, Some(column), None))
        });
        return Some((FailureKind::TomlParseError, location));
    }
    if exception_type.starts_with("yaml.") && exception_type.ends_with("Error") {
        let location =
            exception
                .iter()
                .rev()
                .find_map(|l| yaml_mark(l))
                .and_then(|(file, line, column)| {
                    let file = if file.starts_with('<') {
                        context.data_file(YAML, frames)?
                    } else {
                        file
                    };
                    Some(context.location(&file, line, Some(column), None))
                });
        return Some((FailureKind::YamlParseError, location));
    }
    None
}

/// Reads the unclaimed bare JSON errors: `json.tool`'s `Expecting ','
/// delimiter: line 3 column 5 (char 20)` and `jq`'s `parse error: … at
/// line 4, column 11`; and bare `tomllib` messages (`Invalid value (at
/// line 2, column 8)`) of a command that names a TOML file.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, context: &Context) -> Vec<Found> {
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if claims.is_claimed(i) || line.starts_with(char::is_whitespace) {
            continue;
        }
        let trimmed = line.trim();
        let (kind, position, extensions) = if let Some(position) = json_position(trimmed)
            .filter(|_| trimmed.ends_with(')'))
            .or_else(|| jq_position(trimmed))
        {
            (FailureKind::JsonParseError, position, JSON)
        } else if let Some(position) =
            toml_position(trimmed).filter(|_| context.command_file(TOML).is_some())
        {
            (FailureKind::TomlParseError, position, TOML)
        } else {
            continue;
        };
        claims.claim(i..i + 1);
        let mut failure = Failure::new(kind, one_line([trimmed]));
        failure.location = context
            .command_file(extensions)
            .map(|file| context.location(&file, position.0, Some(position.1), None));
        found.push(Found::at(i, failure));
    }
    found
}

/// Reads `…: line 3 column 5 (char 20)` (Python's `json`).
fn json_position(message: &str) -> Option<(u32, u32)> {
    let start = message.rfind(": line ")?;
    let rest = &message[start + ": line ".len()..];
    let (line, rest) = leading_number(rest)?;
    let rest = rest.strip_prefix(" column ")?;
    let (column, rest) = leading_number(rest)?;
    (rest.is_empty() || rest.starts_with(" (char ")).then_some((line, column))
}

/// Reads `… at line 4, column 11` (`jq`'s parse errors).
fn jq_position(message: &str) -> Option<(u32, u32)> {
    if !message.contains("parse error") {
        return None;
    }
    let start = message.rfind(" at line ")?;
    let rest = &message[start + " at line ".len()..];
    let (line, rest) = leading_number(rest)?;
    let rest = rest.strip_prefix(", column ")?;
    let (column, _) = leading_number(rest)?;
    Some((line, column))
}

/// Reads `… (at line 2, column 9)` (`tomllib`).
fn toml_position(message: &str) -> Option<(u32, u32)> {
    let start = message.rfind("(at line ")?;
    let rest = &message[start + "(at line ".len()..];
    let (line, rest) = leading_number(rest)?;
    let rest = rest.strip_prefix(", column ")?;
    let (column, rest) = leading_number(rest)?;
    rest.starts_with(')').then_some((line, column))
}

/// Reads PyYAML's mark `in "config.yaml", line 4, column 2`.
fn yaml_mark(line: &str) -> Option<(String, u32, u32)> {
    let rest = line.trim().strip_prefix("in \"")?;
    let quote = rest.rfind("\", line ")?;
    let file = rest[..quote].to_string();
    let rest = &rest[quote + "\", line ".len()..];
    let (number, rest) = leading_number(rest)?;
    let rest = rest.strip_prefix(", column ")?;
    let (column, _) = leading_number(rest)?;
    Some((file, number, column))
}

/// The number `text` starts with, and what follows it.
fn leading_number(text: &str) -> Option<(u32, &str)> {
    let end = text
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(text.len());
    Some((text[..end].parse().ok()?, &text[end..]))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::path::Path;

    use super::*;
    use crate::failure::Place;
    use crate::parse::parse as parse_output;

    #[test]
    fn positions_are_read() {
        assert_eq!(
            json_position("Expecting ',' delimiter: line 4 column 3 (char 41)"),
            Some((4, 3))
        );
        assert_eq!(
            toml_position("Invalid value (at line 2, column 8)"),
            Some((2, 8))
        );
        assert_eq!(toml_position("Unclosed array (at end of document)"), None);
        assert_eq!(
            jq_position("jq: parse error: Expected separator between values at line 4, column 11"),
            Some((4, 11))
        );
        assert_eq!(
            yaml_mark("  in \"config.yaml\", line 4, column 2"),
            Some(("config.yaml".into(), 4, 2))
        );
    }

    #[test]
    fn a_jq_error_names_the_commands_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data.json"), "{\n\"a\": 1\n\"b\": 2}\n").unwrap();
        let failures = parse_output(
            "jq . data.json",
            "jq: parse error: Expected separator between values at line 3, column 4\n",
            dir.path(),
        );
        assert_eq!(
            failures,
            [Failure {
                kind: FailureKind::JsonParseError,
                test: None,
                message: "jq: parse error: Expected separator between values at line 3, column 4"
                    .into(),
                location: Some(Location {
                    file: "data.json".into(),
                    line: 3,
                    column: Some(4),
                    function: None,
                    place: Place::Workspace
                }),
                frames: vec![]
            }]
        );
    }

    #[test]
    fn a_json_error_without_a_named_file_has_no_location() {
        let failures = parse_output(
            "cat x | python3 -m json.tool",
            "Expecting value: line 1 column 1 (char 0)\n",
            Path::new("/nonexistent"),
        );
        assert_eq!(
            failures,
            [Failure::new(
                FailureKind::JsonParseError,
                "Expecting value: line 1 column 1 (char 0)"
            )]
        );
    }
}
