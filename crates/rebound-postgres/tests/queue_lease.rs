//! The lease of one run: FIFO per thread across a requeue, a lapsed lease
//! reaped and every write of its zombie refused, the attempt limit, the
//! backoff, and cancels.

#[path = "queue_support.rs"]
mod support;

use std::time::Duration;

use rebound_postgres::guard::WriteGuard;
use rebound_postgres::queue::{
    CancelAction, CancelOutcome, EventRow, Heartbeat, QueueConfig, ReapReport, RunStatus,
    ThreadRow, ThreadStatus,
};
use support::{fast, ids, new_run, queue, TestResult};

fn event(seq: i64) -> EventRow {
    EventRow {
        seq,
        event: "values".to_string(),
        data: format!("{{\"seq\":{seq}}}"),
    }
}

#[tokio::test]
async fn a_thread_runs_in_fifo_order_also_across_a_requeue() -> TestResult {
    let Some(queue) = queue(fast()).await? else {
        return Ok(());
    };
    for (run, thread) in [("a1", "A"), ("a2", "A"), ("b1", "B")] {
        queue.enqueue(&new_run(run, thread)).await?;
    }
    // One run per thread, oldest first.
    let first = queue.claim("w1", 10).await?;
    assert_eq!(ids(&first), ["a1", "b1"]);
    assert_eq!((first[0].epoch, first[0].run.attempt), (1, 1));
    assert_eq!(first[0].run.status, RunStatus::Running);
    assert_eq!(first[0].owner, "w1");
    assert!(queue.claim("w2", 10).await?.is_empty());

    // Graceful shutdown: a1 goes back ahead of a2.
    assert!(queue.requeue(&first[0]).await?);
    assert!(!queue.requeue(&first[0]).await?, "the lease is gone");
    let again = queue.claim("w2", 10).await?;
    assert_eq!(ids(&again), ["a1"]);
    assert_eq!((again[0].epoch, again[0].run.attempt), (2, 2));
    assert_eq!(
        again[0].run.seq, first[0].run.seq,
        "a requeue keeps the seq"
    );

    assert!(
        queue
            .finish(&again[0], RunStatus::Success, None, ThreadStatus::Idle)
            .await?
    );
    assert_eq!(ids(&queue.claim("w2", 10).await?), ["a2"]);
    Ok(())
}

#[tokio::test]
async fn a_reaped_lease_is_claimed_again_and_its_zombie_cannot_write() -> TestResult {
    let Some(queue) = queue(fast()).await? else {
        return Ok(());
    };
    queue.enqueue(&new_run("r1", "T")).await?;
    let zombie = queue.claim("w1", 1).await?.remove(0);
    assert_eq!(
        queue.heartbeat(&zombie).await?,
        Heartbeat::Held { cancel: None }
    );
    assert!(queue.check_lease(&zombie).await?);

    // w1 pauses past its lease; a reaper (any worker) takes the run back.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(
        !queue.check_lease(&zombie).await?,
        "a lapsed lease is no ground for an external effect"
    );
    let report = queue.reap().await?;
    assert_eq!(
        report,
        ReapReport {
            requeued: vec!["r1".to_string()],
            failed: vec![]
        }
    );
    assert_eq!(queue.reap().await?, ReapReport::default(), "idempotent");
    // Reaped but not yet claimed again: already fenced.
    assert!(!queue.append_events(&zombie, &[event(1)]).await?);

    tokio::time::sleep(Duration::from_millis(100)).await; // the backoff (50 ms)
    let lease = queue.claim("w2", 1).await?.remove(0);
    assert_eq!(
        (lease.epoch, lease.run.attempt, lease.owner.as_str()),
        (2, 2, "w2")
    );

    // Every fenced write of the old lease is refused.
    assert!(
        !queue
            .finish(&zombie, RunStatus::Success, None, ThreadStatus::Idle)
            .await?
    );
    assert!(!queue.append_events(&zombie, &[event(1)]).await?);
    assert!(!queue.append_events(&zombie, &[]).await?);
    assert_eq!(queue.heartbeat(&zombie).await?, Heartbeat::Lost);
    assert!(!queue.set_base_checkpoint(&zombie, "ckpt-zombie").await?);
    assert!(!queue.requeue(&zombie).await?);
    assert!(!queue.check_lease(&zombie).await?);
    let mut conn = queue.pool().acquire().await?;
    assert!(!zombie.guard().holds(&mut conn).await?);
    assert!(zombie.guard().describe().contains("r1"));
    assert!(lease.guard().holds(&mut conn).await?);
    drop(conn);

    // ...and changed nothing.
    let run = queue.get_run("r1").await?.ok_or("no run")?;
    assert_eq!(
        (
            run.status,
            run.epoch,
            run.owner.as_deref(),
            run.base_checkpoint
        ),
        (RunStatus::Running, 2, Some("w2"), None)
    );
    assert!(queue.read_events("r1", 0).await?.is_empty());

    // The new lease writes.
    assert!(queue.set_base_checkpoint(&lease, "ckpt-1").await?);
    assert!(queue.append_events(&lease, &[event(1)]).await?);
    assert!(
        queue
            .finish(&lease, RunStatus::Success, None, ThreadStatus::Idle)
            .await?
    );
    let run = queue.get_run("r1").await?.ok_or("no run")?;
    assert_eq!(
        (run.status, run.base_checkpoint.as_deref(), run.expirations),
        (RunStatus::Success, Some("ckpt-1"), 1)
    );
    Ok(())
}

#[tokio::test]
async fn a_lease_lapsing_on_the_last_attempt_fails_the_run_and_its_thread() -> TestResult {
    let config = QueueConfig {
        max_attempts: 2,
        backoff_base: Duration::from_millis(10),
        ..fast()
    };
    let Some(queue) = queue(config).await? else {
        return Ok(());
    };
    queue
        .create_thread(&ThreadRow {
            thread_id: "T".to_string(),
            created_ms: 1_000,
            updated_ms: 1_000,
            status: ThreadStatus::Busy,
            metadata: serde_json::json!({}),
        })
        .await?;
    queue.enqueue(&new_run("r1", "T")).await?;
    for attempt in 1..=2 {
        let lease = queue.claim("w", 1).await?.remove(0);
        assert_eq!(lease.run.attempt, attempt);
        tokio::time::sleep(Duration::from_millis(350)).await;
        let report = queue.reap().await?;
        let expected = if attempt == 1 {
            ReapReport {
                requeued: vec!["r1".to_string()],
                failed: vec![],
            }
        } else {
            ReapReport {
                requeued: vec![],
                failed: vec!["r1".to_string()],
            }
        };
        assert_eq!(report, expected);
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    let run = queue.get_run("r1").await?.ok_or("no run")?;
    assert_eq!(
        (run.status, run.error.as_deref(), run.owner, run.attempt),
        (RunStatus::Error, Some("lease expired 2 times"), None, 2)
    );
    let thread = queue.get_thread("T").await?.ok_or("no thread")?;
    assert_eq!(thread.status, ThreadStatus::Error);
    assert!(queue.claim("w", 1).await?.is_empty());
    Ok(())
}

#[tokio::test]
async fn a_reaped_run_is_not_claimable_before_its_backoff() -> TestResult {
    let config = QueueConfig {
        lease_ttl: Duration::from_millis(200),
        backoff_base: Duration::from_millis(700),
        ..fast()
    };
    let Some(queue) = queue(config).await? else {
        return Ok(());
    };
    queue.enqueue(&new_run("r1", "T")).await?;
    queue.enqueue(&new_run("r2", "T")).await?;
    let lease = queue.claim("w", 5).await?;
    assert_eq!(ids(&lease), ["r1"]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(queue.reap().await?.requeued, ["r1"]);
    let run = queue.get_run("r1").await?.ok_or("no run")?;
    let delay = run.available_ms - run.updated_ms;
    assert!((690..=710).contains(&delay), "backoff {delay} ms");

    // Neither r1 nor, behind it on its thread, r2.
    assert!(queue.claim("w", 5).await?.is_empty());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(queue.claim("w", 5).await?.is_empty());
    tokio::time::sleep(Duration::from_millis(500)).await;
    let again = queue.claim("w", 5).await?;
    assert_eq!(ids(&again), ["r1"]);
    assert_eq!(again[0].run.attempt, 2);
    Ok(())
}

/// A run given back after a passing failure (`retry`) waits the reaper's
/// backoff, keeps its place, is claimed with the next epoch and attempt,
/// and is refused a retry for a stale lease and on its last attempt.
#[tokio::test]
async fn a_retried_run_waits_its_backoff_and_is_refused_on_its_last_attempt() -> TestResult {
    let config = QueueConfig {
        backoff_base: Duration::from_millis(400),
        max_attempts: 2,
        ..fast()
    };
    let Some(queue) = queue(config).await? else {
        return Ok(());
    };
    queue.enqueue(&new_run("r1", "T")).await?;
    queue.enqueue(&new_run("r2", "T")).await?;
    let first = queue.claim("w", 5).await?;
    assert_eq!(ids(&first), ["r1"]);
    assert!(queue.retry(&first[0]).await?);
    assert!(!queue.retry(&first[0]).await?, "the lease is gone");
    let run = queue.get_run("r1").await?.ok_or("no run")?;
    assert_eq!(run.status, RunStatus::Pending);
    let delay = run.available_ms - run.updated_ms;
    assert!((390..=410).contains(&delay), "backoff {delay} ms");
    // Neither r1 nor, behind it on its thread, r2 before the backoff.
    assert!(queue.claim("w", 5).await?.is_empty());
    tokio::time::sleep(Duration::from_millis(500)).await;
    let again = queue.claim("w", 5).await?;
    assert_eq!(ids(&again), ["r1"]);
    assert_eq!((again[0].epoch, again[0].run.attempt), (2, 2));
    // Its last attempt: not given back; the lease still holds the run.
    assert!(!queue.retry(&again[0]).await?);
    let run = queue.get_run("r1").await?.ok_or("no run")?;
    assert_eq!(run.status, RunStatus::Running);
    Ok(())
}

#[tokio::test]
async fn cancels_stop_a_pending_run_at_once_and_reach_a_running_one_by_heartbeat() -> TestResult {
    let Some(queue) = queue(fast()).await? else {
        return Ok(());
    };
    queue.enqueue(&new_run("pending", "P")).await?;
    assert_eq!(
        queue
            .request_cancel("pending", CancelAction::Interrupt)
            .await?,
        CancelOutcome::Cancelled
    );
    let run = queue.get_run("pending").await?.ok_or("no run")?;
    assert_eq!(
        (run.status, run.cancel_requested),
        (RunStatus::Interrupted, None)
    );

    queue.enqueue(&new_run("running", "R")).await?;
    let lease = queue.claim("w", 5).await?;
    assert_eq!(ids(&lease), ["running"], "a cancelled run is not claimed");
    let lease = &lease[0];
    assert_eq!(
        queue
            .request_cancel("running", CancelAction::Rollback)
            .await?,
        CancelOutcome::Requested
    );
    assert_eq!(
        queue.get_run("running").await?.ok_or("no run")?.status,
        RunStatus::Running
    );
    assert_eq!(
        queue.heartbeat(lease).await?,
        Heartbeat::Held {
            cancel: Some(CancelAction::Rollback)
        }
    );
    assert!(
        queue
            .finish(lease, RunStatus::Interrupted, None, ThreadStatus::Idle)
            .await?
    );
    let run = queue.get_run("running").await?.ok_or("no run")?;
    assert_eq!(
        (run.status, run.cancel_requested, run.owner),
        (RunStatus::Interrupted, None, None)
    );
    assert_eq!(
        queue
            .request_cancel("running", CancelAction::Interrupt)
            .await?,
        CancelOutcome::AlreadyEnded
    );
    assert_eq!(
        queue
            .request_cancel("nope", CancelAction::Interrupt)
            .await?,
        CancelOutcome::NotFound
    );
    Ok(())
}

/// A worker whose connections PostgreSQL ended (a failover, a network cut)
/// keeps its lease: its pool's dead idle connections fail one statement
/// each, which the queue tries again on another connection, so neither a
/// lease check nor a heartbeat, an event or the run's end fails.
#[tokio::test]
async fn a_lease_survives_the_end_of_every_connection_of_its_worker() -> TestResult {
    let Some(db) = rebound_postgres::testing::test_database().await? else {
        return Ok(());
    };
    // As the saver's pool: no ping before handing out a connection idle
    // for a moment only.
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(4)
        .test_before_acquire(false)
        .connect(&format!("{}?application_name=cut%20worker", db.url))
        .await?;
    rebound_postgres::migrate::migrate(&pool).await?;
    let config = QueueConfig {
        lease_ttl: Duration::from_secs(10),
        ..fast()
    };
    let queue = rebound_postgres::queue::RunQueue::new(pool.clone(), config);
    queue.enqueue(&support::new_run("r1", "T")).await?;
    let lease = queue.claim("w1", 1).await?.remove(0);
    for round in 0..2 {
        end_every_connection(&pool, &db.url, "cut worker", 4).await?;
        match round {
            0 => {
                assert!(queue.check_lease(&lease).await?);
                assert_eq!(
                    queue.heartbeat(&lease).await?,
                    Heartbeat::Held { cancel: None }
                );
                assert!(queue.append_events(&lease, &[event(1)]).await?);
            }
            _ => assert!(
                queue
                    .finish(&lease, RunStatus::Success, None, ThreadStatus::Idle)
                    .await?
            ),
        }
    }
    assert_eq!(queue.read_events("r1", 0).await?.len(), 1);
    assert_eq!(
        queue.get_run("r1").await?.map(|r| r.status),
        Some(RunStatus::Success)
    );
    Ok(())
}

/// An API server whose connections PostgreSQL ended (a restart, a
/// failover) answers its next requests as ever: each of its statements is
/// tried again on another connection, and a run queued by a try after a
/// lost one is queued once.
#[tokio::test]
async fn an_api_server_answers_after_the_end_of_every_connection_it_had() -> TestResult {
    let Some(db) = rebound_postgres::testing::test_database().await? else {
        return Ok(());
    };
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(3)
        .test_before_acquire(false)
        .connect(&format!("{}?application_name=cut%20api", db.url))
        .await?;
    rebound_postgres::migrate::migrate(&pool).await?;
    let queue = rebound_postgres::queue::RunQueue::new(pool.clone(), fast());
    let cut = || end_every_connection(&pool, &db.url, "cut api", 3);

    cut().await?;
    let thread = ThreadRow {
        thread_id: "T".to_string(),
        created_ms: 1_000,
        updated_ms: 1_000,
        status: ThreadStatus::Idle,
        metadata: serde_json::json!({"owner": "me"}),
    };
    assert!(queue.create_thread(&thread).await?);
    cut().await?;
    assert_eq!(queue.enqueue(&new_run("r1", "T")).await?.run_id, "r1");
    cut().await?;
    assert_eq!(queue.enqueue(&new_run("r2", "T")).await?.run_id, "r2");
    cut().await?;
    let got = queue.get_thread("T").await?.ok_or("no thread")?;
    assert_eq!(got.status, ThreadStatus::Busy, "{got:?}");
    cut().await?;
    let found = queue
        .search_threads(&rebound_postgres::queue::ThreadSearch {
            metadata: serde_json::json!({"owner": "me"}),
            ..Default::default()
        })
        .await?;
    assert_eq!(found.len(), 1);
    cut().await?;
    assert_eq!(
        queue.get_run("r1").await?.map(|r| r.status),
        Some(RunStatus::Pending)
    );
    cut().await?;
    assert_eq!(queue.list_runs("T", None, 10, 0).await?.len(), 2);
    cut().await?;
    assert_eq!(queue.active_runs("T").await?.len(), 2);
    cut().await?;
    assert!(queue.read_events("r1", 0).await?.is_empty());
    cut().await?;
    assert_eq!(
        queue.request_cancel("r2", CancelAction::Interrupt).await?,
        CancelOutcome::Cancelled
    );
    cut().await?;
    assert!(queue.delete_run("r2").await?);
    cut().await?;
    queue.put_thread(&thread).await?;
    cut().await?;
    assert!(queue.set_thread_status("T", ThreadStatus::Idle).await?);
    cut().await?;
    assert!(queue.delete_thread("T").await?);
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM rebound_runs")
        .fetch_one(&pool)
        .await?;
    assert_eq!(left, 0, "a run queued twice, or one left behind");
    Ok(())
}

/// Opens every one of the `n` connections of `pool` (whose sessions are
/// named `application`), leaves them idle, and has PostgreSQL end them.
async fn end_every_connection(
    pool: &sqlx::PgPool,
    url: &str,
    application: &str,
    n: usize,
) -> TestResult {
    let ended = rebound_postgres::testing::end_idle_connections(pool, url, application, n).await?;
    assert_eq!(ended, n as i64, "{application}");
    Ok(())
}
