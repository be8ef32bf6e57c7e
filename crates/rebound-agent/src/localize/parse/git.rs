//! `git status --porcelain` (or `--short`) output: files left uncommitted.
//! Not a failure in any file's content, so it has no location: the files
//! are listed in the message, and no edit is pointed at them.

use super::{Claims, Context, Found};
use crate::localize::failure::{Failure, FailureKind};
use crate::localize::text::one_line;

/// Status letters of a porcelain line's two columns.
const STATUS: &str = " MTADRCU?!";

/// Reads the output as one [`FailureKind::Uncommitted`] failure when every
/// unclaimed non-blank line of it is a status line (`XY path`); nothing
/// otherwise.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, _context: &Context) -> Vec<Found> {
    let open: Vec<(usize, &String)> = lines
        .iter()
        .enumerate()
        .filter(|(i, line)| !claims.is_claimed(*i) && !line.trim().is_empty())
        .collect();
    if open.is_empty() || !open.iter().all(|(_, line)| is_status_line(line)) {
        return Vec::new();
    }
    for (i, _) in &open {
        claims.claim(*i..*i + 1);
    }
    let listed: Vec<&str> = open.iter().map(|(_, line)| line.trim_end()).collect();
    let message = format!(
        "uncommitted changes: {}",
        one_line([listed.join("; ").as_str()])
    );
    vec![Found::at(
        open[0].0,
        Failure::new(FailureKind::Uncommitted, message),
    )]
}

/// Whether `line` is `XY path`: two status columns, a space, a path.
fn is_status_line(line: &str) -> bool {
    let bytes = line.as_bytes();
    bytes.len() > 3
        && STATUS.as_bytes().contains(&bytes[0])
        && STATUS.as_bytes().contains(&bytes[1])
        && bytes[0..2] != *b"  "
        && bytes[2] == b' '
        && !line[3..].trim().is_empty()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::localize::failure::{Failure, FailureKind};
    use crate::localize::parse::parse as parse_output;

    #[test]
    fn uncommitted_files_are_listed_and_located_nowhere() {
        let failures = parse_output(
            "git status --porcelain && test -z \"$(git status --porcelain)\"",
            " M greet.py\n?? templates/\nR  old.txt -> new.txt\n",
            Path::new("/nonexistent"),
        );
        assert_eq!(
            failures,
            [Failure::new(
                FailureKind::Uncommitted,
                "uncommitted changes: M greet.py; ?? templates/; R old.txt -> new.txt"
            )]
        );
    }

    #[test]
    fn other_output_is_not_read_as_a_status() {
        for output in [
            "?? templates/\nsomething else\n",
            "MM\n",
            "   x\n",
            "ok 1 - works\n",
        ] {
            let failures = parse_output("./check.sh", output, Path::new("/nonexistent"));
            assert_ne!(failures[0].kind, FailureKind::Uncommitted, "{output:?}");
        }
    }
}
