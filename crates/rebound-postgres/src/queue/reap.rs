//! The reaper: runs whose lease lapsed go back to the queue, or fail.
//!
//! Any worker may reap, as often as it likes: the expired runs are locked
//! with `FOR UPDATE SKIP LOCKED` and re-checked, so two reapers at once
//! never move one run twice, and a heartbeat that committed first wins.
//! Expiry is judged by the database's clock only. The worker that held a
//! reaped run may still be alive (paused, partitioned): its lease's epoch
//! is now stale, so its writes are refused from here on.

use sqlx::Row;

use super::config::millis;
use super::{QueueError, RunQueue};

/// What one [`RunQueue::reap`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReapReport {
    /// The runs queued again (claimable after their backoff).
    pub requeued: Vec<String>,
    /// The runs failed: their lease lapsed on their last attempt.
    pub failed: Vec<String>,
}

const REAP: &str = concat!(
    "WITH expired AS (
        SELECT seq FROM rebound_runs
        WHERE status = 'running' AND lease_expires_at < now()
        ORDER BY seq
        FOR UPDATE SKIP LOCKED
    ), moved AS (
        UPDATE rebound_runs r
        SET status = CASE WHEN r.attempt >= $1 THEN 'error' ELSE 'pending' END,
            error = CASE WHEN r.attempt >= $1
                         THEN 'lease expired ' || (r.expirations + 1) || ' times'
                         ELSE r.error END,
            available_at = CASE WHEN r.attempt >= $1 THEN r.available_at
                           ELSE now() + ",
    backoff_sql!("r.attempt", "$2", "$3"),
    " END,
            expirations = r.expirations + 1,
            owner = NULL, lease_expires_at = NULL, updated_at = now()
        FROM expired
        WHERE r.seq = expired.seq AND r.status = 'running'
        RETURNING r.seq, r.run_id, r.thread_id, r.status
    ), failed_threads AS (
        UPDATE rebound_threads t SET status = 'error', updated_at = now()
        FROM moved
        WHERE t.thread_id = moved.thread_id AND moved.status = 'error'
        RETURNING 1
    )
    SELECT moved.run_id, moved.status,
           pg_notify('rebound_runs',
                     CASE WHEN moved.status = 'error' THEN 'ended:' ELSE 'queued:' END
                     || moved.run_id)
    FROM moved ORDER BY moved.seq"
);

impl RunQueue {
    /// Moves every run whose lease lapsed: back to `pending`, claimable
    /// after `backoff_base * 2^(attempt - 1)` (at most `backoff_cap`), or,
    /// once `attempt >= max_attempts`, to `error` ("lease expired N
    /// times", its thread too). Announces each on
    /// [`super::RUNS_CHANNEL`]. Idempotent; safe to call from many workers
    /// at once.
    pub async fn reap(&self) -> Result<ReapReport, QueueError> {
        let max_attempts = i32::try_from(self.config.max_attempts).unwrap_or(i32::MAX);
        let rows = sqlx::query(REAP)
            .bind(max_attempts)
            .bind(millis(self.config.backoff_base))
            .bind(millis(self.config.backoff_cap))
            .fetch_all(&self.pool)
            .await?;
        let mut report = ReapReport::default();
        for row in rows {
            let run_id: String = row.try_get(0)?;
            let status: String = row.try_get(1)?;
            if status == "error" {
                report.failed.push(run_id);
            } else {
                report.requeued.push(run_id);
            }
        }
        Ok(report)
    }
}
