//! W3 on PostgreSQL: `steps-postgres`, one run of `pev` on
//! `rebound_postgres::PostgresSaver`, to be measured side by side with
//! LangGraph's `PostgresSaver` (bench/langgraph-postgres/).
//!
//! The server is `--url postgres://...`, else `REBOUND_POSTGRES_URL`, else a
//! throwaway cluster started by `rebound_postgres::testing` (stopped when
//! this process exits). Its URL is an admin URL: the workload creates two
//! fresh databases on that server, one for the warm-up run and one for the
//! timed run, and drops both at the end, so every run starts from empty
//! tables and `db_bytes` is the timed run's alone.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{ensure, Context, Result};
use async_trait::async_trait;
use rebound_graph::checkpoint::{
    CheckpointError, CheckpointId, Checkpointer, PendingWrite, StoredCheckpoint, ThreadSummary,
};
use rebound_graph::{Durability, RunConfig};
use rebound_postgres::{PostgresOptions, PostgresSaver};
use serde_json::{json, Value};
use sqlx::{Connection, PgConnection, PgPool};

use crate::pev::{self, NodeKind, Pev};
use crate::workloads::{durability_name, line, round};

/// rebound's checkpoint tables, whose total size is `db_bytes`.
const TABLES: [&str; 3] = ["checkpoints", "checkpoint_writes", "checkpoint_threads"];

/// Where the PostgreSQL server comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// `--url`.
    Flag,
    /// `REBOUND_POSTGRES_URL`.
    Env,
    /// A throwaway cluster of `rebound_postgres::testing`.
    Throwaway,
}

impl Source {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Source::Flag => "--url",
            Source::Env => "REBOUND_POSTGRES_URL",
            Source::Throwaway => "throwaway cluster (rebound_postgres::testing)",
        }
    }
}

/// The admin URL of the server to use, and where it came from (`workload`
/// names the one asking, in the error when there is none).
pub(crate) fn server_url(flag: Option<&str>, workload: &str) -> Result<(String, Source)> {
    if let Some(url) = flag.filter(|url| !url.is_empty()) {
        return Ok((url.to_string(), Source::Flag));
    }
    if let Ok(url) = std::env::var("REBOUND_POSTGRES_URL") {
        if !url.is_empty() {
            return Ok((url, Source::Env));
        }
    }
    let url = rebound_postgres::testing::admin_url()
        .map_err(|reason| anyhow::anyhow!("no PostgreSQL server: {reason}"))
        .with_context(|| {
            format!(
                "{workload} needs --url, REBOUND_POSTGRES_URL, or PostgreSQL installed \
                 (scripts/postgres install)"
            )
        })?;
    Ok((url, Source::Throwaway))
}

/// A database this workload created, dropped by [`Database::drop_now`].
pub(crate) struct Database {
    admin_url: String,
    name: String,
    /// Its connection URL.
    pub(crate) url: String,
}

impl Database {
    /// Creates an empty database named `rebound_bench_<unique>_<suffix>`.
    pub(crate) async fn create(admin_url: &str, suffix: &str) -> Result<Self> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        // Letters, digits and underscores only: safe to splice into SQL.
        let name = format!(
            "rebound_bench_{nanos:x}_{}_{}_{suffix}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let mut conn = PgConnection::connect(admin_url)
            .await
            .context("connecting to the PostgreSQL server")?;
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
            .with_context(|| format!("creating the database {name}"))?;
        conn.close().await?;
        Ok(Database {
            url: rebound_postgres::testing::with_database(admin_url, &name),
            admin_url: admin_url.to_string(),
            name,
        })
    }

    /// Drops the database, closing any session still on it.
    pub(crate) async fn drop_now(self) -> Result<()> {
        let mut conn = PgConnection::connect(&self.admin_url).await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        )))
        .execute(&mut conn)
        .await
        .with_context(|| format!("dropping the database {}", self.name))?;
        conn.close().await?;
        Ok(())
    }
}

/// Time spent in the checkpointer's writes, counted by [`TimedSaver`].
#[derive(Debug, Default)]
struct WriteTimes {
    puts: AtomicU64,
    put_writes: AtomicU64,
    nanos: AtomicU64,
    max_nanos: AtomicU64,
    checkpoints: AtomicU64,
    rows: AtomicU64,
}

impl WriteTimes {
    fn record(&self, started: Instant, checkpoints: usize, rows: usize) {
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(nanos, Ordering::Relaxed);
        self.max_nanos.fetch_max(nanos, Ordering::Relaxed);
        self.checkpoints
            .fetch_add(checkpoints as u64, Ordering::Relaxed);
        self.rows.fetch_add(rows as u64, Ordering::Relaxed);
    }

    fn report(&self, wall_s: f64) -> Value {
        let calls = self.puts.load(Ordering::Relaxed) + self.put_writes.load(Ordering::Relaxed);
        let seconds = self.nanos.load(Ordering::Relaxed) as f64 / 1e9;
        json!({
            "put_calls": self.puts.load(Ordering::Relaxed),
            "put_writes_calls": self.put_writes.load(Ordering::Relaxed),
            "write_checkpoints": self.checkpoints.load(Ordering::Relaxed),
            "write_rows": self.rows.load(Ordering::Relaxed),
            "write_s": round(seconds, 6),
            "write_share": round(seconds / wall_s.max(f64::MIN_POSITIVE), 4),
            "us_per_write_call": round(seconds / calls.max(1) as f64 * 1e6, 2),
            "max_write_call_ms": round(self.max_nanos.load(Ordering::Relaxed) as f64 / 1e6, 3),
        })
    }
}

/// A [`Checkpointer`] that forwards every call to the inner saver and times
/// its writes (`put`, `put_writes`): where a run's time goes, without a
/// profiler. Two clock reads per write, against a database round trip.
struct TimedSaver {
    inner: Arc<PostgresSaver>,
    times: Arc<WriteTimes>,
}

#[async_trait]
impl Checkpointer for TimedSaver {
    async fn put(
        &self,
        checkpoints: Vec<StoredCheckpoint>,
        writes: Vec<PendingWrite>,
    ) -> Result<(), CheckpointError> {
        let counts = (checkpoints.len(), writes.len());
        let started = Instant::now();
        let result = self.inner.put(checkpoints, writes).await;
        self.times.puts.fetch_add(1, Ordering::Relaxed);
        self.times.record(started, counts.0, counts.1);
        result
    }

    async fn put_writes(&self, writes: Vec<PendingWrite>) -> Result<(), CheckpointError> {
        let rows = writes.len();
        let started = Instant::now();
        let result = self.inner.put_writes(writes).await;
        self.times.put_writes.fetch_add(1, Ordering::Relaxed);
        self.times.record(started, 0, rows);
        result
    }

    async fn get(
        &self,
        thread_id: &str,
        id: Option<CheckpointId>,
    ) -> Result<Option<StoredCheckpoint>, CheckpointError> {
        self.inner.get(thread_id, id).await
    }

    async fn get_chain(
        &self,
        thread_id: &str,
        id: CheckpointId,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        self.inner.get_chain(thread_id, id).await
    }

    async fn list(
        &self,
        thread_id: &str,
        before: Option<CheckpointId>,
        limit: Option<usize>,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        self.inner.list(thread_id, before, limit).await
    }

    async fn pending_writes(
        &self,
        thread_id: &str,
        checkpoint: CheckpointId,
    ) -> Result<Vec<PendingWrite>, CheckpointError> {
        self.inner.pending_writes(thread_id, checkpoint).await
    }

    async fn threads(&self) -> Result<Vec<ThreadSummary>, CheckpointError> {
        self.inner.threads().await
    }

    async fn acquire(&self, thread_id: &str) -> Result<(), CheckpointError> {
        self.inner.acquire(thread_id).await
    }

    async fn release(&self, thread_id: &str) -> Result<(), CheckpointError> {
        self.inner.release(thread_id).await
    }
}

fn config(thread: &str, n: i64, durability: Durability) -> RunConfig {
    RunConfig::new()
        .with_thread_id(thread)
        .with_recursion_limit(pev::recursion_limit(n))
        .with_durability(durability)
}

/// `SHOW <setting>` on the saver's database.
pub(crate) async fn show(pool: &PgPool, setting: &str) -> Result<String> {
    sqlx::query_scalar::<_, String>(sqlx::AssertSqlSafe(format!("SHOW {setting}")))
        .fetch_one(pool)
        .await
        .with_context(|| format!("SHOW {setting}"))
}

/// `pg_total_relation_size` (heap, indexes, TOAST) of each of [`TABLES`].
async fn table_sizes(pool: &PgPool) -> Result<Vec<(&'static str, i64)>> {
    let mut sizes = Vec::with_capacity(TABLES.len());
    for table in TABLES {
        let size: i64 = sqlx::query_scalar("SELECT pg_total_relation_size($1::regclass)")
            .bind(table)
            .fetch_one(pool)
            .await
            .with_context(|| format!("the size of {table}"))?;
        sizes.push((table, size));
    }
    Ok(sizes)
}

/// What the `checkpoints` table's bytes are: heap, indexes and the average
/// row (whole tuple, `state`, `meta`).
async fn checkpoint_rows(pool: &PgPool) -> Result<Value> {
    let (heap, indexes, tuple, state, meta): (i64, i64, f64, f64, f64) = sqlx::query_as(
        "SELECT pg_relation_size('checkpoints'), pg_indexes_size('checkpoints'),
                COALESCE(avg(pg_column_size(c.*)), 0)::float8,
                COALESCE(avg(octet_length(c.state)), 0)::float8,
                COALESCE(avg(octet_length(c.meta)), 0)::float8
         FROM checkpoints AS c",
    )
    .fetch_one(pool)
    .await
    .context("the checkpoints' row sizes")?;
    Ok(json!({
        "heap_bytes": heap,
        "index_bytes": indexes,
        "avg_tuple_bytes": round(tuple, 1),
        "avg_state_bytes": round(state, 1),
        "avg_meta_bytes": round(meta, 1),
    }))
}

/// W3 on PostgreSQL: one run of `pev` with `max_iters = n`, after an
/// untimed warm-up run (N=20) on a database of its own.
pub async fn steps_postgres(n: i64, durability: Durability, url: Option<&str>) -> Result<Value> {
    let (admin_url, source) = server_url(url, "steps-postgres")?;
    let warm_db = Database::create(&admin_url, "warm").await?;
    let timed_db = Database::create(&admin_url, "w3").await?;
    let outcome = measure(n, durability, &warm_db.url, &timed_db.url).await;
    let dropped = async {
        warm_db.drop_now().await?;
        timed_db.drop_now().await
    }
    .await;
    let mut out = outcome?;
    dropped?;
    if let Some(out) = out.as_object_mut() {
        out.insert("postgres_source".into(), json!(source.as_str()));
    }
    Ok(out)
}

async fn measure(n: i64, durability: Durability, warm_url: &str, timed_url: &str) -> Result<Value> {
    let graph = pev::build(NodeKind::Sync).context("compiling pev")?;

    let warm_saver = Arc::new(
        PostgresSaver::connect(warm_url, PostgresOptions::default())
            .await
            .context("connecting the warm-up saver")?,
    );
    let warm = graph
        .clone()
        .with_checkpointer(warm_saver.clone())
        .invoke(Pev::initial(20), config("warm", 20, durability))
        .await?;
    ensure!(
        pev::verify(20, &warm),
        "the warm-up run ended in the wrong state: {warm:?}"
    );
    warm_saver.pool().close().await;
    drop(warm_saver);

    let saver = Arc::new(
        PostgresSaver::connect(timed_url, PostgresOptions::default())
            .await
            .context("connecting the saver")?,
    );
    let synchronous_commit = show(saver.pool(), "synchronous_commit").await?;
    let fsync = show(saver.pool(), "fsync").await?;
    let server_version = show(saver.pool(), "server_version").await?;
    let times = Arc::new(WriteTimes::default());
    let timed = Arc::new(TimedSaver {
        inner: saver.clone(),
        times: times.clone(),
    });
    let graph = graph.with_checkpointer(timed);

    let started = Instant::now();
    let state = graph
        .invoke(Pev::initial(n), config("w3", n, durability))
        .await?;
    let wall = started.elapsed().as_secs_f64();

    let stored = graph.get_state(&config("w3", n, durability)).await?;
    let verified = pev::verify(n, &state) && pev::verify(n, &stored.values);
    let checkpoints = saver.list("w3", None, None).await?.len();
    let sizes = table_sizes(saver.pool()).await?;
    let db_bytes: i64 = sizes.iter().map(|(_, size)| size).sum();
    let rows = checkpoint_rows(saver.pool()).await?;
    saver.pool().close().await;
    drop(graph);
    drop(saver);

    let workload = match durability {
        Durability::Sync => "steps-postgres-sync",
        _ => "steps-postgres-batched",
    };
    let mut out = line(
        workload,
        state.log_len,
        wall,
        verified,
        json!({
            "n": n,
            "checkpoints": checkpoints,
            "durability": durability_name(durability),
            "synchronous_commit": synchronous_commit,
            "fsync": fsync,
            "server_version": server_version,
            "checkpoint_rows": rows,
            "db_tables": sizes.iter().map(|(t, s)| (t.to_string(), json!(s))).collect::<serde_json::Map<_, _>>(),
        }),
    );
    if let (Some(out), Value::Object(extra)) = (out.as_object_mut(), times.report(wall)) {
        out.insert("db_bytes".into(), json!(db_bytes));
        out.extend(extra);
    }
    Ok(out)
}
