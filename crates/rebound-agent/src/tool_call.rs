//! Running one tool call from a graph node: judged by the policy, asked
//! through a graph interrupt, journaled so that it never runs twice.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rebound_graph::{NodeContext, NodeError, NodeErrorKind};
use rebound_protocol::{
    Approval, ApprovalEvent, CommandOutcome, Decision, OutputLine, Stream, ToolCall, ToolEvent,
};
use rebound_tools::approval::{ApprovalAnswer, ApprovalPolicy, ApprovalRequest, Verdict};
use rebound_tools::{OutputSink, ToolContext, ToolError, ToolOutput, ToolRegistry};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::events::Emit;

/// The name of the tool command steps run with.
pub const SHELL_TOOL: &str = "shell";

/// The tool context of a node's commands: the workspace's, with a call id
/// naming the run, the superstep and `label` (`step2`, `checks`), and
/// output lines streamed as [`ToolEvent::ToolOutput`] events.
pub(crate) fn tool_context(ctx: &NodeContext, workspace: &ToolContext, label: &str) -> ToolContext {
    let events = ctx.clone();
    let sink: OutputSink = Arc::new(move |stream: Stream, line: &str| {
        ToolEvent::ToolOutput(OutputLine {
            stream,
            line: line.to_string(),
        })
        .emit(&events);
    });
    let thread = ctx.thread_id().unwrap_or("run");
    workspace
        .clone()
        .with_cancellation(ctx.cancellation().clone())
        .with_call_id(format!("{thread}-s{}-{label}", ctx.step()))
        .with_output(sink)
}

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
/// - When the tool runs a command ([`rebound_tools::Tool::command_line`]), `policy`
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
/// Events ([`rebound_protocol`]): [`ToolCall::Started`] before the tool
/// really runs and [`ToolCall::Finished`] after (with the command's
/// [`CommandOutcome`] when the tool reports one), [`ToolCall::Replayed`]
/// when the journal answers instead; [`Approval::Forbidden`],
/// [`Approval::Asked`] (the run stops), [`Approval::Answered`] or
/// [`Approval::Preapproved`]. `Answered` comes again each time the node
/// re-runs past the question (the answer is replayed).
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
                tracing::debug!(tool = name, command, %reason, "forbidden command refused");
                ApprovalEvent::Approval(Approval::Forbidden {
                    tool: name.to_string(),
                    command: command.clone(),
                    reason: reason.clone(),
                })
                .emit(node);
                let output = ToolOutput::failure(format!("forbidden: {reason}"))
                    .with_details(json!({"error": "forbidden", "reason": reason}));
                return Ok(ToolCallOutcome {
                    forbidden: Some(reason),
                    ..ToolCallOutcome::output(output)
                });
            }
            Verdict::Ask { reason } if approved_all => {
                ApprovalEvent::Approval(Approval::Preapproved {
                    tool: name.to_string(),
                    command: command.clone(),
                    reason,
                })
                .emit(node);
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
        .try_journal_keyed(&format!("tool:{name}"), |key| {
            let (ran, command) = (&ran, &command);
            async move {
                ran.store(true, Ordering::Relaxed);
                let tools = tools.clone().with_idempotency_key(key);
                ToolEvent::ToolCall(ToolCall::Started {
                    name: name.to_string(),
                    command: command.clone(),
                })
                .emit(node);
                let started = Instant::now();
                let output = match tool.call(arguments, &tools).await {
                    Ok(output) => output,
                    Err(ToolError::Cancelled) => {
                        return Err(NodeError::msg(format!(
                            "the call of tool {name:?} was cancelled"
                        )));
                    }
                    Err(error) => error.into_output(),
                };
                ToolEvent::ToolCall(ToolCall::Finished {
                    name: name.to_string(),
                    command: command.clone(),
                    success: output.success,
                    duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                    outcome: command
                        .as_ref()
                        .and_then(|_| CommandOutcome::deserialize(&output.details).ok()),
                })
                .emit(node);
                Ok::<_, NodeError>(output)
            }
        })
        .await?;
    if !ran.load(Ordering::Relaxed) {
        ToolEvent::ToolCall(ToolCall::Replayed {
            name: name.to_string(),
            command,
            success: output.success,
        })
        .emit(node);
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
            ApprovalEvent::Approval(Approval::Answered {
                tool: request.tool.clone(),
                command: request.command.clone(),
                decision: Decision::from(&answer),
            })
            .emit(node);
            Ok(answer)
        }
        Err(error) => {
            if error.kind() == NodeErrorKind::Interrupted {
                ApprovalEvent::Approval(Approval::Asked {
                    tool: request.tool.clone(),
                    command: request.command.clone(),
                    cwd: request.cwd.clone(),
                    reason: request.reason.clone(),
                })
                .emit(node);
            }
            Err(error)
        }
    }
}
