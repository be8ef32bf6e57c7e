//! Many claimers and many reapers at once.

#[path = "queue_support.rs"]
mod support;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rebound_postgres::queue::{Heartbeat, QueueConfig, RunStatus, ThreadStatus};
use support::{fast, new_run, queue, TestResult};

const RUNS: usize = 200;
const THREADS: usize = 20;
const CLAIMERS: usize = 8;

/// What the claimers saw, checked as they go.
#[derive(Default)]
struct Ledger {
    /// Every run claimed so far.
    claimed: HashSet<String>,
    /// The threads whose run a claimer holds now.
    running: HashSet<String>,
    /// Per thread, the seqs of its runs in the order they were claimed.
    order: BTreeMap<String, Vec<i64>>,
    /// Violations seen.
    violations: Vec<String>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_claimers_never_share_a_run_nor_a_thread() -> TestResult {
    let Some(queue) = queue(fast()).await? else {
        return Ok(());
    };
    for i in 0..RUNS {
        queue
            .enqueue(&new_run(
                &format!("run-{i:03}"),
                &format!("thread-{:02}", i % THREADS),
            ))
            .await?;
    }
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let mut claimers = Vec::new();
    for c in 0..CLAIMERS {
        let queue = queue.clone();
        let ledger = Arc::clone(&ledger);
        claimers.push(tokio::spawn(async move {
            let owner = format!("worker-{c}");
            let mut idle_rounds = 0;
            loop {
                let leases = queue.claim(&owner, 1 + c % 3).await?;
                if leases.is_empty() {
                    idle_rounds += 1;
                    if idle_rounds > 50 {
                        return Ok::<(), rebound_postgres::queue::QueueError>(());
                    }
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    continue;
                }
                idle_rounds = 0;
                {
                    let mut ledger = ledger.lock().unwrap_or_else(|e| e.into_inner());
                    for lease in &leases {
                        if !ledger.claimed.insert(lease.run_id.clone()) {
                            ledger
                                .violations
                                .push(format!("{} claimed twice", lease.run_id));
                        }
                        if !ledger.running.insert(lease.thread_id.clone()) {
                            ledger.violations.push(format!(
                                "{} claimed while {} runs another",
                                lease.run_id, lease.thread_id
                            ));
                        }
                        ledger
                            .order
                            .entry(lease.thread_id.clone())
                            .or_default()
                            .push(lease.run.seq);
                    }
                }
                // Work a little, then end each run.
                tokio::time::sleep(Duration::from_millis(1)).await;
                for lease in &leases {
                    assert_eq!(
                        queue.heartbeat(lease).await?,
                        Heartbeat::Held { cancel: None }
                    );
                    ledger
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .running
                        .remove(&lease.thread_id);
                    assert!(
                        queue
                            .finish(lease, RunStatus::Success, None, ThreadStatus::Idle)
                            .await?
                    );
                }
            }
        }));
    }
    for claimer in claimers {
        claimer.await??;
    }
    let ledger = std::mem::take(&mut *ledger.lock().unwrap_or_else(|e| e.into_inner()));
    assert_eq!(ledger.violations, Vec::<String>::new());
    assert_eq!(ledger.claimed.len(), RUNS);
    for (thread, seqs) in &ledger.order {
        let mut sorted = seqs.clone();
        sorted.sort_unstable();
        assert_eq!(seqs, &sorted, "{thread} ran out of order");
        assert_eq!(seqs.len(), RUNS / THREADS);
    }
    let left: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM rebound_runs WHERE status <> 'success'")
            .fetch_one(queue.pool())
            .await?;
    assert_eq!(left, 0);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_reapers_move_each_lapsed_run_once() -> TestResult {
    let config = QueueConfig {
        lease_ttl: Duration::from_secs(3),
        ..fast()
    };
    let Some(queue) = queue(config).await? else {
        return Ok(());
    };
    for i in 0..30 {
        queue
            .enqueue(&new_run(&format!("run-{i:02}"), &format!("thread-{i:02}")))
            .await?;
    }
    let claimed = std::time::Instant::now();
    let leases = queue.claim("w", 30).await?;
    assert_eq!(leases.len(), 30);
    // One worker is alive: its heartbeat, half a lease later, keeps its
    // run until 4.5 s; the others lapse at 3 s; the reapers run at 3.6 s.
    // (Wide margins: a loaded machine, a reaper opening a connection.)
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        queue.heartbeat(&leases[0]).await?,
        Heartbeat::Held { cancel: None }
    );
    let beaten = claimed.elapsed();
    assert!(
        beaten < Duration::from_millis(2700),
        "the heartbeat came too late to tell the runs apart: {beaten:?}"
    );
    tokio::time::sleep(Duration::from_millis(3600).saturating_sub(claimed.elapsed())).await;

    let (a, b, c, d) = tokio::join!(queue.reap(), queue.reap(), queue.reap(), queue.reap());
    let mut moved = Vec::new();
    for report in [a?, b?, c?, d?] {
        assert!(report.failed.is_empty());
        moved.extend(report.requeued);
    }
    moved.sort();
    let expected: Vec<String> = (1..30).map(|i| format!("run-{i:02}")).collect();
    assert_eq!(moved, expected, "each lapsed run moved exactly once");
    let expirations: i64 =
        sqlx::query_scalar("SELECT COALESCE(SUM(expirations), 0)::bigint FROM rebound_runs")
            .fetch_one(queue.pool())
            .await?;
    assert_eq!(expirations, 29);
    assert_eq!(
        queue.get_run("run-00").await?.ok_or("no run")?.status,
        RunStatus::Running
    );
    Ok(())
}
