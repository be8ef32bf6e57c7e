//! The workloads of bench/WORKLOADS.md §2 on the SQLite checkpointer: W3
//! `steps-sqlite`, W4b `concurrent-sqlite` and W5 `resume` (with its child,
//! `resume-child`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use rebound_graph::checkpoint::Checkpointer;
use rebound_graph::{Durability, GraphError, RunConfig};
use rebound_sqlite::{SqliteOptions, SqliteSaver, Synchronous};
use serde_json::{json, Value};

use crate::pev::{self, Hooks, NodeKind, Pev};
use crate::workloads::{durability_name, line, round};

/// The SQLite settings of a run, as reported.
#[derive(Debug, Clone, Copy)]
pub struct SqliteSettings {
    /// `PRAGMA synchronous`.
    pub synchronous: Synchronous,
    /// When checkpoints are committed.
    pub durability: Durability,
}

impl SqliteSettings {
    fn open(&self, path: &Path) -> Result<SqliteSaver> {
        Ok(SqliteSaver::open(
            path,
            SqliteOptions::default().with_synchronous(self.synchronous),
        )?)
    }

    fn report(&self) -> Value {
        json!({
            "sqlite_synchronous": self.synchronous.as_str(),
            "sqlite_journal_mode": "wal",
            "durability": durability_name(self.durability),
            "commits_per_superstep": "one (state, pending writes and metadata together)",
        })
    }
}

fn merge(mut base: Value, extra: Value) -> Value {
    if let (Some(base), Value::Object(extra)) = (base.as_object_mut(), extra) {
        base.extend(extra);
    }
    base
}

/// The database file's size plus any `-wal` file left beside it.
fn db_bytes(path: &Path) -> u64 {
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    size(path) + size(Path::new(&wal))
}

fn config(thread: &str, n: i64, durability: Durability) -> RunConfig {
    RunConfig::new()
        .with_thread_id(thread)
        .with_recursion_limit(pev::recursion_limit(n))
        .with_durability(durability)
}

/// W3: one run on an SQLite file.
pub async fn steps_sqlite(n: i64, settings: SqliteSettings) -> Result<Value> {
    let dir = tempfile::tempdir()?;
    let graph = pev::build(NodeKind::Sync).context("compiling pev")?;

    let warm_saver = Arc::new(settings.open(&dir.path().join("warm.db"))?);
    let warm = graph
        .clone()
        .with_checkpointer(warm_saver)
        .invoke(Pev::initial(20), config("warm", 20, settings.durability))
        .await?;
    ensure!(
        pev::verify(20, &warm),
        "the warm-up run ended in the wrong state: {warm:?}"
    );

    let path = dir.path().join("w3.db");
    let saver = Arc::new(settings.open(&path)?);
    let graph = graph.with_checkpointer(saver.clone());
    let started = Instant::now();
    let state = graph
        .invoke(Pev::initial(n), config("w3", n, settings.durability))
        .await?;
    let wall = started.elapsed().as_secs_f64();
    let stored = graph
        .get_state(&config("w3", n, settings.durability))
        .await?;
    let verified = pev::verify(n, &state) && pev::verify(n, &stored.values);
    let checkpoints = saver.list("w3", None, None).await?.len();
    let commits = saver.stats().commits;
    drop(graph);
    drop(saver);
    let bytes = db_bytes(&path);
    let out = line(
        if matches!(settings.durability, Durability::Sync) {
            "steps-sqlite-sync"
        } else {
            "steps-sqlite-batched"
        },
        state.log_len,
        wall,
        verified,
        json!({ "n": n, "checkpoints": checkpoints, "commits": commits }),
    );
    Ok(merge(
        merge(out, settings.report()),
        json!({ "db_bytes": bytes }),
    ))
}

/// W4b: K concurrent runs sharing one SQLite checkpointer.
pub async fn concurrent_sqlite(
    k: usize,
    m: i64,
    runtime: &str,
    settings: SqliteSettings,
) -> Result<Value> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("w4b.db");
    let saver = Arc::new(settings.open(&path)?);
    let graph = pev::build(NodeKind::Async)
        .context("compiling pev")?
        .with_checkpointer(saver.clone());
    let warm = graph
        .invoke(Pev::initial(m), config("warm", m, settings.durability))
        .await?;
    ensure!(
        pev::verify(m, &warm),
        "the warm-up run ended in the wrong state: {warm:?}"
    );

    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..k {
        let graph = graph.clone();
        let config = config(&format!("t{i}"), m, settings.durability);
        tasks.spawn(async move { graph.invoke(Pev::initial(m), config).await });
    }
    let mut steps = 0i64;
    let mut verified = true;
    while let Some(joined) = tasks.join_next().await {
        let state = joined.context("a run's task failed")??;
        verified &= pev::verify(m, &state);
        steps += state.log_len;
    }
    let wall = started.elapsed().as_secs_f64();
    let stats = saver.stats();
    drop(graph);
    drop(saver);
    let out = line(
        "concurrent-sqlite",
        steps,
        wall,
        verified,
        json!({
            "k": k,
            "m": m,
            "runtime": runtime,
            "runs_per_s": round(k as f64 / wall, 1),
            "checkpoints": stats.checkpoints,
            "commits": stats.commits,
        }),
    );
    Ok(merge(
        merge(out, settings.report()),
        json!({ "db_bytes": db_bytes(&path) }),
    ))
}

/// W5 phase 1 and the parent's report: run to `iters == N/2` in this
/// process, then resume in a child process and time it.
pub async fn resume(n: i64, settings: SqliteSettings) -> Result<Value> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("w5.db");
    let stop_at = n / 2;
    {
        let saver = Arc::new(settings.open(&path)?);
        let hooks = Hooks {
            stop_at_iters: Some(stop_at),
            first_entry: None,
        };
        let graph = pev::build_with(NodeKind::Sync, hooks)
            .context("compiling pev")?
            .with_checkpointer(saver.clone());
        match graph
            .invoke(Pev::initial(n), config("w5", n, Durability::Sync))
            .await
        {
            Err(GraphError::Cancelled { .. }) => {}
            other => bail!("phase 1 should stop at iters == {stop_at}, got {other:?}"),
        }
        let at_stop = graph.get_state(&config("w5", n, Durability::Sync)).await?;
        let expected = pev::reference_until(n, stop_at);
        ensure!(
            at_stop.values == expected && at_stop.metadata.next == ["executor"],
            "phase 1 stopped in the wrong state: {:?} next {:?}",
            at_stop.values,
            at_stop.metadata.next
        );
    }
    let db_bytes_at_stop = db_bytes(&path);

    let exe = std::env::current_exe()?;
    let started = Instant::now();
    let output = Command::new(exe)
        .arg("resume-child")
        .arg("--n")
        .arg(n.to_string())
        .arg("--db")
        .arg(&path)
        .arg("--synchronous")
        .arg(settings.synchronous.as_str())
        .output()
        .context("starting the resume child")?;
    let child_wall = started.elapsed().as_secs_f64();
    ensure!(
        output.status.success(),
        "the resume child failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let child: Value =
        serde_json::from_slice(&output.stdout).context("reading the child's JSON line")?;
    Ok(merge(
        child,
        json!({
            "workload": "resume",
            "n": n,
            "child_process_wall_s": round(child_wall, 6),
            "db_bytes_at_stop": db_bytes_at_stop,
            "db_bytes": db_bytes(&path),
        }),
    ))
}

/// W5 phase 2, in a new process: open the file, compile, resume, time it.
pub async fn resume_child(n: i64, db: PathBuf, settings: SqliteSettings) -> Result<Value> {
    let setup_started = Instant::now();
    let saver = Arc::new(settings.open(&db)?);
    let first_entry = Arc::new(OnceLock::new());
    let hooks = Hooks {
        stop_at_iters: None,
        first_entry: Some(first_entry.clone()),
    };
    let graph = pev::build_with(NodeKind::Sync, hooks)
        .context("compiling pev")?
        .with_checkpointer(saver.clone());
    let setup_s = setup_started.elapsed().as_secs_f64();

    let resume_config = config("w5", n, Durability::Sync);
    let before = graph.get_state(&resume_config).await?;
    let started = Instant::now();
    let outcome = graph.resume(resume_config.clone()).await?;
    let wall = started.elapsed().as_secs_f64();
    let state = outcome.into_state();
    let latency = first_entry
        .get()
        .map(|entered| entered.duration_since(started).as_secs_f64() * 1e3)
        .unwrap_or(f64::NAN);

    let get_started = Instant::now();
    let after = graph.get_state(&resume_config).await?;
    let get_state_ms = get_started.elapsed().as_secs_f64() * 1e3;
    let verified = pev::verify(n, &state) && pev::verify(n, &after.values);
    let steps = state.log_len - before.values.log_len;
    Ok(merge(
        line(
            "resume-child",
            steps,
            wall,
            verified,
            json!({
                "resume_latency_ms": round(latency, 4),
                "setup_s": round(setup_s, 6),
                "import_s": 0.0,
                "get_state_ms": round(get_state_ms, 4),
            }),
        ),
        settings.report(),
    ))
}
