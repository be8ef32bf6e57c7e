//! Executing one plan step: a command step runs directly through the shell
//! tool (no model call; for `run`, success is exit code 0; an `observe`
//! step succeeds whatever the exit code); an `edit` step is done by the
//! harness ([`crate::edit`]); a `script` step is a program the model
//! writes and the harness runs in a scratch copy ([`crate::script`]); any other step runs a bounded tool-using
//! model loop that ends in a structured `{success, output}`. Every tool call goes through the approval policy and the
//! node's journal ([`crate::tool_call::run_tool_call`]).

use rebound_graph::{NodeContext, NodeError};
use rebound_llm::{ChatRequest, LlmError, Message};
use rebound_tools::{ToolContext, ToolRegistry};

use crate::checks::Evidence;
use crate::events::{AgentEvent, Emit, StepPhase};
use crate::llm::{ask, shorten};
use crate::model_call::chat_journaled;
use crate::prompts::{self, render};
use crate::step::{from_tool_outcome, StepOutcome};
use crate::tool_call::{run_tool_call, tool_context, SHELL_TOOL};
use crate::{AgentDeps, ExecReport, PlanStep, StepKind};

/// Executes `step` (number `index` of the plan) for `goal`; an edit step
/// is judged by `evidence`'s checks. `approved_all` says the user already
/// approved every command of this run.
pub async fn execute_step(
    ctx: &NodeContext,
    deps: &AgentDeps,
    goal: &str,
    index: usize,
    step: &PlanStep,
    evidence: &Evidence,
    approved_all: bool,
) -> Result<StepOutcome, NodeError> {
    AgentEvent::Step {
        index,
        step: step.clone(),
        phase: StepPhase::Started,
        success: None,
        output: None,
    }
    .emit(ctx);
    let tools = tool_context(ctx, &deps.workspace, &format!("step{}", index + 1));
    let workspace = deps.workspace.workspace();
    let protected = crate::checks::clauses::protected_files(goal, workspace);
    let kept = crate::protect::Protected::take(workspace, &protected);
    // A step that cannot run fails with the reason; one that would do
    // nothing now (a file an earlier step of the plan wrote is "created")
    // is not run, and is not a failure.
    let not_run = match crate::step_check::check_step(step, workspace, &protected) {
        crate::step_check::Checked::Refused(why) => {
            Some((false, format!("the step cannot run: {why}")))
        }
        crate::step_check::Checked::Dropped(why) => {
            Some((true, format!("the step was not run: {why}")))
        }
        _ => None,
    };
    let outcome: Result<StepOutcome, NodeError> = match (not_run, step.kind, &step.command) {
        (Some((success, output)), _, _) => Ok(StepOutcome::settled(success, output, approved_all)),
        (None, StepKind::Edit, _) => {
            crate::edit::run_edit_step(ctx, deps, goal, index, step, evidence, approved_all).await
        }
        (None, StepKind::Create, _) => {
            // A new file is an edit of the whole of it.
            let whole = PlanStep {
                kind: StepKind::Edit,
                target: Some(String::new()),
                command: None,
                ..step.clone()
            };
            crate::edit::run_edit_step(ctx, deps, goal, index, &whole, evidence, approved_all).await
        }
        (None, StepKind::Script, _) => {
            crate::script::run_script_step(ctx, deps, goal, index, step, evidence, approved_all)
                .await
        }
        (None, StepKind::Observe, Some(command)) => {
            let mut outcome = run_command_step(ctx, deps, &tools, command, approved_all).await?;
            // Only a command that could not run at all fails an observation.
            outcome.success = outcome.denied.is_none() && outcome.forbidden.is_none();
            Ok(outcome)
        }
        (None, _, Some(command)) => {
            run_command_step(ctx, deps, &tools, command, approved_all).await
        }
        (None, _, None) => run_model_step(ctx, deps, &tools, goal, step, approved_all).await,
    };
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => match prompt_too_long(&error) {
            Some(message) => StepOutcome::settled(
                false,
                format!(
                    "the step's prompt does not fit the model's context window ({message}): \
                     plan a smaller part (one definition, a line range) or a command"
                ),
                approved_all,
            ),
            None => return Err(error),
        },
    };
    let restored = kept.restore_changed();
    let outcome = if restored.is_empty() {
        outcome
    } else {
        StepOutcome {
            success: false,
            output: format!(
                "the goal says not to change {}: this step changed it, and it was put back as it was\n{}",
                restored.join(", "),
                outcome.output
            ),
            ..outcome
        }
    };
    AgentEvent::Step {
        index,
        step: step.clone(),
        phase: StepPhase::Finished,
        success: Some(outcome.success),
        output: Some(shorten(&outcome.output, 400)),
    }
    .emit(ctx);
    Ok(outcome)
}

/// The model's message when `error` is a model call whose prompt does not
/// fit the model's context window: a step that asks too much of a small
/// model (a long file shown whole) fails with the reason, and the planner
/// plans a smaller one; the run does not end on it.
fn prompt_too_long(error: &NodeError) -> Option<&str> {
    match error.source_error().downcast_ref::<LlmError>() {
        Some(LlmError::ContextTooLong { message, .. }) => Some(message),
        _ => None,
    }
}

/// A command step: the shell tool, judged by the approval policy.
async fn run_command_step(
    ctx: &NodeContext,
    deps: &AgentDeps,
    tools: &ToolContext,
    command: &str,
    approved_all: bool,
) -> Result<StepOutcome, NodeError> {
    let outcome = run_tool_call(
        ctx,
        &deps.tools,
        &deps.approval,
        approved_all,
        SHELL_TOOL,
        serde_json::json!({ "command": command }),
        tools,
    )
    .await?;
    Ok(from_tool_outcome(&outcome, deps, 0))
}

/// The tools of a step without a command: the built-in ones, and the MCP
/// servers' (started now if this is the first step that needs them). A
/// server that cannot start fails the node with its error.
async fn step_tools(deps: &AgentDeps) -> Result<ToolRegistry, NodeError> {
    let mut registry = deps.tools.clone();
    if let Some(servers) = deps.mcp.as_ref().filter(|servers| !servers.is_empty()) {
        let tools = servers.tools().await.map_err(|error| {
            NodeError::msg(format!("the MCP servers could not start: {error}")).permanent()
        })?;
        for tool in tools {
            registry.register_arc(tool);
        }
    }
    Ok(registry)
}

/// A step without a command: the model works with the tools, at most
/// `max_tool_turns` model turns, then reports `{success, output}`.
async fn run_model_step(
    ctx: &NodeContext,
    deps: &AgentDeps,
    tools: &ToolContext,
    goal: &str,
    step: &PlanStep,
    mut approved_all: bool,
) -> Result<StepOutcome, NodeError> {
    let mut request = ChatRequest::new()
        .system(prompts::EXECUTOR)
        .max_tokens(deps.config.max_answer_tokens)
        .message(Message::user(render(
            prompts::EXECUTOR_USER,
            &[("goal", goal), ("step", &step.description)],
        )));
    let registry = step_tools(deps).await?;
    for definition in registry.definitions() {
        request = request.tool(definition);
    }
    let mut tokens = 0u64;
    let mut last_call: Option<StepOutcome> = None;
    let mut blocked: Option<StepOutcome> = None;
    let mut claim: Option<ExecReport> = None;
    for _turn in 0..deps.config.max_tool_turns.max(1) {
        let response = chat_journaled(
            ctx,
            "executor:model",
            deps.model.as_ref(),
            &crate::model_call::redacted(request.clone()),
        )
        .await?;
        tokens += response.usage.input_tokens + response.usage.output_tokens;
        if response.tool_calls.is_empty() {
            claim = rebound_llm::parse::<ExecReport>(&response.text).ok();
            request = request.message(Message::assistant(response.text));
            break;
        }
        request = request.message(Message::assistant_tool_calls(
            response.text.clone(),
            response.tool_calls.clone(),
        ));
        for call in &response.tool_calls {
            if let Some(problem) = call.arguments_error() {
                // Not run: the model hears what was wrong and may call again.
                request = request.message(Message::tool_result(
                    call.id.clone(),
                    format!("error: {problem}"),
                ));
                continue;
            }
            let outcome = run_tool_call(
                ctx,
                &registry,
                &deps.approval,
                approved_all,
                &call.name,
                call.arguments.clone(),
                tools,
            )
            .await?;
            let folded = from_tool_outcome(&outcome, deps, 0);
            approved_all |= folded.approved_all;
            request = request.message(Message::tool_result(call.id.clone(), folded.output.clone()));
            if folded.denied.is_some() || folded.forbidden.is_some() {
                blocked = Some(folded.clone());
            }
            last_call = Some(folded);
        }
        if blocked.is_some() {
            break;
        }
    }
    if let Some(mut blocked) = blocked {
        blocked.tokens = tokens;
        blocked.approved_all = approved_all;
        return Ok(blocked);
    }
    let claim = match claim {
        Some(claim) => claim,
        None => {
            let report = request.message(Message::user(prompts::EXECUTOR_REPORT));
            let report = ChatRequest {
                tools: Vec::new(),
                ..report
            };
            let answer =
                ask::<ExecReport>(ctx, "executor:report", deps.model.as_ref(), report).await?;
            tokens += answer.tokens;
            match answer.value {
                Ok(report) => report,
                Err(error) => ExecReport {
                    success: false,
                    output: format!("the executor's report is unusable: {error}"),
                },
            }
        }
    };
    let mut outcome = StepOutcome {
        success: claim.success,
        output: shorten(&claim.output, deps.config.prompt_output_chars),
        denied: None,
        forbidden: None,
        approved_all,
        tokens,
        checks: None,
        no_change: false,
    };
    if let Some(last) = last_call.filter(|last| !last.success) {
        outcome.success = false;
        outcome.output = shorten(
            &format!(
                "{}\nThe last tool call failed, so the step failed:\n{}",
                claim.output, last.output
            ),
            deps.config.prompt_output_chars,
        );
    }
    Ok(outcome)
}
