//! `rebound serve`: the workflows over HTTP (`rebound-server`), with the
//! workspace's settings, model and tools, and its `state.db`.

use std::sync::Arc;

use anyhow::Context;
use rebound_agent::pev::PevState;
use rebound_agent::reflect::ReflectState;
use rebound_agent::supervisor::TutorState;
use rebound_agent::{AgentDeps, Budget};
use rebound_server::Server;
use serde::Deserialize;

use super::flags;
use crate::cli::{GlobalArgs, ServeArgs, WorkerArgs};
use crate::config::{process_env, Settings};
use crate::deps;
use crate::exit::{usage, Exit};
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

/// A new supervisor thread's input: the student's request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestInput {
    request: String,
}

/// Makes the supervisor's first state from `{"request": ...}`, or takes a
/// whole state as it is.
fn request_input(value: serde_json::Value) -> Result<TutorState, String> {
    let input = match serde_json::from_value::<RequestInput>(value.clone()) {
        Ok(input) => input,
        Err(e) => {
            return serde_json::from_value(value)
                .map_err(|_| format!("expected {{\"request\": \"...\"}}: {e}"))
        }
    };
    let request = input.request.trim();
    if request.is_empty() {
        return Err("the request is empty: say what the student asks for".to_string());
    }
    Ok(rebound_agent::supervisor::initial_state(request))
}

/// Refuses, before anything is loaded or announced, an address off
/// loopback without a token (exit code 2). The server checks it again.
fn check_token(args: &ServeArgs) -> anyhow::Result<()> {
    let has_token = args.token.as_deref().is_some_and(|token| !token.is_empty());
    if args.addr.ip().is_loopback() || has_token {
        return Ok(());
    }
    Err(usage(format!(
        "refusing to serve on {} without a token: any address other than 127.0.0.1 / ::1 needs --token (or REBOUND_API_TOKEN), so that only clients that know it can start runs",
        args.addr
    )))
}

/// The stop signals, listened to from before the process says it is
/// ready: a signal that arrives before a listener exists would be lost
/// (or, for SIGINT, kill the process), so both streams are made first.
struct Stops {
    /// The first Ctrl-C or SIGTERM (a service manager stopping it): both
    /// stop it the same way.
    first: tokio::sync::oneshot::Receiver<()>,
    /// A second Ctrl-C after the first stop signal.
    again: tokio::sync::oneshot::Receiver<()>,
}

impl Stops {
    fn listen() -> anyhow::Result<Stops> {
        use tokio::signal::unix::{signal, SignalKind};
        let mut interrupt = signal(SignalKind::interrupt()).context("cannot listen for Ctrl-C")?;
        let mut terminate = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
        let (first_tx, first) = tokio::sync::oneshot::channel();
        let (again_tx, again) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            let _ = first_tx.send(());
            // A Ctrl-C from now on, even one sent before this line runs:
            // the stream keeps it.
            interrupt.recv().await;
            let _ = again_tx.send(());
        });
        Ok(Stops { first, again })
    }
}

/// The server with the workflows `pev`, `reflect` and `supervisor` on
/// the workspace's settings, model and tools.
fn workflows(
    settings: &Settings,
    deps: Arc<AgentDeps>,
) -> anyhow::Result<rebound_server::ServerBuilder> {
    Ok(Server::builder()
        .graph_with_input(
            "pev",
            PevState::build(Arc::clone(&deps))?,
            goal_input::<PevState>(settings),
        )
        .graph_with_input(
            "reflect",
            ReflectState::build(Arc::clone(&deps))?,
            goal_input::<ReflectState>(settings),
        )
        .graph_with_input(
            "supervisor",
            rebound_agent::supervisor::build(deps)?,
            request_input,
        ))
}

/// Runs the runs queued in a shared database until Ctrl-C (or SIGTERM):
/// its running runs stop at their next step and go back to the queue for
/// another worker.
pub async fn worker(global: &GlobalArgs, args: WorkerArgs) -> anyhow::Result<Exit> {
    if !(args.lease_ttl.is_finite() && args.lease_ttl >= 0.1) {
        return Err(usage(format!(
            "--lease-ttl must be a number of seconds of at least 0.1, not {}",
            args.lease_ttl
        )));
    }
    let flags = flags(global, Some(&args.overrides));
    let settings = super::trust::settings_for_run(global, &flags)?;
    let model = crate::models::open(&settings.model, &process_env)?;
    let state = StateDir::new(&settings.state_dir);
    state.open()?;
    let tools = deps::build(&settings, &settings.workspace, model, &state).await?;
    let stops = Stops::listen()?;
    let server = workflows(&settings, Arc::clone(&tools.deps))?
        .postgres(&args.database)
        .workers(usize::from(args.concurrency))
        .lease_ttl(std::time::Duration::from_secs_f64(args.lease_ttl))
        .connect()
        .await?;
    eprintln!(
        "rebound worker: pid {} ({} at once; workspace {}; model {}); Ctrl-C stops",
        std::process::id(),
        args.concurrency,
        settings.workspace.display(),
        settings.model,
    );
    let worked = server
        .run_workers(async {
            let _ = stops.first.await;
            eprintln!("\nstopping: running runs stop at their next step and go back to the queue");
        })
        .await;
    tools.shutdown().await;
    worked?;
    Ok(Exit::Success)
}

/// Serves until Ctrl-C (or SIGTERM): open streams end, running runs stop at their next
/// step and go on at the next start. A second Ctrl-C stops at once.
pub async fn serve(global: &GlobalArgs, args: ServeArgs) -> anyhow::Result<Exit> {
    check_token(&args)?;
    let flags = flags(global, Some(&args.overrides));
    let settings = super::trust::settings_for_run(global, &flags)?;
    let model = crate::models::open(&settings.model, &process_env)?;
    let state = StateDir::new(&settings.state_dir);
    // Creates and migrates the database (and imports old thread files).
    state.open()?;
    let tools = deps::build(&settings, &settings.workspace, model, &state).await?;
    let stops = Stops::listen()?;
    let builder = workflows(&settings, Arc::clone(&tools.deps))?
        .workers(usize::from(args.workers))
        .token(args.token.clone())
        .cors_origins(args.cors_origins.clone());
    let server = match &args.database {
        Some(url) => builder.postgres(url).connect().await?,
        None if args.workers == 0 => {
            return Err(usage(
                "--workers 0 needs a shared --database postgres://...: a workspace's state.db is served by one server, whose workers run its runs",
            ))
        }
        None => builder.database(state.database()).build()?,
    };
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
    let shared = args.database.is_some();
    let Stops { first, again } = stops;
    let stop = async move {
        let _ = first.await;
        eprintln!(
            "\nstopping (Ctrl-C or SIGTERM): open streams end, running runs stop at their next step (a model call in progress finishes first) and go on {}; Ctrl-C again stops now",
            if shared { "on other workers" } else { "at the next start" }
        );
    };
    let stop_now = async {
        if again.await.is_ok() {
            eprintln!("Ctrl-C again: stopping now");
        } else {
            std::future::pending::<()>().await;
        }
    };
    let served = tokio::select! {
        served = server.serve_with_shutdown(listener, stop) => served,
        () = stop_now => Ok(()),
    };
    tools.shutdown().await;
    served?;
    Ok(Exit::Success)
}
