//! Live progress on a terminal: the plan as a numbered list, each step as it
//! runs with its command and the last lines of its output (redrawn in
//! place), route decisions dimmed with their reasons, retries and repairs
//! highlighted, and a summary box at the end.

mod live;
mod summary;

use std::time::Duration;

use console::style;
use rebound_agent::Verdict;
use rebound_graph::Event;
use rebound_tools::approval::{ApprovalAnswer, ApprovalRequest};

use super::progress::{checks_line, first_line, human_duration, route_text, step_label, Progress};
use super::{answer_text, Renderer, RunEnd, RunInfo};
use live::{printable, Live, TAIL_LINES};

/// The last command's result, for the step's closing line.
#[derive(Debug, Default, Clone)]
struct CommandResult {
    exit_code: Option<i64>,
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

    fn show(&mut self, progress: Progress) {
        match progress {
            Progress::NodeStarted { node, .. } => {
                let status = match node.as_str() {
                    "planner" => Some("planning"),
                    "reviewer" => Some("reviewing"),
                    "reflector" => Some("reflecting"),
                    "setup" => Some("preparing the workspace"),
                    "commit" => Some("committing"),
                    "rollback" => Some("rolling back"),
                    _ => None,
                };
                self.live.set_status(status.map(str::to_string));
            }
            Progress::NodeFinished => self.live.set_status(None),
            Progress::Route { from, to, reason } => {
                let reason = reason.map(|r| first_line(&r, 200));
                let text = route_text(&from, &to, reason.as_deref());
                let text = console::truncate_str(&text, self.live.width() - 4, "…");
                self.line(format!("  {}", style(format!("↳ {text}")).dim()));
            }
            Progress::Retry {
                node,
                attempt,
                delay,
                error,
            } => self.line(
                style(format!(
                    "⟳ retry {node}: attempt {attempt} failed ({}); again in {}",
                    first_line(&error, 120),
                    human_duration(delay)
                ))
                .yellow()
                .bold()
                .to_string(),
            ),
            Progress::Error { node, message } => {
                let place = node.map(|n| format!(" in {n}")).unwrap_or_default();
                self.line(
                    style(format!("✗ error{place}: {}", first_line(&message, 300)))
                        .red()
                        .bold()
                        .to_string(),
                );
            }
            Progress::Plan { steps, repair } => {
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
            Progress::StepStarted { index, step } => {
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
            Progress::Output { line, .. } => self.live.push_output(&line),
            Progress::ToolCall {
                name,
                command,
                phase,
                exit_code,
                duration_ms,
                log_path,
                ..
            } => {
                if phase == "finished" || phase == "replayed" {
                    self.result = CommandResult {
                        exit_code,
                        duration_ms,
                        log_path,
                    };
                }
                if phase == "started" && command.is_some() && command != self.step_command {
                    let what = command.unwrap_or(name);
                    self.line(format!("  {}", style(format!("$ {what}")).cyan()));
                } else if phase == "started" && command.is_none() {
                    self.line(format!("  {}", style(format!("⚙ {name}")).cyan()));
                }
            }
            Progress::StepFinished {
                index,
                success,
                output,
                ..
            } => self.step_finished(index, success, &output),
            Progress::Review(review) => {
                let verdict = match review.verdict {
                    Verdict::Finish => style(review.verdict.to_string()).green().bold(),
                    Verdict::Continue => style(review.verdict.to_string()).cyan(),
                    Verdict::Retry | Verdict::Replan => {
                        style(review.verdict.to_string()).yellow().bold()
                    }
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
            Progress::Repair { step, error } => self.line(
                style(format!(
                    "↻ repair: \"{}\" failed ({}); back to the planner",
                    step.description,
                    first_line(&error, 120)
                ))
                .yellow()
                .bold()
                .to_string(),
            ),
            Progress::Git {
                action,
                commit,
                message,
            } => {
                let short: String = commit.chars().take(8).collect();
                let text = format!("  ⎇ git {action} {short}: {}", first_line(&message, 100));
                if action == "rollback" {
                    self.line(style(text).yellow().to_string());
                } else {
                    self.line(style(text).dim().to_string());
                }
            }
            Progress::Agent { name, message } => {
                self.line(format!("  {}: {message}", style(name).bold()));
            }
            Progress::Thinking { call, text } => self.live.push_thinking(&call, &text),
            Progress::Checks { when, results } => {
                for result in &results {
                    let mark = if result.passed {
                        style("✓").green()
                    } else {
                        style("✗").red()
                    };
                    self.line(format!("  {mark} check ({when}): {}", result.headline()));
                }
            }
            Progress::CheckProposed {
                command,
                adopted,
                reason,
            } => {
                let verdict = if adopted {
                    style("adopted").green()
                } else {
                    style("refused").yellow()
                };
                self.line(format!(
                    "  check proposed: `{}` {verdict}: {}",
                    first_line(&command, 120),
                    first_line(&reason, 120)
                ));
            }
            Progress::FinishOverruled {
                by,
                reason,
                failing,
            } => self.line(
                style(format!(
                    "✗ finish overruled: the {by} said \"{}\", but {}; back to the planner",
                    first_line(&reason, 120),
                    checks_line(&failing)
                ))
                .red()
                .bold()
                .to_string(),
            ),
            Progress::Approval {
                phase,
                command,
                detail,
            } => match phase.as_str() {
                "forbidden" => self.line(
                    style(format!(
                        "⛔ forbidden: $ {command} ({})",
                        detail.unwrap_or_default()
                    ))
                    .red()
                    .to_string(),
                ),
                "preapproved" => self.line(format!(
                    "  {}",
                    style(format!("approved (approve all): $ {command}")).dim()
                )),
                _ => {}
            },
            Progress::RunFinished => self.live.clear(),
            Progress::RunStarted
            | Progress::ModelCall { .. }
            | Progress::Interrupted { .. }
            | Progress::Other => {}
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
