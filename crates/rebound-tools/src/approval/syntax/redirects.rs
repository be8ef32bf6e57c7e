//! Redirections: what a command writes and reads, here-documents and
//! here-strings (its standard input), and what follows a here-document's
//! delimiter on its line.

use tree_sitter::Node;

use super::text::unescape_heredoc;
use super::walk::{named_children, Place, Walker, STATEMENTS};
use super::SimpleCommand;

impl Walker<'_> {
    /// A redirection of `command`: writes, reads, here-documents and
    /// here-strings; statements after a here-document's delimiter go to
    /// `deferred` (with whether they continue the pipeline).
    pub(super) fn redirect<'t>(
        &mut self,
        node: Node<'t>,
        command: &mut SimpleCommand,
        deferred: &mut Vec<(Node<'t>, bool)>,
        place: Place,
    ) {
        match node.kind() {
            "file_redirect" => self.file_redirect(node, command, place),
            "heredoc_redirect" => self.heredoc(node, command, deferred, place),
            "herestring_redirect" => {
                for child in named_children(node) {
                    let input = self.word(child, place);
                    command.stdin_scripts.push(input);
                }
            }
            kind => {
                self.risk(format!("`{kind}` is not understood"));
                self.sequence(node, place);
            }
        }
    }

    fn file_redirect(&mut self, node: Node<'_>, command: &mut SimpleCommand, place: Place) {
        let mut operator = None;
        let mut targets = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() {
                operator.get_or_insert(child.kind());
            } else if child.kind() != "file_descriptor" {
                targets.push(child);
            }
        }
        let mut targets = targets.into_iter();
        let target = targets.next().map(|t| self.word(t, place));
        // `cat > out file`: the grammar hangs `file` on the redirection.
        for extra in targets {
            let word = self.word(extra, place);
            command.push_word(word, extra.byte_range());
        }
        let is_descriptor =
            |t: &str| t == "-" || (!t.is_empty() && t.chars().all(|c| c.is_ascii_digit()));
        match (operator, target) {
            (Some(">" | ">>" | ">|" | "&>" | "&>>"), Some(target)) => command.writes.push(target),
            (Some("<"), Some(target)) => command.reads.push(target),
            (Some(">&" | "<&"), Some(target)) if is_descriptor(&target) => {}
            (Some(">&"), Some(target)) => command.writes.push(target),
            (Some("<&"), Some(target)) => command.reads.push(target),
            (Some(">&-" | "<&-"), None) => {}
            _ => {
                let shown = super::shorten(self.text(node), 30);
                self.risk(format!("the redirection `{shown}` is not understood"));
            }
        }
    }

    fn heredoc<'t>(
        &mut self,
        node: Node<'t>,
        command: &mut SimpleCommand,
        deferred: &mut Vec<(Node<'t>, bool)>,
        place: Place,
    ) {
        let mut quoted = false;
        let mut strip_tabs = false;
        let mut body = None;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "<<-" => strip_tabs = true,
                "heredoc_start" => quoted = self.text(child).contains(['\'', '"', '\\']),
                "heredoc_body" => body = Some(child),
                "heredoc_end" => {}
                "pipeline" => deferred.push((child, true)),
                "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                    self.redirect(child, command, deferred, place)
                }
                kind if STATEMENTS.contains(&kind) => deferred.push((child, false)),
                _ if !child.is_named() => {}
                kind => {
                    self.risk(format!("`{kind}` after a here-document is not understood"));
                    self.sequence(child, place);
                }
            }
        }
        let Some(body) = body else {
            return;
        };
        let mut text = self.text(body).to_string();
        if strip_tabs {
            text = text
                .split_inclusive('\n')
                .map(|line| line.trim_start_matches('\t'))
                .collect();
        }
        if !quoted {
            if text.contains(['$', '`']) {
                self.risk(
                    "a here-document whose delimiter is not quoted expands `$` and backticks in \
                     its body",
                );
            }
            for child in named_children(body) {
                if child.kind() != "heredoc_content" {
                    self.word(child, place);
                }
            }
            // The grammar does not see backticks in a body: find them.
            self.backticks_in(&text, place);
            text = unescape_heredoc(&text);
        }
        command.stdin_scripts.push(text);
    }
}
