//! Walking a syntax tree's statements into simple commands: lists,
//! pipelines, compound commands, commands and their redirections.

use tree_sitter::Node;

use super::{describe_error, Script, SimpleCommand};
use crate::approval::rules::command_name;

/// How deep statements, substitutions and words may nest before the line
/// is given up on as broken (its forbidden commands are still looked for).
const MAX_DEPTH: usize = 100;

/// Node kinds that are statements: they run commands.
pub(super) const STATEMENTS: &[&str] = &[
    "program",
    "list",
    "pipeline",
    "command",
    "redirected_statement",
    "subshell",
    "compound_statement",
    "negated_command",
    "if_statement",
    "elif_clause",
    "else_clause",
    "while_statement",
    "for_statement",
    "c_style_for_statement",
    "do_group",
    "case_statement",
    "case_item",
    "test_command",
    "declaration_command",
    "unset_command",
    "variable_assignment",
    "variable_assignments",
    "function_definition",
    "comment",
];

/// Why arithmetic makes a line risky.
pub(super) const ARITHMETIC: &str =
    "arithmetic (`$((...))`, `((...))`, `[[ a -eq b ]]`, array subscripts) can run commands \
     hidden in variables";

/// Where a node is: its pipeline, whether in a substitution, how deep.
#[derive(Debug, Clone, Copy)]
pub(super) struct Place {
    /// The pipeline a command found here belongs to.
    pub(super) pipeline: usize,
    /// Whether a command found here runs in a substitution.
    pub(super) substituted: bool,
    /// How many levels down the walk is.
    pub(super) depth: usize,
}

/// Reads one syntax tree into a [`Script`].
pub(super) struct Walker<'a> {
    /// The text the tree was parsed from.
    pub(super) src: &'a str,
    /// What has been read so far.
    pub(super) script: Script,
    /// The last pipeline number handed out.
    pub(super) next_pipeline: usize,
}

impl<'a> Walker<'a> {
    /// Reads the tree `root` of `src`, its commands marked `substituted`
    /// when the text is a substitution's, `depth` levels down already.
    pub(super) fn read(src: &'a str, root: Node<'_>, substituted: bool, depth: usize) -> Script {
        Walker::new(src, 0).walk(root, substituted, depth).0
    }

    /// A walker of `src` numbering pipelines after `first_pipeline`.
    pub(super) fn new(src: &'a str, first_pipeline: usize) -> Self {
        Walker {
            src,
            script: Script::default(),
            next_pipeline: first_pipeline,
        }
    }

    /// Walks the tree `root`; returns the script and the next free
    /// pipeline number.
    pub(super) fn walk(
        mut self,
        root: Node<'_>,
        substituted: bool,
        depth: usize,
    ) -> (Script, usize) {
        if root.has_error() {
            self.script.broken = Some(describe_error(root, self.src));
        }
        let place = Place {
            pipeline: self.new_pipeline(),
            substituted,
            depth,
        };
        self.statement(root, place);
        (self.script, self.next_pipeline)
    }

    /// The source text of `node`.
    pub(super) fn text(&self, node: Node<'_>) -> &'a str {
        self.src.get(node.byte_range()).unwrap_or_default()
    }

    /// Notes why the line is risky.
    pub(super) fn risk(&mut self, reason: impl Into<String>) {
        self.script.risks.push(reason.into());
    }

    /// A pipeline number not used yet.
    pub(super) fn new_pipeline(&mut self) -> usize {
        self.next_pipeline += 1;
        self.next_pipeline
    }

    /// One level deeper, or `None` (and the line broken) when too deep.
    pub(super) fn deeper(&mut self, place: Place) -> Option<Place> {
        if place.depth >= MAX_DEPTH {
            self.script
                .broken
                .get_or_insert_with(|| "nesting too deep to judge".to_string());
            return None;
        }
        Some(Place {
            depth: place.depth + 1,
            ..place
        })
    }

    /// Walks a statement.
    pub(super) fn statement(&mut self, node: Node<'_>, place: Place) {
        let Some(place) = self.deeper(place) else {
            return;
        };
        match node.kind() {
            "program" | "list" | "compound_statement" | "subshell" | "do_group"
            | "if_statement" | "elif_clause" | "else_clause" | "while_statement"
            | "for_statement" | "case_statement" | "case_item" | "negated_command" => {
                self.sequence(node, place)
            }
            "pipeline" => {
                let id = self.new_pipeline();
                let start = self.script.commands.len();
                self.pipeline(node, place, id, start);
            }
            "command" => self.command(node, &[], place),
            "redirected_statement" => self.redirected(node, place),
            "variable_assignment" | "variable_assignments" => self.assignments_only(node, place),
            "declaration_command" | "unset_command" => self.declaration(node, place),
            "test_command" => {
                let double = node.child(0).is_some_and(|c| c.kind() == "[[");
                self.test(node, place, double);
            }
            "function_definition" => {
                self.risk("a function definition: the policy does not follow calls into it");
                self.sequence(node, place);
            }
            "c_style_for_statement" => {
                self.risk(ARITHMETIC);
                self.sequence(node, place);
            }
            "comment" => {}
            // Already described as why the line is broken.
            "ERROR" => self.sequence(node, place),
            kind => {
                self.risk(format!("`{kind}` is not understood"));
                self.sequence(node, place);
            }
        }
    }

    /// The named children of a compound node: statements are walked, each
    /// in a pipeline of its own, anything else read as a loose word.
    /// Nested `list`s (`a && b && c` nests to the left, as deep as the
    /// line is long) are flattened without recursing.
    pub(super) fn sequence(&mut self, node: Node<'_>, place: Place) {
        if node.child(0).is_some_and(|c| c.kind() == "((") {
            self.risk(ARITHMETIC);
        }
        let mut pending = named_children(node);
        pending.reverse();
        while let Some(child) = pending.pop() {
            if child.kind() == "list" {
                pending.extend(named_children(child).into_iter().rev());
            } else if STATEMENTS.contains(&child.kind()) || child.is_error() {
                let own = Place {
                    pipeline: self.new_pipeline(),
                    ..place
                };
                self.statement(child, own);
            } else {
                self.loose_word(child, place);
            }
        }
    }

    /// The members of a pipeline, all in pipeline `id`; then what each
    /// `echo`, `printf` or `cat <<EOF` writes into the next (from the
    /// commands at `start` on).
    fn pipeline(&mut self, node: Node<'_>, place: Place, id: usize, start: usize) {
        let member = Place {
            pipeline: id,
            ..place
        };
        for child in named_children(node) {
            if STATEMENTS.contains(&child.kind()) || child.is_error() {
                self.statement(child, member);
            } else {
                self.loose_word(child, member);
            }
        }
        let members: Vec<usize> = (start..self.script.commands.len())
            .filter(|&i| {
                let c = &self.script.commands[i];
                c.pipeline == id && c.substituted == place.substituted
            })
            .collect();
        for pair in members.windows(2) {
            let output = known_output(&self.script.commands[pair[0]]);
            if let Some(output) = output {
                self.script.commands[pair[1]].piped.push(output);
            }
        }
    }

    /// A simple command, with the redirections of the statement around it.
    fn command(&mut self, node: Node<'_>, outer_redirects: &[Node<'_>], place: Place) {
        let mut command = SimpleCommand::at(place);
        let mut deferred = Vec::new();
        // Whether each word holds an expansion this shell makes.
        let mut expanded: Vec<bool> = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => {
                    let assignment = self.assignment(child, place);
                    command.assignments.push(assignment);
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    self.redirect(child, &mut command, &mut deferred, place)
                }
                "comment" => {}
                _ if child.is_named() && (child.kind() == "command_name" || is_word(child)) => {
                    let word = self.word(child, place);
                    command.push_word(word, child.byte_range());
                    expanded.push(expands(child));
                }
                kind if child.is_named() => {
                    self.risk(format!("`{kind}` inside a command is not understood"));
                    self.sequence(child, place);
                }
                _ => {
                    let token = self.text(child);
                    self.risk(format!("`{token}` is not understood"));
                }
            }
        }
        let runs_code = command.words.iter().position(|word| {
            let name = word.rsplit('/').next().unwrap_or_default();
            crate::approval::wrappers::SHELLS.contains(&name) || matches!(name, "eval" | "watch")
        });
        if let Some(at) = runs_code {
            if expanded.iter().skip(at + 1).any(|e| *e) {
                // `bash -c 'ls '$X`: X's value becomes code.
                self.risk(EXPANDED_CODE);
            }
        }
        for redirect in outer_redirects {
            self.redirect(*redirect, &mut command, &mut deferred, place);
        }
        let index = self.script.commands.len();
        self.script.commands.push(command);
        self.run_deferred(deferred, place, index);
    }

    /// What follows a here-document's delimiter on its line (`cat <<EOF |
    /// sh`, `cat <<EOF && ls`), walked once the command is recorded.
    fn run_deferred(&mut self, deferred: Vec<(Node<'_>, bool)>, place: Place, index: usize) {
        for (node, same_pipeline) in deferred {
            if same_pipeline && node.kind() == "pipeline" {
                self.pipeline(node, place, place.pipeline, index);
            } else {
                let own = Place {
                    pipeline: self.new_pipeline(),
                    ..place
                };
                self.statement(node, own);
            }
        }
    }

    /// `BODY > file`, `BODY <<EOF`: a command gets the redirections; a
    /// pipeline's last command gets them; any other body gets a command
    /// of its own that holds only them.
    fn redirected(&mut self, node: Node<'_>, place: Place) {
        let body = node.child_by_field_name("body");
        let mut cursor = node.walk();
        let redirects: Vec<Node<'_>> = node
            .children(&mut cursor)
            .filter(|c| c.kind().ends_with("_redirect"))
            .collect();
        match body {
            Some(body) if body.kind() == "command" => {
                let Some(place) = self.deeper(place) else {
                    return;
                };
                self.command(body, &redirects, place);
            }
            body => {
                let start = self.script.commands.len();
                if let Some(body) = body {
                    self.statement(body, place);
                }
                let mut holder = SimpleCommand::at(place);
                let mut deferred = Vec::new();
                for redirect in redirects {
                    self.redirect(redirect, &mut holder, &mut deferred, place);
                }
                self.script.other_words.append(&mut holder.words);
                holder.spans.clear();
                let last = (start..self.script.commands.len())
                    .rev()
                    .find(|&i| self.script.commands[i].substituted == place.substituted)
                    .filter(|_| body.is_some_and(|b| b.kind() == "pipeline"));
                let index = match last {
                    Some(i) => {
                        let target = &mut self.script.commands[i];
                        target.writes.append(&mut holder.writes);
                        target.reads.append(&mut holder.reads);
                        target.stdin_scripts.append(&mut holder.stdin_scripts);
                        i
                    }
                    None => {
                        self.script.commands.push(holder);
                        self.script.commands.len() - 1
                    }
                };
                self.run_deferred(deferred, place, index);
            }
        }
    }

    /// Standalone assignments: `a=1`, `a=1 b=2`.
    fn assignments_only(&mut self, node: Node<'_>, place: Place) {
        let mut command = SimpleCommand::at(place);
        let assignments = if node.kind() == "variable_assignment" {
            vec![node]
        } else {
            named_children(node)
        };
        for assignment in assignments {
            if assignment.kind() == "variable_assignment" {
                let text = self.assignment(assignment, place);
                command.assignments.push(text);
            } else {
                self.risk(format!("`{}` is not understood", assignment.kind()));
                self.sequence(assignment, place);
            }
        }
        self.script.commands.push(command);
    }

    /// `NAME=value` (or `NAME+=value`), quotes removed from the value.
    pub(super) fn assignment(&mut self, node: Node<'_>, place: Place) -> String {
        let mut out = String::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "variable_name" => out.push_str(self.text(child)),
                "=" | "+=" => out.push_str(child.kind()),
                "subscript" | "array" => {
                    self.risk(ARITHMETIC);
                    out.push_str(self.text(child));
                    self.sequence(child, place);
                }
                _ if child.is_named() => {
                    let value = self.word(child, place);
                    out.push_str(&value);
                }
                _ => {
                    let token = self.text(child);
                    self.risk(format!("`{token}` in an assignment is not understood"));
                }
            }
        }
        out
    }

    /// `export A=1`, `declare -x B`, `unset C`: a command named by its
    /// keyword.
    fn declaration(&mut self, node: Node<'_>, place: Place) {
        let mut command = SimpleCommand::at(place);
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            let word = if !child.is_named() {
                child.kind().to_string()
            } else if child.kind() == "variable_assignment" {
                self.assignment(child, place)
            } else {
                self.word(child, place)
            };
            command.push_word(word, child.byte_range());
        }
        self.script.commands.push(command);
    }

    /// `[ ... ]` and `[[ ... ]]`: operands are read as loose words;
    /// arithmetic operators make the line risky, and so does `>` or `<`
    /// inside `[ ]`, which is a redirection there.
    fn test(&mut self, node: Node<'_>, place: Place, double: bool) {
        let Some(place) = self.deeper(place) else {
            return;
        };
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "binary_expression"
                | "unary_expression"
                | "parenthesized_expression"
                | "negated_expression" => self.test(child, place, double),
                "test_operator" => {
                    let operator = self.text(child);
                    let arithmetic =
                        matches!(operator, "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge");
                    if (double && arithmetic) || operator == "-v" {
                        self.risk(ARITHMETIC);
                    }
                }
                ">" | "<" | ">>" if !double && !child.is_named() => {
                    self.risk("a `>` or `<` inside `[ ]` is a redirection");
                }
                "redirected_statement" | "command" => self.statement(child, place),
                _ if child.is_named() => self.loose_word(child, place),
                _ => {}
            }
        }
    }

    /// A word outside any command: read for its substitutions and kept.
    pub(super) fn loose_word(&mut self, node: Node<'_>, place: Place) {
        let word = self.word(node, place);
        self.script.other_words.push(word);
    }
}

impl SimpleCommand {
    fn at(place: Place) -> Self {
        SimpleCommand {
            pipeline: place.pipeline,
            substituted: place.substituted,
            ..SimpleCommand::default()
        }
    }

    pub(super) fn push_word(&mut self, word: String, span: std::ops::Range<usize>) {
        self.words.push(word);
        self.spans.push(span);
    }
}

/// What `command` writes to its standard output, when the line says:
/// `echo`'s and `printf`'s arguments, `cat`'s here-document.
fn known_output(command: &SimpleCommand) -> Option<String> {
    let (first, args) = command.words.split_first()?;
    match command_name(first) {
        "echo" => Some(
            args.iter()
                .filter(|a| !matches!(a.as_str(), "-n" | "-e" | "-E"))
                .cloned()
                .collect::<Vec<_>>()
                .join(" "),
        ),
        "printf" => Some(args.join(" ")),
        "cat" if args.is_empty() && !command.stdin_scripts.is_empty() => {
            Some(command.stdin_scripts.join("\n"))
        }
        _ => None,
    }
}

const EXPANDED_CODE: &str = "a word this shell expands (a variable, a substitution) is given to a \
     program that runs its arguments as code (`bash -c`, `eval`, `watch`): its value could be code";

/// Whether the word `node` holds an expansion the shell reading it makes
/// (`$X`, `${X}`, `$(...)`, `` `...` ``, `$((...))`), outside single
/// quotes.
fn expands(node: Node<'_>) -> bool {
    match node.kind() {
        "simple_expansion"
        | "expansion"
        | "command_substitution"
        | "process_substitution"
        | "arithmetic_expansion" => true,
        "raw_string" | "ansi_c_string" => false,
        _ => named_children(node).into_iter().any(expands),
    }
}

/// Whether `node` is one of the word kinds [`Walker::word`] reads.
pub(super) fn is_word(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "word"
            | "number"
            | "raw_string"
            | "string"
            | "concatenation"
            | "simple_expansion"
            | "expansion"
            | "command_substitution"
            | "process_substitution"
            | "arithmetic_expansion"
            | "ansi_c_string"
            | "translated_string"
            | "brace_expression"
            | "extglob_pattern"
            | "regex"
            | "array"
    )
}

/// The named children of `node`, in order.
pub(super) fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}
