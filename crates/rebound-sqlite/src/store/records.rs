//! The `thread_records` table: each thread's record, with its status
//! resolved against the `locks` table.

use rebound_graph::checkpoint::CheckpointError;
use rusqlite::{params, OptionalExtension, Row};

use super::Store;
use crate::error::{from_sqlite, SqliteSaverError};
use crate::process::is_alive;
use crate::records::{ThreadRecord, ThreadStatus};

const UPSERT_RECORD: &str = "INSERT INTO thread_records (thread, created_ms, updated_ms, status, metadata) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (thread) DO UPDATE SET updated_ms = excluded.updated_ms, status = excluded.status, metadata = excluded.metadata";
const INSERT_RECORD_IF_ABSENT: &str = "INSERT OR IGNORE INTO thread_records (thread, created_ms, updated_ms, status, metadata) VALUES (?1, ?2, ?3, ?4, ?5)";
const SELECT_RECORDS: &str = "SELECT r.thread, r.created_ms, r.updated_ms, r.status, r.metadata, l.pid FROM thread_records r LEFT JOIN locks l ON l.thread = r.thread";
const SELECT_HOLDER: &str = "SELECT pid FROM locks WHERE thread = ?1";

/// A record's columns, checked and encoded for SQLite.
struct Columns<'r> {
    thread: &'r str,
    created_ms: i64,
    updated_ms: i64,
    status: &'static str,
    metadata: String,
}

impl<'r> Columns<'r> {
    fn of(record: &'r ThreadRecord) -> Result<Self, CheckpointError> {
        let found = match &record.metadata {
            serde_json::Value::Object(_) => None,
            serde_json::Value::Null => Some("null"),
            serde_json::Value::Bool(_) => Some("a boolean"),
            serde_json::Value::Number(_) => Some("a number"),
            serde_json::Value::String(_) => Some("a string"),
            serde_json::Value::Array(_) => Some("an array"),
        };
        if let Some(found) = found {
            return Err(SqliteSaverError::MetadataNotObject {
                thread_id: record.thread_id.clone(),
                found,
            }
            .into());
        }
        let millis = |what: &'static str, value: u64| {
            i64::try_from(value).map_err(|_| SqliteSaverError::OutOfRange { what, value })
        };
        Ok(Columns {
            thread: &record.thread_id,
            created_ms: millis("created_ms", record.created_ms)?,
            updated_ms: millis("updated_ms", record.updated_ms)?,
            status: record.status.as_str(),
            metadata: record.metadata.to_string(),
        })
    }
}

/// A row of [`SELECT_RECORDS`], before it is checked.
struct RawRecord {
    thread: String,
    created_ms: i64,
    updated_ms: i64,
    status: String,
    metadata: String,
    holder: Option<i64>,
}

impl RawRecord {
    fn read(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(RawRecord {
            thread: row.get(0)?,
            created_ms: row.get(1)?,
            updated_ms: row.get(2)?,
            status: row.get(3)?,
            metadata: row.get(4)?,
            holder: row.get(5)?,
        })
    }

    /// The record, with its status resolved against its lock.
    fn decode(self) -> Result<ThreadRecord, CheckpointError> {
        let corrupt = |what: String| {
            CheckpointError::Corrupt(format!(
                "thread {:?}: its row in thread_records has {what}",
                self.thread
            ))
        };
        let millis = |value: i64| {
            u64::try_from(value).map_err(|_| corrupt(format!("a negative time ({value})")))
        };
        let stored: ThreadStatus = self
            .status
            .parse()
            .map_err(|e| corrupt(format!("an unknown status ({e})")))?;
        let metadata: serde_json::Value = serde_json::from_str(&self.metadata)
            .map_err(|e| corrupt(format!("metadata that is not JSON ({e})")))?;
        let running = self.holder.is_some_and(is_alive);
        let status = match stored {
            _ if running => ThreadStatus::Busy,
            ThreadStatus::Busy => ThreadStatus::Error,
            other => other,
        };
        Ok(ThreadRecord {
            created_ms: millis(self.created_ms)?,
            updated_ms: millis(self.updated_ms)?,
            status,
            metadata,
            thread_id: self.thread,
        })
    }
}

impl Store {
    /// Creates or replaces `record` (an existing record keeps its
    /// `created_ms`).
    pub(crate) fn put_thread(&self, record: &ThreadRecord) -> Result<(), CheckpointError> {
        self.write_record(UPSERT_RECORD, record).map(|_| ())
    }

    /// Creates `record` unless the thread has one; whether it did.
    pub(crate) fn put_thread_if_absent(
        &self,
        record: &ThreadRecord,
    ) -> Result<bool, CheckpointError> {
        self.write_record(INSERT_RECORD_IF_ABSENT, record)
            .map(|rows| rows > 0)
    }

    fn write_record(&self, sql: &str, record: &ThreadRecord) -> Result<usize, CheckpointError> {
        let columns = Columns::of(record)?;
        self.conn
            .prepare_cached(sql)
            .and_then(|mut stmt| {
                stmt.execute(params![
                    columns.thread,
                    columns.created_ms,
                    columns.updated_ms,
                    columns.status,
                    columns.metadata
                ])
            })
            .map_err(|e| self.sqlite(e))
    }

    /// The record of `thread_id`, if it has one.
    pub(crate) fn get_thread(
        &self,
        thread_id: &str,
    ) -> Result<Option<ThreadRecord>, CheckpointError> {
        let raw = self
            .conn
            .prepare_cached(&format!("{SELECT_RECORDS} WHERE r.thread = ?1"))
            .and_then(|mut stmt| stmt.query_row([thread_id], RawRecord::read).optional())
            .map_err(|e| self.sqlite(e))?;
        raw.map(RawRecord::decode).transpose()
    }

    /// Every record, the most recently updated first.
    pub(crate) fn list_threads(&self) -> Result<Vec<ThreadRecord>, CheckpointError> {
        let raws = self
            .conn
            .prepare_cached(&format!(
                "{SELECT_RECORDS} ORDER BY r.updated_ms DESC, r.thread DESC"
            ))
            .and_then(|mut stmt| {
                stmt.query_map([], RawRecord::read)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(|e| self.sqlite(e))?;
        raws.into_iter().map(RawRecord::decode).collect()
    }

    /// Deletes everything stored of `thread_id`: checkpoints, pending
    /// writes, its record and its lock. Its row of `threads` stays (other
    /// connections may cache it), emptied: a thread created again under the
    /// same name starts afresh. Whether anything was deleted.
    pub(crate) fn delete_thread(&mut self, thread_id: &str) -> Result<bool, CheckpointError> {
        self.cache.forget_thread(thread_id);
        let thread = self.thread(thread_id)?;
        let tx = self
            .conn
            .transaction()
            .map_err(|e| from_sqlite(&self.location, e))?;
        let mut deleted = 0;
        let result = (|| -> rusqlite::Result<()> {
            if let Some(thread) = thread {
                for sql in [
                    "DELETE FROM checkpoints WHERE thread = ?1",
                    "DELETE FROM checkpoints_by_time WHERE thread = ?1",
                    "DELETE FROM writes WHERE thread = ?1",
                ] {
                    deleted += tx.execute(sql, [thread.key])?;
                }
                tx.execute(
                    "UPDATE threads SET by_time_first = NULL, by_time_last = NULL, by_time_count = 0 WHERE id = ?1",
                    [thread.key],
                )?;
            }
            deleted += tx.execute("DELETE FROM thread_records WHERE thread = ?1", [thread_id])?;
            tx.execute("DELETE FROM locks WHERE thread = ?1", [thread_id])?;
            Ok(())
        })();
        result
            .and_then(|()| tx.commit())
            .map_err(|e| from_sqlite(&self.location, e))?;
        Ok(deleted > 0)
    }

    /// Copies `from`'s checkpoints and pending writes to the new thread
    /// `to` (which must never have had a checkpoint); whether `from` had
    /// any. Thread records are not copied.
    pub(crate) fn copy_thread(&mut self, from: &str, to: &str) -> Result<bool, CheckpointError> {
        self.cache.forget_thread(to);
        let Some(source) = self.thread(from)? else {
            return Ok(false);
        };
        if self.thread(to)?.is_some() {
            return Err(CheckpointError::Storage(
                format!("cannot copy thread {from:?} to {to:?}: {to:?} already has checkpoints")
                    .into(),
            ));
        }
        let tx = self
            .conn
            .transaction()
            .map_err(|e| from_sqlite(&self.location, e))?;
        let result = (|| -> rusqlite::Result<()> {
            tx.execute(
                "INSERT INTO threads (name, base, by_time_first, by_time_last, by_time_count) \
                 SELECT ?1, base, by_time_first, by_time_last, by_time_count FROM threads WHERE id = ?2",
                params![to, source.key],
            )?;
            let key = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO checkpoints (thread, id, parent_gap, step, kind, state, meta) \
                 SELECT ?1, id, parent_gap, step, kind, state, meta FROM checkpoints WHERE thread = ?2",
                params![key, source.key],
            )?;
            tx.execute(
                "INSERT INTO checkpoints_by_time (id, thread, parent_gap, step, kind, state, meta) \
                 SELECT id, ?1, parent_gap, step, kind, state, meta FROM checkpoints_by_time WHERE thread = ?2",
                params![key, source.key],
            )?;
            tx.execute(
                "INSERT INTO writes (thread, checkpoint, seq, node, kind, key, value) \
                 SELECT ?1, checkpoint, seq, node, kind, key, value FROM writes WHERE thread = ?2",
                params![key, source.key],
            )?;
            Ok(())
        })();
        result
            .and_then(|()| tx.commit())
            .map_err(|e| from_sqlite(&self.location, e))?;
        Ok(true)
    }

    /// The live process holding `thread_id`'s lock, if any.
    pub(crate) fn lock_holder(&self, thread_id: &str) -> Result<Option<u32>, CheckpointError> {
        let pid: Option<i64> = self
            .conn
            .prepare_cached(SELECT_HOLDER)
            .and_then(|mut stmt| stmt.query_row([thread_id], |row| row.get(0)).optional())
            .map_err(|e| self.sqlite(e))?;
        Ok(pid
            .filter(|&pid| is_alive(pid))
            .and_then(|pid| u32::try_from(pid).ok()))
    }
}
