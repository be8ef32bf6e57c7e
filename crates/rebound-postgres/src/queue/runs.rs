//! Reading and deleting runs (the API servers' side of the queue).

use super::rows::{decode_all, decode_run, run_columns};
use super::{QueueError, RunQueue, RunRow, RunStatus};

const GET_RUN: &str = concat!(
    "SELECT ",
    run_columns!(),
    " FROM rebound_runs r WHERE r.run_id = $1"
);

const LIST_RUNS: &str = concat!(
    "SELECT ",
    run_columns!(),
    " FROM rebound_runs r
    WHERE r.thread_id = $1 AND ($2::text IS NULL OR r.status = $2)
    ORDER BY r.seq DESC LIMIT $3 OFFSET $4"
);

const ACTIVE_RUNS: &str = concat!(
    "SELECT ",
    run_columns!(),
    " FROM rebound_runs r
    WHERE r.thread_id = $1 AND r.status IN ('pending', 'running')
    ORDER BY r.seq"
);

impl RunQueue {
    /// A run, by id.
    pub async fn get_run(&self, run_id: &str) -> Result<Option<RunRow>, QueueError> {
        let row = self
            .retrying(|| async {
                Ok(sqlx::query(GET_RUN)
                    .bind(run_id)
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        row.as_ref().map(decode_run).transpose()
    }

    /// A thread's runs, newest first, only those with `status` if given.
    pub async fn list_runs(
        &self,
        thread_id: &str,
        status: Option<RunStatus>,
        limit: i64,
        offset: i64,
    ) -> Result<Vec<RunRow>, QueueError> {
        let rows = self
            .retrying(|| async {
                Ok(sqlx::query(LIST_RUNS)
                    .bind(thread_id)
                    .bind(status.map(RunStatus::as_str))
                    .bind(limit)
                    .bind(offset)
                    .fetch_all(&self.pool)
                    .await?)
            })
            .await?;
        decode_all(&rows, decode_run)
    }

    /// A thread's runs that have not ended (pending or running), oldest
    /// first: the order they run in.
    pub async fn active_runs(&self, thread_id: &str) -> Result<Vec<RunRow>, QueueError> {
        let rows = self
            .retrying(|| async {
                Ok(sqlx::query(ACTIVE_RUNS)
                    .bind(thread_id)
                    .fetch_all(&self.pool)
                    .await?)
            })
            .await?;
        decode_all(&rows, decode_run)
    }

    /// Deletes a run and its events; `false` when there was none. A worker
    /// still running it loses its lease (its writes are refused). Tried
    /// again when its connection was lost: `false` then may mean that the
    /// lost try deleted it.
    pub async fn delete_run(&self, run_id: &str) -> Result<bool, QueueError> {
        let done = self
            .retrying(|| async {
                Ok(sqlx::query("DELETE FROM rebound_runs WHERE run_id = $1")
                    .bind(run_id)
                    .execute(&self.pool)
                    .await?)
            })
            .await?;
        Ok(done.rows_affected() == 1)
    }
}
