//! Timing check of `PostgresSaver::put`, not a test:
//!
//! * 2,000 sequential single-checkpoint puts of a small delta (60 bytes of
//!   state, 50 of metadata) on one thread of one run, in µs per put, with
//!   `synchronous_commit` on (the default: each commit waits for its WAL
//!   flush) and off; next to the bare floor of the same server: a `SELECT
//!   1` round trip, and a bare one-row INSERT (autocommit) of the same row;
//! * the same puts each with two pending writes;
//! * 32 concurrent runs × 100 puts, in checkpoints per second.
//!
//! Uses `REBOUND_POSTGRES_URL` if set, else a throwaway local cluster
//! (`scripts/postgres`, as the tests do).
//!
//! ```sh
//! cargo run --release -p rebound-postgres --example put_latency
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Instant;

use rebound_graph::checkpoint::{
    CheckpointId, Checkpointer, PendingWrite, StateBlob, StoredCheckpoint, WriteKind,
};
use rebound_postgres::testing::test_database;
use rebound_postgres::{PostgresOptions, PostgresSaver};

const SEQUENTIAL_PUTS: usize = 2_000;
const RUNS: usize = 32;
const PUTS_PER_RUN: usize = 100;

/// A delta of 60 bytes and metadata of 50, like the pev benchmark's.
fn checkpoint(thread_id: &str, parent: Option<CheckpointId>, step: usize) -> StoredCheckpoint {
    StoredCheckpoint {
        thread_id: thread_id.to_string(),
        id: CheckpointId::after(parent),
        parent,
        step: step as u64,
        state: StateBlob::Delta((0..60).map(|i| (i + step) as u8).collect()),
        meta: (0..50).map(|i| (i * 3 + step) as u8).collect(),
    }
}

fn writes(checkpoint: &StoredCheckpoint) -> Vec<PendingWrite> {
    (0..2)
        .map(|i| PendingWrite {
            thread_id: checkpoint.thread_id.clone(),
            checkpoint: checkpoint.id,
            node: "executor".to_string(),
            kind: WriteKind::Journal,
            key: format!("call-{i}"),
            value: vec![i; 40],
        })
        .collect()
}

/// µs per put of `puts` sequential puts on one thread.
async fn sequential(saver: &PostgresSaver, thread_id: &str, puts: usize, with_writes: bool) -> f64 {
    let mut parent = None;
    let start = Instant::now();
    for step in 0..puts {
        let checkpoint = checkpoint(thread_id, parent, step);
        parent = Some(checkpoint.id);
        let pending = if with_writes {
            writes(&checkpoint)
        } else {
            Vec::new()
        };
        saver.put(vec![checkpoint], pending).await.expect("put");
    }
    start.elapsed().as_secs_f64() * 1e6 / puts as f64
}

/// µs per `SELECT 1`, and per bare one-row INSERT of the same row.
async fn floor(saver: &PostgresSaver, puts: usize) -> (f64, f64) {
    let pool = saver.pool();
    sqlx::query("CREATE TABLE IF NOT EXISTS bare (thread INT, id BIGINT, parent BIGINT, step BIGINT, snapshot BOOL, state BYTEA, meta BYTEA, PRIMARY KEY (thread, id))")
        .execute(pool)
        .await
        .unwrap();
    let start = Instant::now();
    for _ in 0..puts {
        sqlx::query("SELECT 1").execute(pool).await.unwrap();
    }
    let select = start.elapsed().as_secs_f64() * 1e6 / puts as f64;
    let start = Instant::now();
    for step in 0..puts {
        let row = checkpoint("bare", None, step);
        sqlx::query("INSERT INTO bare VALUES (1, $1, $1 - 5120, $2, false, $3, $4)")
            .bind(row.id.as_u64() as i64)
            .bind(step as i64)
            .bind(row.state.bytes())
            .bind(&row.meta)
            .execute(pool)
            .await
            .unwrap();
    }
    (select, start.elapsed().as_secs_f64() * 1e6 / puts as f64)
}

/// Checkpoints per second of `RUNS` concurrent runs.
async fn concurrent(saver: Arc<PostgresSaver>) -> f64 {
    let start = Instant::now();
    let tasks: Vec<_> = (0..RUNS)
        .map(|run| {
            let saver = Arc::clone(&saver);
            tokio::spawn(async move {
                let thread_id = format!("run-{run}");
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
    (RUNS * PUTS_PER_RUN) as f64 / start.elapsed().as_secs_f64()
}

/// The best of `ROUNDS` interleaved rounds of each measurement (the
/// machine may be busy with other work): put, put with writes, SELECT 1,
/// bare INSERT, in µs.
async fn best_of_rounds(saver: &PostgresSaver, label: &str) -> [f64; 4] {
    const ROUNDS: usize = 5;
    let per_round = SEQUENTIAL_PUTS / ROUNDS;
    let mut best = [f64::MAX; 4];
    for round in 0..ROUNDS {
        let put = sequential(saver, &format!("{label}-{round}"), per_round, false).await;
        let with_writes = sequential(saver, &format!("{label}-w{round}"), per_round, true).await;
        let (select, insert) = floor(saver, per_round).await;
        for (best, now) in best.iter_mut().zip([put, with_writes, select, insert]) {
            *best = best.min(now);
        }
    }
    best
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let Some(db) = test_database().await.expect("database") else {
            return;
        };
        for synchronous_commit in ["on", "off"] {
            let url = format!(
                "{}{}options=-c%20synchronous_commit%3D{synchronous_commit}",
                db.url,
                if db.url.contains('?') { '&' } else { '?' }
            );
            let saver = PostgresSaver::connect(&url, PostgresOptions::default())
                .await
                .expect("connect");
            sequential(&saver, &format!("warm-up-{synchronous_commit}"), 200, true).await;
            let [put, with_writes, select, insert] =
                best_of_rounds(&saver, &format!("timed-{synchronous_commit}")).await;
            println!(
                "synchronous_commit={synchronous_commit}: sequential put of a small delta: {put:.1} µs/put \
                 ({with_writes:.1} µs with 2 pending writes), best of 5 rounds over {SEQUENTIAL_PUTS} puts; \
                 floor: SELECT 1 {select:.1} µs, bare one-row INSERT {insert:.1} µs"
            );
            let rate = concurrent(Arc::new(saver)).await;
            println!(
                "synchronous_commit={synchronous_commit}: {RUNS} concurrent runs x {PUTS_PER_RUN} puts: {rate:.0} checkpoints/s"
            );
        }
    });
}
