//! Live progress on a terminal: the plan as a numbered list, each step as it
//! runs with its command and the last lines of its output (redrawn in
//! place), route decisions dimmed with their reasons, retries and repairs
//! highlighted, and a summary box at the end.

mod live;
mod summary;

use std::time::Duration;

use console::style;
use rebound_protocol::agent::{AgentEvent, PlanStep, Review, StepPhase, Verdict};
use rebound_protocol::{Approval, ApprovalAnswer, ApprovalRequest, Event, ToolCall};

use super::progress::{checks_line, first_line, human_duration, route_text, step_label, Progress};
use super::{answer_text, Renderer, RunEnd, RunInfo};
use live::{printable, Live, TAIL_LINES};

/// The last command's result, for the step's closing line.
#[derive(Debug, Default, Clone)]
struct CommandResult {
    exit_code: Option<i32>,
    duration_ms: Option<u64>,
    log_path: Option<String>,
}

/// Colored, redrawn progress on stdout.
pub struct TerminalRenderer {
    live: Live,
    /// The current plan's length.
    plan_len: usize,
    /// The running step's command, to skip its echo as a tool call.
    step_command: Option<String>,
    /// The step that started and has not finished (a step re-run after an
    /// approval is not announced twice).
    open_step: Option<(usize, String)>,
    /// The running step's last command result.
    result: CommandResult,
}

impl Default for TerminalRenderer {
    fn default() -> Self {
        TerminalRenderer::new()
    }
}

impl TerminalRenderer {
    /// A renderer on stdout.
    pub fn new() -> Self {
        TerminalRenderer {
            live: Live::stdout(),
            plan_len: 0,
            step_command: None,
            open_step: None,
            result: CommandResult::default(),
        }
    }

    fn line(&mut self, text: impl AsRef<str>) {
        self.live.line(text);
    }

    /// Shows one event: a line, a status, or a change to the live area.
    fn show(&mut self, progress: Progress) {
        match progress {
            Progress::NodeStarted { node } => self.live.set_status(status(&node)),
            Progress::NodeFinished => self.live.set_status(None),
            Progress::Route { from, to, reason } => {
                let reason = reason.map(|r| first_line(&r, 200));
                let text = route_text(&from, &to, reason.as_deref());
                let text = console::truncate_str(&text, self.live.width() - 4, "…");
                self.line(format!("  {}", style(format!("↳ {text}")).dim()));
            }
            Progress::Agent(AgentEvent::Plan { steps, repair, .. }) => self.plan(&steps, repair),
            Progress::Agent(AgentEvent::Step {
                index,
                step,
                phase: StepPhase::Started,
                ..
            }) => self.step_started(index, &step),
            Progress::Output(output) => self.live.push_output(&output.line),
            Progress::ToolCall(call) => self.tool_call(call),
            Progress::Agent(AgentEvent::Step {
                index,
                success,
                output,
                ..
            }) => self.step_finished(index, success == Some(true), &output.unwrap_or_default()),
            Progress::Agent(AgentEvent::Review(review)) => self.review(&review),
            Progress::Agent(AgentEvent::Thinking { call, text }) => {
                self.live.push_thinking(&call, &text)
            }
            Progress::Agent(AgentEvent::Checks { when, results }) => {
                for result in &results {
                    let mark = if result.passed {
                        style("✓").green()
                    } else {
                        style("✗").red()
                    };
                    self.line(format!("  {mark} check ({when}): {}", result.headline()));
                }
            }
            Progress::Approval(approval) => self.approval(approval),
            Progress::RunFinished => self.live.clear(),
            other => {
                if let Some(line) = event_line(other) {
                    self.line(line);
                }
            }
        }
    }

    fn plan(&mut self, steps: &[PlanStep], repair: bool) {
        self.plan_len = steps.len();
        let title = if repair {
            style(format!("↻ repair plan ({} steps)", steps.len()))
                .yellow()
                .bold()
        } else {
            style(format!("◆ plan ({} steps)", steps.len())).bold()
        };
        self.line(title.to_string());
        for (i, step) in steps.iter().enumerate() {
            let command = step
                .action()
                .map(|a| format!("  {}", style(a).cyan()))
                .unwrap_or_default();
            self.line(format!("  {}. {}{command}", i + 1, step.description));
        }
    }

    fn step_started(&mut self, index: usize, step: &PlanStep) {
        self.live.take_tail();
        self.result = CommandResult::default();
        self.step_command = step.command.clone();
        let key = (index, step.description.clone());
        if self.open_step.as_ref() == Some(&key) {
            return;
        }
        self.open_step = Some(key);
        let command = step
            .action()
            .map(|a| format!("  {}", style(a).cyan()))
            .unwrap_or_default();
        self.line(format!(
            "{} {}{command}",
            style(format!("▶ {}:", step_label(index, self.plan_len))).bold(),
            step.description
        ));
    }

    /// A tool call: a command other than the step's own is echoed when it
    /// starts; the last call's result closes the step's line.
    fn tool_call(&mut self, call: ToolCall) {
        match call {
            ToolCall::Started {
                command: Some(command),
                ..
            } if Some(&command) != self.step_command.as_ref() => {
                self.line(format!("  {}", style(format!("$ {command}")).cyan()));
            }
            ToolCall::Started {
                name,
                command: None,
            } => self.line(format!("  {}", style(format!("⚙ {name}")).cyan())),
            ToolCall::Finished {
                duration_ms,
                outcome,
                ..
            } => {
                let outcome = outcome.unwrap_or_default();
                if outcome.sandboxed == Some(false) {
                    self.line(format!(
                        "  {}",
                        style("⚠ not sandboxed: this command could write outside the workspace")
                            .yellow()
                    ));
                }
                self.result = CommandResult {
                    exit_code: outcome.exit_code,
                    duration_ms: Some(duration_ms),
                    log_path: outcome.log_path,
                };
            }
            ToolCall::Replayed { .. } => self.result = CommandResult::default(),
            _ => {}
        }
    }

    fn review(&mut self, review: &Review) {
        let verdict = match review.verdict {
            Verdict::Finish => style(review.verdict.to_string()).green().bold(),
            Verdict::Continue => style(review.verdict.to_string()).cyan(),
            Verdict::Retry | Verdict::Replan => style(review.verdict.to_string()).yellow().bold(),
        };
        let reason = review
            .reason
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        self.line(format!("  review: {verdict} — {reason}"));
        for fix in &review.fix_suggestions {
            self.line(format!("    • {fix}"));
        }
    }

    fn approval(&mut self, approval: Approval) {
        match approval {
            Approval::Forbidden {
                command, reason, ..
            } => self.line(
                style(format!("⛔ forbidden: $ {command} ({reason})"))
                    .red()
                    .to_string(),
            ),
            Approval::Preapproved { command, .. } => self.line(format!(
                "  {}",
                style(format!("approved (approve all): $ {command}")).dim()
            )),
            // Asked: the prompt shows it; answered: `answered` shows it.
            _ => {}
        }
    }

    fn step_finished(&mut self, index: usize, success: bool, output: &str) {
        self.open_step = None;
        let tail = self.live.take_tail();
        let mut facts = Vec::new();
        if let Some(code) = self.result.exit_code {
            facts.push(format!("exit {code}"));
        }
        if let Some(ms) = self.result.duration_ms {
            facts.push(human_duration(Duration::from_millis(ms)));
        }
        let facts = if facts.is_empty() {
            String::new()
        } else {
            format!(" ({})", facts.join(", "))
        };
        let label = step_label(index, self.plan_len);
        if success {
            self.line(style(format!("✓ {label}{facts}")).green().to_string());
            return;
        }
        self.line(
            style(format!("✗ {label} failed{facts}"))
                .red()
                .bold()
                .to_string(),
        );
        let width = self.live.width().saturating_sub(6);
        let shown: Vec<String> = if tail.is_empty() {
            let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
            lines[lines.len().saturating_sub(TAIL_LINES)..]
                .iter()
                .map(|l| l.to_string())
                .collect()
        } else {
            tail
        };
        for line in shown {
            let line = printable(&line);
            let line = console::truncate_str(&line, width, "…");
            self.line(format!("  {} {line}", style("│").red()));
        }
        if let Some(log) = self.result.log_path.clone() {
            self.line(format!("  {}", style(format!("full log: {log}")).dim()));
        }
    }
}

/// What the run is doing while `node` runs, for the status line.
fn status(node: &str) -> Option<String> {
    use rebound_protocol::nodes::{pev, reflect};
    let status = match node {
        pev::PLANNER => "planning",
        pev::REVIEWER => "reviewing",
        reflect::REFLECTOR => "reflecting",
        reflect::SETUP => "preparing the workspace",
        reflect::COMMIT => "committing",
        reflect::ROLLBACK => "rolling back",
        _ => return None,
    };
    Some(status.to_string())
}

/// The one styled line of an event that is shown as a line and nothing
/// else: retries, errors, repairs, git, agents, check proposals,
/// overruled finishes, unknown events.
fn event_line(progress: Progress) -> Option<String> {
    let line = match progress {
        Progress::Retry {
            node,
            attempt,
            delay,
            error,
        } => style(format!(
            "⟳ retry {node}: attempt {attempt} failed ({}); again in {}",
            first_line(&error, 120),
            human_duration(delay)
        ))
        .yellow()
        .bold()
        .to_string(),
        Progress::Error { node, message } => {
            let place = node.map(|n| format!(" in {n}")).unwrap_or_default();
            style(format!("✗ error{place}: {}", first_line(&message, 300)))
                .red()
                .bold()
                .to_string()
        }
        Progress::Agent(AgentEvent::Repair { step, error }) => style(format!(
            "↻ repair: \"{}\" failed ({}); back to the planner",
            step.description,
            first_line(&error, 120)
        ))
        .yellow()
        .bold()
        .to_string(),
        Progress::Agent(AgentEvent::Git {
            action,
            commit,
            message,
        }) => {
            let short: String = commit.chars().take(8).collect();
            let text = format!("  ⎇ git {action} {short}: {}", first_line(&message, 100));
            if action == "rollback" {
                style(text).yellow().to_string()
            } else {
                style(text).dim().to_string()
            }
        }
        Progress::Agent(AgentEvent::Agent { name, message }) => {
            format!("  {}: {message}", style(name).bold())
        }
        Progress::Agent(AgentEvent::CheckProposed {
            command,
            adopted,
            reason,
        }) => {
            let verdict = if adopted {
                style("adopted").green()
            } else {
                style("refused").yellow()
            };
            format!(
                "  check proposed: `{}` {verdict}: {}",
                first_line(&command, 120),
                first_line(&reason, 120)
            )
        }
        Progress::Agent(AgentEvent::FinishOverruled {
            by,
            reason,
            failing,
        }) => style(format!(
            "✗ finish overruled: the {by} said \"{}\", but {}; back to the planner",
            first_line(&reason, 120),
            checks_line(&failing)
        ))
        .red()
        .bold()
        .to_string(),
        Progress::Unknown { name } => style(format!(
            "? unknown event{} (from a newer version of rebound?)",
            name.map(|n| format!(" {n:?}")).unwrap_or_default()
        ))
        .dim()
        .to_string(),
        _ => return None,
    };
    Some(line)
}

impl Renderer for TerminalRenderer {
    fn start(&mut self, info: &RunInfo) {
        self.plan_len = info.plan_len;
        let verb = if info.resumed { "resuming" } else { "rebound" };
        self.line(format!(
            "{} {} {} {} {}",
            style(verb).bold(),
            style("·").dim(),
            info.workflow,
            style("·").dim(),
            style(&info.model).dim()
        ));
        self.line(format!(
            "{} {}",
            style("goal:").dim(),
            crate::render::shown(info.goal.trim())
        ));
        self.line(format!("{} {}", style("thread:").dim(), info.thread_id));
        self.line(format!(
            "{} {}",
            style("workspace:").dim(),
            crate::render::shown(&info.workspace.display().to_string())
        ));
        self.line("");
    }

    fn event(&mut self, event: &Event) {
        self.show(Progress::from_event(event));
    }

    fn answered(&mut self, _request: &ApprovalRequest, answer: &ApprovalAnswer) {
        let text = answer_text(answer);
        let text = if answer.is_approved() {
            style(format!("✓ {text}")).green()
        } else {
            style(format!("✗ {text}")).yellow()
        };
        self.line(format!("  {text}"));
    }

    fn end(&mut self, end: &RunEnd) {
        self.live.clear();
        for line in summary::lines(end, self.live.width()) {
            self.line(line);
        }
    }
}
