//! Where a command line names the programs it runs, and the alternatives
//! of its top-level `||`, read by the bash parser the policy uses: for
//! callers that rewrite how a program is started (the agent runs a
//! project's `total.sh` named bare as `bash total.sh`) or judge a check's
//! shape (either of two tests passing it), without a hand-written scanner
//! of their own.

use std::ops::Range;

use super::syntax;

/// The byte range in `line` of each simple command's program name, as
/// written (unquoted) in the line itself: after `|`, `&&`, `||`, `;`, in
/// `if`/`while` conditions and inside `$(...)`; not keywords, assignments
/// or arguments. In the order of the line; `None` when it does not parse.
pub fn program_spans(line: &str) -> Option<Vec<Range<usize>>> {
    let script = syntax::parse(line).ok()?;
    if script.broken.is_some() {
        return None;
    }
    let mut spans: Vec<Range<usize>> = script
        .commands
        .iter()
        .filter_map(|command| {
            let (word, span) = (command.words.first()?, command.spans.first()?);
            (line.get(span.clone()) == Some(word.as_str())).then(|| span.clone())
        })
        .collect();
    spans.sort_by_key(|span| span.start);
    Some(spans)
}

/// The byte ranges of the statements `line` joins with a top-level `||`
/// (`a | grep x || b | grep y` gives both pipelines; `a && b || c` gives
/// `a && b` and `c`), in the order of the line; one range when it has
/// none. `None` when the line does not parse or is more than one
/// statement.
pub fn or_operands(line: &str) -> Option<Vec<Range<usize>>> {
    syntax::or_operands(line).ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(line: &str) -> Vec<&str> {
        program_spans(line)
            .unwrap_or_default()
            .into_iter()
            .map(|span| &line[span])
            .collect()
    }

    #[test]
    fn each_simple_commands_program_is_found_where_it_is_written() {
        assert_eq!(
            names("total.sh | grep -qxF '3 expenses' && report.py; echo done"),
            ["total.sh", "grep", "report.py", "echo"]
        );
        assert_eq!(
            names("if check.sh; then FOO=1 run x; fi"),
            ["check.sh", "run"]
        );
        assert_eq!(names("echo $(count.sh)"), ["echo", "count.sh"]);
        assert_eq!(names("grep -q 'a | b.sh' data.txt"), ["grep"]);
        assert_eq!(names("'quoted.sh' x"), Vec::<&str>::new(), "not as written");
        assert_eq!(program_spans("echo 'unclosed"), None);
    }

    #[test]
    fn the_operands_of_a_top_level_or_are_split() {
        let operands = |line: &str| -> Vec<String> {
            or_operands(line)
                .unwrap_or_default()
                .into_iter()
                .map(|span| line[span].to_string())
                .collect()
        };
        assert_eq!(
            operands("a | grep -q x || b | grep -q y || exit 1"),
            ["a | grep -q x", "b | grep -q y", "exit 1"]
        );
        assert_eq!(operands("a && b || c"), ["a && b", "c"]);
        assert_eq!(operands("grep -q 'x || y' f"), ["grep -q 'x || y' f"]);
        assert_eq!(
            operands("test -f a || { echo no; false; }"),
            ["test -f a", "{ echo no; false; }"]
        );
        assert_eq!(or_operands("a; b"), None, "two statements");
        assert_eq!(or_operands("echo 'unclosed"), None);
    }
}
