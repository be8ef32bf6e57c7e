//! The run queue's throughput: enqueue 10,000 runs (10 per thread), then N
//! workers (1, 2, 4) each claim one run at a time and finish it; prints
//! runs/s and claim latency (p50, p99) per N.
//!
//! ```text
//! cargo run --release -p rebound-postgres --example queue_throughput
//! ```
//!
//! Uses `REBOUND_POSTGRES_URL`, or a throwaway cluster (`scripts/postgres`),
//! with a fresh database per N. Every claim and finish is a commit, so on
//! a durable server the figures are bounded by the disk's flush latency;
//! `QUEUE_BENCH_ASYNC_COMMIT=1` sets `synchronous_commit = off` for the
//! benchmark's connections, to see the queue's own cost.

use std::time::{Duration, Instant};

use rebound_postgres::migrate::migrate;
use rebound_postgres::queue::{NewRun, QueueConfig, RunQueue, RunStatus, ThreadStatus};
use rebound_postgres::testing::test_database;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

type Error = Box<dyn std::error::Error + Send + Sync>;

const RUNS: usize = 10_000;
const RUNS_PER_THREAD: usize = 10;

#[tokio::main]
async fn main() -> Result<(), Error> {
    println!("{RUNS} runs, {RUNS_PER_THREAD} per thread; each worker claims 1 run at a time and finishes it");
    for workers in [1, 2, 4] {
        let Some(db) = test_database().await? else {
            return Err("no PostgreSQL: run scripts/postgres install".into());
        };
        let mut options: PgConnectOptions = db.url.parse()?;
        if std::env::var("QUEUE_BENCH_ASYNC_COMMIT").is_ok_and(|v| v == "1") {
            options = options.options([("synchronous_commit", "off")]);
        }
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .connect_with(options)
            .await?;
        migrate(&pool).await?;
        if workers == 1 {
            let (fsync, commit): (String, String) = sqlx::query_as(
                "SELECT current_setting('fsync'), current_setting('synchronous_commit')",
            )
            .fetch_one(&pool)
            .await?;
            println!("server: fsync={fsync}, synchronous_commit={commit}");
        }
        let queue = RunQueue::new(pool, QueueConfig::default());
        enqueue_all(&queue).await?;

        let started = Instant::now();
        let mut tasks = Vec::new();
        for w in 0..workers {
            let queue = queue.clone();
            tasks.push(tokio::spawn(
                async move { work(&queue, &format!("w{w}")).await },
            ));
        }
        let mut latencies = Vec::with_capacity(RUNS);
        let mut finishes = Vec::with_capacity(RUNS);
        for task in tasks {
            let (claims, ends) = task.await??;
            latencies.extend(claims);
            finishes.extend(ends);
        }
        let elapsed = started.elapsed();
        if latencies.len() != RUNS {
            return Err(format!("{} runs done, not {RUNS}", latencies.len()).into());
        }
        latencies.sort_unstable();
        finishes.sort_unstable();
        println!(
            "N={workers}: {:.0} runs/s ({:.2} s), claim latency p50 {:.2} ms, p99 {:.2} ms; \
             finish p50 {:.2} ms, p99 {:.2} ms",
            RUNS as f64 / elapsed.as_secs_f64(),
            elapsed.as_secs_f64(),
            ms(percentile(&latencies, 50)),
            ms(percentile(&latencies, 99)),
            ms(percentile(&finishes, 50)),
            ms(percentile(&finishes, 99)),
        );
    }
    Ok(())
}

/// Queues the runs from 8 tasks at once (not measured).
async fn enqueue_all(queue: &RunQueue) -> Result<(), Error> {
    let mut tasks = Vec::new();
    for part in 0..8 {
        let queue = queue.clone();
        tasks.push(tokio::spawn(async move {
            for i in (part..RUNS).step_by(8) {
                queue
                    .enqueue(&NewRun {
                        run_id: format!("run-{i:05}"),
                        thread_id: format!("thread-{:04}", i % (RUNS / RUNS_PER_THREAD)),
                        assistant_id: "agent".to_string(),
                        multitask_strategy: "enqueue".to_string(),
                        metadata: serde_json::json!({}),
                        kwargs: serde_json::json!({"input": {"goal": "x"}}),
                    })
                    .await?;
            }
            Ok::<(), rebound_postgres::queue::QueueError>(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    Ok(())
}

/// Claims and finishes runs until none is left; the latency of each
/// claim and of each finish.
async fn work(queue: &RunQueue, owner: &str) -> Result<(Vec<Duration>, Vec<Duration>), Error> {
    let mut latencies = Vec::new();
    let mut finishes = Vec::new();
    let mut empty = 0;
    loop {
        let asked = Instant::now();
        let leases = queue.claim(owner, 1).await?;
        let latency = asked.elapsed();
        let Some(lease) = leases.into_iter().next() else {
            // Empty: the queue is drained, or its head is other workers'.
            empty += 1;
            if empty > 20 {
                return Ok((latencies, finishes));
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
            continue;
        };
        empty = 0;
        latencies.push(latency);
        let ending = Instant::now();
        if !queue
            .finish(&lease, RunStatus::Success, None, ThreadStatus::Idle)
            .await?
        {
            return Err(format!("lost the lease of {}", lease.run_id).into());
        }
        finishes.push(ending.elapsed());
    }
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    let index = (sorted.len() * p / 100).min(sorted.len().saturating_sub(1));
    sorted.get(index).copied().unwrap_or_default()
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
