//! What a run's events mean to a person: the engine's events and the custom
//! payloads of the agent and its tools, read into one typed view that the
//! terminal and plain renderers both draw.

use std::time::Duration;

use rebound_agent::checks::{CheckResult, CheckWhen};
use rebound_agent::events::{AgentEvent, StepPhase};
use rebound_agent::{PlanStep, Review};
use rebound_graph::Event;
use rebound_tools::approval::ApprovalRequest;
use serde_json::Value;

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
    /// The planner made a plan.
    Plan {
        /// The steps.
        steps: Vec<PlanStep>,
        /// Whether it repairs a failed step.
        repair: bool,
    },
    /// A step started.
    StepStarted {
        /// Its index in the plan.
        index: usize,
        /// The step.
        step: PlanStep,
    },
    /// A step finished.
    StepFinished {
        /// Its index.
        index: usize,
        /// Whether it succeeded.
        success: bool,
        /// The tail of its output.
        output: String,
    },
    /// The reviewer's verdict.
    Review(Review),
    /// A failed step goes back to the planner.
    Repair {
        /// The failed step.
        step: PlanStep,
        /// Its error.
        error: String,
    },
    /// A git operation (reflect workflow).
    Git {
        /// commit, rollback or init.
        action: String,
        /// The commit.
        commit: String,
        /// Its message.
        message: String,
    },
    /// The run's checks ran.
    Checks {
        /// Why they ran.
        when: CheckWhen,
        /// One result per check.
        results: Vec<CheckResult>,
    },
    /// The planner proposed a check for a run that had none.
    CheckProposed {
        /// The command.
        command: String,
        /// Whether it became the run's check.
        adopted: bool,
        /// Why.
        reason: String,
    },
    /// A finish was overruled by a failing check.
    FinishOverruled {
        /// Who said finish.
        by: String,
        /// Why it said so.
        reason: String,
        /// The failing checks.
        failing: Vec<CheckResult>,
    },
    /// A supervisor agent spoke.
    Agent {
        /// Its name.
        name: String,
        /// What it said.
        message: String,
    },
    /// A piece of the text a model is generating.
    Thinking {
        /// The call (`planner`, `edit1:candidate`).
        call: String,
        /// The new text.
        text: String,
    },
    /// A tool call started, finished or was replayed from the journal.
    ToolCall {
        /// The tool.
        name: String,
        /// Its command line, for command tools.
        command: Option<String>,
        /// started, finished or replayed.
        phase: String,
        /// When finished: whether it succeeded.
        success: Option<bool>,
        /// When finished: the exit code, for commands.
        exit_code: Option<i64>,
        /// When finished: how long it took.
        duration_ms: Option<u64>,
        /// When finished: the full log, for commands.
        log_path: Option<String>,
    },
    /// A line a command printed.
    Output {
        /// stdout or stderr.
        stream: String,
        /// The line.
        line: String,
    },
    /// Something about an approval: asked, answered, forbidden, preapproved.
    Approval {
        /// The phase.
        phase: String,
        /// The command.
        command: String,
        /// The reason or the decision.
        detail: Option<String>,
    },
    /// A model call finished.
    ModelCall {
        /// The model.
        model: String,
        /// Input tokens.
        input_tokens: u64,
        /// Output tokens.
        output_tokens: u64,
        /// Latency in milliseconds.
        latency_ms: f64,
    },
    /// The run stopped for a human.
    Interrupted {
        /// The approval asked for, if the interrupt is one.
        request: Option<ApprovalRequest>,
    },
    /// The run ended.
    RunFinished,
    /// An event nobody here knows.
    Other,
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

impl Progress {
    /// Reads `event`. Every text in it is [`sanitized`] on the way: what
    /// a display shows cannot act on the terminal.
    pub fn from_event(event: &Event) -> Progress {
        match event {
            Event::RunStarted { .. } => Progress::RunStarted,
            Event::NodeStarted { node, .. } => Progress::NodeStarted {
                node: shown(node.as_ref()),
            },
            Event::NodeFinished { .. } => Progress::NodeFinished,
            Event::RouteChosen {
                from, to, reason, ..
            } => Progress::Route {
                from: shown(from.as_ref()),
                to: to.iter().map(|node| shown(node.as_ref())).collect(),
                reason: reason.as_ref().map(|r| shown(r.as_ref())),
            },
            Event::Retry {
                node,
                attempt,
                delay,
                error,
                ..
            } => Progress::Retry {
                node: shown(node.as_ref()),
                attempt: *attempt,
                delay: *delay,
                error: shown(error),
            },
            Event::Error { node, message, .. } => Progress::Error {
                node: node.as_ref().map(|n| shown(n.as_ref())),
                message: shown(message),
            },
            Event::Custom { payload, .. } => custom(&sanitized(payload)),
            Event::Interrupted { payload, .. } => Progress::Interrupted {
                request: ApprovalRequest::from_payload(&sanitized(payload)),
            },
            Event::RunFinished { .. } => Progress::RunFinished,
            // The CLI does not ask for these stream modes.
            Event::Values { .. } | Event::Updates { .. } => Progress::Other,
            // The agent's graphs have no subgraphs.
            Event::Subgraph { .. } => Progress::Other,
        }
    }
}

/// Reads a custom payload: the agent's events, then the tools' and the
/// model's.
fn custom(payload: &Value) -> Progress {
    if let Some(event) = AgentEvent::from_payload(payload) {
        return match event {
            AgentEvent::Plan { steps, repair, .. } => Progress::Plan { steps, repair },
            AgentEvent::Step {
                index,
                step,
                phase: StepPhase::Started,
                ..
            } => Progress::StepStarted { index, step },
            AgentEvent::Step {
                index,
                success,
                output,
                ..
            } => Progress::StepFinished {
                index,
                success: success.unwrap_or(false),
                output: output.unwrap_or_default(),
            },
            AgentEvent::Review(review) => Progress::Review(review),
            AgentEvent::Repair { step, error } => Progress::Repair { step, error },
            AgentEvent::Git {
                action,
                commit,
                message,
            } => Progress::Git {
                action,
                commit,
                message,
            },
            AgentEvent::Checks { when, results } => Progress::Checks { when, results },
            AgentEvent::CheckProposed {
                command,
                adopted,
                reason,
            } => Progress::CheckProposed {
                command,
                adopted,
                reason,
            },
            AgentEvent::FinishOverruled {
                by,
                reason,
                failing,
            } => Progress::FinishOverruled {
                by,
                reason,
                failing,
            },
            AgentEvent::Agent { name, message } => Progress::Agent { name, message },
            AgentEvent::Thinking { call, text } => Progress::Thinking { call, text },
        };
    }
    if let Some(call) = payload.get("tool_call") {
        let details = call.get("details");
        let detail = |key: &str| details.and_then(|d| d.get(key));
        return Progress::ToolCall {
            name: text(call, "name").unwrap_or_default(),
            command: text(call, "command"),
            phase: text(call, "phase").unwrap_or_default(),
            success: call.get("success").and_then(Value::as_bool),
            exit_code: detail("exit_code").and_then(Value::as_i64),
            duration_ms: detail("duration_ms").and_then(Value::as_u64),
            log_path: detail("log_path")
                .and_then(Value::as_str)
                .map(str::to_string),
        };
    }
    if let Some(output) = payload.get("tool_output") {
        return Progress::Output {
            stream: text(output, "stream").unwrap_or_default(),
            line: text(output, "line").unwrap_or_default(),
        };
    }
    if let Some(approval) = payload.get("approval") {
        return Progress::Approval {
            phase: text(approval, "phase").unwrap_or_default(),
            command: text(approval, "command").unwrap_or_default(),
            detail: text(approval, "reason").or_else(|| text(approval, "decision")),
        };
    }
    if let Some(call) = payload.get("llm_call") {
        let number = |key: &str| call.get(key).and_then(Value::as_u64).unwrap_or(0);
        return Progress::ModelCall {
            model: text(call, "model").unwrap_or_default(),
            input_tokens: number("input_tokens"),
            output_tokens: number("output_tokens"),
            latency_ms: call
                .get("latency_ms")
                .and_then(Value::as_f64)
                .unwrap_or(0.0),
        };
    }
    Progress::Other
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

/// `text` [`sanitize`](super::sanitize)d and cut to `max` characters,
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

/// A duration for people: `850ms`, `12.3s`, `4m05s`.
pub fn human_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        format!("{millis}ms")
    } else if millis < 60_000 {
        format!("{:.1}s", duration.as_secs_f64())
    } else {
        let secs = duration.as_secs();
        format!("{}m{:02}s", secs / 60, secs % 60)
    }
}

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
        assert_eq!(human_duration(Duration::from_millis(850)), "850ms");
        assert_eq!(human_duration(Duration::from_millis(12_340)), "12.3s");
        assert_eq!(human_duration(Duration::from_secs(245)), "4m05s");
        assert_eq!(first_line("\n  hello\nworld", 10), "hello");
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(step_label(1, 3), "step 2/3");
        assert_eq!(step_label(4, 3), "step 5");
        assert_eq!(targets(&["__end__".to_string()]), "END");
    }
}
