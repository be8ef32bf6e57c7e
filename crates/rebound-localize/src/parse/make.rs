//! Errors of `make` itself: `Makefile:4: *** missing separator.  Stop.`,
//! `make: *** No rule to make target 'x'.  Stop.`, and the failed recipe
//! `make: *** [Makefile:10: main.o] Error 1`, which is only a consequence
//! when the recipe's own error was read too.

use super::{Claims, Context, Found};
use crate::failure::{Failure, FailureKind};
use crate::text::{one_line, split_position};

/// Reads the errors.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, context: &Context) -> Vec<Found> {
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if claims.is_claimed(i) {
            continue;
        }
        let Some((failure, consequence)) = read(line, context) else {
            continue;
        };
        claims.claim(i..i + 1);
        found.push(Found {
            line: i,
            failure,
            consequence,
        });
    }
    found
}

/// The failure `line` shows, and whether it is only a failed recipe's
/// consequence.
fn read(line: &str, context: &Context) -> Option<(Failure, bool)> {
    let (program, rest) = line.split_once(": *** ")?;
    let message = one_line([rest]);
    if program == "make" || (program.starts_with("make[") && program.ends_with(']')) {
        let mut failure = Failure::new(FailureKind::MakeError, format!("make: *** {message}"));
        // `[Makefile:10: main.o] Error 1`: a recipe that failed.
        let recipe = rest.strip_prefix('[');
        failure.location = recipe
            .and_then(split_position)
            .map(|(path, number, _, _)| context.location(path, number, None, None));
        return Some((failure, recipe.is_some()));
    }
    let (path, number, _, tail) = split_position(program)?;
    if !tail.is_empty() {
        return None;
    }
    let mut failure = Failure::new(FailureKind::MakeError, message);
    failure.location = Some(context.location(path, number, None, None));
    Some((failure, false))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::parse::parse as parse_output;

    #[test]
    fn a_failed_recipe_alone_is_the_failure() {
        let output = "false\nmake: *** [Makefile2:2: all] Error 1\n";
        let failures = parse_output("make -f Makefile2", output, Path::new("/nonexistent"));
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].message, "make: *** [Makefile2:2: all] Error 1");
        assert_eq!(failures[0].location.as_ref().map(|l| l.line), Some(2));
    }

    #[test]
    fn a_link_error_with_no_place_is_placed_at_the_recipe() {
        let output = "gcc -O2 -o spread spread.o\n/usr/bin/ld: spread.o: in function `main':\nspread.c:(.text.startup+0xdc): undefined reference to `sqrt'\ncollect2: error: ld returned 1 exit status\nmake: *** [Makefile:5: spread] Error 1\n";
        let failures = parse_output("make", output, Path::new("/nonexistent"));
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert!(failures[0]
            .message
            .contains("undefined reference to `sqrt'"));
        let at = failures[0].location.as_ref().unwrap();
        assert_eq!((at.file.as_str(), at.line), ("Makefile", 5));
    }

    #[test]
    fn a_missing_link_input_is_placed_at_the_recipe() {
        let output = "gcc -O2 -o wordstat main.o textstats.o\n/usr/bin/ld: cannot find textstats.o: No such file or directory\ncollect2: error: ld returned 1 exit status\nmake: *** [Makefile:6: wordstat] Error 1\n";
        let failures = parse_output("make", output, Path::new("/nonexistent"));
        let messages: Vec<&str> = failures.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            ["ld: cannot find textstats.o: No such file or directory"]
        );
        assert_eq!(failures[0].location.as_ref().map(|l| l.line), Some(6));
    }

    #[test]
    fn no_rule_and_nested_makes() {
        let output = "make[1]: Entering directory '/w/sub'\nmake[1]: *** No rule to make target 'nosuchtarget'.  Stop.\nmake[1]: Leaving directory '/w/sub'\nmake: *** [Makefile:3: all] Error 2\n";
        let failures = parse_output("make", output, Path::new("/nonexistent"));
        let messages: Vec<&str> = failures.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            ["make: *** No rule to make target 'nosuchtarget'. Stop."]
        );
    }
}
