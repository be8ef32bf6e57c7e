//! Shared set-up of the agent's end-to-end tests: real shell and file tools
//! in a temp workspace, a scripted model, a SQLite checkpointer on a temp
//! file.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use rebound_agent::events::AgentEvent;
use rebound_agent::{AgentConfig, AgentDeps};
use rebound_graph::checkpoint::Checkpointer;
use rebound_graph::{CompiledGraph, Event, RunConfig, RunOutcome, State};
use rebound_llm::{ChatModel, Step};
use rebound_tools::approval::{ApprovalMode, ApprovalPolicy, CommandRule};
use rebound_tools::shell::{ShellConfig, ShellTool};
use rebound_tools::{ToolContext, ToolRegistry};

/// Deps for a run in `workspace` with `model`, approval `mode` and extra
/// command `rules`.
pub fn deps(
    model: Arc<dyn ChatModel>,
    workspace: &Path,
    mode: ApprovalMode,
    rules: Vec<CommandRule>,
    config: AgentConfig,
) -> Arc<AgentDeps> {
    deps_with_shell(
        model,
        workspace,
        mode,
        rules,
        config,
        ShellConfig::default(),
    )
}

/// [`deps`] with the shell tool's own settings.
pub fn deps_with_shell(
    model: Arc<dyn ChatModel>,
    workspace: &Path,
    mode: ApprovalMode,
    rules: Vec<CommandRule>,
    config: AgentConfig,
    shell: ShellConfig,
) -> Arc<AgentDeps> {
    let mut tools = ToolRegistry::new();
    tools.register(ShellTool::new(shell));
    rebound_tools::fs::register_file_tools(&mut tools);
    Arc::new(AgentDeps {
        model,
        tools,
        approval: ApprovalPolicy::new(mode).with_rules(rules),
        workspace: ToolContext::new(workspace).unwrap(),
        config,
        mcp: None,
    })
}

/// A SQLite checkpointer in `dir`.
pub fn saver(dir: &Path) -> Arc<dyn Checkpointer> {
    Arc::new(rebound_sqlite::SqliteSaver::open_default(dir.join("state.db")).unwrap())
}

/// A plan answer.
pub fn plan(steps: &[(&str, Option<&str>)]) -> Step {
    let steps: Vec<serde_json::Value> = steps
        .iter()
        .map(|(description, command)| match command {
            Some(command) => serde_json::json!({"description": description, "command": command}),
            None => serde_json::json!({"description": description}),
        })
        .collect();
    Step::json(serde_json::json!({ "steps": steps }))
}

/// A plan answer with a proposed check.
pub fn plan_with_check(check: &str, steps: &[(&str, Option<&str>)]) -> Step {
    let steps: Vec<serde_json::Value> = steps
        .iter()
        .map(|(description, command)| serde_json::json!({"description": description, "command": command}))
        .collect();
    Step::json(serde_json::json!({ "check": check, "steps": steps }))
}

/// A review answer.
pub fn review(verdict: &str, reason: &str, fixes: &[&str]) -> Step {
    Step::json(serde_json::json!({
        "verdict": verdict,
        "reason": reason,
        "fix_suggestions": fixes,
    }))
}

/// A reflection answer.
pub fn reflection(decision: &str, reason: &str) -> Step {
    Step::json(serde_json::json!({ "decision": decision, "reason": reason }))
}

/// A rule from its pattern and action.
pub fn rule(pattern: &str, action: &str) -> CommandRule {
    serde_json::from_value(serde_json::json!({"pattern": pattern, "action": action})).unwrap()
}

/// Runs `input` on thread `t` to its end, collecting the agent's events.
pub async fn run<S: State + std::fmt::Debug>(
    graph: &CompiledGraph<S>,
    input: S,
) -> (S, Vec<AgentEvent>) {
    let mut stream = graph.stream(input, RunConfig::new().with_thread_id("t"));
    let mut events = Vec::new();
    while let Some(event) = stream.next_event().await {
        if let Event::Custom { payload, .. } = &event {
            if let rebound_protocol::Payload::Agent(agent) =
                rebound_protocol::Payload::decode(payload)
            {
                events.push(agent);
            }
        }
    }
    match stream.outcome().await.unwrap() {
        RunOutcome::Completed(state) => (state, events),
        other => panic!("expected the run to complete, got {other:?}"),
    }
}
