//! `git status --porcelain` (or `--short`) output: files left uncommitted.
//! Not a failure in any file's content, so it has no location: the files
//! are listed in the message, and no edit is pointed at them.

use super::{Claims, Context, Found};
use crate::failure::{Failure, FailureKind};
use crate::text::{is_cut_marker, one_line};

/// Status letters of a porcelain line's two columns.
const STATUS: &str = " MTADRCU?!";

/// Reads the output as one [`FailureKind::Uncommitted`] failure when every
/// unclaimed non-blank line of it is a status line (`XY path`) or the
/// shell tool's framing (`$ command`, `exit code 1 (failure) after 0.0 s`,
/// a cut marker), and one is a status line; nothing otherwise.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, _context: &Context) -> Vec<Found> {
    let open: Vec<(usize, &String)> = lines
        .iter()
        .enumerate()
        .filter(|(i, line)| !claims.is_claimed(*i) && !line.trim().is_empty())
        .collect();
    let framing = |line: &str| {
        line.starts_with(rebound_protocol::framing::ECHO_PREFIX)
            || rebound_protocol::framing::is_exit_line(line)
            || is_cut_marker(line)
    };
    let status: Vec<&(usize, &String)> = open.iter().filter(|(_, l)| is_status_line(l)).collect();
    if status.is_empty() || !open.iter().all(|(_, l)| is_status_line(l) || framing(l)) {
        return Vec::new();
    }
    for (i, _) in &open {
        claims.claim(*i..*i + 1);
    }
    let listed: Vec<&str> = status.iter().map(|(_, line)| line.trim_end()).collect();
    let message = format!(
        "uncommitted changes: {}",
        one_line([listed.join("; ").as_str()])
    );
    vec![Found::at(
        status[0].0,
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

    use crate::failure::{Failure, FailureKind};
    use crate::parse::parse as parse_output;

    #[test]
    fn uncommitted_files_are_listed_and_located_nowhere() {
        let failures = parse_output(
            "git status --porcelain && test -z \"$(git status --porcelain)\"",
            "exit code 1 (failure) after 0.0 s\n$ git status --porcelain\n M greet.py\n?? templates/\nR  old.txt -> new.txt\n",
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
