//! `queue-postgres`: the run queue's throughput on PostgreSQL with
//! rebound-server's own workers (issue 17): `--runs` three-node runs of the
//! `bench` graph through `--workers` worker processes of `--concurrency`
//! workers each.
//!
//! 1. A fresh database on the server of `--url` (else `REBOUND_POSTGRES_URL`,
//!    else a throwaway cluster), dropped at the end.
//! 2. The runs are queued through the HTTP API of an API-only server
//!    (`workers(0)`) in this process, on loopback: `POST /threads`, then
//!    `POST /threads/{id}/runs` (`--runs-per-thread` per thread, 1 by
//!    default). Not timed in `runs_per_s` (`enqueue_s` says how long it
//!    took); the server stops before the workers start.
//! 3. The worker processes (`rebound-bench queue-worker`, this binary)
//!    connect and say `ready`; the clock starts when they are all told
//!    `go` and stops when the queue has no pending and no running run
//!    (looked up every [`POLL`] through the queue's partial indexes).
//!    `runs_per_s` = runs / that time.
//! 4. Every run must have ended `success`, or the workload fails.
//!
//! Claim latency (`claim_p50_ms`, `claim_p99_ms`): the round trip of each
//! claim statement the workers ran during the measurement, as sqlx timed it
//! in the worker processes (see [`crate::queue_worker`]): from sending the
//! statement on a pooled connection to its last row, without the wait for
//! that connection. A claim leases up to 32 runs at once (as many as its
//! process has idle workers); `claims_empty` counts the claims that found
//! nothing (idle polls near the end), and `claim_busy_p50_ms` /
//! `claim_busy_p99_ms` are over the claims that leased at least one run.

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use futures_util::{stream, StreamExt};
use serde_json::{json, Value};
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::postgres_workloads::{server_url, show, Database};
use crate::queue_worker::{bench_graph, GRAPH_ID};
use crate::server_load::checked_json;
use crate::workloads::{percentile, round};

/// How often the end of the measurement is looked for.
const POLL: Duration = Duration::from_millis(10);

/// HTTP requests in flight while queueing.
const ENQUEUE_CONCURRENCY: usize = 16;

/// How long a worker process may take to connect.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// Nodes per run of the `bench` graph.
const NODES_PER_RUN: u64 = 3;

/// The flags of `queue-postgres` (and of `queue-worker`).
#[derive(Debug, Clone, clap::Args)]
pub struct QueueArgs {
    /// `queue-postgres`: worker processes.
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    /// `queue-postgres`, `queue-worker`: workers (concurrent runs) per process.
    #[arg(long, default_value_t = 16)]
    pub concurrency: usize,
    /// `queue-postgres`: runs queued on each thread (one at a time runs per thread).
    #[arg(long, default_value_t = 1)]
    pub runs_per_thread: u64,
    /// `queue-postgres`: give up when the runs are not done after this long.
    #[arg(long, default_value_t = 900.0)]
    pub deadline_s: f64,
}

/// Runs `queue-postgres` (see the module's notes) for `runs` runs.
pub async fn queue_postgres(args: &QueueArgs, runs: u64, url: Option<&str>) -> Result<Value> {
    ensure!(runs > 0, "--runs must be at least 1");
    ensure!(args.workers > 0, "--workers must be at least 1");
    ensure!(
        args.runs_per_thread > 0 && runs.is_multiple_of(args.runs_per_thread),
        "--runs must be a multiple of --runs-per-thread"
    );
    ensure!(
        args.deadline_s.is_finite() && args.deadline_s > 0.0,
        "--deadline-s must be a positive number"
    );
    let (admin_url, source) = server_url(url, "queue-postgres")?;
    let database = Database::create(&admin_url, "queue").await?;
    let measured = measure(args, runs, &database.url).await;
    let dropped = database.drop_now().await;
    let mut line = measured?;
    dropped?;
    if let Some(object) = line.as_object_mut() {
        object.insert("postgres".to_string(), json!(source.as_str()));
    }
    Ok(line)
}

async fn measure(args: &QueueArgs, runs: u64, url: &str) -> Result<Value> {
    let enqueue_s = enqueue(url, runs, args.runs_per_thread).await?;
    let pool = PgPoolOptions::new()
        .max_connections(2)
        .connect(url)
        .await
        .context("connecting to the benchmark's database")?;
    let queued = count_status(&pool, "pending").await?;
    ensure!(
        queued == runs,
        "{queued} runs pending after queueing, not {runs}"
    );
    let fsync = show(&pool, "fsync").await?;
    let synchronous_commit = show(&pool, "synchronous_commit").await?;

    let mut workers = Vec::with_capacity(args.workers);
    for _ in 0..args.workers {
        workers.push(Worker::start(url, args.concurrency).await?);
    }
    let started = Instant::now();
    for worker in &mut workers {
        worker.go().await?;
    }
    let deadline = Duration::from_secs_f64(args.deadline_s);
    let waited = wait_until_drained(&pool, &mut workers, started, deadline).await;
    let wall_s = started.elapsed().as_secs_f64();
    let mut claims = Vec::new();
    let mut stopped = Vec::new();
    for worker in workers {
        stopped.push(worker.stop().await);
    }
    waited?;
    for reported in stopped {
        claims.extend(reported?);
    }

    let outcome = outcome(&pool, runs).await?;
    pool.close().await;
    let stats = ClaimStats::of(&claims);
    Ok(json!({
        "workload": "queue-postgres",
        "runs": runs,
        "node_steps": runs * NODES_PER_RUN,
        "workers": args.workers,
        "concurrency": args.concurrency,
        "runs_per_thread": args.runs_per_thread,
        "wall_s": round(wall_s, 4),
        "runs_per_s": round(runs as f64 / wall_s, 1),
        "enqueue_s": round(enqueue_s, 3),
        "claim_p50_ms": stats.p50_ms,
        "claim_p99_ms": stats.p99_ms,
        "claim_busy_p50_ms": stats.busy_p50_ms,
        "claim_busy_p99_ms": stats.busy_p99_ms,
        "claims": claims.len(),
        "claims_empty": stats.empty,
        "runs_per_busy_claim": stats.runs_per_busy_claim,
        "succeeded": outcome.succeeded,
        "failed": outcome.failed,
        "reclaimed": outcome.reclaimed,
        "checkpoints": outcome.checkpoints,
        "verified": true,
        "cpus": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "fsync": fsync,
        "synchronous_commit": synchronous_commit,
    }))
}

/// Queues `runs` runs through an API-only server on loopback; the seconds
/// it took.
async fn enqueue(url: &str, runs: u64, runs_per_thread: u64) -> Result<f64> {
    let server = rebound_server::Server::builder()
        .postgres(url)
        .graph(GRAPH_ID, bench_graph()?)
        .workers(0)
        .connect()
        .await
        .context("starting the API server that queues the runs")?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.serve_with_shutdown(listener, async move {
        let _ = stopped.await;
    }));
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(ENQUEUE_CONCURRENCY)
        .tcp_nodelay(true)
        .timeout(Duration::from_secs(60))
        .build()
        .context("building the HTTP client")?;
    let started = Instant::now();
    let queued: Vec<Result<()>> = stream::iter(0..runs / runs_per_thread)
        .map(|_| queue_thread(&http, &base, runs_per_thread))
        .buffer_unordered(ENQUEUE_CONCURRENCY)
        .collect()
        .await;
    let enqueue_s = started.elapsed().as_secs_f64();
    let _ = stop.send(());
    serving
        .await
        .context("the API server panicked")?
        .context("the API server failed")?;
    queued.into_iter().collect::<Result<()>>()?;
    Ok(enqueue_s)
}

/// Creates a thread and queues `runs` runs on it, one after the other.
async fn queue_thread(http: &reqwest::Client, base: &str, runs: u64) -> Result<()> {
    let thread = post(http, &format!("{base}/threads"), &json!({})).await?;
    let Some(thread_id) = thread.get("thread_id").and_then(Value::as_str) else {
        bail!("POST /threads answered without a thread_id: {thread}");
    };
    let url = format!("{base}/threads/{thread_id}/runs");
    for _ in 0..runs {
        post(
            http,
            &url,
            &json!({ "assistant_id": GRAPH_ID, "input": {} }),
        )
        .await?;
    }
    Ok(())
}

/// A POST answered 200 with JSON.
async fn post(http: &reqwest::Client, url: &str, body: &Value) -> Result<Value> {
    let response = http
        .post(url)
        .json(body)
        .send()
        .await
        .with_context(|| format!("POST {url}"))?;
    checked_json(response, url).await
}

async fn count_status(pool: &PgPool, status: &str) -> Result<u64> {
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM rebound_runs WHERE status = $1")
        .bind(status)
        .fetch_one(pool)
        .await?;
    Ok(u64::try_from(count).unwrap_or(0))
}

/// Waits until no run is pending or running (the partial indexes of the
/// queue answer this without a scan of the table), failing when a worker
/// process ends first or at the deadline.
async fn wait_until_drained(
    pool: &PgPool,
    workers: &mut [Worker],
    started: Instant,
    deadline: Duration,
) -> Result<()> {
    loop {
        let busy: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM rebound_runs WHERE status = 'pending')
                 OR EXISTS (SELECT 1 FROM rebound_runs WHERE status = 'running')",
        )
        .fetch_one(pool)
        .await?;
        if !busy {
            return Ok(());
        }
        for worker in workers.iter_mut() {
            if let Some(status) = worker.child.try_wait()? {
                bail!("worker process {} ended early: {status}", worker.pid);
            }
        }
        if started.elapsed() > deadline {
            let pending = count_status(pool, "pending").await?;
            let running = count_status(pool, "running").await?;
            bail!("not done after {deadline:?}: {pending} runs pending, {running} running");
        }
        tokio::time::sleep(POLL).await;
    }
}

/// How the runs ended.
struct Outcome {
    succeeded: u64,
    failed: u64,
    /// Runs claimed more than once (a lease lost and the run taken again).
    reclaimed: u64,
    checkpoints: u64,
}

/// Counts how the runs ended; an error unless every one succeeded and left
/// the checkpoints of its three nodes.
async fn outcome(pool: &PgPool, runs: u64) -> Result<Outcome> {
    let by_status: Vec<(String, i64)> =
        sqlx::query_as("SELECT status, count(*) FROM rebound_runs GROUP BY status ORDER BY status")
            .fetch_all(pool)
            .await?;
    let succeeded = by_status
        .iter()
        .filter(|(status, _)| status == "success")
        .map(|(_, count)| u64::try_from(*count).unwrap_or(0))
        .sum::<u64>();
    let total = by_status
        .iter()
        .map(|(_, count)| u64::try_from(*count).unwrap_or(0))
        .sum::<u64>();
    let failed = total - succeeded;
    if succeeded != runs || total != runs {
        let error: Option<String> = sqlx::query_scalar(
            "SELECT error FROM rebound_runs WHERE status <> 'success' AND error IS NOT NULL LIMIT 1",
        )
        .fetch_optional(pool)
        .await?
        .flatten();
        bail!(
            "{succeeded} of {runs} runs succeeded ({failed} did not; by status: {by_status:?}); \
             an error: {}",
            error.as_deref().unwrap_or("none recorded")
        );
    }
    let reclaimed: i64 = sqlx::query_scalar("SELECT count(*) FROM rebound_runs WHERE attempt > 1")
        .fetch_one(pool)
        .await?;
    // The final checkpoint of every thread ran the three nodes: its step is
    // the same on each, and there is one per thread.
    let (threads, checkpoints, min_last, max_last): (i64, i64, Option<i32>, Option<i32>) =
        sqlx::query_as(
            "SELECT count(*), coalesce(sum(n), 0)::bigint, min(last), max(last)
             FROM (SELECT thread, count(*) AS n, max(step) AS last
                   FROM checkpoints GROUP BY thread) t",
        )
        .fetch_one(pool)
        .await?;
    let threads_expected: i64 =
        sqlx::query_scalar("SELECT count(DISTINCT thread_id) FROM rebound_runs")
            .fetch_one(pool)
            .await?;
    ensure!(
        threads == threads_expected && min_last == max_last,
        "checkpoints of {threads} threads of {threads_expected}, last steps from \
         {min_last:?} to {max_last:?}: not every run ran its nodes"
    );
    Ok(Outcome {
        succeeded,
        failed,
        reclaimed: u64::try_from(reclaimed).unwrap_or(0),
        checkpoints: u64::try_from(checkpoints).unwrap_or(0),
    })
}

/// A `queue-worker` process.
struct Worker {
    child: Child,
    pid: u32,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Worker {
    /// Starts a worker process and waits until it says `ready`.
    async fn start(url: &str, concurrency: usize) -> Result<Self> {
        let exe = std::env::current_exe().context("finding this binary")?;
        let mut child = Command::new(exe)
            .arg("queue-worker")
            .arg("--url")
            .arg(url)
            .arg("--concurrency")
            .arg(concurrency.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .context("starting a queue-worker process")?;
        let pid = child.id().unwrap_or(0);
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            bail!("queue-worker {pid}: no stdin or stdout");
        };
        let mut worker = Worker {
            child,
            pid,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
        };
        let mut line = String::new();
        tokio::time::timeout(READY_TIMEOUT, worker.stdout.read_line(&mut line))
            .await
            .with_context(|| format!("queue-worker {pid} not ready after {READY_TIMEOUT:?}"))??;
        ensure!(
            line.trim() == "ready",
            "queue-worker {pid} said {line:?}, not `ready`"
        );
        Ok(worker)
    }

    /// Starts its workers.
    async fn go(&mut self) -> Result<()> {
        if let Some(stdin) = &mut self.stdin {
            stdin.write_all(b"go\n").await?;
            stdin.flush().await?;
        }
        Ok(())
    }

    /// Closes its stdin (it stops), waits for it and reads its claims.
    async fn stop(mut self) -> Result<Vec<(f64, u64)>> {
        drop(self.stdin.take());
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).await?;
        let status = self.child.wait().await?;
        ensure!(
            status.success(),
            "queue-worker {} failed: {status}",
            self.pid
        );
        let Some(line) = rest.lines().rev().find(|line| !line.trim().is_empty()) else {
            bail!("queue-worker {} printed no claims", self.pid);
        };
        let report: Value = serde_json::from_str(line)
            .with_context(|| format!("queue-worker {} printed {line:?}", self.pid))?;
        let secs = report["claim_secs"].as_array().cloned().unwrap_or_default();
        let runs = report["claim_runs"].as_array().cloned().unwrap_or_default();
        ensure!(
            secs.len() == runs.len(),
            "queue-worker {}: claim lists of different lengths",
            self.pid
        );
        Ok(secs
            .iter()
            .zip(&runs)
            .map(|(secs, runs)| (secs.as_f64().unwrap_or(0.0), runs.as_u64().unwrap_or(0)))
            .collect())
    }
}

/// The claim latencies' summary.
#[derive(Debug, Default, PartialEq)]
struct ClaimStats {
    p50_ms: Option<f64>,
    p99_ms: Option<f64>,
    busy_p50_ms: Option<f64>,
    busy_p99_ms: Option<f64>,
    empty: usize,
    runs_per_busy_claim: Option<f64>,
}

impl ClaimStats {
    fn of(claims: &[(f64, u64)]) -> Self {
        let mut all: Vec<f64> = claims.iter().map(|(secs, _)| secs * 1000.0).collect();
        let mut busy: Vec<f64> = claims
            .iter()
            .filter(|(_, runs)| *runs > 0)
            .map(|(secs, _)| secs * 1000.0)
            .collect();
        let leased: u64 = claims.iter().map(|(_, runs)| runs).sum();
        let ms = |values: &mut Vec<f64>, p: f64| percentile(values, p).map(|v| round(v, 3));
        ClaimStats {
            p50_ms: ms(&mut all, 0.50),
            p99_ms: ms(&mut all, 0.99),
            busy_p50_ms: ms(&mut busy, 0.50),
            busy_p99_ms: ms(&mut busy, 0.99),
            empty: claims.len() - busy.len(),
            runs_per_busy_claim: (!busy.is_empty())
                .then(|| round(leased as f64 / busy.len() as f64, 2)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_stats_split_busy_and_empty_claims() {
        let claims = [(0.001, 1), (0.002, 3), (0.010, 0), (0.004, 2)];
        assert_eq!(
            ClaimStats::of(&claims),
            ClaimStats {
                p50_ms: Some(2.0),
                p99_ms: Some(10.0),
                busy_p50_ms: Some(2.0),
                busy_p99_ms: Some(4.0),
                empty: 1,
                runs_per_busy_claim: Some(2.0),
            }
        );
        assert_eq!(ClaimStats::of(&[]), ClaimStats::default());
    }
}
