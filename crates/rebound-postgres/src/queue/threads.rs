//! Thread records: what the API lists and searches, and the status a
//! run's end records.

use super::rows::{decode_all, decode_thread, thread_columns, thread_status};
use super::{QueueError, RunQueue, ThreadRow, ThreadSearch, ThreadStatus};

/// A thread's values from its ms timestamps, `$1..$5`. A record's `busy`
/// is not stored: a thread is busy while it has a run pending or running
/// (`thread_status!`), so a record read then and written back (its
/// metadata patched, the thread copied) says `busy` without meaning it. A
/// new record stores `idle` for it, and a record written over an existing
/// one keeps the status stored (see `PUT_THREAD`).
macro_rules! thread_values {
    () => {
        "($1, 'epoch'::timestamptz + $2::float8 * interval '1 millisecond', \
         'epoch'::timestamptz + $3::float8 * interval '1 millisecond', \
         CASE WHEN $4 = 'busy' THEN 'idle' ELSE $4 END, $5::jsonb)"
    };
}

const CREATE_THREAD: &str = concat!(
    "INSERT INTO rebound_threads (thread_id, created_at, updated_at, status, metadata) VALUES ",
    thread_values!(),
    " ON CONFLICT (thread_id) DO NOTHING"
);

const PUT_THREAD: &str = concat!(
    "INSERT INTO rebound_threads (thread_id, created_at, updated_at, status, metadata) VALUES ",
    thread_values!(),
    " ON CONFLICT (thread_id) DO UPDATE SET created_at = excluded.created_at,
        updated_at = excluded.updated_at,
        status = CASE WHEN $4 = 'busy' THEN rebound_threads.status ELSE excluded.status END,
        metadata = excluded.metadata"
);

const GET_THREAD: &str = concat!(
    "SELECT ",
    thread_columns!(),
    " FROM rebound_threads t WHERE t.thread_id = $1"
);

const SEARCH_THREADS: &str = concat!(
    "SELECT ",
    thread_columns!(),
    " FROM rebound_threads t
    WHERE t.metadata @> $1::jsonb AND ($2::text IS NULL OR ",
    thread_status!(),
    " = $2)
    ORDER BY t.updated_at DESC, t.thread_id LIMIT $3 OFFSET $4"
);

/// Deletes a thread's runs (their events by cascade) and its record.
const DELETE_THREAD: &str = "WITH runs AS (
        DELETE FROM rebound_runs WHERE thread_id = $1
    )
    DELETE FROM rebound_threads WHERE thread_id = $1";

impl RunQueue {
    /// Creates a thread record if the thread has none (`idle` for a
    /// `busy` one); whether it did. Tried again when its connection was
    /// lost: `false` then may mean that the lost try created it.
    pub async fn create_thread(&self, thread: &ThreadRow) -> Result<bool, QueueError> {
        let done = self
            .retrying(|| async {
                Ok(bind_thread(sqlx::query(CREATE_THREAD), thread)
                    .execute(&self.pool)
                    .await?)
            })
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Writes a thread record, replacing the one it has (but for a `busy`
    /// status, which keeps the status stored: see `thread_values!`).
    pub async fn put_thread(&self, thread: &ThreadRow) -> Result<(), QueueError> {
        self.retrying(|| async {
            Ok(bind_thread(sqlx::query(PUT_THREAD), thread)
                .execute(&self.pool)
                .await?)
        })
        .await?;
        Ok(())
    }

    /// A thread's record.
    pub async fn get_thread(&self, thread_id: &str) -> Result<Option<ThreadRow>, QueueError> {
        let row = self
            .retrying(|| async {
                Ok(sqlx::query(GET_THREAD)
                    .bind(thread_id)
                    .fetch_optional(&self.pool)
                    .await?)
            })
            .await?;
        row.as_ref().map(decode_thread).transpose()
    }

    /// Records where a thread stands (now, by the database's clock); whether
    /// it has a record.
    pub async fn set_thread_status(
        &self,
        thread_id: &str,
        status: ThreadStatus,
    ) -> Result<bool, QueueError> {
        let done = self
            .retrying(|| async {
                Ok(sqlx::query(
                    "UPDATE rebound_threads SET status = $2, updated_at = now() WHERE thread_id = $1",
                )
                .bind(thread_id)
                .bind(status.as_str())
                .execute(&self.pool)
                .await?)
            })
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Deletes a thread's record, its runs and their events (one
    /// transaction); `false` when it had no record. Workers running its
    /// runs lose their leases. Its checkpoints are the checkpointer's.
    /// Tried again when its connection was lost: `false` then may mean
    /// that the lost try deleted it.
    pub async fn delete_thread(&self, thread_id: &str) -> Result<bool, QueueError> {
        let done = self
            .retrying(|| async {
                Ok(sqlx::query(DELETE_THREAD)
                    .bind(thread_id)
                    .execute(&self.pool)
                    .await?)
            })
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The threads matching `search`, the most recently updated first.
    pub async fn search_threads(
        &self,
        search: &ThreadSearch,
    ) -> Result<Vec<ThreadRow>, QueueError> {
        let metadata = search.metadata.to_string();
        let rows = self
            .retrying(|| async {
                Ok(sqlx::query(SEARCH_THREADS)
                    .bind(&metadata)
                    .bind(search.status.map(ThreadStatus::as_str))
                    .bind(search.limit)
                    .bind(search.offset)
                    .fetch_all(&self.pool)
                    .await?)
            })
            .await?;
        decode_all(&rows, decode_thread)
    }
}

/// Binds `thread` to `$1..$5` of `thread_values!`.
fn bind_thread<'q>(
    query: sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>,
    thread: &'q ThreadRow,
) -> sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
    query
        .bind(&thread.thread_id)
        .bind(thread.created_ms)
        .bind(thread.updated_ms)
        .bind(thread.status.as_str())
        .bind(thread.metadata.to_string())
}
