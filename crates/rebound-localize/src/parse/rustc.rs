//! rustc's errors: `error[E0308]: mismatched types` and its ` --> file:line:col`,
//! with the primary label (`expected `u16`, found `Result<_, _>``) added to
//! the message. Cargo's own `error: could not compile …` lines, which point
//! nowhere, are left alone.

use super::{Claims, Context, Found};
use crate::failure::MAX_MESSAGE_CHARS;
use crate::failure::{Failure, FailureKind};
use crate::text::{bounded, split_position};

/// How far below its header a diagnostic's ` --> ` may be.
const ARROW_SEARCH_LINES: usize = 3;

/// Reads the errors.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, context: &Context) -> Vec<Found> {
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if claims.is_claimed(i) {
            continue;
        }
        let Some((code, title)) = header(line) else {
            continue;
        };
        let end = (i + 1..lines.len())
            .find(|&j| lines[j].trim().is_empty() || header(&lines[j]).is_some())
            .unwrap_or(lines.len());
        let arrow = lines[i + 1..end.min(i + 1 + ARROW_SEARCH_LINES)]
            .iter()
            .find_map(|l| l.trim_start().strip_prefix("--> "))
            .and_then(split_position);
        if arrow.is_none() && code.is_none() {
            continue;
        }
        let label = lines[i + 1..end].iter().find_map(|l| primary_label(l));
        let mut message = match code {
            Some(code) => format!("error[{code}]: {title}"),
            None => format!("error: {title}"),
        };
        if let Some(label) = label {
            message = format!("{message} ({label})");
        }
        let mut failure = Failure::new(
            FailureKind::RustCompileError,
            bounded(&message, MAX_MESSAGE_CHARS),
        );
        failure.location =
            arrow.map(|(path, number, column, _)| context.location(path, number, column, None));
        claims.claim(i..end);
        found.push(Found::at(i, failure));
    }
    found
}

/// Reads `error[E0308]: title` or `error: title`.
fn header(line: &str) -> Option<(Option<&str>, &str)> {
    let rest = line.strip_prefix("error")?;
    if let Some(title) = rest.strip_prefix(": ") {
        return Some((None, title.trim()));
    }
    let rest = rest.strip_prefix('[')?;
    let (code, title) = rest.split_once("]: ")?;
    let valid =
        code.len() == 5 && code.starts_with('E') && code[1..].bytes().all(|b| b.is_ascii_digit());
    valid.then(|| (Some(code), title.trim()))
}

/// The text of a diagnostic's primary label: what follows the `^^^` of a
/// `  |     ^^^^ expected u16` line.
fn primary_label(line: &str) -> Option<&str> {
    let gutter = line.find('|')?;
    let (before, art) = line.split_at(gutter);
    if !before.trim().chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let art = &art[1..];
    let carets = art.rfind('^')?;
    let drawn = &art[..=carets];
    if !drawn
        .chars()
        .all(|c| matches!(c, ' ' | '^' | '-' | '|' | '_'))
    {
        return None;
    }
    let label = art[carets + 1..].trim();
    (!label.is_empty()).then_some(label)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::parse::parse as parse_output;

    #[test]
    fn headers() {
        assert_eq!(
            header("error[E0308]: mismatched types"),
            Some((Some("E0308"), "mismatched types"))
        );
        assert_eq!(
            header("error: expected one of `;` or `}`, found `x`"),
            Some((None, "expected one of `;` or `}`, found `x`"))
        );
        assert_eq!(header("error[E12]: x"), None);
        assert_eq!(header("warning: unused variable: `unused`"), None);
    }

    #[test]
    fn labels() {
        assert_eq!(
            primary_label("2 |     let port: u16 = text.trim().parse();"),
            None
        );
        assert_eq!(
            primary_label(
                "  |               ---   ^^^^^^^^^^^^^^^^^^^ expected `u16`, found `Result<_, _>`"
            ),
            Some("expected `u16`, found `Result<_, _>`")
        );
        assert_eq!(primary_label("  |         ^^^^^^"), None);
    }

    #[test]
    fn cargos_own_errors_point_nowhere_and_are_skipped() {
        let output = "error: could not compile `rs` (lib) due to 2 previous errors\nerror: test failed, to rerun pass `--lib`\n";
        let failures = parse_output("cargo test", output, Path::new("/nonexistent"));
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].kind, FailureKind::Unknown);
    }
}
