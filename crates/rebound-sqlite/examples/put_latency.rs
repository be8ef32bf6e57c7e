//! Timing check of `SqliteSaver::put`, not a test:
//!
//! * 2,000 sequential single-checkpoint puts with `synchronous` NORMAL and
//!   FULL, in µs per put, next to the bare SQLite commit of the same row
//!   (`BEGIN IMMEDIATE; INSERT; COMMIT` with rusqlite: what a put cannot beat);
//! * 200 concurrent runs × 71 puts each on a current-thread runtime (group
//!   commit), in checkpoints per second, and the same with 1,000 runs (the
//!   W4b benchmark's size).
//!
//! ```sh
//! cargo run --release -p rebound-sqlite --example put_latency
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rebound_graph::checkpoint::{CheckpointId, Checkpointer, StateBlob, StoredCheckpoint};
use rebound_sqlite::{SqliteOptions, SqliteSaver, Synchronous};

const SEQUENTIAL_PUTS: usize = 2_000;
const PUTS_PER_RUN: usize = 71;

/// A delta of 60 bytes and metadata of 50, like the pev benchmark's.
fn checkpoint(thread_id: &str, parent: Option<CheckpointId>, step: usize) -> StoredCheckpoint {
    StoredCheckpoint {
        thread_id: thread_id.to_string(),
        id: CheckpointId::new(),
        parent,
        step: step as u64,
        state: StateBlob::Delta((0..60).map(|i| (i + step) as u8).collect()),
        meta: (0..50).map(|i| (i * 3 + step) as u8).collect(),
    }
}

/// µs per put of `puts` sequential single-checkpoint puts on one thread.
async fn sequential(saver: &SqliteSaver, thread_id: &str, puts: usize) -> f64 {
    let mut parent = None;
    let start = Instant::now();
    for step in 0..puts {
        let checkpoint = checkpoint(thread_id, parent, step);
        parent = Some(checkpoint.id);
        saver.put(vec![checkpoint], Vec::new()).await.expect("put");
    }
    start.elapsed().as_secs_f64() * 1e6 / puts as f64
}

/// µs per commit of the same rows written with rusqlite directly, one
/// transaction each, on cached statements, with the same page size.
fn bare_commit(dir: &Path, synchronous: Synchronous, puts: usize) -> f64 {
    let conn = rusqlite::Connection::open(dir.join("bare.db")).expect("open");
    conn.pragma_update(None, "page_size", 2048)
        .expect("page_size");
    conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
        .expect("wal");
    conn.pragma_update(None, "synchronous", synchronous.as_str())
        .expect("synchronous");
    conn.execute_batch(
        "CREATE TABLE c (thread INTEGER, id INTEGER, parent_gap INTEGER, step INTEGER, kind INTEGER,
         state BLOB, meta BLOB, PRIMARY KEY (thread, id)) WITHOUT ROWID",
    )
    .expect("table");
    let insert = |step: usize| {
        conn.prepare_cached("BEGIN IMMEDIATE")
            .unwrap()
            .execute([])
            .unwrap();
        let row = checkpoint("bare", None, step);
        conn.prepare_cached("INSERT INTO c VALUES (1, ?1, 5120, ?1, 1, ?2, ?3)")
            .unwrap()
            .execute(rusqlite::params![
                step as i64 * 5120,
                row.state.bytes(),
                row.meta
            ])
            .unwrap();
        conn.prepare_cached("COMMIT").unwrap().execute([]).unwrap();
    };
    (0..100).for_each(insert);
    let start = Instant::now();
    (100..100 + puts).for_each(insert);
    start.elapsed().as_secs_f64() * 1e6 / puts as f64
}

/// `runs` concurrent runs of `PUTS_PER_RUN` puts each, on one saver.
/// Returns the time until every run is done, and the time to close the
/// saver after (SQLite then checkpoints the WAL into the file).
fn concurrent(
    rt: &tokio::runtime::Runtime,
    saver: SqliteSaver,
    runs: usize,
) -> (Duration, Duration, u64, u64) {
    let saver = Arc::new(saver);
    let elapsed = rt.block_on(async {
        let start = Instant::now();
        let tasks: Vec<_> = (0..runs)
            .map(|run| {
                let saver = Arc::clone(&saver);
                tokio::spawn(async move {
                    let thread_id = format!("t{run}");
                    let mut parent = None;
                    for step in 0..PUTS_PER_RUN {
                        let checkpoint = checkpoint(&thread_id, parent, step);
                        parent = Some(checkpoint.id);
                        saver.put(vec![checkpoint], Vec::new()).await.expect("put");
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("run");
        }
        start.elapsed()
    });
    let stats = saver.stats();
    let close_start = Instant::now();
    drop(saver);
    (elapsed, close_start.elapsed(), stats.puts, stats.commits)
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");

    for synchronous in [Synchronous::Normal, Synchronous::Full] {
        let dir = tempfile::tempdir().expect("temp dir");
        let options = SqliteOptions::default().with_synchronous(synchronous);
        let saver = SqliteSaver::open(dir.path().join("seq.db"), options).expect("open");
        let us = rt.block_on(async {
            sequential(&saver, "warm-up", 100).await;
            sequential(&saver, "timed", SEQUENTIAL_PUTS).await
        });
        let bare = bare_commit(dir.path(), synchronous, SEQUENTIAL_PUTS);
        println!(
            "sequential put, synchronous={synchronous}: {us:.1} µs/put over {SEQUENTIAL_PUTS} puts \
             (bare SQLite commit of the same row: {bare:.1} µs)"
        );
    }

    for runs in [200, 1_000] {
        for synchronous in [Synchronous::Normal, Synchronous::Full] {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("group.db");
            let options = SqliteOptions::default().with_synchronous(synchronous);
            let saver = SqliteSaver::open(&path, options).expect("open");
            let (elapsed, close, puts, commits) = concurrent(&rt, saver, runs);
            let checkpoints = runs * PUTS_PER_RUN;
            let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            println!(
                "{runs} concurrent runs x {PUTS_PER_RUN} puts, synchronous={synchronous}: \
                 {:.0} checkpoints/s ({checkpoints} in {:.1} ms, {commits} commits, {:.0} puts per commit; \
                 closing took {:.1} ms more; file {bytes} bytes)",
                checkpoints as f64 / elapsed.as_secs_f64(),
                elapsed.as_secs_f64() * 1e3,
                puts as f64 / commits as f64,
                close.as_secs_f64() * 1e3,
            );
        }
    }
}
