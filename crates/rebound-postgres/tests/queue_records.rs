//! Thread records and run reads, as the API servers use them, and the
//! schema's backstop of one running run per thread.

#[path = "queue_support.rs"]
mod support;

use rebound_postgres::queue::{
    EventRow, QueueError, RunStatus, ThreadRow, ThreadSearch, ThreadStatus,
};
use serde_json::json;
use support::{fast, new_run, queue, TestResult};

fn thread(
    id: &str,
    updated_ms: i64,
    status: ThreadStatus,
    metadata: serde_json::Value,
) -> ThreadRow {
    ThreadRow {
        thread_id: id.to_string(),
        created_ms: 1_000,
        updated_ms,
        status,
        metadata,
    }
}

#[tokio::test]
async fn threads_are_created_once_replaced_searched_and_deleted_with_their_runs() -> TestResult {
    let Some(queue) = queue(fast()).await? else {
        return Ok(());
    };
    let a = thread(
        "A",
        3_000,
        ThreadStatus::Idle,
        json!({"user": "ann", "tier": 1}),
    );
    let b = thread(
        "B",
        2_000,
        ThreadStatus::Interrupted,
        json!({"user": "ann"}),
    );
    let c = thread("C", 1_000, ThreadStatus::Idle, json!({"user": "bob"}));
    for record in [&a, &b, &c] {
        assert!(queue.create_thread(record).await?);
    }
    assert!(
        !queue
            .create_thread(&thread("A", 9_000, ThreadStatus::Error, json!({})))
            .await?
    );
    assert_eq!(queue.get_thread("A").await?, Some(a.clone()));
    assert_eq!(queue.get_thread("Z").await?, None);

    let search = |metadata, status| ThreadSearch {
        metadata,
        status,
        limit: 10,
        offset: 0,
    };
    assert_eq!(
        queue
            .search_threads(&search(json!({"user": "ann"}), None))
            .await?,
        [a.clone(), b.clone()]
    );
    assert_eq!(
        queue
            .search_threads(&search(json!({}), Some(ThreadStatus::Idle)))
            .await?,
        [a.clone(), c.clone()]
    );
    assert_eq!(
        queue
            .search_threads(&ThreadSearch {
                limit: 1,
                offset: 1,
                ..ThreadSearch::default()
            })
            .await?,
        vec![b]
    );

    let replaced = thread("B", 4_000, ThreadStatus::Error, json!({"user": "cat"}));
    queue.put_thread(&replaced).await?;
    assert_eq!(queue.get_thread("B").await?, Some(replaced.clone()));
    // `busy` is not stored (a thread is busy while it has a run pending or
    // running): a record read then and written back keeps the status
    // stored.
    let read_busy = thread("B", 4_000, ThreadStatus::Busy, json!({"user": "cat"}));
    queue.put_thread(&read_busy).await?;
    assert_eq!(queue.get_thread("B").await?, Some(replaced));
    assert!(queue.set_thread_status("B", ThreadStatus::Idle).await?);
    assert_eq!(
        queue.get_thread("B").await?.map(|t| t.status),
        Some(ThreadStatus::Idle)
    );

    // Runs: listed newest first, active ones oldest first.
    for run in ["a1", "a2", "a3"] {
        queue.enqueue(&new_run(run, "A")).await?;
    }
    // A thread with a run pending is busy, read alone or searched.
    assert_eq!(
        queue.get_thread("A").await?.map(|t| t.status),
        Some(ThreadStatus::Busy)
    );
    let busy = queue
        .search_threads(&search(json!({}), Some(ThreadStatus::Busy)))
        .await?;
    assert_eq!(
        busy.iter()
            .map(|t| t.thread_id.as_str())
            .collect::<Vec<_>>(),
        ["A"]
    );
    let enqueued = queue.get_run("a1").await?.ok_or("no run")?;
    assert_eq!(
        (
            enqueued.status,
            enqueued.attempt,
            enqueued.epoch,
            &enqueued.kwargs
        ),
        (RunStatus::Pending, 0, 0, &json!({"input": {"goal": "x"}}))
    );
    let lease = queue.claim("w", 1).await?.remove(0);
    assert!(
        queue
            .append_events(
                &lease,
                &[EventRow {
                    seq: 1,
                    event: "metadata".to_string(),
                    data: "{}".to_string()
                }]
            )
            .await?
    );
    let names = |runs: Vec<rebound_postgres::queue::RunRow>| {
        runs.into_iter().map(|r| r.run_id).collect::<Vec<_>>()
    };
    assert_eq!(
        names(queue.list_runs("A", None, 10, 0).await?),
        ["a3", "a2", "a1"]
    );
    assert_eq!(
        names(
            queue
                .list_runs("A", Some(RunStatus::Pending), 10, 0)
                .await?
        ),
        ["a3", "a2"]
    );
    assert_eq!(names(queue.list_runs("A", None, 1, 1).await?), ["a2"]);
    assert_eq!(names(queue.active_runs("A").await?), ["a1", "a2", "a3"]);

    assert!(queue.delete_run("a3").await?);
    assert!(!queue.delete_run("a3").await?);
    assert_eq!(names(queue.active_runs("A").await?), ["a1", "a2"]);

    // A finish must name a final status.
    assert!(matches!(
        queue
            .finish(&lease, RunStatus::Running, None, ThreadStatus::Idle)
            .await,
        Err(QueueError::NotFinal(RunStatus::Running))
    ));

    // Deleting the thread takes its runs and events; the worker holding
    // one loses its lease.
    assert!(queue.delete_thread("A").await?);
    assert!(!queue.delete_thread("A").await?);
    assert_eq!(queue.get_run("a1").await?, None);
    assert!(queue.read_events("a1", 0).await?.is_empty());
    assert!(!queue.check_lease(&lease).await?);
    assert!(
        !queue
            .finish(&lease, RunStatus::Success, None, ThreadStatus::Idle)
            .await?
    );
    assert_eq!(queue.get_thread("A").await?, None);
    Ok(())
}

#[tokio::test]
async fn the_schema_refuses_two_running_runs_on_one_thread() -> TestResult {
    let Some(queue) = queue(fast()).await? else {
        return Ok(());
    };
    queue.enqueue(&new_run("r1", "T")).await?;
    queue.enqueue(&new_run("r2", "T")).await?;
    assert_eq!(queue.claim("w", 5).await?.len(), 1);
    let forced = sqlx::query("UPDATE rebound_runs SET status = 'running' WHERE run_id = 'r2'")
        .execute(queue.pool())
        .await;
    match forced {
        Err(sqlx::Error::Database(e)) => assert_eq!(e.code().as_deref(), Some("23505")),
        other => panic!("expected a unique violation, got {other:?}"),
    }
    Ok(())
}
