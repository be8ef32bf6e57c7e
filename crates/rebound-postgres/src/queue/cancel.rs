//! Cancelling runs, asked for by any API server.

use sqlx::Row;

use super::{CancelAction, QueueError, RunQueue};

/// What [`RunQueue::request_cancel`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelOutcome {
    /// The run was pending: it is `interrupted` now and will not run.
    Cancelled,
    /// The run is running: its worker hears of it at its next heartbeat.
    Requested,
    /// The run had ended already.
    AlreadyEnded,
    /// There is no such run.
    NotFound,
}

/// One statement, so that a run claimed meanwhile is seen as running: the
/// `UPDATE` waits for the claim's lock and re-evaluates the new row.
const CANCEL: &str = "WITH c AS (
        UPDATE rebound_runs
        SET status = CASE WHEN status = 'pending' THEN 'interrupted' ELSE status END,
            cancel_requested = CASE WHEN status = 'running' THEN $2 ELSE cancel_requested END,
            updated_at = now()
        WHERE run_id = $1 AND status IN ('pending', 'running')
        RETURNING run_id, status
    )
    SELECT c.status, CASE WHEN c.status = 'interrupted'
                          THEN pg_notify('rebound_runs', 'ended:' || c.run_id) END
    FROM c";

impl RunQueue {
    /// Stops a run: a pending run becomes `interrupted` at once (announced
    /// as ended); a running one gets `cancel_requested = action`, which
    /// the next [`RunQueue::heartbeat`] of its worker delivers. Tried
    /// again when its connection was lost: a pending run that the lost try
    /// cancelled then answers [`CancelOutcome::AlreadyEnded`].
    pub async fn request_cancel(
        &self,
        run_id: &str,
        action: CancelAction,
    ) -> Result<CancelOutcome, QueueError> {
        let row = self
            .retrying(|| async {
                Ok(sqlx::query(CANCEL)
                    .bind(run_id)
                    .bind(action.as_str())
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        if let Some(row) = row {
            let status: String = row.try_get(0)?;
            return Ok(if status == "interrupted" {
                CancelOutcome::Cancelled
            } else {
                CancelOutcome::Requested
            });
        }
        let exists: bool = self
            .retrying(|| async {
                Ok(sqlx::query_scalar(
                    "SELECT EXISTS (SELECT 1 FROM rebound_runs WHERE run_id = $1)",
                )
                .bind(run_id)
                .fetch_one(&self.pool)
                .await?)
            })
            .await?;
        Ok(if exists {
            CancelOutcome::AlreadyEnded
        } else {
            CancelOutcome::NotFound
        })
    }
}
