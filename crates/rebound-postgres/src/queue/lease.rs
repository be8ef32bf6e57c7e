//! The writes a [`Lease`] fences: heartbeats, the run's end, its events.
//!
//! Every statement here matches the run by `run_id + epoch + status =
//! running`: once the run was reaped, requeued, finished, cancelled or
//! claimed again, the old lease's writes change nothing and report `false`
//! (or [`Heartbeat::Lost`]).

use sqlx::Row;

use super::config::millis;
use super::rows::decode_cancel;
use super::{CancelAction, Lease, QueueError, RunQueue, RunStatus, ThreadStatus};

/// What a heartbeat found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heartbeat {
    /// The lease is held and extended.
    Held {
        /// A cancel an API server asked for: stop the run and finish it.
        cancel: Option<CancelAction>,
    },
    /// The run moved on (reaped, cancelled, deleted or claimed again):
    /// stop working on it and write nothing more.
    Lost,
}

const HEARTBEAT: &str = "UPDATE rebound_runs
    SET lease_expires_at = now() + $3::float8 * interval '1 millisecond'
    WHERE run_id = $1 AND epoch = $2 AND status = 'running'
    RETURNING cancel_requested";

const FINISH: &str = "WITH done AS (
        UPDATE rebound_runs
        SET status = $3, error = COALESCE($4, error), owner = NULL,
            lease_expires_at = NULL, cancel_requested = NULL, updated_at = now()
        WHERE run_id = $1 AND epoch = $2 AND status = 'running'
        RETURNING run_id, thread_id
    ), thread AS (
        UPDATE rebound_threads SET status = $5, updated_at = now()
        WHERE thread_id IN (SELECT thread_id FROM done)
        RETURNING 1
    )
    SELECT pg_notify('rebound_runs', 'ended:' || done.run_id) FROM done";

const REQUEUE: &str = "WITH back AS (
        UPDATE rebound_runs
        SET status = 'pending', owner = NULL, lease_expires_at = NULL,
            available_at = now(), updated_at = now()
        WHERE run_id = $1 AND epoch = $2 AND status = 'running'
        RETURNING run_id
    )
    SELECT pg_notify('rebound_runs', 'queued:' || back.run_id) FROM back";

const RETRY: &str = concat!(
    "WITH back AS (
        UPDATE rebound_runs
        SET status = 'pending', owner = NULL, lease_expires_at = NULL,
            available_at = now() + ",
    backoff_sql!("attempt", "$3", "$4"),
    ",
            updated_at = now()
        WHERE run_id = $1 AND epoch = $2 AND status = 'running' AND attempt < $5
        RETURNING run_id
    )
    SELECT pg_notify('rebound_runs', 'queued:' || back.run_id) FROM back"
);

const SET_BASE_CHECKPOINT: &str = "UPDATE rebound_runs
    SET base_checkpoint = COALESCE(base_checkpoint, $3)
    WHERE run_id = $1 AND epoch = $2 AND status = 'running'";

const CHECK_LEASE: &str = "SELECT EXISTS (SELECT 1 FROM rebound_runs
    WHERE run_id = $1 AND epoch = $2 AND status = 'running' AND lease_expires_at > now())";

impl RunQueue {
    /// Extends the lease by [`super::QueueConfig::lease_ttl`] from now (the
    /// database's clock) if it is still held, and delivers a cancel asked
    /// for since the claim.
    pub async fn heartbeat(&self, lease: &Lease) -> Result<Heartbeat, QueueError> {
        let row = self
            .retrying(|| async move {
                Ok(sqlx::query(HEARTBEAT)
                    .bind(&lease.run_id)
                    .bind(lease.epoch)
                    .bind(millis(self.config.lease_ttl))
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        let Some(row) = row else {
            return Ok(Heartbeat::Lost);
        };
        let cancel: Option<String> = row.try_get(0)?;
        Ok(Heartbeat::Held {
            cancel: cancel.as_deref().map(decode_cancel).transpose()?,
        })
    }

    /// Ends the run as `status` (a final one) with `error`, and records
    /// `thread_status` for its thread, in one transaction; announces the
    /// end on [`super::RUNS_CHANNEL`] (its thread may run its next run).
    /// `false`, and nothing written, when the lease was lost.
    pub async fn finish(
        &self,
        lease: &Lease,
        status: RunStatus,
        error: Option<&str>,
        thread_status: ThreadStatus,
    ) -> Result<bool, QueueError> {
        if !status.is_final() {
            return Err(QueueError::NotFinal(status));
        }
        let row = self
            .retrying(|| async move {
                Ok(sqlx::query(FINISH)
                    .bind(&lease.run_id)
                    .bind(lease.epoch)
                    .bind(status.as_str())
                    .bind(error)
                    .bind(thread_status.as_str())
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        Ok(row.is_some())
    }

    /// [`RunQueue::finish`] with the run's last events appended in the same
    /// transaction: a reader that sees the last event (`end`) finds the
    /// run ended. `false`, and nothing written, when the lease was lost.
    pub async fn finish_with_events(
        &self,
        lease: &Lease,
        events: &[super::EventRow],
        status: RunStatus,
        error: Option<&str>,
        thread_status: ThreadStatus,
    ) -> Result<bool, QueueError> {
        if !status.is_final() {
            return Err(QueueError::NotFinal(status));
        }
        self.retrying(|| self.finish_with_events_once(lease, events, status, error, thread_status))
            .await
    }

    /// One try of [`RunQueue::finish_with_events`].
    async fn finish_with_events_once(
        &self,
        lease: &Lease,
        events: &[super::EventRow],
        status: RunStatus,
        error: Option<&str>,
        thread_status: ThreadStatus,
    ) -> Result<bool, QueueError> {
        let mut tx = self.pool.begin().await?;
        if !events.is_empty() && !super::events::append(&mut *tx, lease, events).await? {
            return Ok(false);
        }
        let row = sqlx::query(FINISH)
            .bind(&lease.run_id)
            .bind(lease.epoch)
            .bind(status.as_str())
            .bind(error)
            .bind(thread_status.as_str())
            .fetch_optional(&mut *tx)
            .await?;
        if row.is_none() {
            return Ok(false);
        }
        tx.commit().await?;
        Ok(true)
    }

    /// Gives the run back (a graceful shutdown): pending again at once, in
    /// its old place in the queue; the attempt its claim counted stays
    /// counted. `false` when the lease was lost.
    pub async fn requeue(&self, lease: &Lease) -> Result<bool, QueueError> {
        let row = self
            .retrying(|| async move {
                Ok(sqlx::query(REQUEUE)
                    .bind(&lease.run_id)
                    .bind(lease.epoch)
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        Ok(row.is_some())
    }

    /// Gives the run back for another attempt after the backoff a reaped
    /// run gets (`backoff_base * 2^(attempt - 1)`, at most `backoff_cap`),
    /// keeping its place in the queue: for an attempt that failed for the
    /// infrastructure (its store's connection ended, its thread still held
    /// by an earlier attempt), not for the run. `false` when the lease was
    /// lost or the run has had its `max_attempts` (it then ends as it
    /// failed).
    pub async fn retry(&self, lease: &Lease) -> Result<bool, QueueError> {
        let max_attempts = i32::try_from(self.config.max_attempts).unwrap_or(i32::MAX);
        let row = self
            .retrying(|| async move {
                Ok(sqlx::query(RETRY)
                    .bind(&lease.run_id)
                    .bind(lease.epoch)
                    .bind(millis(self.config.backoff_base))
                    .bind(millis(self.config.backoff_cap))
                    .bind(max_attempts)
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        Ok(row.is_some())
    }

    /// Records the checkpoint the run started from (a value already
    /// recorded, by an earlier attempt, stays). `false` when the lease was
    /// lost.
    pub async fn set_base_checkpoint(
        &self,
        lease: &Lease,
        checkpoint: &str,
    ) -> Result<bool, QueueError> {
        let done = self
            .retrying(|| async move {
                Ok(sqlx::query(SET_BASE_CHECKPOINT)
                    .bind(&lease.run_id)
                    .bind(lease.epoch)
                    .bind(checkpoint)
                    .execute(&self.pool)
                    .await?)
            })
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Whether the lease is held and has not lapsed: what a worker asks
    /// before each external effect (a command, a model call), so that a
    /// worker paused past its lease does not start one that the run's next
    /// worker will make too. Stricter than the fenced writes, which only
    /// need the run not to have moved on.
    pub async fn check_lease(&self, lease: &Lease) -> Result<bool, QueueError> {
        self.retrying(|| async move {
            Ok(sqlx::query_scalar(CHECK_LEASE)
                .bind(&lease.run_id)
                .bind(lease.epoch)
                .fetch_one(&self.pool)
                .await?)
        })
        .await
    }
}
