//! A program that copies one that failed: shown its failed program and
//! the error, a small model often writes the same program again, token
//! for token (found on dev: in four runs of one data task the second
//! candidate was the first one again, a 240-token answer that took 28 s
//! and could only fail the same way). A Python program that has written
//! the failed one's lines up to the deepest line its traceback names,
//! unchanged, runs the same code to the same error: its answer is cut
//! there ([`rebound_llm::chat_observed_until`]) instead of being
//! generated to its end.

/// A failed Python program and how much of it decided its failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FailedProgram {
    /// Which candidate it was (`candidate 1`).
    pub(crate) candidate: String,
    /// Its lines (without their line ends), leading blank lines dropped.
    lines: Vec<String>,
    /// How many of its first lines ran up to the failure: the deepest
    /// line of the program its traceback names.
    through: usize,
}

impl FailedProgram {
    /// The program `code` that failed with `output` when it was run as the
    /// file whose path ends in `script` with `prelude_lines` lines put
    /// before it; `None` when the output names no line of that file within
    /// `code` (the failure may lie anywhere, so nothing is cut).
    pub(crate) fn new(
        candidate: &str,
        code: &str,
        output: &str,
        script: &str,
        prelude_lines: usize,
    ) -> Option<FailedProgram> {
        let lines = program_lines(code);
        let dropped = code.lines().take_while(|l| l.trim().is_empty()).count();
        let deepest = traceback_lines(output, script).max()?;
        let through = deepest
            .checked_sub(prelude_lines + dropped)
            .filter(|&n| n >= 1 && n <= lines.len())?;
        Some(FailedProgram {
            candidate: candidate.to_string(),
            lines,
            through,
        })
    }

    /// How many lines of it ran up to the failure.
    pub(crate) fn through(&self) -> usize {
        self.through
    }
}

/// The program of `failed` the answer so far (`answer`, a fenced block
/// being written) copies through the line where it failed.
pub(crate) fn copies<'a>(answer: &str, failed: &'a [FailedProgram]) -> Option<&'a FailedProgram> {
    let start = answer.find("```")?;
    let body = &answer[start + 3..];
    let code = &body[body.find('\n')? + 1..];
    // Only whole lines: the last one may still grow.
    let whole = &code[..code.rfind('\n').map_or(0, |end| end + 1)];
    let lines = program_lines(whole);
    failed.iter().find(|program| {
        lines.len() >= program.through
            && lines[..program.through] == program.lines[..program.through]
    })
}

/// `code`'s lines with trailing spaces cut, from its first non-blank one.
fn program_lines(code: &str) -> Vec<String> {
    code.lines()
        .skip_while(|line| line.trim().is_empty())
        .map(|line| line.trim_end().to_string())
        .collect()
}

/// The line numbers the traceback lines of `output` give for the file
/// whose path ends in `script` (`File ".../scripts/step1-1.py", line 18`).
fn traceback_lines<'a>(output: &'a str, script: &'a str) -> impl Iterator<Item = usize> + 'a {
    output.lines().filter_map(move |line| {
        let rest = line.trim_start().strip_prefix("File \"")?;
        let (path, rest) = rest.split_once('"')?;
        if !path.ends_with(script) {
            return None;
        }
        let number = rest.strip_prefix(", line ")?;
        let digits: String = number.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    const PROGRAM: &str = "import re\n\nrows = open('app.log').readlines()\nfor line in rows:\n    stamp, level = re.match(r'(\\S+) (\\S+)', line).groups()\n    print(stamp)\nprint('done')\n";
    const TRACEBACK: &str = "exit code 1 (failure) after 0.1 s\n$ python3 .rebound/scripts/step1-1.py\nTraceback (most recent call last):\n  File \"/tmp/rebound-scratchUj7a13/.rebound/scripts/step1-1.py\", line 7, in <module>\n    stamp, level = re.match(r'(\\S+) (\\S+)', line).groups()\nAttributeError: 'NoneType' object has no attribute 'groups'\n";

    #[test]
    fn the_deepest_line_the_traceback_names_in_the_script_counts_past_the_prelude() {
        let failed =
            FailedProgram::new("candidate 1", PROGRAM, TRACEBACK, "scripts/step1-1.py", 2).unwrap();
        assert_eq!(failed.through(), 5);
        // Another file's frames and a line past the program name nothing.
        assert_eq!(
            FailedProgram::new("candidate 1", PROGRAM, TRACEBACK, "scripts/step1-2.py", 2),
            None
        );
        assert_eq!(
            FailedProgram::new("candidate 1", PROGRAM, TRACEBACK, "scripts/step1-1.py", 7),
            None
        );
        assert_eq!(
            FailedProgram::new(
                "candidate 1",
                PROGRAM,
                "exit code 1\nwrong output\n",
                "step1-1.py",
                0
            ),
            None
        );
    }

    #[test]
    fn an_answer_is_a_copy_once_it_repeats_the_failed_lines_through_the_failure() {
        let failed =
            vec![FailedProgram::new("candidate 1", PROGRAM, TRACEBACK, "step1-1.py", 2).unwrap()];
        let through = |n: usize| -> String {
            let lines: Vec<&str> = PROGRAM.lines().take(n).collect();
            format!("```python\n{}\n", lines.join("\n"))
        };
        assert_eq!(copies("```pyth", &failed), None);
        assert_eq!(copies(&through(4), &failed), None, "not yet at the failure");
        // The failing line written but not ended: it may still change.
        assert_eq!(copies(through(5).trim_end(), &failed), None);
        assert_eq!(copies(&through(5), &failed).map(|p| p.through()), Some(5));
        assert_eq!(copies(&through(7), &failed).map(|p| p.through()), Some(5));
        // Trailing spaces and leading blank lines do not make it new.
        let spaced = through(5).replace("import re\n", "\n  \nimport re   \n");
        assert_eq!(copies(&spaced, &failed).map(|p| p.through()), Some(5));
        // A changed line before the failure does.
        let changed = through(6).replace(".groups()", ".groups() if False else ('', '')");
        assert_eq!(copies(&changed, &failed), None);
    }
}
