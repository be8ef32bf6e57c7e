//! One node of a scaled-out rebound: an API server or a worker process on a
//! shared PostgreSQL database, serving the `scale` test graph. The
//! `scale_out` test starts one `serve` and several `worker`s as real
//! processes, then kills, pauses and resumes them.
//!
//! ```text
//! scale_node serve <postgres-url> <addr>
//! scale_node worker <postgres-url> <concurrency> <lease_ttl_ms> <max_attempts>
//! ```
//!
//! `serve` creates the test's tables, prints `listening on <addr>` as
//! stdout's first line and serves the API with no workers of its own;
//! `worker` runs workers only. Both stop when their stdin closes (the test
//! that started them is gone).
//!
//! The `scale` graph, START -> a -> b -> c -> END, makes journaled effects
//! on an external service of the same database, keyed by the
//! [`rebound_postgres::queue::EffectKey`] of the call (the idempotency
//! key: the same for every attempt of the run). Each call is delivered as
//! a row of `scale_sink (effect_key, run_id, worker_pid, epoch, at)`, with
//! the pid of the worker and the epoch of its lease on the run (read when
//! the node starts); the service keeps the first delivery of a key to
//! reach it in `scale_effects (effect_key, run_id, epoch)` and drops a
//! repeat, as a
//! service that honours idempotency keys does. An attempt stopped between
//! its call and the call's journal entry leaves a call the next attempt
//! makes again (at-least-once delivery: nothing else can know the first
//! one landed); with the key, the effect happens once. The service knows
//! nothing of leases: what keeps a worker paused past its lease from
//! making an effect after its run moved on is the server's own check
//! before each journaled call.
//!
//! * `a` makes the effect `a`.
//! * `b` makes the effect `b`; with `crash` set it then ends its process
//!   (every attempt: the run fails at `max_attempts`); with a `gate` it waits
//!   until the row `scale_gates (gate)` is opened (or the run is
//!   cancelled), then makes the effect `b:after`.
//! * `c` makes the effect `c`.
//!
//! Every node appends `<node>` and each effect's key to `log`.
//!
//! The sink's connections are named `scale_node sink`; those of rebound
//! itself take the `application_name` of the URL, by which the test picks
//! out one worker's connections to end them.

use std::str::FromStr;
use std::time::Duration;

use rebound_graph::{CompiledGraph, NodeContext, NodeError, State, StateGraph, END, START};
use rebound_postgres::queue::EffectKey;
use serde::{Deserialize, Serialize};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

/// The state of the `scale` graph.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
#[serde(default)]
pub struct Scale {
    /// The gate `b` waits at after its first effect (none when empty).
    pub gate: String,
    /// `b` ends its worker's process after its first effect, every time.
    pub crash: bool,
    /// The nodes that ran and the keys of the effects they made, in order.
    #[state(append)]
    pub log: Vec<String>,
}

/// The tables the graph writes and the test reads.
pub const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS scale_sink (
        effect_key TEXT NOT NULL,
        run_id     TEXT NOT NULL,
        worker_pid INTEGER NOT NULL,
        epoch      BIGINT NOT NULL,
        at         TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
    );
    CREATE UNIQUE INDEX IF NOT EXISTS scale_sink_once_per_epoch
        ON scale_sink (effect_key, epoch);
    CREATE TABLE IF NOT EXISTS scale_effects (
        effect_key TEXT PRIMARY KEY,
        run_id     TEXT NOT NULL,
        epoch      BIGINT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS scale_gates (
        gate TEXT PRIMARY KEY,
        open BOOLEAN NOT NULL DEFAULT false
    );";

/// The epoch of this process's lease on the run, if it holds it.
const LEASE_EPOCH: &str = "SELECT epoch FROM rebound_runs
    WHERE run_id = $1 AND status = 'running' AND owner LIKE $2";

/// One call of an effect, in one statement: its delivery (once per key and
/// lease epoch), and the effect itself unless its key was seen before.
const EFFECT: &str = "WITH delivery AS (
        INSERT INTO scale_sink (effect_key, run_id, worker_pid, epoch)
        VALUES ($1, $2, $3, $4) ON CONFLICT (effect_key, epoch) DO NOTHING)
    INSERT INTO scale_effects (effect_key, run_id, epoch)
    VALUES ($1, $2, $4) ON CONFLICT (effect_key) DO NOTHING";

/// How long a node tries a sink query again while the database is away
/// (a restart, an ended connection), as a real application would.
const SINK_PATIENCE: Duration = Duration::from_secs(15);

/// Runs `query` until it succeeds, the run is cancelled, or
/// [`SINK_PATIENCE`] passes; its error is then the node's (`what` failed).
async fn again<T, F, Fut>(ctx: &NodeContext, what: &str, query: F) -> Result<T, NodeError>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, sqlx::Error>>,
{
    let deadline = tokio::time::Instant::now() + SINK_PATIENCE;
    loop {
        match query().await {
            Ok(value) => return Ok(value),
            Err(e) if ctx.is_cancelled() || tokio::time::Instant::now() >= deadline => {
                return Err(NodeError::msg(format!("{what}: {e}")));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// The `application_name` of the sink's connections.
pub const SINK_APPLICATION: &str = "scale_node sink";

/// How often a node at a gate looks at it (and at its cancellation).
const GATE_POLL: Duration = Duration::from_millis(20);

/// Where the graph's effects go: a PostgreSQL sink, or nowhere (the same
/// graph on a single SQLite server, whose state the test compares).
#[derive(Clone, Debug, Default)]
pub struct Sink {
    pool: Option<PgPool>,
}

impl Sink {
    /// The sink of the database at `url`, on connections named
    /// [`SINK_APPLICATION`] (whatever `url` names its own): a test that
    /// cuts a worker's connections to the database leaves its sink alone.
    pub async fn connect(url: &str) -> Result<Self, sqlx::Error> {
        let options = PgConnectOptions::from_str(url)?.application_name(SINK_APPLICATION);
        let pool = PgPoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await?;
        Ok(Sink { pool: Some(pool) })
    }

    /// No sink: effects write nothing, gates are open.
    pub fn none() -> Self {
        Sink { pool: None }
    }

    /// Creates the sink's and the gates' tables if missing.
    pub async fn create_tables(&self) -> Result<(), sqlx::Error> {
        if let Some(pool) = &self.pool {
            sqlx::raw_sql(SCHEMA).execute(pool).await?;
        }
        Ok(())
    }

    /// The epoch of this process's lease on the node's run, read when the
    /// node starts (recorded with its effects).
    async fn epoch(&self, ctx: &NodeContext) -> Result<i64, NodeError> {
        let Some(pool) = &self.pool else {
            return Ok(0);
        };
        let run_id = ctx.run_id().to_string();
        let owner = format!("%:{}:%", std::process::id());
        let epoch: Option<i64> = again(ctx, "reading the lease", || {
            sqlx::query_scalar(LEASE_EPOCH)
                .bind(&run_id)
                .bind(&owner)
                .fetch_optional(pool)
        })
        .await?;
        epoch.ok_or_else(|| NodeError::msg("this worker does not hold the run's lease"))
    }

    /// Makes the node's effect `name`, journaled: its key, once.
    async fn effect(&self, ctx: &NodeContext, epoch: i64, name: &str) -> Result<String, NodeError> {
        let key = EffectKey {
            thread_id: ctx.thread_id().unwrap_or_default().to_string(),
            namespace: String::new(),
            step: i64::try_from(ctx.step()).unwrap_or(i64::MAX),
            task_id: name.to_string(),
            call_index: 0,
        }
        .to_key();
        let pool = self.pool.clone();
        let run_id = ctx.run_id().to_string();
        ctx.try_journal(name, async move {
            let Some(pool) = pool else {
                return Ok::<_, NodeError>(key);
            };
            // Again after a lost connection: the row's (key, epoch) is
            // unique, so an insert that did commit is not made twice.
            let pid = i32::try_from(std::process::id()).unwrap_or(i32::MAX);
            again(ctx, "writing to the sink", || {
                sqlx::query(EFFECT)
                    .bind(&key)
                    .bind(&run_id)
                    .bind(pid)
                    .bind(epoch)
                    .execute(&pool)
            })
            .await?;
            Ok(key)
        })
        .await
    }

    /// Waits until `gate` is open; `false` when the run was cancelled
    /// first.
    async fn wait(&self, ctx: &NodeContext, gate: &str) -> Result<bool, NodeError> {
        let Some(pool) = &self.pool else {
            return Ok(true);
        };
        loop {
            if ctx.is_cancelled() {
                return Ok(false);
            }
            // A gate that cannot be read (the database restarts) is read
            // again.
            let open: Result<Option<bool>, _> =
                sqlx::query_scalar("SELECT open FROM scale_gates WHERE gate = $1")
                    .bind(gate)
                    .fetch_optional(pool)
                    .await;
            if matches!(open, Ok(Some(true))) {
                return Ok(true);
            }
            tokio::time::sleep(GATE_POLL).await;
        }
    }
}

/// The `scale` graph over `sink` (see the file's notes).
pub fn graph(sink: &Sink) -> Result<CompiledGraph<Scale>, rebound_graph::CompileError> {
    let mut graph = StateGraph::<Scale>::new();
    for node in ["a", "c"] {
        let sink = sink.clone();
        graph.add_node(node, move |_, ctx| {
            let sink = sink.clone();
            async move {
                let epoch = sink.epoch(&ctx).await?;
                let key = sink.effect(&ctx, epoch, ctx.node()).await?;
                Ok(ScaleUpdate::default().log(vec![ctx.node().to_string(), key]))
            }
        });
    }
    let sink = sink.clone();
    graph.add_node("b", move |state: std::sync::Arc<Scale>, ctx| {
        let sink = sink.clone();
        async move {
            let epoch = sink.epoch(&ctx).await?;
            let mut log = vec!["b".to_string(), sink.effect(&ctx, epoch, "b").await?];
            if state.crash {
                // A worker that dies on this run, every time it takes it.
                std::process::exit(86);
            }
            if !state.gate.is_empty() {
                if !sink.wait(&ctx, &state.gate).await? {
                    return Ok(ScaleUpdate::default().log(log));
                }
                log.push(sink.effect(&ctx, epoch, "b:after").await?);
            }
            Ok(ScaleUpdate::default().log(log))
        }
    });
    graph
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", "c")
        .add_edge("c", END);
    graph.compile()
}

/// Completes when stdin closes: the process that started this one is gone.
async fn stdin_closed() {
    use tokio::io::AsyncReadExt;
    let mut stdin = tokio::io::stdin();
    let mut buffer = [0_u8; 64];
    while matches!(stdin.read(&mut buffer).await, Ok(n) if n > 0) {}
}

const USAGE: &str = "usage: scale_node serve <postgres-url> <addr>\n       scale_node worker <postgres-url> <concurrency> <lease_ttl_ms> <max_attempts>";

#[allow(dead_code)] // the test includes this file for its graph
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Diagnostics on stderr when asked for (`RUST_LOG=warn`): why a run's
    // attempt was given back, a lease lost.
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    let args: Vec<String> = std::env::args().collect();
    match args.as_slice() {
        [_, mode, url, addr] if mode == "serve" => {
            let sink = Sink::connect(url).await?;
            let server = rebound_server::Server::builder()
                .postgres(url)
                .graph("scale", graph(&sink)?)
                .workers(0)
                .connect()
                .await?;
            // After `connect`, which migrated the schema.
            sink.create_tables().await?;
            let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
            println!("listening on {}", listener.local_addr()?);
            server.serve_with_shutdown(listener, stdin_closed()).await?;
        }
        [_, mode, url, concurrency, ttl_ms, max_attempts] if mode == "worker" => {
            let sink = Sink::connect(url).await?;
            let server = rebound_server::Server::builder()
                .postgres(url)
                .graph("scale", graph(&sink)?)
                .workers(concurrency.parse()?)
                .lease_ttl(Duration::from_millis(ttl_ms.parse()?))
                .max_attempts(max_attempts.parse()?)
                .connect()
                .await?;
            println!("worker {}", std::process::id());
            server.run_workers(stdin_closed()).await?;
        }
        _ => return Err(USAGE.into()),
    }
    Ok(())
}
