//! Whole-thread operations on [`PostgresSaver`]'s tables, for a server's
//! thread API: deleting a thread's checkpoints and copying them to a new
//! thread.
//!
//! Rows of `checkpoint_threads` are never deleted (a name keeps its small
//! integer for good, so the savers' caches of the mapping stay right);
//! deleting a thread deletes its checkpoints and pending writes.

use sqlx::Row;

use rebound_graph::checkpoint::CheckpointError;

use super::PostgresSaver;
use crate::error::from_sqlx;

/// A thread's small integer, if it has one.
const THREAD_ID: &str = "SELECT id FROM checkpoint_threads WHERE name = $1";

impl PostgresSaver {
    /// Deletes `thread_id`'s checkpoints and pending writes; whether it had
    /// any. The caller makes sure no run is using the thread.
    pub async fn delete_thread(&self, thread_id: &str) -> Result<bool, CheckpointError> {
        let mut tx = self.pool().begin().await.map_err(from_sqlx)?;
        let Some(row) = sqlx::query(THREAD_ID)
            .bind(thread_id)
            .fetch_optional(&mut *tx)
            .await
            .map_err(from_sqlx)?
        else {
            return Ok(false);
        };
        let id: i32 = row.try_get(0).map_err(from_sqlx)?;
        sqlx::query("DELETE FROM checkpoint_writes WHERE thread = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(from_sqlx)?;
        let deleted = sqlx::query("DELETE FROM checkpoints WHERE thread = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(from_sqlx)?
            .rows_affected();
        tx.commit().await.map_err(from_sqlx)?;
        Ok(deleted > 0)
    }

    /// Copies `from`'s checkpoints and pending writes to `to`, a thread
    /// without checkpoints; whether `from` had any. Fails when `to` has
    /// checkpoints.
    pub async fn copy_thread(&self, from: &str, to: &str) -> Result<bool, CheckpointError> {
        let mut tx = self.pool().begin().await.map_err(from_sqlx)?;
        let Some(row) = sqlx::query(THREAD_ID)
            .bind(from)
            .fetch_optional(&mut *tx)
            .await
            .map_err(from_sqlx)?
        else {
            return Ok(false);
        };
        let source: i32 = row.try_get(0).map_err(from_sqlx)?;
        sqlx::query(
            "INSERT INTO checkpoint_threads (name) VALUES ($1) ON CONFLICT (name) DO NOTHING",
        )
        .bind(to)
        .execute(&mut *tx)
        .await
        .map_err(from_sqlx)?;
        let target: i32 = sqlx::query(THREAD_ID)
            .bind(to)
            .fetch_one(&mut *tx)
            .await
            .map_err(from_sqlx)?
            .try_get(0)
            .map_err(from_sqlx)?;
        let existing: i64 = sqlx::query("SELECT COUNT(*) FROM checkpoints WHERE thread = $1")
            .bind(target)
            .fetch_one(&mut *tx)
            .await
            .map_err(from_sqlx)?
            .try_get(0)
            .map_err(from_sqlx)?;
        if existing > 0 {
            return Err(CheckpointError::Corrupt(format!(
                "cannot copy thread {from:?} to {to:?}: {to:?} has checkpoints"
            )));
        }
        let copied = sqlx::query(
            "INSERT INTO checkpoints (id, parent, step, thread, snapshot, state, meta)
             SELECT id, parent, step, $2, snapshot, state, meta FROM checkpoints WHERE thread = $1",
        )
        .bind(source)
        .bind(target)
        .execute(&mut *tx)
        .await
        .map_err(from_sqlx)?
        .rows_affected();
        sqlx::query(
            "INSERT INTO checkpoint_writes (checkpoint, thread, node, kind, key, value)
             SELECT checkpoint, $2, node, kind, key, value FROM checkpoint_writes
             WHERE thread = $1 ORDER BY seq",
        )
        .bind(source)
        .bind(target)
        .execute(&mut *tx)
        .await
        .map_err(from_sqlx)?;
        tx.commit().await.map_err(from_sqlx)?;
        Ok(copied > 0)
    }
}
