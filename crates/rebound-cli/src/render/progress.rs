//! What a run's events mean to a person: the engine's events and the custom
//! payloads of the agent and its tools, read into one typed view that the
//! terminal and plain renderers both draw.

use std::time::Duration;

use rebound_protocol::agent::{AgentEvent, CheckResult};
use rebound_protocol::{
    Approval, ApprovalEvent, ApprovalRequest, Event, ModelCall, ModelEvent, OutputLine, Payload,
    ToolCall, ToolEvent,
};

use super::sanitize::{sanitized, shown};

/// One event, as the renderers see it.
#[derive(Debug, Clone)]
pub enum Progress {
    /// The run (or a resumed run) started.
    RunStarted,
    /// A node started.
    NodeStarted {
        /// The node.
        node: String,
    },
    /// A node finished.
    NodeFinished,
    /// A router chose where to go, and why.
    Route {
        /// From where.
        from: String,
        /// To where (`__end__` for the end).
        to: Vec<String>,
        /// The router's reason.
        reason: Option<String>,
    },
    /// A node attempt failed and will be retried.
    Retry {
        /// The node.
        node: String,
        /// The failed attempt.
        attempt: u32,
        /// The wait before the next one.
        delay: Duration,
        /// The error.
        error: String,
    },
    /// A node or the engine failed.
    Error {
        /// The node, if any.
        node: Option<String>,
        /// The message.
        message: String,
    },
    /// An event of the agent (plan, step, review, repair, git, checks,
    /// check proposal, overruled finish, a supervisor agent, model text).
    Agent(AgentEvent),
    /// A tool call started, finished or was replayed from the journal.
    ToolCall(ToolCall),
    /// A line a command printed.
    Output(OutputLine),
    /// Something about an approval: asked, answered, forbidden, preapproved.
    Approval(Approval),
    /// A model call finished.
    ModelCall(ModelCall),
    /// The run stopped for a human.
    Interrupted {
        /// The approval asked for, if the interrupt is one.
        request: Option<ApprovalRequest>,
    },
    /// The run ended.
    RunFinished,
    /// An event from a newer version that this one cannot read.
    Unknown {
        /// Its `"event"` tag, when it has one.
        name: Option<String>,
    },
    /// An event the displays do not show (state values, a library user's
    /// own payloads).
    Other,
}

impl Progress {
    /// Reads `event`. Every text in it is [`sanitized`] on the way: what
    /// a display shows cannot act on the terminal.
    pub fn from_event(event: &Event) -> Progress {
        match event.inner() {
            Event::RunStarted { .. } => Progress::RunStarted,
            Event::NodeStarted { node, .. } => Progress::NodeStarted { node: shown(node) },
            Event::NodeFinished { .. } => Progress::NodeFinished,
            Event::RouteChosen {
                from, to, reason, ..
            } => Progress::Route {
                from: shown(from),
                to: to.iter().map(|node| shown(node)).collect(),
                reason: reason.as_deref().map(shown),
            },
            Event::Retry {
                node,
                attempt,
                delay_us,
                error,
                ..
            } => Progress::Retry {
                node: shown(node),
                attempt: *attempt,
                delay: Duration::from_micros(*delay_us),
                error: shown(error),
            },
            Event::Error { node, message, .. } => Progress::Error {
                node: node.as_deref().map(shown),
                message: shown(message),
            },
            Event::Custom { payload, .. } => custom(payload),
            Event::Interrupted { payload, .. } => Progress::Interrupted {
                request: ApprovalRequest::from_payload(&sanitized(payload)),
            },
            Event::RunFinished { .. } => Progress::RunFinished,
            Event::Unknown { name, .. } => Progress::Unknown {
                name: name.as_deref().map(shown),
            },
            // The CLI does not ask for these stream modes; `inner` unwraps
            // a subgraph's events.
            _ => Progress::Other,
        }
    }
}

/// Reads a custom payload, its texts [`sanitized`]: the agent's events,
/// then the tools' and the model's.
fn custom(payload: &Payload) -> Progress {
    let payload = match payload {
        Payload::Other(_) => return Progress::Other,
        typed => Payload::decode(&sanitized(&typed.to_value())),
    };
    match payload {
        Payload::Agent(event) => Progress::Agent(event),
        Payload::Tool(ToolEvent::ToolCall(call)) => Progress::ToolCall(call),
        Payload::Tool(ToolEvent::ToolOutput(line)) => Progress::Output(line),
        Payload::Approval(ApprovalEvent::Approval(approval)) => Progress::Approval(approval),
        Payload::Model(ModelEvent::ModelCall(call)) => Progress::ModelCall(call),
        _ => Progress::Other,
    }
}

/// The checks' results in one line: `` `cmd` passed; `cmd2` failed (exit 1) ``.
pub fn checks_line(results: &[CheckResult]) -> String {
    results
        .iter()
        .map(CheckResult::headline)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The first line of `text`, cut to `max` characters.
pub fn first_line(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or_default();
    cut(line, max)
}

/// `text` [`sanitize`](super::sanitize())d and cut to `max` characters,
/// with an ellipsis when cut.
pub fn cut(text: &str, max: usize) -> String {
    let text = super::sanitize(text);
    if text.chars().count() <= max {
        return text.into_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

pub use rebound_protocol::human_duration;

/// `step 2/3` (or `step 2` when the plan's length is unknown).
pub fn step_label(index: usize, total: usize) -> String {
    if total > index {
        format!("step {}/{total}", index + 1)
    } else {
        format!("step {}", index + 1)
    }
}

/// A node's name for people: `__start__` is `START`, `__end__` is `END`.
pub fn node_name(name: &str) -> &str {
    match name {
        rebound_graph::START => "START",
        rebound_graph::END => "END",
        other => other,
    }
}

/// A route's targets for people.
pub fn targets(to: &[String]) -> String {
    to.iter()
        .map(|t| node_name(t))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A route decision in words: `executor → reviewer: the step succeeded`.
pub fn route_text(from: &str, to: &[String], reason: Option<&str>) -> String {
    let from = node_name(from);
    match reason {
        Some(reason) => format!("{from} → {}: {reason}", targets(to)),
        None => format!("{from} → {}", targets(to)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_read_well() {
        assert_eq!(first_line("\n  hello\nworld", 10), "hello");
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(step_label(1, 3), "step 2/3");
        assert_eq!(step_label(4, 3), "step 5");
        assert_eq!(targets(&["__end__".to_string()]), "END");
    }
}
