//! Reading words: quotes removed, expansions checked against the forms
//! that are understood, substitutions walked for the commands they run.

use tree_sitter::Node;

use super::text::{decode_ansi_c, unescape_backticks, unescape_double_quoted, unescape_unquoted};
use super::walk::{named_children, Place, Walker, ARITHMETIC};
use super::{parse_tree, shorten, SimpleCommand};

const SUBSTITUTION: &str =
    "a command substitution (`$(...)` or backticks) computes part of the command only when it runs";
const PROCESS_SUBSTITUTION: &str =
    "a process substitution (`<(...)`, `>(...)`) runs a command whose output is only known when \
     it runs";

/// The operators of the `${NAME<op>word}` forms that are understood.
const VALUE_OPERATORS: &[&str] = &[":-", "-", ":=", "=", ":?", "?", ":+", "+"];

impl Walker<'_> {
    /// The text of a word as the shell passes it on, quotes removed and
    /// expansions left as written; substitutions inside are walked and
    /// anything not understood makes the line risky.
    pub(super) fn word(&mut self, node: Node<'_>, place: Place) -> String {
        let text = self.text(node);
        let Some(place) = self.deeper(place) else {
            return text.to_string();
        };
        match node.kind() {
            "word" => unescape_unquoted(text),
            "raw_string" => strip_quotes(text, '\'').to_string(),
            "string" => self.double_quoted(node, place),
            "number" | "concatenation" | "command_name" | "translated_string" => {
                self.concatenation(node, place)
            }
            "simple_expansion"
            | "brace_expression"
            | "extglob_pattern"
            | "regex"
            | "special_variable_name"
            | "variable_name"
            | "test_operator"
            | "string_content" => text.to_string(),
            "expansion" => {
                self.expansion(node, place);
                text.to_string()
            }
            "command_substitution" => {
                self.risk(SUBSTITUTION);
                self.substitution(node, place);
                text.to_string()
            }
            "process_substitution" => {
                self.risk(PROCESS_SUBSTITUTION);
                self.substitution(node, place);
                text.to_string()
            }
            "arithmetic_expansion" => {
                self.risk(ARITHMETIC);
                self.sequence(node, place);
                text.to_string()
            }
            "ansi_c_string" => decode_ansi_c(text).unwrap_or_else(|| text.to_string()),
            kind => {
                self.risk(format!("`{kind}` is not understood"));
                self.sequence(node, place);
                text.to_string()
            }
        }
    }

    /// A word made of parts (`r''m`, `"$HOME"/x`), each read as a word;
    /// a part-less node is its own text.
    fn concatenation(&mut self, node: Node<'_>, place: Place) -> String {
        if node.child_count() == 0 {
            return unescape_unquoted(self.text(node));
        }
        let mut out = String::new();
        let mut end = node.start_byte();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            // Text between parts, if the grammar leaves any, is kept.
            out.push_str(self.src.get(end..child.start_byte()).unwrap_or_default());
            end = child.end_byte();
            if child.is_named() {
                let part = self.word(child, place);
                out.push_str(&part);
            } else {
                out.push_str(self.text(child));
            }
        }
        out.push_str(self.src.get(end..node.end_byte()).unwrap_or_default());
        out
    }

    /// `"..."`: its expansions checked, its substitutions walked.
    fn double_quoted(&mut self, node: Node<'_>, place: Place) -> String {
        for child in named_children(node) {
            if !matches!(child.kind(), "string_content" | "simple_expansion") {
                self.word(child, place);
            }
        }
        unescape_double_quoted(strip_quotes(self.text(node), '"'))
    }

    /// `${...}`: understood only in its plain forms (see the module docs).
    fn expansion(&mut self, node: Node<'_>, place: Place) {
        #[derive(PartialEq)]
        enum Expect {
            Name,
            OperatorOrEnd,
            Value,
        }
        let mut expect = Expect::Name;
        let mut understood = true;
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).skip(1).collect();
        for child in children {
            match (child.kind(), child.is_named()) {
                ("}", false) => {}
                ("#", false) if expect == Expect::Name => {}
                ("variable_name" | "special_variable_name", true) if expect == Expect::Name => {
                    expect = Expect::OperatorOrEnd
                }
                (operator, false)
                    if expect == Expect::OperatorOrEnd && VALUE_OPERATORS.contains(&operator) =>
                {
                    expect = Expect::Value
                }
                (_, true) if expect == Expect::Value => {
                    self.word(child, place);
                }
                _ => understood = false,
            }
        }
        if !understood {
            let shown = shorten(self.text(node), 30);
            self.risk(format!(
                "the expansion `{shown}` is not understood: only `${{VAR}}`, `${{#VAR}}` and \
                 `${{VAR:-word}}` and their kin are"
            ));
            self.sequence(node, place);
        }
    }

    /// The commands of `$(...)`, backticks, `<(...)` or `>(...)`.
    fn substitution(&mut self, node: Node<'_>, place: Place) {
        let text = self.text(node).trim_start();
        if let Some(inner) = text.strip_prefix('`') {
            // Bash reads the inside of backticks again after removing
            // `\\`, `` \` `` and `\$`: read it the same way.
            let inner = inner.strip_suffix('`').unwrap_or(inner);
            self.nested(&unescape_backticks(inner), place);
            return;
        }
        let inner = Place {
            pipeline: self.new_pipeline(),
            substituted: true,
            ..place
        };
        for child in named_children(node) {
            if child.kind() == "file_redirect" {
                // `$(< file)`: a command that only reads.
                let mut command = SimpleCommand {
                    pipeline: inner.pipeline,
                    substituted: true,
                    ..SimpleCommand::default()
                };
                let mut deferred = Vec::new();
                self.redirect(child, &mut command, &mut deferred, inner);
                self.script.commands.push(command);
            } else {
                self.sequence_one(child, inner);
            }
        }
    }

    /// One child of a substitution: a statement, or a loose word.
    fn sequence_one(&mut self, child: Node<'_>, place: Place) {
        if super::walk::is_word(child) {
            self.loose_word(child, place);
        } else {
            let own = Place {
                pipeline: self.new_pipeline(),
                ..place
            };
            self.statement(child, own);
        }
    }

    /// The backtick substitutions in `text` (a here-document body), read
    /// as [`Walker::substitution`] reads them.
    pub(super) fn backticks_in(&mut self, text: &str, place: Place) {
        let mut rest = text;
        while let Some(open) = find_unescaped(rest, '`') {
            let after = &rest[open + 1..];
            let Some(close) = find_unescaped(after, '`') else {
                self.script
                    .broken
                    .get_or_insert_with(|| "an unclosed `` ` `` in a here-document".to_string());
                return;
            };
            self.risk(SUBSTITUTION);
            self.nested(&unescape_backticks(&after[..close]), place);
            rest = &after[close + 1..];
        }
    }

    /// Reads `text` (the inside of backticks) as a command line of its own,
    /// its commands substituted.
    fn nested(&mut self, text: &str, place: Place) {
        let tree = match parse_tree(text) {
            Ok(tree) => tree,
            Err(error) => {
                self.script.broken.get_or_insert_with(|| error.to_string());
                return;
            }
        };
        let root = tree.root_node();
        let (inner, next) = Walker::new(text, self.next_pipeline).walk(root, true, place.depth);
        self.next_pipeline = next;
        for mut command in inner.commands {
            command.spans.clear();
            self.script.commands.push(command);
        }
        self.script.other_words.extend(inner.other_words);
        self.script.risks.extend(inner.risks);
        if let Some(broken) = inner.broken {
            self.script.broken.get_or_insert(broken);
        }
    }
}

/// Where the first `wanted` not escaped by a backslash is in `text`.
fn find_unescaped(text: &str, wanted: char) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == wanted {
            return Some(at);
        }
    }
    None
}

/// `text` without the `quote` at each end (a missing closing one allowed).
fn strip_quotes(text: &str, quote: char) -> &str {
    let inner = text.strip_prefix(quote).unwrap_or(text);
    inner.strip_suffix(quote).unwrap_or(inner)
}
