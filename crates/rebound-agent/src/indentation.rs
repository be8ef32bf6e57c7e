//! A Python program whose indentation is off by a space or two: a small
//! model writes a line of a block one space short (`       x = 1` among
//! lines of eight), and Python refuses the whole program with an
//! `IndentationError`. Found on dev (a script step's samples, each a
//! program that could not start): the harness puts each such line on the
//! nearest indentation step of four spaces, and keeps the result only
//! when Python then compiles it.

use crate::edit::{check_syntax, Syntax};

/// The indentation step a repaired line is put on, in spaces.
const STEP: usize = 4;

/// `code` (a Python program) with every line indented by a number of
/// spaces that is not a multiple of [`STEP`] moved to the nearest one
/// (two spaces over a step go on to the next), when `code` does not
/// compile and the result does; `None` otherwise (it compiles already,
/// it indents with tabs, no line is off the steps, or the repair does
/// not compile either).
pub(crate) fn repaired_python(code: &str) -> Option<String> {
    const NAME: &str = "program.py";
    if code.lines().any(|line| line.starts_with('\t')) {
        return None;
    }
    let mut changed = false;
    let mut repaired = String::with_capacity(code.len() + 16);
    for line in code.split_inclusive('\n') {
        let body = line.trim_start_matches(' ');
        let spaces = line.len() - body.len();
        let off = spaces % STEP;
        if off == 0 || body.trim().is_empty() {
            repaired.push_str(line);
            continue;
        }
        let nearest = if off * 2 < STEP {
            spaces - off
        } else {
            spaces + STEP - off
        };
        changed = true;
        repaired.push_str(&" ".repeat(nearest));
        repaired.push_str(body);
    }
    // Python is asked only about a program with a line off the steps (most
    // have none): it must refuse the program and take the repair.
    (changed
        && matches!(check_syntax(NAME, code), Syntax::Invalid(_))
        && check_syntax(NAME, &repaired) == Syntax::Valid)
        .then_some(repaired)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// The dev program: one line of a loop's body a space short.
    const ONE_SHORT: &str = "def count(lines):\n    hours = {}\n    for i in range(0, len(lines), 2):\n       stamp = lines[i].split()[0]\n        if 'ERROR' in lines[i + 1]:\n            hours[stamp] = hours.get(stamp, 0) + 1\n    return hours\n\nprint(count(['a', 'ERROR b']))\n";

    #[test]
    fn a_line_a_space_off_its_block_is_put_back_on_it() {
        assert!(matches!(
            check_syntax("p.py", ONE_SHORT),
            Syntax::Invalid(message) if message.contains("indent")
        ));
        let repaired = repaired_python(ONE_SHORT).unwrap();
        assert!(repaired.contains("\n        stamp = lines[i].split()[0]\n"));
        assert_eq!(check_syntax("p.py", &repaired), Syntax::Valid);
        assert_eq!(
            repaired.replace(' ', ""),
            ONE_SHORT.replace(' ', ""),
            "only spaces at the start of lines change"
        );
    }

    #[test]
    fn a_program_that_compiles_or_cannot_be_repaired_so_is_left_alone() {
        // Compiles already: two-space indentation is Python too.
        assert_eq!(repaired_python("if True:\n  print(1)\n"), None);
        // Off the steps, but not the cause: the repair does not compile.
        assert_eq!(repaired_python("if True:\n   print(1\n"), None);
        // Tabs: not guessed at.
        assert_eq!(repaired_python("if True:\n\tx = 1\n     y = 2\n"), None);
        // Nothing off the steps: nothing to repair.
        assert_eq!(repaired_python("if True:\nprint(1)\n"), None);
    }
}
