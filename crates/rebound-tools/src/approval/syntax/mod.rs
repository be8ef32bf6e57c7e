//! Reading a command line with a real bash parser
//! ([tree-sitter-bash](https://github.com/tree-sitter/tree-sitter-bash))
//! into the simple commands a policy judges, failing closed.
//!
//! Only a small set of syntax-tree node kinds is understood:
//!
//! - statements: `program`, `list` (`&&`, `||`, `;`, `&`, newlines),
//!   `pipeline` (`|`, `|&`), `command`, `redirected_statement`, `subshell`,
//!   `compound_statement` (`{ ...; }`), `negated_command` (`!`),
//!   `if_statement` / `elif_clause` / `else_clause`, `while_statement`
//!   (and `until`), `for_statement` (and `select`), `do_group`,
//!   `case_statement` / `case_item`, `test_command` (`[ ]`, `[[ ]]`),
//!   `declaration_command` (`export`, `declare`...), `unset_command`,
//!   `variable_assignment(s)`, `comment`;
//! - words: `command_name`, `word`, `number`, `raw_string`, `string`
//!   (`string_content`), `concatenation`, `ansi_c_string` (`$'...'`,
//!   decoded), `simple_expansion` (`$VAR`), `expansion` of the plain forms
//!   `${VAR}`, `${#VAR}` and `${VAR:-word}` (also `-`, `:=`, `=`, `:?`,
//!   `?`, `:+`, `+`), `brace_expression`, `extglob_pattern`, `regex`;
//! - redirections: `file_redirect` (`>`, `>>`, `>|`, `&>`, `&>>`, `<`,
//!   `>&`, `<&`, `>&-`, `<&-`), `heredoc_redirect`, `herestring_redirect`.
//!
//! Everything else makes the line *risky* (see [`Script::risks`]):
//! command and process substitutions (their commands are still read and
//! judged), arithmetic (`$((...))`, `((...))`, `for ((...))`, `[[ a -eq b
//! ]]`, array subscripts), other `${...}` forms (`${x@P}`, `${!x}`,
//! `${x:1}`...), here-documents whose unquoted body expands `$` or
//! backticks, function definitions, and any kind not listed. A tree with
//! `ERROR` or missing nodes, or one nested too deeply, is *broken* (see
//! [`Script::broken`]). Words are kept as the shell would see them after
//! quote removal, with expansions left as written: `"$HOME"/x` is
//! `$HOME/x`.

mod redirects;
mod text;
mod walk;
mod words;

use std::cell::RefCell;
use std::ops::Range;

use tree_sitter::{Node, Parser, Tree};

use walk::Walker;

/// One simple command of a command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// Its leading `NAME=value` assignments, quotes removed.
    pub(crate) assignments: Vec<String>,
    /// Its words with quotes removed (`$VAR` and globs left as written).
    pub(crate) words: Vec<String>,
    /// Where each word is in the command line (byte ranges), when the
    /// command was read from the line itself (empty for a command read
    /// from inside backticks).
    pub(crate) spans: Vec<Range<usize>>,
    /// Targets of redirections that write (`>`, `>>`, `>|`, `&>`, `>&`).
    pub(crate) writes: Vec<String>,
    /// Sources of redirections that read (`<`, `<&`).
    pub(crate) reads: Vec<String>,
    /// Bodies of its here-documents and here-strings: its standard input.
    pub(crate) stdin_scripts: Vec<String>,
    /// What an `echo`, `printf` or `cat <<EOF` before it in a pipeline
    /// writes into it: its standard input, known as far as it goes.
    pub(crate) piped: Vec<String>,
    /// The pipeline it belongs to: commands joined by `|` share it.
    pub(crate) pipeline: usize,
    /// Whether it runs inside a command or process substitution.
    pub(crate) substituted: bool,
}

/// A command line, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Script {
    /// Its simple commands, those inside substitutions, loops, functions
    /// and here-document bodies that run included.
    pub(crate) commands: Vec<SimpleCommand>,
    /// Words that are not part of a command: `for` lists, `case` patterns,
    /// the operands of `[[ ]]`.
    pub(crate) other_words: Vec<String>,
    /// Why parts of the line are only known when it runs, or are not
    /// understood; empty when the whole line is understood.
    pub(crate) risks: Vec<String>,
    /// Why the line does not parse (or is nested too deeply), if it does not.
    pub(crate) broken: Option<String>,
}

impl Script {
    /// Every text of the line a command may open as a file: words,
    /// assignments, redirection targets and other words.
    pub(crate) fn texts(&self) -> impl Iterator<Item = &str> {
        self.commands
            .iter()
            .flat_map(|c| {
                c.words
                    .iter()
                    .chain(&c.assignments)
                    .chain(&c.writes)
                    .chain(&c.reads)
            })
            .chain(&self.other_words)
            .map(String::as_str)
    }
}

/// Why a command line could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SyntaxError {
    /// The bash grammar could not be loaded into the parser.
    #[error("the bash grammar could not be loaded: {0}")]
    Grammar(String),
    /// The parser returned no syntax tree.
    #[error("the bash parser returned no syntax tree")]
    NoTree,
}

thread_local! {
    /// One parser per thread, made on first use: making one per call
    /// would cost more than the parse.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// The syntax tree of `line`.
fn parse_tree(line: &str) -> Result<Tree, SyntaxError> {
    PARSER.with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            // Only reachable if parsing re-entered itself; never share.
            return new_parser()?.parse(line, None).ok_or(SyntaxError::NoTree);
        };
        let parser = match slot.as_mut() {
            Some(parser) => parser,
            None => slot.insert(new_parser()?),
        };
        parser.parse(line, None).ok_or(SyntaxError::NoTree)
    })
}

fn new_parser() -> Result<Parser, SyntaxError> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .map_err(|e| SyntaxError::Grammar(e.to_string()))?;
    Ok(parser)
}

/// Reads `line` into its simple commands.
pub(crate) fn parse(line: &str) -> Result<Script, SyntaxError> {
    let tree = parse_tree(line)?;
    Ok(Walker::read(line, tree.root_node(), false, 0))
}

/// The byte ranges of the statements `line` joins with a top-level `||`
/// (`a | grep x || b` gives `a | grep x` and `b`; `a && b || c` gives
/// `a && b` and `c`); one range when it has none; `None` when the line
/// does not parse or is not one statement.
pub(crate) fn or_operands(line: &str) -> Result<Option<Vec<Range<usize>>>, SyntaxError> {
    let tree = parse_tree(line)?;
    let root = tree.root_node();
    if root.has_error() || root.named_child_count() != 1 {
        return Ok(None);
    }
    let Some(statement) = root.named_child(0) else {
        return Ok(None);
    };
    let mut operands = Vec::new();
    let mut pending = vec![statement];
    while let Some(node) = pending.pop() {
        let mut cursor = node.walk();
        let is_or = node.kind() == "list"
            && node
                .children(&mut cursor)
                .any(|c| !c.is_named() && c.kind() == "||");
        if is_or {
            let mut members: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            members.reverse();
            pending.extend(members);
        } else {
            operands.push(node.byte_range());
        }
    }
    Ok(Some(operands))
}

/// Reads `line` the forgiving way, for a line that does not parse: quotes
/// and backticks are dropped and parentheses become `;`, so that the words
/// of `echo 'oops && rm -rf /` are still seen. Only good for looking for
/// forbidden commands.
pub(crate) fn parse_lenient(line: &str) -> Result<Script, SyntaxError> {
    let cleaned: String = line
        .chars()
        .filter(|c| !matches!(c, '\'' | '"' | '`'))
        .map(|c| if matches!(c, '(' | ')') { ';' } else { c })
        .collect();
    parse(&cleaned)
}

/// What is wrong with a tree that has an error: its first `ERROR` or
/// missing node, in words.
fn describe_error(root: Node<'_>, src: &str) -> String {
    let Some(node) = first_error(root) else {
        return "a syntax error".to_string();
    };
    if node.is_missing() {
        return match node.kind() {
            quote @ ("\"" | "'" | "`") => format!("an unclosed `{quote}`"),
            kind => format!("a missing `{kind}`"),
        };
    }
    let text = src.get(node.byte_range()).unwrap_or_default().trim();
    let first_word = text.split_whitespace().next().unwrap_or_default();
    match text.chars().next() {
        Some(quote @ ('"' | '\'' | '`')) => format!("an unclosed `{quote}`"),
        Some(')') => "a `)` that closes nothing".to_string(),
        _ if matches!(
            first_word,
            "if" | "while" | "until" | "for" | "select" | "case" | "{" | "(" | "function"
        ) =>
        {
            format!("an unfinished `{first_word}`")
        }
        _ => format!("an unexpected `{}`", shorten(text, 20)),
    }
}

/// The first `ERROR` or missing node under `root`, in source order.
fn first_error(root: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

/// At most `max` characters of `text`, with `...` when cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max).collect();
        format!("{cut}...")
    }
}

#[cfg(test)]
mod tests;
