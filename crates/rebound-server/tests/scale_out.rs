//! rebound scaled out, for real: one API server and three worker processes
//! (the `scale_node` example) on one PostgreSQL database, with short
//! leases, killed (`SIGKILL`), paused (`SIGSTOP`) and resumed (`SIGCONT`)
//! while they run.
//!
//! * A worker killed mid-run: the run finishes on another worker at its
//!   second attempt, soon; journaled effects made before the kill are not
//!   repeated; an SSE client sees every event once, in order, across a
//!   reconnect; the thread ends in the state a single SQLite server gives.
//! * A worker paused past its lease and resumed after its run moved on
//!   writes nothing: no effect (the server checks the lease before each
//!   journaled call), event, checkpoint or status.
//! * A cancel stops a running run within its superstep; a run whose worker
//!   dies on every attempt fails at `max_attempts`.
//! * A worker whose every connection to the database is ended
//!   (`pg_terminate_backend`) mid-run, at its gate or inside a checkpoint
//!   write, and a database restarted mid-run: the run still ends
//!   `success`, by the same worker or at a second attempt, with nothing
//!   half-written (one linear checkpoint chain, the whole expected state)
//!   and no effect made before the cut made again.
//!
//! Throughout, a sampler of `rebound_runs` checks that no thread ever has
//! two running runs and no (run, attempt) is held by two workers.
//!
//! The tests run one at a time (they time leases on a small machine).
//! Without PostgreSQL they say so and pass, unless
//! `REBOUND_REQUIRE_POSTGRES=1` (as on CI).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[allow(dead_code)]
#[path = "../examples/scale_node.rs"]
mod scale_node;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::JsonAnswer;
use rebound_postgres::testing::{test_database, TestDatabase};
use serde_json::{json, Value};
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::Row;

/// The workers' lease.
const TTL: Duration = Duration::from_millis(1000);
/// The reaper's period (half a lease, see `rebound_server`).
const REAP: Duration = Duration::from_millis(500);
/// The backoff before a reaped run's second attempt (the queue's default
/// `backoff_base`).
const BACKOFF: Duration = Duration::from_millis(1000);
/// Attempts before a run whose lease keeps expiring fails.
const MAX_ATTEMPTS: u32 = 3;
/// Runs each worker process runs at once.
const CONCURRENCY: usize = 2;
/// How `scale_node` exits when a `crash` run makes it.
const CRASH_EXIT: i32 = 86;

/// One test at a time: the tests time leases, on a 2-core machine.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The example binary, built by `cargo test` beside the test binaries.
fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    dir.join("examples").join("scale_node")
}

/// A `scale_node` process, killed when dropped (also on a panic).
struct Process {
    child: Child,
    pid: u32,
}

impl Process {
    /// Starts `scale_node <args>` and waits for its first line on stdout.
    fn start(args: &[String]) -> (Process, String) {
        let mut child = Command::new(example())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {}: {e} (examples are built by `cargo test -p rebound-server`, or `cargo build -p rebound-server --examples`)",
                    example().display()
                )
            });
        let pid = child.id();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let process = Process { child, pid };
        assert!(!line.is_empty(), "scale_node {args:?} exited at start");
        (process, line.trim().to_string())
    }

    /// Sends `signal` (`STOP`, `CONT`) to the process.
    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid.to_string())
            .status()
            .unwrap();
        assert!(status.success(), "kill -{signal} {}", self.pid);
    }

    /// Kills the process (`SIGKILL`) and reaps it.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// An API server and worker processes on one test database.
struct Cluster {
    db: TestDatabase,
    /// The test's own connections: the sampler, the gates, the checks.
    pool: PgPool,
    base: String,
    client: reqwest::Client,
    /// Kept alive for the cluster's life.
    _api: Process,
    workers: Vec<Process>,
    /// The `application_name` each worker process (by pid) gives its
    /// connections, besides the `rebound pid <pid>` of those that hold
    /// threads.
    applications: BTreeMap<u32, String>,
    /// Samples the running runs from the start (see [`Cluster::checks`]).
    sampler: Option<Sampler>,
    /// The attempts a run may take on its workers.
    max_attempts: u32,
    /// One cluster at a time (dropped last, after the processes).
    _serial: tokio::sync::MutexGuard<'static, ()>,
}

impl Cluster {
    /// The API server and `workers` worker processes on a new database,
    /// once no other test's cluster runs, sampled from then on; `None`
    /// (the test skips) without PostgreSQL.
    async fn start(workers: usize) -> Option<Cluster> {
        Cluster::start_with(workers, MAX_ATTEMPTS).await
    }

    /// [`Cluster::start`] with workers that give a run `max_attempts`.
    async fn start_with(workers: usize, max_attempts: u32) -> Option<Cluster> {
        let serial = SERIAL.lock().await;
        let db = test_database().await.unwrap()?;
        // The API server migrates the schema and makes the sink's tables
        // before it prints its address; workers start after it.
        let (api, line) = Process::start(&["serve".into(), db.url.clone(), "127.0.0.1:0".into()]);
        let addr = line.strip_prefix("listening on ").unwrap().to_string();
        let pool = PgPoolOptions::new()
            .max_connections(4)
            .connect(&db.url)
            .await
            .unwrap();
        let mut cluster = Cluster {
            db,
            pool,
            base: format!("http://{addr}"),
            client: reqwest::Client::new(),
            _api: api,
            workers: Vec::new(),
            applications: BTreeMap::new(),
            sampler: None,
            max_attempts,
            _serial: serial,
        };
        for _ in 0..workers {
            cluster.add_worker();
        }
        cluster.sampler = Some(cluster.sample());
        Some(cluster)
    }

    /// Starts one more worker process, its connections named
    /// `scale worker <n>`.
    fn add_worker(&mut self) {
        let application = format!("scale worker {}", self.applications.len() + 1);
        let separator = if self.db.url.contains('?') { '&' } else { '?' };
        let url = format!(
            "{}{separator}application_name={}",
            self.db.url,
            application.replace(' ', "%20")
        );
        let (worker, _) = Process::start(&[
            "worker".into(),
            url,
            CONCURRENCY.to_string(),
            TTL.as_millis().to_string(),
            self.max_attempts.to_string(),
        ]);
        self.applications.insert(worker.pid, application);
        self.workers.push(worker);
    }

    /// Ends every connection of worker process `pid` to the database
    /// (`pg_terminate_backend`), as a network cut or a database failover
    /// does: those of its pool and its listener (named as `add_worker`
    /// says) and those holding threads (`rebound pid <pid>`). Its sink's
    /// (`scale_node sink`), the API server's and the test's stay. How many
    /// it ended.
    async fn cut(&self, pid: u32) -> i64 {
        let ended: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM (
                 SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE datname = current_database() AND application_name IN ($1, $2)
             ) terminated",
        )
        .bind(&self.applications[&pid])
        .bind(format!("rebound pid {pid}"))
        .fetch_one(&self.pool)
        .await
        .unwrap();
        ended
    }

    /// The connections worker process `pid` has to the database (those
    /// [`Cluster::cut`] ends).
    async fn connections(&self, pid: u32) -> i64 {
        sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND application_name IN ($1, $2)",
        )
        .bind(&self.applications[&pid])
        .bind(format!("rebound pid {pid}"))
        .fetch_one(&self.pool)
        .await
        .unwrap()
    }

    /// The worker process `pid`.
    fn worker(&mut self, pid: u32) -> &mut Process {
        self.workers
            .iter_mut()
            .find(|w| w.pid == pid)
            .unwrap_or_else(|| panic!("no worker process {pid}"))
    }

    /// Queues a `scale` run on `thread` (made if missing); its id.
    async fn create_run(&self, thread: &str, input: Value) -> String {
        let run = self
            .client
            .post(format!("{}/threads/{thread}/runs", self.base))
            .json(&json!({"assistant_id": "scale", "input": input, "if_not_exists": "create"}))
            .json_answer()
            .await;
        run["run_id"]
            .as_str()
            .unwrap_or_else(|| panic!("{run}"))
            .to_string()
    }

    /// The run's row: status, attempt, epoch and owner.
    async fn run(&self, run_id: &str) -> RunRow {
        let row = sqlx::query(
            "SELECT status, attempt, epoch, owner, error FROM rebound_runs WHERE run_id = $1",
        )
        .bind(run_id)
        .fetch_one(&self.pool)
        .await
        .unwrap();
        RunRow {
            status: row.get(0),
            attempt: row.get(1),
            epoch: row.get(2),
            owner_pid: row.get::<Option<String>, _>(3).as_deref().map(owner_pid),
            error: row.get(4),
        }
    }

    /// Waits until `done` holds for the run's row (panics after
    /// `within`); the row.
    async fn wait_run(
        &self,
        run_id: &str,
        within: Duration,
        what: &str,
        done: impl Fn(&RunRow) -> bool,
    ) -> RunRow {
        let deadline = Instant::now() + within;
        loop {
            let row = self.run(run_id).await;
            if done(&row) {
                return row;
            }
            if Instant::now() >= deadline {
                panic!(
                    "{what}: still {row:?}; busy sessions: {:?}",
                    self.sessions().await
                );
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The database's other sessions that are not idle: their state, what
    /// they wait for and their query (why a run is stuck).
    async fn sessions(&self) -> Vec<(String, String)> {
        sqlx::query_as(
            "SELECT COALESCE(state, '') || ' ' || COALESCE(wait_event_type, '') || ' '
                    || COALESCE(application_name, ''), left(query, 120)
             FROM pg_stat_activity
             WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()",
        )
        .fetch_all(&self.pool)
        .await
        .unwrap()
    }

    /// The run's effects in the sink, in order.
    async fn effects(&self, run_id: &str) -> Vec<Effect> {
        sqlx::query(
            "SELECT effect_key, worker_pid, epoch FROM scale_sink WHERE run_id = $1 ORDER BY at",
        )
        .bind(run_id)
        .fetch_all(&self.pool)
        .await
        .unwrap()
        .iter()
        .map(|row| {
            let key: String = row.get(0);
            Effect {
                task: key.rsplit('/').nth(1).unwrap_or_default().to_string(),
                key,
                pid: u32::try_from(row.get::<i32, _>(1)).unwrap(),
                epoch: row.get(2),
            }
        })
        .collect()
    }

    /// Waits until the run has made the effect of `task`; that effect.
    async fn wait_effect(&self, run_id: &str, task: &str) -> Effect {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(effect) = self
                .effects(run_id)
                .await
                .into_iter()
                .find(|e| e.task == task)
            {
                return effect;
            }
            assert!(
                Instant::now() < deadline,
                "run {run_id} made no effect {task}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits until a journal entry of `node` on `thread` is stored: the
    /// effect it records, seen in the sink a moment earlier, will not be
    /// made again (a worker stopped between the two makes it again).
    async fn wait_journaled(&self, thread: &str, node: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let stored: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM checkpoint_writes w
                 JOIN checkpoint_threads t ON t.id = w.thread
                 WHERE t.name = $1 AND w.node = $2 AND w.kind = 'journal'",
            )
            .bind(thread)
            .bind(node)
            .fetch_one(&self.pool)
            .await
            .unwrap();
            if stored > 0 {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "no journal entry of {node} on {thread}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Opens `gate`: the runs waiting at it go on.
    async fn open(&self, gate: &str) {
        sqlx::query(
            "INSERT INTO scale_gates (gate, open) VALUES ($1, true)
             ON CONFLICT (gate) DO UPDATE SET open = true",
        )
        .bind(gate)
        .execute(&self.pool)
        .await
        .unwrap();
    }

    /// The thread's state's values, from the API server.
    async fn values(&self, thread: &str) -> Value {
        let state = self
            .client
            .get(format!("{}/threads/{thread}/state", self.base))
            .json_answer()
            .await;
        assert!(state.get("values").is_some(), "GET state: {state}");
        state["values"].clone()
    }

    /// Everything a worker may write about `run_id` on `thread`: its row,
    /// its events, its thread's record, checkpoints and pending writes, and
    /// its effects.
    async fn footprint(&self, run_id: &str, thread: &str) -> Vec<String> {
        let row = sqlx::query(
            "SELECT
               (SELECT status || ' epoch ' || epoch || ' attempt ' || attempt || ' '
                       || COALESCE(owner, '-') || ' ' || updated_at::text
                  FROM rebound_runs WHERE run_id = $1),
               (SELECT count(*) || ' events, last ' || COALESCE(max(seq), 0)
                  FROM rebound_run_events WHERE run_id = $1),
               (SELECT status || ' ' || updated_at::text
                  FROM rebound_threads WHERE thread_id = $2),
               (SELECT count(*) || ' checkpoints' FROM checkpoints c
                  JOIN checkpoint_threads t ON t.id = c.thread WHERE t.name = $2),
               (SELECT count(*) || ' writes' FROM checkpoint_writes w
                  JOIN checkpoint_threads t ON t.id = w.thread WHERE t.name = $2),
               (SELECT count(*) || ' effects' FROM scale_sink WHERE run_id = $1)",
        )
        .bind(run_id)
        .bind(thread)
        .fetch_one(&self.pool)
        .await
        .unwrap();
        (0..6)
            .map(|i| row.get::<Option<String>, _>(i).unwrap_or_default())
            .collect()
    }

    /// Starts sampling the running runs until the sampler is stopped.
    fn sample(&self) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let task = tokio::spawn({
            let pool = self.pool.clone();
            let stop = Arc::clone(&stop);
            async move {
                let mut seen = Sampled::default();
                while !stop.load(Ordering::Relaxed) {
                    let rows = sqlx::query(
                        "SELECT run_id, thread_id, attempt, owner FROM rebound_runs
                         WHERE status = 'running'",
                    )
                    .fetch_all(&pool)
                    .await;
                    // While the database restarts, it cannot be sampled.
                    let Ok(rows) = rows else {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    };
                    let mut per_thread: BTreeMap<String, usize> = BTreeMap::new();
                    for row in &rows {
                        let (run_id, thread, attempt): (String, String, i32) =
                            (row.get(0), row.get(1), row.get(2));
                        let owner: Option<String> = row.get(3);
                        *per_thread.entry(thread).or_default() += 1;
                        seen.owners
                            .entry((run_id, attempt))
                            .or_default()
                            .insert(owner.unwrap_or_default());
                    }
                    for (thread, running) in per_thread {
                        if running > 1 {
                            seen.crowded.push(format!("{thread}: {running} running"));
                        }
                    }
                    seen.samples += 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                seen
            }
        });
        Sampler { stop, task }
    }
}

/// The parts of a `rebound_runs` row the tests look at.
#[derive(Debug, Clone)]
struct RunRow {
    status: String,
    attempt: i32,
    epoch: i64,
    owner_pid: Option<u32>,
    error: Option<String>,
}

/// One sink row.
#[derive(Debug, Clone, PartialEq)]
struct Effect {
    key: String,
    /// The node's effect name: `a`, `b`, `b:after`, `c`.
    task: String,
    pid: u32,
    epoch: i64,
}

/// The pid in a lease's owner, `host:pid:random`.
fn owner_pid(owner: &str) -> u32 {
    owner
        .rsplit(':')
        .nth(1)
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("an owner without a pid: {owner:?}"))
}

/// What the sampler saw.
#[derive(Debug, Default)]
struct Sampled {
    samples: usize,
    /// The owners seen holding each (run, attempt).
    owners: BTreeMap<(String, i32), BTreeSet<String>>,
    /// Threads seen with more than one running run.
    crowded: Vec<String>,
}

/// Samples `rebound_runs` on a task of its own.
struct Sampler {
    stop: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<Sampled>,
}

impl Sampler {
    /// Stops sampling and checks what it saw: never two running runs on a
    /// thread, never one (run, attempt) held by two workers.
    async fn check(self) -> Sampled {
        self.stop.store(true, Ordering::Relaxed);
        let seen = self.task.await.unwrap();
        assert!(seen.samples > 10, "too few samples: {seen:?}");
        assert!(seen.crowded.is_empty(), "{:?}", seen.crowded);
        let shared: Vec<_> = seen.owners.iter().filter(|(_, o)| o.len() > 1).collect();
        assert!(shared.is_empty(), "attempts run by two workers: {shared:?}");
        seen
    }
}

/// The effects of each (run, epoch) were made by one worker process.
fn one_worker_per_attempt(effects: &[Effect]) {
    let mut pids: BTreeMap<i64, BTreeSet<u32>> = BTreeMap::new();
    for effect in effects {
        pids.entry(effect.epoch).or_default().insert(effect.pid);
    }
    assert!(
        pids.values().all(|p| p.len() == 1),
        "an attempt's effects by two workers: {effects:?}"
    );
}

/// How many times each effect name was made.
fn counts(effects: &[Effect]) -> BTreeMap<&str, usize> {
    let mut count = BTreeMap::new();
    for effect in effects {
        *count.entry(effect.task.as_str()).or_default() += 1;
    }
    count
}

/// One SSE event: its id and name.
#[derive(Debug, Clone, PartialEq)]
struct SseEvent {
    id: u64,
    event: String,
}

/// A client following a run's stream on the API server.
struct Stream {
    response: reqwest::Response,
    buffer: String,
}

impl Stream {
    /// Joins the run's stream, after `last_event_id` if given.
    async fn join(cluster: &Cluster, thread: &str, run_id: &str, last: Option<u64>) -> Stream {
        let mut request = cluster.client.get(format!(
            "{}/threads/{thread}/runs/{run_id}/stream",
            cluster.base
        ));
        if let Some(last) = last {
            request = request.header("Last-Event-ID", last.to_string());
        }
        let response = request.send().await.unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        Stream {
            response,
            buffer: String::new(),
        }
    }

    /// The next event, or `None` when the stream ends or `within` passes
    /// first.
    async fn next(&mut self, within: Duration) -> Option<SseEvent> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut id = None;
                let mut event = None;
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("id: ") {
                        id = value.trim().parse().ok();
                    } else if let Some(value) = line.strip_prefix("event: ") {
                        event = Some(value.trim().to_string());
                    }
                }
                if let (Some(id), Some(event)) = (id, event) {
                    return Some(SseEvent { id, event });
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .ok()?
                .unwrap()?;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

/// A killed worker's run finishes on another worker at its second attempt,
/// within a lease, a reap, a backoff and some slack; the effects made
/// before the kill are not made again; a client of its stream that
/// reconnects sees every event once, in order; the thread's final state is
/// the one a single SQLite server gives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_worker_s_run_finishes_on_another_worker_without_repeating_effects() {
    let Some(mut cluster) = Cluster::start(3).await else {
        return;
    };
    let thread = "killed";
    let input = json!({"gate": "g-kill"});
    let run_id = cluster.create_run(thread, input.clone()).await;
    // Other work meanwhile: two runs on each of two threads (each thread's
    // runs one after the other).
    let mut others = Vec::new();
    for i in 0..4 {
        others.push(
            cluster
                .create_run(&format!("other-{}", i % 2), json!({}))
                .await,
        );
    }
    let mut stream = Stream::join(&cluster, thread, &run_id, None).await;

    // The run waits at its gate, having made `a` and `b`.
    let b = cluster.wait_effect(&run_id, "b").await;
    cluster.wait_journaled(thread, "b").await;
    let row = cluster.run(&run_id).await;
    assert_eq!(
        (row.status.as_str(), row.attempt, row.owner_pid),
        ("running", 1, Some(b.pid)),
        "{row:?}"
    );
    let mut seen = Vec::new();
    while let Some(event) = stream.next(Duration::from_millis(300)).await {
        seen.push(event);
    }
    assert!(!seen.is_empty(), "no event before the kill");
    drop(stream); // the client goes away; it reconnects later

    cluster.worker(b.pid).kill();
    let killed = Instant::now();
    cluster.open("g-kill").await;
    let ended = cluster
        .wait_run(
            &run_id,
            Duration::from_secs(15),
            "the run did not recover",
            |r| r.status != "running" && r.status != "pending",
        )
        .await;
    let recovery = killed.elapsed();
    eprintln!("scale_out: a killed worker's run finished elsewhere {recovery:?} after the kill");
    assert_eq!(
        (ended.status.as_str(), ended.attempt),
        ("success", 2),
        "{ended:?}"
    );
    let bound = TTL + REAP + BACKOFF + Duration::from_millis(2500);
    assert!(
        recovery < bound,
        "recovery took {recovery:?}, more than {bound:?}"
    );

    // The stream, rejoined after the last event seen: every event once,
    // in order, from the first attempt's `metadata` to `end`.
    let mut stream = Stream::join(&cluster, thread, &run_id, seen.last().map(|e| e.id)).await;
    while let Some(event) = stream.next(Duration::from_secs(5)).await {
        let end = event.event == "end";
        seen.push(event);
        if end {
            break;
        }
    }
    let ids: Vec<u64> = seen.iter().map(|e| e.id).collect();
    assert_eq!(ids, (1..=ids.len() as u64).collect::<Vec<_>>(), "{seen:?}");
    assert_eq!(
        seen.first().map(|e| e.event.as_str()),
        Some("metadata"),
        "{seen:?}"
    );
    assert_eq!(
        seen.last().map(|e| e.event.as_str()),
        Some("end"),
        "{seen:?}"
    );
    let metadata = seen.iter().filter(|e| e.event == "metadata").count();
    assert_eq!(metadata, 2, "one `metadata` per attempt: {seen:?}");

    // `a` and `b` ran once, under the killed worker's lease; the rest once,
    // under the next one's.
    let effects = cluster.effects(&run_id).await;
    one_worker_per_attempt(&effects);
    assert_eq!(
        counts(&effects),
        BTreeMap::from([("a", 1), ("b", 1), ("b:after", 1), ("c", 1)]),
        "{effects:?}"
    );
    for effect in &effects {
        let first = effect.task == "a" || effect.task == "b";
        let (pid_ok, epoch) = if first {
            (effect.pid == b.pid, b.epoch)
        } else {
            (effect.pid != b.pid, ended.epoch)
        };
        assert!(pid_ok && effect.epoch == epoch, "{effect:?} in {effects:?}");
    }

    // The other runs all succeeded (those the killed worker had too, at
    // their second attempt), each effect made, at most twice (once when
    // the kill did not fall between an effect and its journal entry).
    for other in &others {
        let row = cluster
            .wait_run(other, Duration::from_secs(10), "another run", |r| {
                r.status == "success"
            })
            .await;
        assert!(row.attempt <= 2, "{row:?}");
        let effects = cluster.effects(other).await;
        let made = counts(&effects);
        assert_eq!(
            made.keys().copied().collect::<Vec<_>>(),
            ["a", "b", "c"],
            "{effects:?}"
        );
        assert!(made.values().all(|n| *n <= 2), "{effects:?}");
        one_worker_per_attempt(&effects);
    }
    cluster.checks().await;

    // The same run on a single SQLite server ends in the same state.
    let values = cluster.values(thread).await;
    let dir = tempfile::tempdir().unwrap();
    let sqlite = rebound_server::Server::builder()
        .database(dir.path().join("state.db"))
        .graph(
            "scale",
            scale_node::graph(&scale_node::Sink::none()).unwrap(),
        )
        .workers(1)
        .build()
        .unwrap();
    let base = common::serve_on_loopback(sqlite).await;
    let client = reqwest::Client::new();
    client
        .post(format!("{base}/threads/{thread}/runs/wait"))
        .json(&json!({"assistant_id": "scale", "input": input, "if_not_exists": "create"}))
        .json_answer()
        .await;
    let single: Value = client
        .get(format!("{base}/threads/{thread}/state"))
        .json_answer()
        .await;
    assert_eq!(values, single["values"]);
    let keys: Vec<&str> = effects.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        values["log"],
        json!(["a", keys[0], "b", keys[1], keys[2], "c", keys[3]]),
        "{values}"
    );
}

impl Cluster {
    /// The whole database's invariants, at the end of a test: no effect made
    /// three times, each attempt's effects by one worker, and what the
    /// sampler saw.
    async fn checks(&mut self) {
        let sampler = self.sampler.take().expect("checked once, after start");
        let cluster: &Cluster = self;
        let seen = sampler.check().await;
        let repeated: Vec<(String, i64)> = sqlx::query_as(
            "SELECT effect_key, count(*) FROM scale_sink GROUP BY effect_key HAVING count(*) > 2",
        )
        .fetch_all(&cluster.pool)
        .await
        .unwrap();
        assert!(
            repeated.is_empty(),
            "effects made more than twice: {repeated:?}"
        );
        let split: Vec<(String, i64)> = sqlx::query_as(
            "SELECT run_id, epoch FROM scale_sink GROUP BY run_id, epoch
             HAVING count(DISTINCT worker_pid) > 1",
        )
        .fetch_all(&cluster.pool)
        .await
        .unwrap();
        assert!(
            split.is_empty(),
            "attempts with effects by two workers: {split:?}"
        );
        eprintln!(
            "scale_out: {} samples of the running runs, {} (run, attempt) seen",
            seen.samples,
            seen.owners.len()
        );
    }
}

/// A worker paused (`SIGSTOP`) past its lease loses its run to another
/// worker; resumed (`SIGCONT`) after the run finished, it writes nothing:
/// no effect, event, checkpoint, pending write, run or thread status. Twice:
/// paused at the run's gate (it resumes as the gate is open, its lease
/// long gone), and paused inside a fenced checkpoint write's transaction
/// (which holds the run's row: the reaper must still get the run back).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_worker_resumed_after_its_run_moved_on_writes_nothing() {
    let Some(mut cluster) = Cluster::start(3).await else {
        return;
    };
    pause_past_the_lease(&mut cluster, "paused-at-gate", Hold::AtGate).await;
    pause_past_the_lease(&mut cluster, "paused-writing", Hold::InTransaction).await;
    cluster.checks().await;
}

/// Where a gated run's worker is stopped (paused or cut off).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Hold {
    /// Waiting at its run's gate, after the effects `a` and `b` (and `b`'s
    /// journal entry).
    AtGate,
    /// Inside the transaction of a fenced checkpoint write, which holds
    /// the run's row (`FOR SHARE`) until it commits.
    InTransaction,
}

/// A gated run whose worker has reached the place to be stopped at.
struct Held {
    run_id: String,
    gate: String,
    /// The worker running it.
    pid: u32,
    /// The epoch of its lease.
    epoch: i64,
    /// For [`Hold::InTransaction`]: the test's lock on the checkpoint
    /// tables, which the worker's write waits for; committing it lets the
    /// write through.
    lock: Option<sqlx::Transaction<'static, sqlx::Postgres>>,
}

/// Starts a gated run on `thread` and waits until its worker is `at`.
async fn hold_run(cluster: &Cluster, thread: &str, at: Hold) -> Held {
    let gate = format!("g-{thread}");
    // Checkpoint writes wait (inside their transaction) while the test
    // holds this lock.
    let mut lock = None;
    if at == Hold::InTransaction {
        let mut tx = cluster.pool.begin().await.unwrap();
        sqlx::query("LOCK TABLE checkpoints, checkpoint_writes IN EXCLUSIVE MODE")
            .execute(&mut *tx)
            .await
            .unwrap();
        lock = Some(tx);
    }
    let run_id = cluster.create_run(thread, json!({ "gate": gate })).await;
    let (pid, epoch) = match at {
        Hold::AtGate => {
            let b = cluster.wait_effect(&run_id, "b").await;
            cluster.wait_journaled(thread, "b").await;
            (b.pid, b.epoch)
        }
        Hold::InTransaction => {
            let deadline = Instant::now() + Duration::from_secs(10);
            while cluster
                .sessions()
                .await
                .iter()
                .all(|(state, _)| !(state.contains("Lock") && state.contains("scale worker")))
            {
                assert!(Instant::now() < deadline, "no checkpoint write waited");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            let row = cluster.run(&run_id).await;
            let sessions = cluster.sessions().await;
            let pid = row
                .owner_pid
                .unwrap_or_else(|| panic!("no owner: {row:?}, sessions {sessions:?}"));
            (pid, row.epoch)
        }
    };
    Held {
        run_id,
        gate,
        pid,
        epoch,
        lock,
    }
}

/// Runs a gated run on `thread`, pauses its worker `at`, lets the run be
/// taken over and finish, resumes the worker and checks it wrote nothing.
async fn pause_past_the_lease(cluster: &mut Cluster, thread: &str, pause: Hold) {
    let Held {
        run_id,
        gate,
        pid,
        epoch,
        lock,
    } = hold_run(cluster, thread, pause).await;
    cluster.worker(pid).signal("STOP");
    let paused = Instant::now();
    if let Some(lock) = lock {
        // The paused worker's write goes through; its commit never comes.
        lock.commit().await.unwrap();
    }

    // Another worker takes the run over once the lease lapses.
    let taken = cluster
        .wait_run(
            &run_id,
            Duration::from_secs(10),
            "the run was not taken over",
            |r| r.status == "running" && r.attempt == 2,
        )
        .await;
    assert_ne!(taken.owner_pid, Some(pid), "{taken:?}");
    eprintln!(
        "scale_out: a worker paused {pause:?} lost its run after {:?}",
        paused.elapsed()
    );
    cluster.open(&gate).await;
    let ended = cluster
        .wait_run(
            &run_id,
            Duration::from_secs(10),
            "the run did not end",
            |r| r.status != "running",
        )
        .await;
    assert_eq!(
        (ended.status.as_str(), ended.attempt),
        ("success", 2),
        "{ended:?}"
    );
    let before = cluster.footprint(&run_id, thread).await;
    let values = cluster.values(thread).await;

    // The zombie wakes up, its lease long gone.
    cluster.worker(pid).signal("CONT");
    tokio::time::sleep(TTL * 2).await;
    let after = cluster.footprint(&run_id, thread).await;
    assert_eq!(before, after, "the resumed worker wrote");
    assert_eq!(values, cluster.values(thread).await);
    let effects = cluster.effects(&run_id).await;
    one_worker_per_attempt(&effects);
    let made = counts(&effects);
    assert_eq!(
        made.keys().copied().collect::<Vec<_>>(),
        ["a", "b", "b:after", "c"],
        "{effects:?}"
    );
    // What the paused worker did, it did before its pause, under its lease;
    // an effect in flight then is made again (once more at most).
    for effect in &effects {
        let ok = if effect.pid == pid {
            effect.epoch == epoch && (effect.task == "a" || effect.task == "b")
        } else {
            effect.epoch == ended.epoch
        };
        assert!(ok, "{effect:?} in {effects:?}");
    }
    assert!(made.values().all(|n| *n <= 2), "{effects:?}");
    assert_eq!((made["b:after"], made["c"]), (1, 1), "{effects:?}");
    if pause == Hold::AtGate {
        assert_eq!((made["a"], made["b"]), (1, 1), "{effects:?}");
    }
    // It lives on (it lost a run, nothing more).
    assert!(
        cluster.worker(pid).child.try_wait().unwrap().is_none(),
        "the resumed worker exited"
    );
}

/// A cancel stops a running run within its superstep; a run whose worker
/// dies on every attempt fails once it took `max_attempts` claims.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_stops_a_run_and_a_run_that_kills_its_workers_fails_at_max_attempts() {
    let Some(mut cluster) = Cluster::start(3).await else {
        return;
    };

    // Cancelled at its gate (never opened): it stops there.
    let thread = "cancelled";
    let run_id = cluster.create_run(thread, json!({"gate": "g-never"})).await;
    cluster.wait_effect(&run_id, "b").await;
    let asked = Instant::now();
    let response = cluster
        .client
        .post(format!(
            "{}/threads/{thread}/runs/{run_id}/cancel",
            cluster.base
        ))
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let ended = cluster
        .wait_run(
            &run_id,
            Duration::from_secs(5),
            "the cancel did not stop the run",
            |r| r.status != "running",
        )
        .await;
    let took = asked.elapsed();
    eprintln!("scale_out: a cancelled run stopped {took:?} after the cancel");
    assert_eq!(
        (ended.status.as_str(), ended.attempt),
        ("interrupted", 1),
        "{ended:?}"
    );
    assert!(took < TTL, "the cancel took {took:?}");
    let effects = cluster.effects(&run_id).await;
    assert_eq!(
        counts(&effects),
        BTreeMap::from([("a", 1), ("b", 1)]),
        "{effects:?}"
    );
    let values = cluster.values(thread).await;
    let log: Vec<&str> = values["log"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        !log.contains(&"c"),
        "the run went on after its cancel: {values}"
    );

    // Every worker that takes this run dies: three attempts, three deaths,
    // then the reaper of a fresh worker fails it.
    let run_id = cluster.create_run("crashing", json!({"crash": true})).await;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(30);
    let mut deaths = 0;
    let ended = loop {
        let row = cluster.run(&run_id).await;
        if row.status != "running" && row.status != "pending" {
            break row;
        }
        assert!(
            Instant::now() < deadline,
            "the crashing run did not fail: {row:?}"
        );
        let mut index = 0;
        while index < cluster.workers.len() {
            match cluster.workers[index].child.try_wait().unwrap() {
                Some(status) => {
                    assert_eq!(status.code(), Some(CRASH_EXIT), "a worker died otherwise");
                    cluster.workers.remove(index);
                    deaths += 1;
                }
                None => index += 1,
            }
        }
        while cluster.workers.len() < 3 {
            cluster.add_worker();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(
        (ended.status.as_str(), ended.attempt as u32),
        ("error", MAX_ATTEMPTS),
        "{ended:?}"
    );
    eprintln!(
        "scale_out: a run that kills its workers failed after {deaths} deaths, in {:?}",
        started.elapsed()
    );
    assert_eq!(deaths, MAX_ATTEMPTS, "{ended:?}");
    assert!(
        ended
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("lease expired"),
        "{ended:?}"
    );
    // Its effects were journaled before each death: made once.
    let effects = cluster.effects(&run_id).await;
    assert_eq!(
        counts(&effects),
        BTreeMap::from([("a", 1), ("b", 1)]),
        "{effects:?}"
    );
    let thread: Value = cluster
        .client
        .get(format!("{}/threads/crashing", cluster.base))
        .json_answer()
        .await;
    assert_eq!(thread["status"], "error", "{thread}");
    cluster.checks().await;
}

/// A worker cut off from the database mid-run (every connection it has
/// ended by `pg_terminate_backend`, as a network cut or a failover does)
/// stays up, and its run still ends `success`: finished by the same
/// worker once it reconnects, or given to another at its second attempt.
/// Nothing is half-written: the thread's checkpoints are one linear
/// chain, each holding a prefix of the final state, which is the whole
/// expected one; pending writes are not doubled; the effects made before
/// the cut are not made again. Twice: cut while the run waits at its gate
/// (after the effects `a` and `b`), and cut inside a fenced checkpoint
/// write's transaction (which PostgreSQL then rolls back).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_cut_off_from_the_database_mid_run_loses_nothing() {
    let Some(mut cluster) = Cluster::start(3).await else {
        return;
    };
    cut_mid_run(&mut cluster, "cut-at-gate", Hold::AtGate).await;
    cut_mid_run(&mut cluster, "cut-writing", Hold::InTransaction).await;
    cluster.checks().await;
}

/// The database restarted (`pg_ctl restart -m fast`) while a run waits at
/// its gate: every session of every process ends, and connections are
/// refused until it is back. The workers, the API server and the run
/// recover: it ends as a worker cut off alone does (see
/// [`a_worker_cut_off_from_the_database_mid_run_loses_nothing`]), and a
/// run queued after the restart runs too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_restarted_mid_run_loses_nothing() {
    if std::env::var("REBOUND_POSTGRES_URL").is_ok_and(|url| !url.is_empty()) {
        eprintln!(
            "skipped: the test restarts only a cluster it started (REBOUND_POSTGRES_URL is set)"
        );
        return;
    }
    let Some(mut cluster) = Cluster::start(3).await else {
        return;
    };
    let thread = "restarted";
    let run_id = cluster
        .create_run(thread, json!({ "gate": "g-restart" }))
        .await;
    let b = cluster.wait_effect(&run_id, "b").await;
    cluster.wait_journaled(thread, "b").await;
    let restart = Instant::now();
    rebound_postgres::testing::restart_cluster().unwrap();
    eprintln!(
        "scale_out: the database restarted in {:?}",
        restart.elapsed()
    );
    cluster.open("g-restart").await;
    ends_whole(&mut cluster, thread, &run_id, b.pid, restart, "restart").await;
    let effects = cluster.effects(&run_id).await;
    let made = counts(&effects);
    assert_eq!((made["a"], made["b"]), (1, 1), "{effects:?}");

    // A run queued after the restart runs as ever.
    let after = cluster.create_run("after-restart", json!({})).await;
    let ended = cluster
        .wait_run(&after, Duration::from_secs(10), "a later run", |r| {
            r.status != "running" && r.status != "pending"
        })
        .await;
    assert_eq!(
        (ended.status.as_str(), ended.attempt),
        ("success", 1),
        "{ended:?}"
    );
    for worker in &mut cluster.workers {
        assert!(
            worker.child.try_wait().unwrap().is_none(),
            "a worker exited"
        );
    }
    cluster.checks().await;
}

/// Runs a gated run on `thread`, ends its worker's connections `at`,
/// opens the gate and checks the run ends well, with nothing half-written.
async fn cut_mid_run(cluster: &mut Cluster, thread: &str, cut: Hold) {
    let Held {
        run_id,
        gate,
        pid,
        lock,
        ..
    } = hold_run(cluster, thread, cut).await;
    let before = cluster.run(&run_id).await;
    assert_eq!(
        (before.status.as_str(), before.attempt, before.owner_pid),
        ("running", 1, Some(pid)),
        "{before:?}"
    );
    let ended = cluster.cut(pid).await;
    assert!(ended > 0, "worker {pid} had no connection to end");
    let cut_at = Instant::now();
    if let Some(lock) = lock {
        lock.commit().await.unwrap();
    }
    cluster.open(&gate).await;
    ends_whole(cluster, thread, &run_id, pid, cut_at, &format!("{cut:?}")).await;
    if cut == Hold::AtGate {
        let effects = cluster.effects(&run_id).await;
        let made = counts(&effects);
        assert_eq!((made["a"], made["b"]), (1, 1), "{effects:?}");
    }
}

/// Waits for the gated run `run_id` on `thread`, whose worker `pid` lost
/// its connections at `cut_at` (`how`), to end, and checks it ended well:
/// `success` within two attempts, each effect made (once, but for one in
/// flight at the cut: twice at most), the whole expected state, nothing
/// half-written, and its worker alive and connected again.
async fn ends_whole(
    cluster: &mut Cluster,
    thread: &str,
    run_id: &str,
    pid: u32,
    cut_at: Instant,
    how: &str,
) {
    let ended = cluster
        .wait_run(
            run_id,
            Duration::from_secs(20),
            "the run of a worker cut off did not end",
            |r| r.status != "running" && r.status != "pending",
        )
        .await;
    let took = cut_at.elapsed();
    let effects = cluster.effects(run_id).await;
    let finisher = effects.iter().rfind(|e| e.task == "c").map(|e| e.pid);
    eprintln!(
        "scale_out: a run whose worker was cut off ({how}) ended {took:?} later, {:?} at attempt {}: {}",
        ended.status,
        ended.attempt,
        who_finished(finisher, pid),
    );
    assert_eq!(ended.status, "success", "{ended:?} {effects:?}");
    assert!(ended.attempt <= 2, "{ended:?}");

    // Effects: each once, but one in flight at the cut (made again once at
    // most).
    one_worker_per_attempt(&effects);
    let made = counts(&effects);
    assert_eq!(
        made.keys().copied().collect::<Vec<_>>(),
        ["a", "b", "b:after", "c"],
        "{effects:?}"
    );
    assert!(made.values().all(|n| *n <= 2), "{effects:?}");
    if ended.attempt == 1 {
        assert!(made.values().all(|n| *n == 1), "{effects:?}");
    }

    // The final state is the whole expected one.
    let key = |task: &str| {
        effects
            .iter()
            .find(|e| e.task == task)
            .map(|e| e.key.clone())
            .unwrap()
    };
    let log = json!(["a", key("a"), "b", key("b"), key("b:after"), "c", key("c")]);
    let values = cluster.values(thread).await;
    assert_eq!(values["log"], log, "{values}");
    nothing_half_written(cluster, thread, &log).await;

    // The worker lives on, connected again.
    let deadline = Instant::now() + Duration::from_secs(10);
    while cluster.connections(pid).await == 0 {
        assert!(Instant::now() < deadline, "worker {pid} did not reconnect");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        cluster.worker(pid).child.try_wait().unwrap().is_none(),
        "the worker cut off exited"
    );
}

/// Who finished the run, for the test's log.
fn who_finished(owner: Option<u32>, cut: u32) -> &'static str {
    if owner == Some(cut) {
        "the worker cut off finished it"
    } else {
        "another worker finished it"
    }
}

/// The thread's checkpoints are one chain (each the child of the one
/// before, one per step), each holding a prefix of `log`; no pending write
/// is stored twice.
async fn nothing_half_written(cluster: &Cluster, thread: &str, log: &Value) {
    let chain: Vec<(i64, Option<i64>, i32)> = sqlx::query_as(
        "SELECT c.id, c.parent, c.step FROM checkpoints c
         JOIN checkpoint_threads t ON t.id = c.thread WHERE t.name = $1
         ORDER BY c.step, c.id",
    )
    .bind(thread)
    .fetch_all(&cluster.pool)
    .await
    .unwrap();
    assert!(!chain.is_empty());
    assert_eq!(chain[0].1, None, "{chain:?}");
    for pair in chain.windows(2) {
        let ((id, _, step), (_, parent, next_step)) = (pair[0], pair[1]);
        assert_eq!(
            (parent, next_step),
            (Some(id), step + 1),
            "not one linear chain: {chain:?}"
        );
    }
    let doubled: Vec<(i64, String, String, String, i64)> = sqlx::query_as(
        "SELECT w.checkpoint, w.node, w.kind, w.key, count(*) FROM checkpoint_writes w
         JOIN checkpoint_threads t ON t.id = w.thread WHERE t.name = $1
         GROUP BY 1, 2, 3, 4 HAVING count(*) > 1",
    )
    .bind(thread)
    .fetch_all(&cluster.pool)
    .await
    .unwrap();
    assert!(
        doubled.is_empty(),
        "pending writes stored twice: {doubled:?}"
    );

    let history: Value = cluster
        .client
        .post(format!("{}/threads/{thread}/history", cluster.base))
        .json(&json!({"limit": 100}))
        .json_answer()
        .await;
    let states = history.as_array().unwrap();
    assert_eq!(states.len(), chain.len(), "{history}");
    let full = log.as_array().unwrap();
    for state in states {
        let at = state["values"]["log"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            full.starts_with(&at),
            "a checkpoint's state is not a prefix of the final one: {state}"
        );
    }
}

/// A run's stored events, tallied: its id, how many, the highest seq, the
/// `metadata` and `end` events among them, its attempts, the last event.
type EventTally = (String, i64, i64, i64, i64, i32, Option<String>);

/// A chaos soak: `REBOUND_CHAOS_RUNS` runs (default 400) of the `scale`
/// graph over 20 threads on 4 worker processes, while a driver seeded by
/// `REBOUND_CHAOS_SEED` (default 1) does, every 0.1–0.5 s, one of: kill a
/// worker (`SIGKILL`) and start another; pause one past its lease
/// (`SIGSTOP`) and resume it (`SIGCONT`); end one's connections to the
/// database; and once, after 4 s, restarts PostgreSQL (when the test
/// started it). Afterwards the whole history is read:
///
/// * every run ended, once, `success`, and its thread's state holds each
///   of its runs' nodes and effect keys, in the order the runs were made;
/// * an effect key delivered again only by a later attempt (whose earlier
///   one stopped between the call and its journal entry), with the same
///   key, so the service kept each of the `3 × runs` effects once (the
///   first delivery to reach it, not always the earliest attempt's); an
///   attempt's effects by one worker; the repeated deliveries are counted;
/// * each thread's checkpoints form one chain (no two with one parent);
/// * each run's stored events are numbered 1..n without a gap or a
///   repeat, with at most one `metadata` per attempt and one `end`, last;
/// * what the sampler saw: never two running runs on a thread, never an
///   attempt held by two workers.
///
/// It prints runs per second under chaos (the runs are made while it goes
/// on) and, for every killed or paused worker, how long from the kill or
/// the pause until no run it held was still held by it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chaos_soak_ends_every_run_once_with_a_whole_history() {
    let runs: usize = std::env::var("REBOUND_CHAOS_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400);
    let mut seed: u64 = std::env::var("REBOUND_CHAOS_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let own_database = !std::env::var("REBOUND_POSTGRES_URL").is_ok_and(|url| !url.is_empty());
    // Enough attempts that the chaos does not spend a run's (the database
    // restart alone lapses every lease): each run must end `success`.
    let Some(mut cluster) = Cluster::start_with(4, 10).await else {
        return;
    };
    // xorshift: a soak that fails can be run again as it was.
    let mut random = move |below: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % below
    };
    let threads = 20;
    let started = Instant::now();
    // The runs are made while the chaos goes on.
    let creator = tokio::spawn({
        let client = cluster.client.clone();
        let base = cluster.base.clone();
        async move {
            let mut made: Vec<(String, String)> = Vec::new();
            for n in 0..runs {
                let thread = format!("chaos-{}", n % threads);
                let run = client
                    .post(format!("{base}/threads/{thread}/runs"))
                    .json(&json!({"assistant_id": "scale", "input": {}, "if_not_exists": "create"}))
                    .json_answer()
                    .await;
                let run_id = run["run_id"]
                    .as_str()
                    .unwrap_or_else(|| panic!("run {n}: {run}"))
                    .to_string();
                made.push((thread, run_id));
            }
            made
        }
    });

    // The driver, until every run has ended.
    let mut recoveries: Vec<tokio::task::JoinHandle<Duration>> = Vec::new();
    let mut actions = BTreeMap::<&str, usize>::new();
    let mut restarted = false;
    let deadline = Instant::now() + Duration::from_secs(60 + runs as u64 / 2);
    loop {
        let open: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM rebound_runs WHERE status IN ('pending', 'running')",
        )
        .fetch_one(&cluster.pool)
        .await
        .unwrap_or(1);
        if open == 0 && creator.is_finished() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{open} runs still open; busy sessions: {:?}",
            cluster.sessions().await
        );
        tokio::time::sleep(Duration::from_millis(100 + random(400))).await;
        let index = random(cluster.workers.len() as u64) as usize;
        let pid = cluster.workers[index].pid;
        let held: Vec<String> = sqlx::query_scalar(
            "SELECT run_id FROM rebound_runs WHERE status = 'running' AND owner LIKE $1",
        )
        .bind(format!("%:{pid}:%"))
        .fetch_all(&cluster.pool)
        .await
        .unwrap_or_default();
        let at = Instant::now();
        let action = if own_database && !restarted && started.elapsed() > Duration::from_secs(4) {
            restarted = true;
            rebound_postgres::testing::restart_cluster().unwrap();
            "restart the database"
        } else {
            match random(3) {
                0 => {
                    cluster.workers.remove(index).kill();
                    cluster.add_worker();
                    "kill a worker"
                }
                1 => {
                    let worker = &cluster.workers[index];
                    worker.signal("STOP");
                    tokio::time::sleep(TTL + REAP + Duration::from_millis(200)).await;
                    worker.signal("CONT");
                    "pause a worker past its lease"
                }
                _ => {
                    cluster.cut(pid).await;
                    "end a worker's connections"
                }
            }
        };
        *actions.entry(action).or_default() += 1;
        if !held.is_empty() && action != "end a worker's connections" {
            let pool = cluster.pool.clone();
            recoveries.push(tokio::spawn(async move {
                // Until none of its runs is still held by it.
                loop {
                    let still: i64 = sqlx::query_scalar(
                        "SELECT count(*) FROM rebound_runs
                         WHERE run_id = ANY($1) AND status = 'running' AND owner LIKE $2",
                    )
                    .bind(&held)
                    .bind(format!("%:{pid}:%"))
                    .fetch_one(&pool)
                    .await
                    .unwrap_or(1);
                    if still == 0 {
                        return at.elapsed();
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }));
        }
    }
    let elapsed = started.elapsed();
    let made = creator.await.unwrap();
    let mut recovered = Vec::new();
    for recovery in recoveries {
        recovered.push(recovery.await.unwrap());
    }
    recovered.sort();
    eprintln!(
        "scale_out chaos: {runs} runs in {elapsed:?} ({:.1} runs/s) under {actions:?}; \
         recovery of a stopped worker's runs: {} measured, median {:?}, max {:?}",
        runs as f64 / elapsed.as_secs_f64(),
        recovered.len(),
        recovered.get(recovered.len() / 2),
        recovered.last()
    );

    // Every run ended once, well.
    let unfinished: Vec<(String, String, i32, Option<String>)> = sqlx::query_as(
        "SELECT run_id, status, attempt, error FROM rebound_runs WHERE status <> 'success'",
    )
    .fetch_all(&cluster.pool)
    .await
    .unwrap();
    assert!(unfinished.is_empty(), "{unfinished:?}");
    // Effects: a key made again only by a later attempt (its earlier one
    // stopped between the effect and its journal entry: at-least-once, the
    // key is what lets a service drop the repeat); counted.
    let repeated: Vec<(String, i64, i64)> = sqlx::query_as(
        "SELECT effect_key, count(*), count(DISTINCT epoch) FROM scale_sink
         GROUP BY effect_key HAVING count(*) > 1",
    )
    .fetch_all(&cluster.pool)
    .await
    .unwrap();
    assert!(
        repeated.iter().all(|(_, n, epochs)| n == epochs),
        "an effect made twice by one attempt: {repeated:?}"
    );
    let deliveries: i64 = sqlx::query_scalar("SELECT count(*) FROM scale_sink")
        .fetch_one(&cluster.pool)
        .await
        .unwrap();
    // In the world (the service keeps a key's first delivery): every
    // delivered key once, and each kept effect one of its key's
    // deliveries; with the states' check below (one key per effect of a
    // run, whatever its attempts), each run's three effects happened once.
    // A kept effect may be a later epoch's although an earlier one also
    // delivered it: a worker paused between its lease check and its call
    // delivers after the next attempt did (the service drops it).
    let (kept, keys, unmatched, late): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM scale_effects),
                (SELECT count(DISTINCT effect_key) FROM scale_sink),
                (SELECT count(*) FROM scale_effects e WHERE NOT EXISTS
                   (SELECT 1 FROM scale_sink s
                    WHERE s.effect_key = e.effect_key AND s.epoch = e.epoch)),
                (SELECT count(*) FROM scale_effects e WHERE e.epoch >
                   (SELECT min(epoch) FROM scale_sink s WHERE s.effect_key = e.effect_key))",
    )
    .fetch_one(&cluster.pool)
    .await
    .unwrap();
    assert_eq!(
        (kept, keys, unmatched),
        (3 * runs as i64, 3 * runs as i64, 0),
        "effects kept, keys delivered, kept effects that match no delivery"
    );
    eprintln!(
        "scale_out chaos: {kept} effects, each once; {deliveries} deliveries, \
         {} keys delivered again by a later attempt (dropped by their key), \
         {late} of them kept from the later attempt (the earlier one's call landed after it)",
        repeated.len()
    );
    // Checkpoint chains: no two checkpoints of a thread share a parent.
    let forks: Vec<(i32, Option<i64>, i64)> = sqlx::query_as(
        "SELECT thread, parent, count(*) FROM checkpoints GROUP BY thread, parent
         HAVING count(*) > 1",
    )
    .fetch_all(&cluster.pool)
    .await
    .unwrap();
    assert!(forks.is_empty(), "forked chains: {forks:?}");
    // Events: 1..n, one `metadata` per attempt, one `end`, last.
    let events: Vec<EventTally> = sqlx::query_as(
        "SELECT e.run_id, count(*), max(e.seq),
                count(*) FILTER (WHERE e.event = 'metadata'),
                count(*) FILTER (WHERE e.event = 'end'), r.attempt,
                (SELECT event FROM rebound_run_events l WHERE l.run_id = e.run_id
                  ORDER BY seq DESC LIMIT 1)
         FROM rebound_run_events e JOIN rebound_runs r USING (run_id)
         GROUP BY e.run_id, r.attempt",
    )
    .fetch_all(&cluster.pool)
    .await
    .unwrap();
    assert_eq!(events.len(), runs, "every run has events");
    for (run, count, max, metadata, ends, attempt, last) in &events {
        assert_eq!(count, max, "run {run}: a gap or a repeat in 1..{max}");
        // An attempt whose worker stopped before its first event wrote
        // none: at most one `metadata` per attempt.
        assert!(
            (1..=i64::from(*attempt)).contains(metadata),
            "run {run}: {metadata} metadata events in {attempt} attempts"
        );
        assert_eq!((*ends, last.as_deref()), (1, Some("end")), "run {run}");
    }
    // Each thread's state: its runs' nodes and effect keys, in order.
    for t in 0..threads {
        let thread = format!("chaos-{t}");
        let mut expected = Vec::new();
        for (_, run_id) in made.iter().filter(|(th, _)| *th == thread) {
            let effects = cluster.effects(run_id).await;
            one_worker_per_attempt(&effects);
            let mut keys: Vec<&Effect> = Vec::new();
            for effect in &effects {
                if !keys.iter().any(|k| k.key == effect.key) {
                    keys.push(effect);
                }
            }
            let tasks: Vec<&str> = keys.iter().map(|e| e.task.as_str()).collect();
            assert_eq!(tasks, ["a", "b", "c"], "run {run_id}: {effects:?}");
            for effect in keys {
                expected.push(json!(effect.task));
                expected.push(json!(effect.key));
            }
        }
        let values = cluster.values(&thread).await;
        assert_eq!(values["log"], Value::Array(expected), "thread {thread}");
    }
    for worker in &mut cluster.workers {
        assert!(
            worker.child.try_wait().unwrap().is_none(),
            "a worker exited"
        );
    }
    cluster.checks().await;
}
