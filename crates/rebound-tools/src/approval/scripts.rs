//! The little languages some allowed programs run: a `sed` script can run
//! commands (`e`) and write files (`w`, `W`, `s///w`); an `awk` program can
//! run commands (`system()`, `|`) and write files (`>`).

/// Why a `sed` script is risky, if it is: it runs a command, writes a
/// file, or holds something this reader does not understand.
pub(super) fn sed_script_risk(script: &str) -> Option<&'static str> {
    let mut sed = Sed {
        chars: script.chars().collect(),
        pos: 0,
    };
    sed.script().err()
}

/// Why an `awk` program is risky, if it is. Any `|`, `>`, `system`,
/// `ENVIRON`, `PROCINFO` or `@` counts, even inside strings or as a
/// comparison: a false alarm only costs a question.
pub(super) fn awk_program_risk(program: &str) -> Option<&'static str> {
    if program.contains("system") {
        Some("runs a command with `system()`")
    } else if program.contains('|') {
        Some("may pipe to or from a command (`|`)")
    } else if program.contains('>') {
        Some("may write to a file (`>`)")
    } else if program.contains("ENVIRON") || program.contains("PROCINFO") {
        Some("reads the environment")
    } else if program.contains('@') {
        Some("uses a gawk directive (`@load`, `@include`)")
    } else {
        None
    }
}

const RUNS: &str = "runs a command (`e`)";
const WRITES: &str = "writes to a file (`w`, `W`)";
const UNKNOWN: &str = "has a command this reader does not understand";

/// A reader of GNU sed scripts, just enough to find its commands.
struct Sed {
    chars: Vec<char>,
    pos: usize,
}

type Step = Result<(), &'static str>;

impl Sed {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        self.pos += 1;
        c
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.pos += 1;
        }
    }

    /// The rest of the line (a label, a file name, text to append).
    fn skip_line(&mut self, also_semicolon: bool) {
        while let Some(c) = self.peek() {
            if c == '\n' || (also_semicolon && c == ';') {
                break;
            }
            self.pos += 1;
        }
    }

    fn script(&mut self) -> Step {
        loop {
            while self
                .peek()
                .is_some_and(|c| c.is_whitespace() || c == ';' || c == '}')
            {
                self.pos += 1;
            }
            let Some(c) = self.peek() else {
                return Ok(());
            };
            if c == '#' {
                self.skip_line(false);
                continue;
            }
            self.address()?;
            if self.peek() == Some(',') {
                self.pos += 1;
                self.skip_blanks();
                self.address()?;
            }
            self.skip_blanks();
            while self.peek() == Some('!') {
                self.pos += 1;
                self.skip_blanks();
            }
            self.command()?;
        }
    }

    /// An address: a line number (`1`, `first~step`, `+N`, `~N`), `$`, or
    /// a regular expression (`/re/`, `\%re%`) with its `I`/`M` flags.
    fn address(&mut self) -> Step {
        match self.peek() {
            Some(c) if c.is_ascii_digit() || c == '+' || c == '~' => {
                self.pos += 1;
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '~') {
                    self.pos += 1;
                }
            }
            Some('$') => self.pos += 1,
            Some('/') => {
                self.pos += 1;
                self.delimited('/')?;
                self.regex_flags();
            }
            Some('\\') => {
                self.pos += 1;
                let delimiter = self.next().ok_or(UNKNOWN)?;
                self.delimited(delimiter)?;
                self.regex_flags();
            }
            _ => {}
        }
        Ok(())
    }

    fn regex_flags(&mut self) {
        while self.peek().is_some_and(|c| c == 'I' || c == 'M') {
            self.pos += 1;
        }
    }

    /// Up to and past the next unescaped `delimiter`.
    fn delimited(&mut self, delimiter: char) -> Step {
        loop {
            match self.next() {
                None => return Err(UNKNOWN),
                Some('\\') => {
                    self.next().ok_or(UNKNOWN)?;
                }
                Some(c) if c == delimiter => return Ok(()),
                Some(_) => {}
            }
        }
    }

    fn command(&mut self) -> Step {
        let Some(c) = self.next() else {
            return Err(UNKNOWN);
        };
        match c {
            '{' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z'
            | 'F' => Ok(()),
            'l' | 'L' | 'q' | 'Q' => {
                self.skip_blanks();
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
                Ok(())
            }
            // Text to add, labels, files to read: to the end of the line
            // (a label or file name also ends at `;` for these readers).
            'a' | 'i' | 'c' => {
                self.skip_text();
                Ok(())
            }
            ':' | 'b' | 't' | 'T' | 'v' => {
                self.skip_line(true);
                Ok(())
            }
            'r' | 'R' => {
                self.skip_line(false);
                Ok(())
            }
            'e' => Err(RUNS),
            'w' | 'W' => Err(WRITES),
            's' => self.substitute(),
            'y' => {
                let delimiter = self.next().ok_or(UNKNOWN)?;
                self.delimited(delimiter)?;
                self.delimited(delimiter)
            }
            _ => Err(UNKNOWN),
        }
    }

    /// `a text`, `a\` and lines ending in `\` that continue it.
    fn skip_text(&mut self) {
        while let Some(c) = self.next() {
            match c {
                '\\' => {
                    self.next();
                }
                '\n' => return,
                _ => {}
            }
        }
    }

    /// `s/re/replacement/flags`.
    fn substitute(&mut self) -> Step {
        let delimiter = self.next().ok_or(UNKNOWN)?;
        if delimiter == '\n' || delimiter == '\\' {
            return Err(UNKNOWN);
        }
        self.delimited(delimiter)?;
        self.delimited(delimiter)?;
        while let Some(flag) = self.peek() {
            match flag {
                'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => self.pos += 1,
                'e' => return Err(RUNS),
                'w' => return Err(WRITES),
                ';' | '\n' | '}' | ' ' | '\t' => return Ok(()),
                _ => return Err(UNKNOWN),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts() {
        for safe in [
            "s/a/b/",
            "s/a/b/g",
            "1,10p",
            "/start/,/end/d",
            "s|/usr|/opt|g; 3q",
            "$!N; s/\\n/ /",
            "/x/I,+3{s/a/b/2;p}",
            "1i\\\nheader with w and e",
            "a wow, an e",
            ":loop\nb loop",
            "y/abc/xyz/",
            "\\%x%d",
            "# a comment with e\np",
            "s/a\\/b/c/",
        ] {
            assert_eq!(sed_script_risk(safe), None, "{safe:?}");
        }
        for (risky, why) in [
            ("1e", RUNS),
            ("s/a/b/e", RUNS),
            ("s/a/b/ge", RUNS),
            ("e rm -rf ~", RUNS),
            ("/x/w out", WRITES),
            ("s/a/b/w out", WRITES),
            ("1W out", WRITES),
            ("$!{e\n}", RUNS),
            ("s/a/b", UNKNOWN),
            ("s/[/]/x/e", UNKNOWN),
            ("k", UNKNOWN),
        ] {
            assert_eq!(sed_script_risk(risky), Some(why), "{risky:?}");
        }
    }

    #[test]
    fn awk_programs() {
        assert_eq!(awk_program_risk("{print $1}"), None);
        assert_eq!(awk_program_risk("NR>1"), Some("may write to a file (`>`)"));
        assert!(awk_program_risk("BEGIN{system(\"id\")}").is_some());
        assert!(awk_program_risk("{print | \"sh\"}").is_some());
        assert!(awk_program_risk("BEGIN{print ENVIRON[\"HOME\"]}").is_some());
    }
}
