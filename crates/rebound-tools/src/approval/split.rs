//! Splitting a command line into the simple commands a policy judges.
//!
//! This is a small lexer for the part of the POSIX shell grammar that
//! matters to an approval: quotes and escapes, the operators that separate
//! commands (`&&`, `||`, `;`, `|`, `|&`, `&`, newlines, `(`, `)`),
//! redirections (so that `ls > out` is known to write), here-documents
//! (kept, so that `bash <<EOF` can be judged on its body), and command
//! substitutions (`$(...)`, backticks, `<(...)`, `>(...)`), whose commands
//! are judged like any other and which mark the line as risky. Reserved
//! words (`if`, `then`, `do`, `{`, ...) in command position are skipped, so
//! `if grep -q x f; then rm -rf /; fi` is judged as `grep -q x f` and
//! `rm -rf /`. It does not expand anything: `$HOME` stays `$HOME`.

use std::fmt;

/// One simple command of a command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// Its words with quotes removed (`$VAR` and globs left as written).
    pub(crate) words: Vec<String>,
    /// Targets of redirections that write (`>`, `>>`, `>|`, `&>`, `<>`).
    pub(crate) writes: Vec<String>,
    /// Bodies of its here-documents and here-strings: its standard input.
    pub(crate) stdin_scripts: Vec<String>,
    /// The pipeline it belongs to: commands joined by `|` share it.
    pub(crate) pipeline: usize,
    /// Whether it runs inside a command substitution.
    pub(crate) substituted: bool,
}

/// A command line, split.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Script {
    /// Its simple commands, those inside substitutions included.
    pub(crate) commands: Vec<SimpleCommand>,
    /// Whether it contains a command substitution.
    pub(crate) substitution: bool,
}

/// Why a command line does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SplitError {
    /// A quote or backtick is never closed.
    UnclosedQuote(char),
    /// A `$(`, `<(`, `(` or `${` is never closed.
    UnclosedParen,
    /// A `)` closes nothing.
    UnexpectedParen,
    /// Substitutions are nested too deeply to judge.
    TooDeep,
}

impl fmt::Display for SplitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SplitError::UnclosedQuote(c) => write!(f, "an unclosed `{c}`"),
            SplitError::UnclosedParen => write!(f, "an unclosed parenthesis or brace"),
            SplitError::UnexpectedParen => write!(f, "a `)` that closes nothing"),
            SplitError::TooDeep => write!(f, "substitutions nested too deeply"),
        }
    }
}

/// How deep substitutions may nest before a line is refused.
const MAX_DEPTH: usize = 16;

/// Words that start or continue a compound command rather than name one.
const RESERVED: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time",
];

/// Splits `line` into its simple commands.
pub(crate) fn split(line: &str) -> Result<Script, SplitError> {
    let mut lexer = Lexer::new(line, 0);
    lexer.list(None, false)?;
    Ok(Script {
        commands: lexer.out,
        substitution: lexer.substitution,
    })
}

/// Splits `line` the forgiving way, for a line that does not parse: quotes,
/// backticks, parentheses and braces are dropped, so that the words of
/// `rm -rf / "oops` are still seen. Only good for looking for forbidden
/// commands.
pub(crate) fn split_lenient(line: &str) -> Script {
    let cleaned: String = line
        .chars()
        .filter(|c| !matches!(c, '\'' | '"' | '`'))
        .map(|c| if matches!(c, '(' | ')') { ';' } else { c })
        .collect();
    let mut lexer = Lexer::new(&cleaned, 0);
    // Without quotes and parentheses only `${` can fail; keep what was read.
    let _ = lexer.list(None, false);
    Script {
        commands: lexer.out,
        substitution: lexer.substitution,
    }
}

/// What the next word of a command is, after a redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// An ordinary word.
    Word,
    /// The target of a redirection that reads.
    Read,
    /// The target of a redirection that writes.
    Write,
    /// After `>&` or `<&`: a file descriptor, or (for `>&`) a file.
    Dup,
    /// The delimiter of a here-document (`<<-` strips tabs).
    Heredoc { strip_tabs: bool },
    /// A here-string: its word is the command's input.
    HereString,
}

/// A here-document waiting for its body (read after the next newline).
struct HeredocWanted {
    delimiter: String,
    strip_tabs: bool,
    /// The index in `out` of its command, once that command is finished.
    command: Option<usize>,
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
    out: Vec<SimpleCommand>,
    substitution: bool,
    next_pipeline: usize,
    heredocs: Vec<HeredocWanted>,
}

/// The command being read, and the word in it.
struct Current {
    command: SimpleCommand,
    word: Option<String>,
    pending: Pending,
    /// The next command is piped from this one.
    pipe_next: bool,
}

impl Lexer {
    fn new(line: &str, depth: usize) -> Self {
        Lexer {
            chars: line.chars().collect(),
            pos: 0,
            depth,
            out: Vec::new(),
            substitution: false,
            next_pipeline: 0,
            heredocs: Vec::new(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn new_pipeline(&mut self) -> usize {
        self.next_pipeline += 1;
        self.next_pipeline
    }

    /// Reads commands until the end, or until the `)` closing a
    /// substitution when `until_paren`.
    fn list(&mut self, until_paren: Option<()>, substituted: bool) -> Result<(), SplitError> {
        let pipeline = self.new_pipeline();
        let mut cur = Current {
            command: SimpleCommand {
                pipeline,
                substituted,
                ..SimpleCommand::default()
            },
            word: None,
            pending: Pending::Word,
            pipe_next: false,
        };
        let mut parens = 0usize;
        loop {
            let Some(c) = self.peek() else {
                if until_paren.is_some() || parens > 0 {
                    return Err(SplitError::UnclosedParen);
                }
                self.finish_command(&mut cur);
                return Ok(());
            };
            match c {
                ' ' | '\t' | '\r' => {
                    self.pos += 1;
                    self.finish_word(&mut cur);
                }
                '\n' => {
                    self.pos += 1;
                    self.finish_command(&mut cur);
                    self.read_heredoc_bodies();
                }
                ';' => {
                    self.pos += 1;
                    self.finish_command(&mut cur);
                }
                '&' => {
                    if self.peek_at(1) == Some('>') {
                        // `&>` and `&>>`: stdout and stderr to a file.
                        self.finish_word(&mut cur);
                        self.pos += 2;
                        if self.peek() == Some('>') {
                            self.pos += 1;
                        }
                        cur.pending = Pending::Write;
                    } else {
                        self.pos += if self.peek_at(1) == Some('&') { 2 } else { 1 };
                        self.finish_command(&mut cur);
                    }
                }
                '|' => {
                    if self.peek_at(1) == Some('|') {
                        self.pos += 2;
                        self.finish_command(&mut cur);
                    } else {
                        self.pos += if self.peek_at(1) == Some('&') { 2 } else { 1 };
                        cur.pipe_next = true;
                        self.finish_command(&mut cur);
                    }
                }
                '(' => {
                    self.pos += 1;
                    self.finish_command(&mut cur);
                    parens += 1;
                }
                ')' => {
                    self.pos += 1;
                    self.finish_command(&mut cur);
                    if parens > 0 {
                        parens -= 1;
                    } else if until_paren.is_some() {
                        return Ok(());
                    } else {
                        return Err(SplitError::UnexpectedParen);
                    }
                }
                '<' | '>' => self.redirection(&mut cur, c)?,
                '\'' => {
                    self.pos += 1;
                    let text = self.single_quoted()?;
                    cur.word.get_or_insert_with(String::new).push_str(&text);
                }
                '"' => {
                    self.pos += 1;
                    let text = self.double_quoted()?;
                    cur.word.get_or_insert_with(String::new).push_str(&text);
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        // A line continuation.
                        Some('\n') => self.pos += 1,
                        Some(next) => {
                            self.pos += 1;
                            cur.word.get_or_insert_with(String::new).push(next);
                        }
                        None => cur.word.get_or_insert_with(String::new).push('\\'),
                    }
                }
                '$' => {
                    let text = self.dollar()?;
                    cur.word.get_or_insert_with(String::new).push_str(&text);
                }
                '`' => {
                    self.pos += 1;
                    let text = self.backticks()?;
                    cur.word.get_or_insert_with(String::new).push_str(&text);
                }
                '#' if cur.word.is_none() => {
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => {
                    self.pos += 1;
                    cur.word.get_or_insert_with(String::new).push(c);
                }
            }
        }
    }

    /// Reads a redirection operator starting with `c` (`<` or `>`).
    fn redirection(&mut self, cur: &mut Current, c: char) -> Result<(), SplitError> {
        // `<(...)` and `>(...)`: process substitution, a word of its own.
        if self.peek_at(1) == Some('(') && cur.word.is_none() {
            self.pos += 2;
            let text = self.substitution_body()?;
            cur.word = Some(format!("{c}({text})"));
            return Ok(());
        }
        // `2>` and `2>&1`: the digits name a file descriptor, not a word.
        if cur
            .word
            .as_deref()
            .is_some_and(|w| !w.is_empty() && w.chars().all(|d| d.is_ascii_digit()))
        {
            cur.word = None;
        }
        self.finish_word(cur);
        self.pos += 1;
        let next = self.peek();
        cur.pending = match (c, next) {
            ('<', Some('<')) => {
                self.pos += 1;
                if self.peek() == Some('<') {
                    self.pos += 1;
                    Pending::HereString
                } else if self.peek() == Some('-') {
                    self.pos += 1;
                    Pending::Heredoc { strip_tabs: true }
                } else {
                    Pending::Heredoc { strip_tabs: false }
                }
            }
            ('<', Some('>')) => {
                self.pos += 1;
                Pending::Write
            }
            ('<', Some('&')) => {
                self.pos += 1;
                Pending::Dup
            }
            ('<', _) => Pending::Read,
            ('>', Some('>' | '|')) => {
                self.pos += 1;
                Pending::Write
            }
            ('>', Some('&')) => {
                self.pos += 1;
                Pending::Dup
            }
            _ => Pending::Write,
        };
        Ok(())
    }

    /// Ends the word being read, if any, putting it where it belongs.
    fn finish_word(&mut self, cur: &mut Current) {
        let Some(word) = cur.word.take() else {
            return;
        };
        let pending = std::mem::replace(&mut cur.pending, Pending::Word);
        match pending {
            Pending::Word => {
                if cur.command.words.is_empty() && RESERVED.contains(&word.as_str()) {
                    return;
                }
                cur.command.words.push(word);
            }
            Pending::Read => {}
            Pending::Write => cur.command.writes.push(word),
            Pending::Dup => {
                if !(word == "-" || word.chars().all(|d| d.is_ascii_digit())) {
                    cur.command.writes.push(word);
                }
            }
            Pending::Heredoc { strip_tabs } => self.heredocs.push(HeredocWanted {
                delimiter: word,
                strip_tabs,
                command: None,
            }),
            Pending::HereString => cur.command.stdin_scripts.push(word),
        }
    }

    /// Ends the command being read, if it has anything in it.
    fn finish_command(&mut self, cur: &mut Current) {
        self.finish_word(cur);
        cur.pending = Pending::Word;
        let pipeline = if cur.pipe_next {
            cur.command.pipeline
        } else {
            self.new_pipeline()
        };
        cur.pipe_next = false;
        let fresh = SimpleCommand {
            pipeline,
            substituted: cur.command.substituted,
            ..SimpleCommand::default()
        };
        let command = std::mem::replace(&mut cur.command, fresh);
        let loop_header = command
            .words
            .first()
            .is_some_and(|w| matches!(w.as_str(), "for" | "select" | "case"));
        let empty = command.words.is_empty()
            && command.writes.is_empty()
            && command.stdin_scripts.is_empty();
        let owes_heredoc = self.heredocs.iter().any(|h| h.command.is_none());
        // A loop header names no command: only its substitutions count, and
        // those are already out. A command owed a here-document is kept.
        if (empty || loop_header) && !owes_heredoc {
            return;
        }
        let index = self.out.len();
        for wanted in self.heredocs.iter_mut().filter(|h| h.command.is_none()) {
            wanted.command = Some(index);
        }
        self.out.push(command);
    }

    /// Reads the bodies of the here-documents started on the line just ended.
    fn read_heredoc_bodies(&mut self) {
        for wanted in std::mem::take(&mut self.heredocs) {
            let mut body = String::new();
            loop {
                let start = self.pos;
                if start >= self.chars.len() {
                    break;
                }
                let mut end = start;
                while end < self.chars.len() && self.chars[end] != '\n' {
                    end += 1;
                }
                let line: String = self.chars[start..end].iter().collect();
                self.pos = (end + 1).min(self.chars.len());
                let compared = if wanted.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line.as_str()
                };
                if compared == wanted.delimiter {
                    break;
                }
                body.push_str(compared);
                body.push('\n');
            }
            if let Some(command) = wanted.command.and_then(|i| self.out.get_mut(i)) {
                command.stdin_scripts.push(body);
            }
        }
    }

    /// After an opening `'`: the text up to the closing one.
    fn single_quoted(&mut self) -> Result<String, SplitError> {
        let mut text = String::new();
        loop {
            match self.peek() {
                None => return Err(SplitError::UnclosedQuote('\'')),
                Some('\'') => {
                    self.pos += 1;
                    return Ok(text);
                }
                Some(c) => {
                    self.pos += 1;
                    text.push(c);
                }
            }
        }
    }

    /// After an opening `"`: the text up to the closing one, with the
    /// substitutions inside read as commands.
    fn double_quoted(&mut self) -> Result<String, SplitError> {
        let mut text = String::new();
        loop {
            match self.peek() {
                None => return Err(SplitError::UnclosedQuote('"')),
                Some('"') => {
                    self.pos += 1;
                    return Ok(text);
                }
                Some('\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(c @ ('$' | '`' | '"' | '\\')) => {
                            self.pos += 1;
                            text.push(c);
                        }
                        Some('\n') => self.pos += 1,
                        _ => text.push('\\'),
                    }
                }
                Some('$') => text.push_str(&self.dollar()?),
                Some('`') => {
                    self.pos += 1;
                    text.push_str(&self.backticks()?);
                }
                Some(c) => {
                    self.pos += 1;
                    text.push(c);
                }
            }
        }
    }

    /// At a `$`: a substitution, a `${...}` expansion, or a plain `$`.
    fn dollar(&mut self) -> Result<String, SplitError> {
        self.pos += 1;
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let body = self.substitution_body()?;
                Ok(format!("$({body})"))
            }
            Some('{') => {
                self.pos += 1;
                let start = self.pos;
                let mut braces = 1usize;
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    match c {
                        '{' => braces += 1,
                        '}' => {
                            braces -= 1;
                            if braces == 0 {
                                let inner: String =
                                    self.chars[start..self.pos - 1].iter().collect();
                                if inner.contains("$(") || inner.contains('`') {
                                    // `${x:-$(cmd)}`: not read as a command,
                                    // but it runs one.
                                    self.substitution = true;
                                }
                                return Ok(format!("${{{inner}}}"));
                            }
                        }
                        _ => {}
                    }
                }
                Err(SplitError::UnclosedParen)
            }
            _ => Ok("$".to_string()),
        }
    }

    /// After `$(`, `<(` or `>(`: reads the commands up to the closing `)`
    /// as substituted commands; returns their text.
    fn substitution_body(&mut self) -> Result<String, SplitError> {
        if self.depth + 1 > MAX_DEPTH {
            return Err(SplitError::TooDeep);
        }
        self.substitution = true;
        let start = self.pos;
        self.depth += 1;
        let result = self.list(Some(()), true);
        self.depth -= 1;
        result?;
        let end = self.pos.saturating_sub(1).max(start);
        Ok(self.chars[start..end].iter().collect())
    }

    /// After an opening backtick: reads the commands up to the closing one.
    fn backticks(&mut self) -> Result<String, SplitError> {
        let mut inner = String::new();
        loop {
            match self.peek() {
                None => return Err(SplitError::UnclosedQuote('`')),
                Some('`') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(c @ ('`' | '$' | '\\')) => {
                            self.pos += 1;
                            inner.push(c);
                        }
                        _ => inner.push('\\'),
                    }
                }
                Some(c) => {
                    self.pos += 1;
                    inner.push(c);
                }
            }
        }
        if self.depth + 1 > MAX_DEPTH {
            return Err(SplitError::TooDeep);
        }
        self.substitution = true;
        let mut nested = Lexer::new(&inner, self.depth + 1);
        nested.next_pipeline = self.next_pipeline;
        nested.list(None, true)?;
        self.next_pipeline = nested.next_pipeline + 1;
        self.out.extend(nested.out);
        Ok(format!("`{inner}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        split(line)
            .unwrap()
            .commands
            .into_iter()
            .map(|c| c.words)
            .collect()
    }

    #[test]
    fn operators_separate_commands() {
        assert_eq!(
            words("a 1 && b 2 || c; d | e |& f & g\nh"),
            [
                vec!["a", "1"],
                vec!["b", "2"],
                vec!["c"],
                vec!["d"],
                vec!["e"],
                vec!["f"],
                vec!["g"],
                vec!["h"]
            ]
        );
    }

    #[test]
    fn quotes_keep_operators_inside_words() {
        assert_eq!(
            words(r#"echo "a && b" 'c; d' e\;f"#),
            [vec!["echo", "a && b", "c; d", "e;f"]]
        );
    }

    #[test]
    fn substitutions_are_commands_too() {
        let script = split("echo $(rm -rf /) `whoami`").unwrap();
        assert!(script.substitution);
        let words: Vec<_> = script.commands.iter().map(|c| c.words.join(" ")).collect();
        assert_eq!(words, ["rm -rf /", "whoami", "echo $(rm -rf /) `whoami`"]);
        assert!(script.commands[0].substituted);
        assert!(!script.commands[2].substituted);
    }

    #[test]
    fn redirections_are_not_words() {
        let script = split("cargo test 2>&1 > out.txt 2>/dev/null < in").unwrap();
        assert_eq!(script.commands[0].words, ["cargo", "test"]);
        assert_eq!(script.commands[0].writes, ["out.txt", "/dev/null"]);
    }

    #[test]
    fn heredoc_bodies_are_stdin() {
        let script = split("bash <<'EOF'\nrm -rf /\nEOF\nls").unwrap();
        assert_eq!(script.commands.len(), 2);
        assert_eq!(script.commands[0].stdin_scripts, ["rm -rf /\n"]);
        assert_eq!(script.commands[1].words, ["ls"]);
    }

    #[test]
    fn pipelines_are_numbered() {
        let script = split("curl x | sh; ls").unwrap();
        let p: Vec<_> = script.commands.iter().map(|c| c.pipeline).collect();
        assert_eq!(p[0], p[1]);
        assert_ne!(p[1], p[2]);
    }

    #[test]
    fn unbalanced_input_is_an_error() {
        assert_eq!(split("echo 'a"), Err(SplitError::UnclosedQuote('\'')));
        assert_eq!(split("echo \"a"), Err(SplitError::UnclosedQuote('"')));
        assert_eq!(split("echo `a"), Err(SplitError::UnclosedQuote('`')));
        assert_eq!(split("echo $(a"), Err(SplitError::UnclosedParen));
        assert_eq!(split("echo a)"), Err(SplitError::UnexpectedParen));
    }

    #[test]
    fn reserved_words_are_skipped() {
        assert_eq!(
            words("if grep -q x f; then rm -rf /; fi; { ls; }"),
            [
                vec!["grep", "-q", "x", "f"],
                vec!["rm", "-rf", "/"],
                vec!["ls"]
            ]
        );
    }
}
