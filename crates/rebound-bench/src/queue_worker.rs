//! `queue-worker`: one worker process of `queue-postgres` (hidden; spawned
//! by that workload). It is rebound-server's own worker: the `bench` graph
//! (`plan` → `act` → `review`, as `bench_server`'s) served by
//! `Server::builder().postgres(url).workers(concurrency)` and
//! `Server::run_workers`.
//!
//! The protocol with the workload, on stdin and stdout:
//!
//! 1. it connects, then prints `ready`;
//! 2. it starts its workers when it reads the line `go`;
//! 3. it stops when stdin closes (or on SIGTERM): its workers finish, and it
//!    prints one JSON line, the claims its workers made (below).
//!
//! A claim is timed without touching the server's code: sqlx reports every
//! statement it runs as a `tracing` event (target `sqlx::query`) with the
//! statement's text, the rows it returned and `elapsed_secs`, the time from
//! sending it on its connection to its last row. [`ClaimRecorder`] keeps
//! the events of the queue's claim statement (one statement: `FOR UPDATE
//! SKIP LOCKED` and the `UPDATE` that leases the runs). The time a claim
//! waits for a pooled connection is not in it. Enabling those events costs
//! the formatting of each statement's event (microseconds against the
//! milliseconds of a round trip).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// The graph id the runs are queued for.
pub const GRAPH_ID: &str = "bench";

/// A text only the queue's claim statement contains
/// (`rebound_postgres::queue`'s `CLAIM`).
const CLAIM_MARK: &str = "FOR UPDATE OF c SKIP LOCKED";

/// The `bench` graph of `rebound-server`'s `bench_server` example: the
/// same file, so that both benchmarks run the same graph.
#[path = "../../rebound-server/examples/common/bench.rs"]
mod bench;
pub use bench::bench_graph;

/// One claim statement: its round trip and how many runs it leased.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Claim {
    /// sqlx's `elapsed_secs` of the statement.
    pub secs: f64,
    /// Rows returned: the runs leased (0: nothing claimable).
    pub runs: u64,
}

/// A `tracing` subscriber that keeps the claim statements sqlx reports and
/// prints warnings and errors (the server's) to stderr; everything else is
/// disabled. A hand-written subscriber rather than `tracing-subscriber`:
/// one event type is kept, and nothing is formatted.
#[derive(Debug, Default)]
pub struct ClaimRecorder {
    claims: Arc<Mutex<Vec<Claim>>>,
    next_span: AtomicU64,
}

impl ClaimRecorder {
    /// A recorder, and the list it appends each claim to.
    pub fn new() -> (Self, Arc<Mutex<Vec<Claim>>>) {
        let recorder = ClaimRecorder::default();
        let claims = Arc::clone(&recorder.claims);
        (recorder, claims)
    }
}

/// The fields of one sqlx statement event.
#[derive(Default)]
struct StatementFields {
    is_claim: bool,
    secs: Option<f64>,
    rows: u64,
}

impl Visit for StatementFields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "db.statement" {
            self.is_claim = value.contains(CLAIM_MARK);
        }
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if field.name() == "elapsed_secs" {
            self.secs = Some(value);
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == "rows_returned" {
            self.rows = value;
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "db.statement" {
            self.is_claim = format!("{value:?}").contains(CLAIM_MARK);
        }
    }
}

/// The fields of a warning, as `name=value` pairs.
#[derive(Default)]
struct Printed(String);

impl Visit for Printed {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write;
        let _ = write!(self.0, " {}={value:?}", field.name());
    }
}

impl Subscriber for ClaimRecorder {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == "sqlx::query" || *metadata.level() <= Level::WARN
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::DEBUG)
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(self.next_span.fetch_add(1, Ordering::Relaxed) + 1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let metadata = event.metadata();
        if metadata.target() == "sqlx::query" {
            let mut fields = StatementFields::default();
            event.record(&mut fields);
            if let (true, Some(secs)) = (fields.is_claim, fields.secs) {
                self.claims
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(Claim {
                        secs,
                        runs: fields.rows,
                    });
            }
        }
        if *metadata.level() <= Level::WARN {
            let mut printed = Printed::default();
            event.record(&mut printed);
            eprintln!(
                "queue-worker {}: {} {}:{}",
                std::process::id(),
                metadata.level(),
                metadata.target(),
                printed.0
            );
        }
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

/// Runs one worker process (see the module's notes) and returns its JSON
/// line: `claim_secs` and `claim_runs`, one entry per claim statement.
pub async fn queue_worker(url: Option<&str>, concurrency: usize) -> Result<Value> {
    let Some(url) = url else {
        bail!("queue-worker needs --url");
    };
    let (recorder, claims) = ClaimRecorder::new();
    tracing::subscriber::set_global_default(recorder).context("installing the claim recorder")?;
    let server = rebound_server::Server::builder()
        .postgres(url)
        .graph(GRAPH_ID, bench_graph()?)
        .workers(concurrency.max(1))
        .connect()
        .await
        .context("connecting the worker to PostgreSQL")?;
    let mut stdout = tokio::io::stdout();
    stdout.write_all(b"ready\n").await?;
    stdout.flush().await?;
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    match lines.next_line().await? {
        Some(line) if line.trim() == "go" => {}
        Some(line) => bail!("queue-worker expected `go`, read {line:?}"),
        // The workload is gone before the start: nothing to do.
        None => {
            return Ok(json!({ "workload": "queue-worker", "claim_secs": [], "claim_runs": [] }))
        }
    }
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("listening for SIGTERM")?;
    let stop = async move {
        tokio::select! {
            () = async { while let Ok(Some(_)) = lines.next_line().await {} } => {}
            _ = terminate.recv() => {}
        }
    };
    server.run_workers(stop).await?;
    let claims = claims.lock().unwrap_or_else(PoisonError::into_inner);
    let secs: Vec<f64> = claims.iter().map(|claim| claim.secs).collect();
    let runs: Vec<u64> = claims.iter().map(|claim| claim.runs).collect();
    Ok(json!({
        "workload": "queue-worker",
        "pid": std::process::id(),
        "claim_secs": secs,
        "claim_runs": runs,
    }))
}
