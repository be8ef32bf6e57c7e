//! The box that closes a run on the terminal: how it ended, its numbers,
//! and what to do next.

use std::time::Duration;

use console::style;

use crate::render::progress::{first_line, human_duration};
use crate::render::{Ending, RunEnd};

/// The lines of the closing box, `width` columns wide at most.
pub fn lines(end: &RunEnd, width: usize) -> Vec<String> {
    let rule = style("─".repeat(width.min(60))).dim().to_string();
    let mut lines = vec![rule.clone()];
    match &end.ending {
        Ending::Completed(summary) => {
            let reason = first_line(&summary.stop_reason.to_string(), 200);
            let headline = if summary.stop_reason.is_finished() {
                style(format!("✓ {reason}")).green().bold()
            } else {
                style(format!("✗ stopped: {reason}")).red().bold()
            };
            lines.push(format!(" {headline}"));
            let rows = [
                (
                    "steps",
                    format!(
                        "{} succeeded, {} failed",
                        summary.steps_succeeded, summary.steps_failed
                    ),
                ),
                ("repairs", summary.repairs.to_string()),
                ("reviews", summary.iters.to_string()),
                ("tokens", summary.tokens.to_string()),
                (
                    "time",
                    format!(
                        "{} (work {})",
                        human_duration(end.elapsed),
                        human_duration(Duration::from_millis(summary.work_ms))
                    ),
                ),
                ("thread", end.thread_id.clone()),
            ];
            for (name, value) in rows {
                lines.push(format!("   {} {value}", style(format!("{name:8}")).dim()));
            }
            for check in crate::render::plain::check_lines(summary) {
                lines.push(format!(
                    "   {} {check}",
                    style(format!("{:8}", "check")).dim()
                ));
            }
        }
        Ending::Interrupted(_) => {
            lines.push(format!(
                " {}",
                style("⏸ waiting for approval").yellow().bold()
            ));
            for request in end.approvals() {
                lines.push(format!(
                    "   {} $ {}",
                    style("command").dim(),
                    crate::render::shown(&request.command)
                ));
                lines.push(format!(
                    "   {} {}",
                    style("in     ").dim(),
                    request.cwd.display()
                ));
                lines.push(format!(
                    "   {} {}",
                    style("reason ").dim(),
                    crate::render::shown(&request.reason)
                ));
            }
            lines.push(format!(" continue with: {} --approve", end.resume));
            lines.push(format!(
                "            or: {} --deny \"<message>\"",
                end.resume
            ));
        }
        Ending::Cancelled => {
            lines.push(format!(" {}", style("⏹ cancelled").yellow().bold()));
            lines.push(format!(
                " the run is saved; continue with: {}",
                style(&end.resume).bold()
            ));
        }
        Ending::Failed(message) => {
            lines.push(format!(
                " {}",
                style(format!("✗ failed: {}", first_line(message, 300)))
                    .red()
                    .bold()
            ));
            lines.push(format!(
                " the last good checkpoint is saved; retry with: {}",
                end.resume
            ));
        }
    }
    lines.push(rule);
    lines
}
