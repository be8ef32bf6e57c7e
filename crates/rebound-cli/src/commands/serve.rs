//! `rebound serve`: the workflows over HTTP (`rebound-server`), with the
//! workspace's settings, model and tools, and its `state.db`.

use std::sync::Arc;

use anyhow::Context;
use rebound_agent::pev::PevState;
use rebound_agent::reflect::ReflectState;
use rebound_agent::AgentDeps;
use rebound_server::Server;
use rebound_workspace::{inputs, process_env, RunParts, Settings};

use super::flags;
use crate::cli::{GlobalArgs, ServeArgs, WorkerArgs};
use crate::exit::{usage, Exit};
use crate::workflow::Workflow;

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
            inputs::goal_input::<PevState>(settings),
        )
        .graph_with_input(
            "reflect",
            ReflectState::build(Arc::clone(&deps))?,
            inputs::goal_input::<ReflectState>(settings),
        )
        .graph_with_input(
            "supervisor",
            rebound_agent::supervisor::build(deps)?,
            inputs::request_input,
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
    let settings = crate::gate::settings_for_run(global, &flags(global, Some(&args.overrides)))?;
    let RunParts { tools, .. } = RunParts::open(&settings, &process_env)?;
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
    let settings = crate::gate::settings_for_run(global, &flags(global, Some(&args.overrides)))?;
    // Creates and migrates the database (and imports old thread files).
    let RunParts { state, tools, .. } = RunParts::open(&settings, &process_env)?;
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
