//! Showing a run: every renderer consumes the run's one event stream.
//!
//! - [`terminal`]: live progress on a terminal, in color;
//! - [`plain`]: one line per event, when stdout is not a terminal;
//! - [`json`]: the events as JSON lines, then a summary line (`--json`).

pub mod json;
pub mod plain;
pub mod progress;
mod sanitize;
pub mod terminal;

pub use sanitize::{one_line, sanitize, shown};

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use rebound_protocol::Event;
use rebound_tools::approval::{ApprovalAnswer, ApprovalRequest};
pub use rebound_workspace::drive::Ending;

use crate::exit::Exit;
use crate::workflow::WorkflowKind;

/// What a run is, shown before its events.
#[derive(Debug, Clone)]
pub struct RunInfo {
    /// The thread.
    pub thread_id: String,
    /// The workflow.
    pub workflow: WorkflowKind,
    /// The model string.
    pub model: String,
    /// The goal.
    pub goal: String,
    /// The workspace.
    pub workspace: PathBuf,
    /// Whether this continues an earlier run.
    pub resumed: bool,
    /// The length of the plan the run starts with (a resumed run's).
    pub plan_len: usize,
}

/// The end of a run, for its summary.
#[derive(Debug, Clone)]
pub struct RunEnd {
    /// The thread.
    pub thread_id: String,
    /// The workflow.
    pub workflow: WorkflowKind,
    /// How it ended.
    pub ending: Ending,
    /// Wall time, approvals included.
    pub elapsed: Duration,
    /// The exit code it leads to.
    pub exit: Exit,
    /// The command that resumes it: `rebound resume <thread>` with the
    /// workspace when it is not the current directory.
    pub resume: String,
}

impl RunEnd {
    /// The approval requests among the pending interrupts.
    pub fn approvals(&self) -> Vec<ApprovalRequest> {
        match &self.ending {
            Ending::Interrupted(interrupts) => interrupts
                .iter()
                .filter_map(|i| ApprovalRequest::from_payload(&i.payload))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Something that shows a run.
pub trait Renderer: Send {
    /// Before the first event.
    fn start(&mut self, info: &RunInfo);
    /// One event of the run, in its wire form.
    fn event(&mut self, event: &Event);
    /// The user answered an approval on the terminal.
    fn answered(&mut self, request: &ApprovalRequest, answer: &ApprovalAnswer);
    /// The run ended.
    fn end(&mut self, end: &RunEnd);
}

/// The renderer for this process's stdout: JSON lines with `--json`, live
/// progress on a terminal, else plain lines.
pub fn for_stdout(json: bool) -> Box<dyn Renderer> {
    if json {
        Box::new(json::JsonRenderer)
    } else if console::Term::stdout().is_term() {
        Box::new(terminal::TerminalRenderer::new())
    } else {
        Box::new(plain::PlainRenderer::default())
    }
}

/// Writes a line to stdout, ignoring a closed pipe (`rebound run | head`).
pub fn out(line: impl std::fmt::Display) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
    let _ = stdout.flush();
}

/// Writes a line of text for people to stdout with every control
/// character in it shown escaped ([`sanitize()`]): for lines that carry
/// goals, commands or reasons and no styling of rebound's own.
pub fn out_text(line: impl AsRef<str>) {
    out(sanitize(line.as_ref()));
}

/// Shows an answer in words.
pub fn answer_text(answer: &ApprovalAnswer) -> String {
    match answer {
        ApprovalAnswer::Approve => "approved".to_string(),
        ApprovalAnswer::ApproveAll => "approved, and every later command of this run".to_string(),
        ApprovalAnswer::Deny { message } if message.is_empty() => "denied".to_string(),
        ApprovalAnswer::Deny { message } => format!("denied: {message}"),
    }
}
