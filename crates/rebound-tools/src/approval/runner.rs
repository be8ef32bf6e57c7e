//! Running one tool call from a graph node: judged by the policy, asked
//! through a graph interrupt, journaled so that it never runs twice.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rebound_graph::{NodeContext, NodeError, NodeErrorKind};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{ApprovalAnswer, ApprovalPolicy, ApprovalRequest, Verdict};
use crate::{ToolContext, ToolError, ToolOutput, ToolRegistry};

/// What came of a tool call made through [`run_tool_call`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallOutcome {
    /// What the model sees: the tool's output, or a failed output saying
    /// why the call did not run.
    pub output: ToolOutput,
    /// The user's answer, when the policy asked.
    pub answer: Option<ApprovalAnswer>,
    /// The user's message, when they denied the call (it did not run).
    pub denied: Option<String>,
    /// The policy's reason, when the command is forbidden (it did not run).
    pub forbidden: Option<String>,
}

impl ToolCallOutcome {
    fn output(output: ToolOutput) -> Self {
        ToolCallOutcome {
            output,
            answer: None,
            denied: None,
            forbidden: None,
        }
    }
}

/// Calls the tool `name` with `arguments` from inside a graph node.
///
/// - An unknown tool is a failed output naming the tools there are.
/// - When the tool runs a command ([`crate::Tool::command_line`]), `policy`
///   judges it first. A forbidden command does not run: the output is
///   `forbidden: <reason>` and [`ToolCallOutcome::forbidden`] is set. A
///   command the policy asks about stops the run with a graph interrupt
///   whose payload is an [`ApprovalRequest`] (unless `approved_all`: the
///   user already answered "approve all"); propagate the error with `?`.
///   When the run is resumed with an [`ApprovalAnswer`], the node runs again
///   and this call returns with that answer: denied, the command does not
///   run and the output is `denied by the user: <message>`; approved, it
///   runs. A tool that runs no command (the file tools) is not judged:
///   the modes are about commands.
/// - The call itself goes through the node's journal under `tool:<name>`:
///   when the node runs again for the same superstep (after a later
///   interrupt, or a crash), the recorded output is returned and the tool
///   does not run again. A tool error is recorded as the failed output the
///   model sees ([`ToolError::into_output`]); only a cancelled call is not
///   recorded (it fails the node and runs again on resume).
///
/// Custom events: `{"tool_call": {"name", "command", "phase": "started"}}`
/// before the tool really runs and `{"tool_call": {..., "phase":
/// "finished", "success", "details"}}` after, `{"tool_call": {...,
/// "phase": "replayed", "success"}}` when the journal answers instead;
/// `{"approval": {"phase": ..., "tool", "command", ...}}` with phase
/// `forbidden`, `asked` (the run stops), `answered` (with `decision`), or
/// `preapproved` (asked, but `approved_all`). `answered` comes again each
/// time the node re-runs past the question (the answer is replayed).
pub async fn run_tool_call(
    node: &NodeContext,
    registry: &ToolRegistry,
    policy: &ApprovalPolicy,
    approved_all: bool,
    name: &str,
    arguments: serde_json::Value,
    tools: &ToolContext,
) -> Result<ToolCallOutcome, NodeError> {
    let tool = match registry.lookup(name) {
        Ok(tool) => Arc::clone(tool),
        Err(error) => return Ok(ToolCallOutcome::output(error.into_output())),
    };
    let command = tool.command_line(&arguments);
    let mut answer = None;
    if let Some(command) = &command {
        match policy.assess(command) {
            Verdict::Allow => {}
            Verdict::Forbid { reason } => {
                tracing::warn!(tool = name, command, %reason, "forbidden command refused");
                node.emit(|| {
                    json!({"approval": {
                        "phase": "forbidden", "tool": name, "command": command, "reason": reason,
                    }})
                });
                let output = ToolOutput::failure(format!("forbidden: {reason}"))
                    .with_details(json!({"error": "forbidden", "reason": reason}));
                return Ok(ToolCallOutcome {
                    forbidden: Some(reason),
                    ..ToolCallOutcome::output(output)
                });
            }
            Verdict::Ask { reason } if approved_all => {
                node.emit(|| {
                    json!({"approval": {
                        "phase": "preapproved", "tool": name, "command": command, "reason": reason,
                    }})
                });
            }
            Verdict::Ask { reason } => {
                let request = ApprovalRequest {
                    tool: name.to_string(),
                    command: command.clone(),
                    cwd: tools.workspace().to_path_buf(),
                    reason,
                };
                let given = ask(node, &request)?;
                if let ApprovalAnswer::Deny { message } = &given {
                    let content = if message.is_empty() {
                        "denied by the user".to_string()
                    } else {
                        format!("denied by the user: {message}")
                    };
                    let output = ToolOutput::failure(content)
                        .with_details(json!({"error": "denied", "message": message}));
                    return Ok(ToolCallOutcome {
                        denied: Some(message.clone()),
                        answer: Some(given.clone()),
                        ..ToolCallOutcome::output(output)
                    });
                }
                answer = Some(given);
            }
        }
    }

    let ran = AtomicBool::new(false);
    let output = node
        .try_journal(&format!("tool:{name}"), async {
            ran.store(true, Ordering::Relaxed);
            node.emit(
                || json!({"tool_call": {"name": name, "command": command, "phase": "started"}}),
            );
            let output = match tool.call(arguments, tools).await {
                Ok(output) => output,
                Err(ToolError::Cancelled) => {
                    return Err(NodeError::msg(format!(
                        "the call of tool {name:?} was cancelled"
                    )));
                }
                Err(error) => error.into_output(),
            };
            node.emit(|| {
                json!({"tool_call": {
                    "name": name, "command": command, "phase": "finished",
                    "success": output.success, "details": output.details,
                }})
            });
            Ok::<_, NodeError>(output)
        })
        .await?;
    if !ran.load(Ordering::Relaxed) {
        node.emit(|| {
            json!({"tool_call": {
                "name": name, "command": command, "phase": "replayed", "success": output.success,
            }})
        });
    }
    Ok(ToolCallOutcome {
        answer,
        ..ToolCallOutcome::output(output)
    })
}

/// Asks the user through a graph interrupt: the first time the run stops
/// (the error must be propagated); when resumed, the answer.
fn ask(node: &NodeContext, request: &ApprovalRequest) -> Result<ApprovalAnswer, NodeError> {
    match node.interrupt::<ApprovalAnswer>(request) {
        Ok(answer) => {
            let decision = match &answer {
                ApprovalAnswer::Approve => "approve",
                ApprovalAnswer::ApproveAll => "approve_all",
                ApprovalAnswer::Deny { .. } => "deny",
            };
            node.emit(|| {
                json!({"approval": {
                    "phase": "answered", "tool": request.tool, "command": request.command,
                    "decision": decision,
                }})
            });
            Ok(answer)
        }
        Err(error) => {
            if error.kind() == NodeErrorKind::Interrupted {
                node.emit(|| {
                    json!({"approval": {
                        "phase": "asked", "tool": request.tool, "command": request.command,
                        "cwd": request.cwd, "reason": request.reason,
                    }})
                });
            }
            Err(error)
        }
    }
}
