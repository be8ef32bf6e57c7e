//! Plain output, for logs and pipes: one line per event, no color, no
//! cursor movement.

use rebound_protocol::agent::{AgentEvent, StepPhase};
use rebound_protocol::{Approval, Event, ToolCall};
use rebound_tools::approval::{ApprovalAnswer, ApprovalRequest};

use super::progress::{checks_line, cut, first_line, human_duration, step_label, Progress};
use super::{answer_text, one_line, out, Ending, Renderer, RunEnd, RunInfo};

/// One line per event.
#[derive(Debug, Default)]
pub struct PlainRenderer {
    plan_len: usize,
}

impl Renderer for PlainRenderer {
    fn start(&mut self, info: &RunInfo) {
        self.plan_len = info.plan_len;
        let verb = if info.resumed { "resuming" } else { "starting" };
        out_safe(format!(
            "rebound: {verb} thread {} ({}, model {}) in {}",
            info.thread_id,
            info.workflow,
            info.model,
            info.workspace.display()
        ));
        out_safe(format!("goal: {}", one_line(&info.goal)));
    }

    fn event(&mut self, event: &Event) {
        if let Some(line) = self.line(event) {
            out_safe(line);
        }
    }

    fn answered(&mut self, request: &ApprovalRequest, answer: &ApprovalAnswer) {
        out_safe(format!(
            "approval: `{}` {}",
            one_line(&request.command),
            answer_text(answer)
        ));
    }

    fn end(&mut self, end: &RunEnd) {
        for line in summary_lines(end) {
            out_safe(line);
        }
    }
}

/// Writes `line` to stdout with any control character left in it shown
/// escaped: plain output has no styling of its own, so nothing in it may
/// act on a terminal.
fn out_safe(line: impl AsRef<str>) {
    out(super::sanitize(line.as_ref()));
}

impl PlainRenderer {
    /// The line for `event`, if it gets one.
    fn line(&mut self, event: &Event) -> Option<String> {
        let Event::Custom { node, step, .. } = event else {
            return Some(match Progress::from_event(event) {
                Progress::Interrupted {
                    request: Some(request),
                    ..
                } => format!(
                    "interrupted: `{}` awaits approval ({})",
                    one_line(&request.command),
                    request.reason
                ),
                _ => one_line(&event.to_string()),
            });
        };
        let prefix = format!("[{step}] {node}:");
        let text = match Progress::from_event(event) {
            Progress::Agent(AgentEvent::Plan { steps, repair, .. }) => {
                self.plan_len = steps.len();
                let steps: Vec<String> = steps
                    .iter()
                    .enumerate()
                    .map(|(i, step)| match step.action() {
                        Some(action) => format!("{}. {} ({action})", i + 1, step.description),
                        None => format!("{}. {}", i + 1, step.description),
                    })
                    .collect();
                let label = if repair { "repair plan" } else { "plan" };
                format!("{label}: {}", steps.join("; "))
            }
            Progress::Agent(AgentEvent::Step {
                index,
                step,
                phase: StepPhase::Started,
                ..
            }) => {
                let command = step.action().map(|a| format!(" {a}")).unwrap_or_default();
                format!(
                    "{} started: {}{command}",
                    step_label(index, self.plan_len),
                    step.description
                )
            }
            Progress::Agent(AgentEvent::Step {
                index,
                success,
                output,
                ..
            }) => {
                let verdict = if success == Some(true) {
                    "succeeded"
                } else {
                    "failed"
                };
                let output = output.unwrap_or_default();
                let tail = output.lines().last().unwrap_or_default().trim().to_string();
                format!(
                    "{} {verdict}: {}",
                    step_label(index, self.plan_len),
                    cut(&tail, 200)
                )
            }
            Progress::Agent(AgentEvent::Review(review)) => {
                let mut text = format!("review: {}: {}", review.verdict, review.reason);
                if !review.fix_suggestions.is_empty() {
                    text.push_str(&format!(" (fix: {})", review.fix_suggestions.join("; ")));
                }
                text
            }
            Progress::Agent(AgentEvent::Repair { step, error }) => format!(
                "repair: step \"{}\" failed: {}",
                step.description,
                first_line(&error, 200)
            ),
            Progress::Agent(AgentEvent::Git {
                action,
                commit,
                message,
            }) => format!("git {action} {commit}: {message}"),
            Progress::Agent(AgentEvent::Agent { name, message }) => format!("{name}: {message}"),
            // Token by token is for a live display; the plain log has the
            // model's answer in the lines that follow it.
            Progress::Agent(AgentEvent::Thinking { .. }) => return None,
            Progress::Agent(AgentEvent::Checks { when, results }) => {
                format!("checks ({when}): {}", checks_line(&results))
            }
            Progress::Agent(AgentEvent::CheckProposed {
                command,
                adopted,
                reason,
            }) => format!(
                "check proposed by the planner: `{}` {}: {}",
                cut(&command, 200),
                if adopted { "adopted" } else { "refused" },
                cut(&reason, 200)
            ),
            Progress::Agent(AgentEvent::FinishOverruled {
                by,
                reason,
                failing,
            }) => format!(
                "finish overruled: the {by} said \"{}\", but {}; back to the planner",
                cut(&reason, 200),
                checks_line(&failing)
            ),
            Progress::ToolCall(call) => tool_call_text(call),
            Progress::Output(output) => format!("{}| {}", output.stream.as_str(), output.line),
            Progress::Approval(approval) => approval_text(approval),
            Progress::ModelCall(call) => format!(
                "model {}: {} tokens in, {} out, {}",
                call.model,
                call.input_tokens,
                call.output_tokens,
                human_duration(std::time::Duration::from_millis(call.duration_ms))
            ),
            _ => return Some(one_line(&event.to_string())),
        };
        Some(format!("{prefix} {}", one_line(&text)))
    }
}

/// A tool call in words: `tool finished: $ make (ok, exit 0, 1.2s)`.
fn tool_call_text(call: ToolCall) -> String {
    let what =
        |name: String, command: Option<String>| command.map(|c| format!("$ {c}")).unwrap_or(name);
    match call {
        ToolCall::Started { name, command } => format!("tool started: {}", what(name, command)),
        ToolCall::Replayed {
            name,
            command,
            success,
        } => format!(
            "tool replayed: {} ({})",
            what(name, command),
            if success { "ok" } else { "failed" }
        ),
        ToolCall::Finished {
            name,
            command,
            success,
            duration_ms,
            outcome,
        } => {
            let mut text = format!("tool finished: {}", what(name, command));
            text.push_str(if success { " (ok" } else { " (failed" });
            let outcome = outcome.unwrap_or_default();
            if let Some(code) = outcome.exit_code {
                text.push_str(&format!(", exit {code}"));
            }
            text.push_str(&format!(
                ", {})",
                human_duration(std::time::Duration::from_millis(duration_ms))
            ));
            if outcome.sandboxed == Some(false) {
                text.push_str(" not sandboxed");
            }
            if let Some(log) = outcome.log_path {
                text.push_str(&format!(" log: {log}"));
            }
            text
        }
        _ => "tool call".to_string(),
    }
}

/// An approval event in words: `approval asked: `git push` (publishes)`.
fn approval_text(approval: Approval) -> String {
    let (phase, command, detail) = match approval {
        Approval::Forbidden {
            command, reason, ..
        } => ("forbidden", command, reason),
        Approval::Asked {
            command, reason, ..
        } => ("asked", command, reason),
        Approval::Answered {
            command, decision, ..
        } => ("answered", command, decision.to_string()),
        Approval::Preapproved {
            command, reason, ..
        } => ("preapproved", command, reason),
        _ => return "approval".to_string(),
    };
    format!("approval {phase}: `{}` ({detail})", one_line(&command))
}

/// The summary's checks, one line each; a finish without any says so.
pub fn check_lines(summary: &rebound_agent::RunSummary) -> Vec<String> {
    if summary.checks.is_empty() && summary.stop_reason.is_finished() {
        return vec![
            "none: nothing verified the finish (give one with --check or `check = [...]` in rebound.toml)"
                .to_string(),
        ];
    }
    let mut lines: Vec<String> = summary.checks.iter().map(check_text).collect();
    if !summary.tests_changed.is_empty() {
        let files: Vec<String> = summary
            .tests_changed
            .iter()
            .take(10)
            .map(|f| one_line(f))
            .collect();
        lines.push(format!(
            "not evidence: the run changed files the checks read ({})",
            files.join(", ")
        ));
    }
    for program in summary.not_covered.iter().take(10) {
        lines.push(format!(
            "not verified: what the goal says `{}` does (no check runs it)",
            one_line(program)
        ));
    }
    lines
}

/// A check of the summary: `` `cmd` passed (from --check) ``.
fn check_text(check: &rebound_agent::CheckReport) -> String {
    let status = match check.passed {
        Some(true) => "passed",
        Some(false) => "failed",
        None => "never ran",
    };
    format!("`{}` {status} ({})", one_line(&check.command), check.source)
}

/// The closing lines: how the run ended and what to do next.
pub fn summary_lines(end: &RunEnd) -> Vec<String> {
    let mut lines = Vec::new();
    match &end.ending {
        Ending::Completed(summary) => {
            lines.push(format!(
                "summary: {} | steps: {} succeeded, {} failed | repairs: {} | review rounds: {} | tokens: {} | time: {} (work {}) | thread: {}",
                summary.stop_reason,
                summary.steps_succeeded,
                summary.steps_failed,
                summary.repairs,
                summary.iters,
                summary.tokens,
                human_duration(end.elapsed),
                human_duration(std::time::Duration::from_millis(summary.work_ms)),
                end.thread_id
            ));
            for check in check_lines(summary) {
                lines.push(format!("check: {check}"));
            }
            lines.push(format!("result: {}", one_line(&summary.summary)));
        }
        Ending::Interrupted(_) => {
            for request in end.approvals() {
                lines.push(format!(
                    "awaiting approval: `{}` in {} ({})",
                    one_line(&request.command),
                    request.cwd.display(),
                    request.reason
                ));
            }
            lines.push(format!(
                "interrupted: thread {} awaits approval; continue with `{} --approve` or `{} --deny \"<message>\"`",
                end.thread_id, end.resume, end.resume
            ));
        }
        Ending::Cancelled => lines.push(format!(
            "cancelled: thread {} is saved at its last checkpoint; continue with `{}`",
            end.thread_id, end.resume
        )),
        Ending::Failed(message) => lines.push(format!(
            "failed: {}; thread {} is saved at its last good checkpoint; retry with `{}`",
            one_line(message),
            end.thread_id,
            end.resume
        )),
    }
    lines
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use rebound_graph::Event;
    use serde_json::json;

    use super::PlainRenderer;

    fn custom(payload: serde_json::Value) -> Event {
        Event::Custom {
            node: Arc::from("executor"),
            step: 3,
            payload,
        }
    }

    fn line(plain: &mut PlainRenderer, event: Event) -> String {
        plain.line(&rebound_protocol::Event::from(&event)).unwrap()
    }

    #[test]
    fn a_finish_says_what_its_checks_did_not_verify() {
        let summary = rebound_agent::RunSummary {
            stop_reason: rebound_agent::StopReason::FinishedUnverified,
            steps_succeeded: 1,
            steps_failed: 0,
            repairs: 0,
            iters: 1,
            tokens: 0,
            work_ms: 0,
            summary: String::new(),
            checks: vec![rebound_agent::CheckReport {
                command: "make".to_string(),
                source: rebound_agent::checks::CheckSource::Detected {
                    reason: "Makefile".to_string(),
                },
                passed: Some(true),
            }],
            tests_changed: Vec::new(),
            not_covered: vec!["./stats".to_string()],
        };
        let lines = super::check_lines(&summary);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(
            lines[1],
            "not verified: what the goal says `./stats` does (no check runs it)"
        );
    }

    #[test]
    fn each_event_is_one_readable_line() {
        let mut plain = PlainRenderer::default();
        assert_eq!(
            line(
                &mut plain,
                custom(json!({"plan": {"steps": [
                    {"description": "Test", "command": "make test"},
                    {"description": "Think"}
                ], "repair": true}}))
            ),
            "[3] executor: repair plan: 1. Test ($ make test); 2. Think"
        );
        assert_eq!(
            line(
                &mut plain,
                custom(
                    json!({"step": {"index": 0, "step": {"description": "Test", "command": "make test"},
                    "phase": "finished", "success": false, "output": "a\nexit code 2"}})
                )
            ),
            "[3] executor: step 1/2 failed: exit code 2"
        );
        assert_eq!(
            line(
                &mut plain,
                Event::Retry {
                    node: Arc::from("planner"),
                    step: 2,
                    attempt: 1,
                    delay: Duration::from_millis(500),
                    error: "HTTP 503".into(),
                }
            ),
            "[2] planner attempt 1 failed: HTTP 503; retrying in 500.0ms"
        );
        assert_eq!(
            line(
                &mut plain,
                custom(
                    json!({"review": {"verdict": "replan", "reason": "wrong file",
                    "fix_suggestions": ["edit calc.py"]}})
                )
            ),
            "[3] executor: review: replan: wrong file (fix: edit calc.py)"
        );
        assert_eq!(
            line(
                &mut plain,
                custom(
                    json!({"git": {"action": "commit", "commit": "abc123", "message": "step 1"}})
                )
            ),
            "[3] executor: git commit abc123: step 1"
        );
        assert_eq!(
            line(
                &mut plain,
                custom(json!({"tool_output": {"stream": "stdout", "line": "ok"}}))
            ),
            "[3] executor: stdout| ok"
        );
        assert_eq!(
            line(
                &mut plain,
                custom(json!({"tool_call": {"phase": "finished", "name": "shell",
                    "command": "make", "success": true, "duration_ms": 1200,
                    "outcome": {"exit_code": 0, "sandboxed": false}}}))
            ),
            "[3] executor: tool finished: $ make (ok, exit 0, 1.2s) not sandboxed"
        );
    }

    /// An event of a newer version is shown as unknown, never a panic; a
    /// payload this version does not know is shown as its JSON.
    #[test]
    fn an_unknown_event_is_shown_as_such() {
        let mut plain = PlainRenderer::default();
        let newer = rebound_protocol::Event::decode(json!({"event": "budget_warning", "left": 3}));
        assert_eq!(
            plain.line(&newer).unwrap(),
            "unknown event \"budget_warning\" (from a newer version of rebound?)"
        );
        let garbage = rebound_protocol::Event::decode_str("{\"not\": \"an event\"}");
        assert_eq!(
            plain.line(&garbage).unwrap(),
            "unknown event (not an event this version can read)"
        );
        let other = line(
            &mut plain,
            custom(json!({"tool_call": {"phase": "paused"}})),
        );
        assert_eq!(other, r#"[3] executor: {"tool_call":{"phase":"paused"}}"#);
    }
}
