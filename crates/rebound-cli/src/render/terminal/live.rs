//! The bottom of the terminal: permanent lines are printed above a small
//! live region (the running step's last output lines, or what the agent is
//! doing), which is redrawn in place.

use std::collections::VecDeque;

use console::{style, Term};

/// Output lines kept under a running step.
pub const TAIL_LINES: usize = 5;

/// Stdout, with a live region at the bottom.
pub struct Live {
    term: Term,
    /// Lines of the live region on screen now.
    drawn: usize,
    /// The running step's last output lines.
    tail: VecDeque<String>,
    /// What the agent is doing, when no step runs (`planning`).
    status: Option<String>,
    /// The end of the text the model is generating now, on one line.
    thinking: String,
}

/// Characters of a model's text kept for the live region.
const THINKING_CHARS: usize = 400;

impl Live {
    /// The live region of stdout.
    pub fn stdout() -> Self {
        Live {
            term: Term::stdout(),
            drawn: 0,
            tail: VecDeque::new(),
            status: None,
            thinking: String::new(),
        }
    }

    /// The terminal's width, at least 40.
    pub fn width(&self) -> usize {
        usize::from(self.term.size().1).max(40)
    }

    /// Prints a permanent line above the live region.
    pub fn line(&mut self, text: impl AsRef<str>) {
        self.erase();
        let _ = self.term.write_line(text.as_ref());
        self.draw();
    }

    /// Shows what the agent is doing (`None`: nothing to show).
    pub fn set_status(&mut self, status: Option<String>) {
        self.erase();
        self.status = status;
        self.thinking.clear();
        self.draw();
    }

    /// Adds a piece of the text a model is generating in the call `call`:
    /// shown after the status (when there is none, one made from the
    /// call: `writing the edit`), on one line, its end kept.
    pub fn push_thinking(&mut self, call: &str, text: &str) {
        self.erase();
        if self.status.is_none() {
            let doing = if call.starts_with("edit") {
                "writing the edit"
            } else {
                "thinking"
            };
            self.status = Some(doing.to_string());
        }
        self.thinking
            .push_str(&printable(&text.replace(['\n', '\r'], " ")));
        let count = self.thinking.chars().count();
        if count > THINKING_CHARS {
            self.thinking = self.thinking.chars().skip(count - THINKING_CHARS).collect();
        }
        self.draw();
    }

    /// Adds a line of the running step's output (blank lines are skipped).
    pub fn push_output(&mut self, line: &str) {
        let line = printable(line);
        if line.trim().is_empty() {
            return;
        }
        self.erase();
        if self.tail.len() == TAIL_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
        self.draw();
    }

    /// Removes the live region and returns the output lines it held.
    pub fn take_tail(&mut self) -> Vec<String> {
        self.erase();
        let tail = self.tail.drain(..).collect();
        self.draw();
        tail
    }

    /// Empties the live region.
    pub fn clear(&mut self) {
        self.erase();
        self.tail.clear();
        self.status = None;
        self.thinking.clear();
    }

    fn erase(&mut self) {
        if self.drawn > 0 {
            let _ = self.term.clear_last_lines(self.drawn);
            self.drawn = 0;
        }
    }

    fn draw(&mut self) {
        let width = self.width().saturating_sub(6);
        let mut lines: Vec<String> = self
            .tail
            .iter()
            .map(|line| {
                let line = console::truncate_str(line, width, "…");
                format!("  {} {}", style("│").dim(), style(line).dim())
            })
            .collect();
        if let Some(status) = &self.status {
            let mut line = format!("  {}", style(format!("{status}…")).dim().italic());
            let room = width.saturating_sub(status.chars().count() + 2);
            if !self.thinking.is_empty() && room > 8 {
                let count = self.thinking.chars().count();
                let end: String = self
                    .thinking
                    .chars()
                    .skip(count.saturating_sub(room))
                    .collect();
                line.push_str(&format!(" {}", style(end).dim()));
            }
            lines.push(line);
        }
        for line in &lines {
            let _ = self.term.write_line(line);
        }
        self.drawn = lines.len();
    }
}

/// A command's output line as it may be redrawn: what the last carriage
/// return left visible, without color codes or other control characters,
/// tabs expanded.
pub fn printable(line: &str) -> String {
    let visible = line
        .split('\r')
        .rfind(|part| !part.trim().is_empty())
        .unwrap_or_default();
    console::strip_ansi_codes(visible)
        .replace('\t', "    ")
        .chars()
        .filter(|c| !c.is_control())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn redrawn_lines_hold_no_control_characters() {
        assert_eq!(printable("10%\r55%\r"), "55%");
        assert_eq!(printable("\u{1b}[31mred\u{1b}[0m\tx"), "red    x");
        assert_eq!(printable("a\u{7}b"), "ab");
    }
}
