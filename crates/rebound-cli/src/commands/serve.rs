//! `rebound serve`: the workflows over HTTP (`rebound-server`), with the
//! workspace's settings, model and tools, and its `state.db`.

use std::sync::Arc;

use anyhow::Context;
use rebound_agent::pev::PevState;
use rebound_agent::reflect::ReflectState;
use rebound_agent::{AgentDeps, Budget};
use rebound_server::Server;
use serde::Deserialize;

use super::flags;
use crate::cli::{GlobalArgs, ServeArgs};
use crate::config::{process_env, Settings};
use crate::deps;
use crate::exit::Exit;
use crate::store::StateDir;
use crate::workflow::Workflow;

/// A new thread's input for the agent's workflows: the goal and, if any,
/// the commands that prove it done (else they are found as `rebound run`
/// finds them).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GoalInput {
    goal: String,
    #[serde(default)]
    checks: Vec<String>,
}

/// Makes a workflow's first state from `{"goal": ..., "checks": [...]}`.
fn goal_input<S: Workflow>(
    settings: &Settings,
) -> impl Fn(serde_json::Value) -> Result<S, String> + Send + Sync + 'static {
    let budget: Budget = settings.agent.budget.clone();
    let configured = settings.checks.clone();
    let workspace = settings.workspace.clone();
    move |value| {
        let input: GoalInput = serde_json::from_value(value).map_err(|e| {
            format!("expected {{\"goal\": \"...\", \"checks\": [\"command\", ...]}}: {e}")
        })?;
        let goal = input.goal.trim();
        if goal.is_empty() {
            return Err("the goal is empty: say what the agent should achieve".to_string());
        }
        let checks = rebound_agent::checks::resolve(&input.checks, &configured, goal, &workspace);
        Ok(S::start(goal, &budget, checks))
    }
}

/// Serves until Ctrl-C.
pub async fn serve(global: &GlobalArgs, args: ServeArgs) -> anyhow::Result<Exit> {
    let flags = flags(global, Some(&args.overrides));
    let settings = super::trust::settings_for_run(global, &flags)?;
    let model = crate::models::open(&settings.model, &process_env)?;
    let state = StateDir::new(&settings.state_dir);
    // Creates and migrates the database (and imports old thread files).
    state.open()?;
    let tools = deps::build(&settings, &settings.workspace, model, &state).await?;
    let deps: Arc<AgentDeps> = Arc::clone(&tools.deps);
    let server = Server::builder()
        .database(state.database())
        .workers(usize::from(args.workers))
        .token(args.token.clone())
        .cors_origins(args.cors_origins.clone())
        .graph_with_input(
            "pev",
            PevState::build(Arc::clone(&deps))?,
            goal_input::<PevState>(&settings),
        )
        .graph_with_input(
            "reflect",
            ReflectState::build(Arc::clone(&deps))?,
            goal_input::<ReflectState>(&settings),
        )
        .graph("supervisor", rebound_agent::supervisor::build(deps)?)
        .build()?;
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .with_context(|| format!("cannot listen on {}", args.addr))?;
    let addr = listener.local_addr()?;
    eprintln!(
        "rebound serve: http://{addr} (assistants pev, reflect, supervisor; workspace {}; model {}; {} workers); Ctrl-C stops",
        settings.workspace.display(),
        settings.model,
        args.workers
    );
    let stop = async {
        let _ = tokio::signal::ctrl_c().await;
        eprintln!("\nCtrl-C: stopping (queued and running runs resume at the next start)");
    };
    let served = server.serve_with_shutdown(listener, stop).await;
    tools.shutdown().await;
    served?;
    Ok(Exit::Success)
}
