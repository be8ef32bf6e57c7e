//! The run event log: appended under the lease, announced at commit, read
//! back in order.

use sqlx::Row;

use super::{EventRow, Lease, QueueError, RunQueue};

/// One statement: lock the run's row if the lease holds (`FOR SHARE`: a
/// reaper, a cancel or a claim must wait for this commit, and a change
/// committed first is re-checked), insert the batch, and notify once with
/// its last seq. `NOTIFY` is delivered at commit, so a listener never hears
/// of events it cannot read yet.
const APPEND: &str = "WITH held AS (
        SELECT run_id FROM rebound_runs
        WHERE run_id = $1 AND epoch = $2 AND status = 'running'
        FOR SHARE
    ), ins AS (
        INSERT INTO rebound_run_events (run_id, seq, event, data)
        SELECT held.run_id, e.seq, e.event, e.data
        FROM held, UNNEST($3::bigint[], $4::text[], $5::text[]) AS e(seq, event, data)
        ON CONFLICT (run_id, seq) DO UPDATE SET event = excluded.event, data = excluded.data
        RETURNING seq
    )
    SELECT pg_notify('rebound_run_events', $1 || ':' || max(ins.seq)) FROM ins
    HAVING count(*) > 0";

const HELD: &str = "SELECT EXISTS (SELECT 1 FROM rebound_runs
    WHERE run_id = $1 AND epoch = $2 AND status = 'running')";

const READ: &str = "SELECT seq, event, data FROM rebound_run_events
    WHERE run_id = $1 AND seq > $2 ORDER BY seq";

/// Appends `events` (not empty) to the run's log, with the notification,
/// on `executor` (the pool, or a transaction to commit with more). `false`,
/// and nothing written, when the lease was lost.
pub(super) async fn append<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    lease: &Lease,
    events: &[EventRow],
) -> Result<bool, sqlx::Error> {
    let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
    let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    let data: Vec<&str> = events.iter().map(|e| e.data.as_str()).collect();
    let row = sqlx::query(APPEND)
        .bind(&lease.run_id)
        .bind(lease.epoch)
        .bind(seqs)
        .bind(names)
        .bind(data)
        .fetch_optional(executor)
        .await?;
    Ok(row.is_some())
}

impl RunQueue {
    /// Appends `events` to the run's log (an event already stored at a
    /// seq is replaced) and sends one `NOTIFY rebound_run_events,
    /// '<run_id>:<last seq>'`, both at one commit. `false`, and nothing
    /// written, when the lease was lost.
    pub async fn append_events(
        &self,
        lease: &Lease,
        events: &[EventRow],
    ) -> Result<bool, QueueError> {
        if events.is_empty() {
            return self
                .retrying(|| async move {
                    Ok(sqlx::query_scalar(HELD)
                        .bind(&lease.run_id)
                        .bind(lease.epoch)
                        .fetch_one(&self.pool)
                        .await?)
                })
                .await;
        }
        // Safe to run twice: an event already stored at a seq is replaced.
        self.retrying(|| async move { Ok(append(&self.pool, lease, events).await?) })
            .await
    }

    /// A run's events after `after_seq`, in order. A reader following a
    /// run polls this as well as listening ([`RunQueue::listen`]): a
    /// notification missed while the listener reconnected is caught up by
    /// the next read.
    pub async fn read_events(
        &self,
        run_id: &str,
        after_seq: i64,
    ) -> Result<Vec<EventRow>, QueueError> {
        let rows = self
            .retrying(|| async {
                Ok(sqlx::query(READ)
                    .bind(run_id)
                    .bind(after_seq)
                    .fetch_all(&self.pool)
                    .await?)
            })
            .await?;
        rows.iter()
            .map(|row| {
                Ok(EventRow {
                    seq: row.try_get(0)?,
                    event: row.try_get(1)?,
                    data: row.try_get(2)?,
                })
            })
            .collect()
    }
}
