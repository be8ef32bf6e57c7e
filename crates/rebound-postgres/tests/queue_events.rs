//! The run event log: appended under the lease, announced only once
//! committed, read back in order.

#[path = "queue_support.rs"]
mod support;

use std::time::Duration;

use rebound_postgres::queue::{EventRow, Notification, Notifications, RunStatus, ThreadStatus};
use support::{fast, new_run, queue, TestResult};

fn events(seqs: std::ops::RangeInclusive<i64>) -> Vec<EventRow> {
    seqs.map(|seq| EventRow {
        seq,
        event: if seq == 1 { "metadata" } else { "values" }.to_string(),
        data: format!("{{\"seq\":{seq}}}"),
    })
    .collect()
}

/// The next notification, or `None` after `wait`.
async fn next(
    notifications: &mut Notifications,
    wait: Duration,
) -> Result<Option<Notification>, Box<dyn std::error::Error + Send + Sync>> {
    match tokio::time::timeout(wait, notifications.recv()).await {
        Ok(notification) => Ok(Some(notification?)),
        Err(_) => Ok(None),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listeners_hear_of_events_only_once_committed_and_read_them_in_order() -> TestResult {
    let Some(queue) = queue(fast()).await? else {
        return Ok(());
    };
    let mut notifications = queue.listen().await?;
    queue.enqueue(&new_run("r1", "T")).await?;
    assert_eq!(
        next(&mut notifications, Duration::from_secs(5)).await?,
        Some(Notification::RunQueued {
            run_id: "r1".to_string()
        })
    );
    let lease = queue.claim("w", 1).await?.remove(0);

    // Another transaction holds the run's row: the append waits for it.
    let mut blocker = queue.pool().begin().await?;
    sqlx::query("SELECT 1 FROM rebound_runs WHERE run_id = 'r1' FOR UPDATE")
        .execute(&mut *blocker)
        .await?;
    let append = tokio::spawn({
        let queue = queue.clone();
        let lease = lease.clone();
        async move { queue.append_events(&lease, &events(1..=3)).await }
    });
    assert_eq!(
        next(&mut notifications, Duration::from_millis(300)).await?,
        None,
        "nothing is announced before the commit"
    );
    assert!(queue.read_events("r1", 0).await?.is_empty());
    blocker.commit().await?;
    assert!(append.await??);
    assert_eq!(
        next(&mut notifications, Duration::from_secs(5)).await?,
        Some(Notification::Events {
            run_id: "r1".to_string(),
            last_seq: 3
        }),
        "one notification per batch, with its last seq"
    );
    assert_eq!(queue.read_events("r1", 0).await?, events(1..=3));

    assert!(queue.append_events(&lease, &events(4..=5)).await?);
    assert_eq!(
        next(&mut notifications, Duration::from_secs(5)).await?,
        Some(Notification::Events {
            run_id: "r1".to_string(),
            last_seq: 5
        })
    );
    assert_eq!(queue.read_events("r1", 3).await?, events(4..=5));
    assert_eq!(queue.read_events("r1", 0).await?, events(1..=5));

    assert!(
        queue
            .finish(&lease, RunStatus::Success, None, ThreadStatus::Idle)
            .await?
    );
    assert_eq!(
        next(&mut notifications, Duration::from_secs(5)).await?,
        Some(Notification::RunEnded {
            run_id: "r1".to_string()
        })
    );
    // A lost lease appends nothing and announces nothing.
    assert!(!queue.append_events(&lease, &events(6..=6)).await?);
    assert_eq!(
        next(&mut notifications, Duration::from_millis(300)).await?,
        None
    );
    assert_eq!(queue.read_events("r1", 5).await?, Vec::new());
    Ok(())
}
