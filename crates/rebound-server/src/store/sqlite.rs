//! [`SqliteStore`]: the server's tables in the same SQLite file as the
//! checkpoints (`state.db`), beside [`SqliteSaver`]'s thread records.
//!
//! The queue is one table, `server_runs`, ordered by an autoincrement
//! sequence: claiming takes the oldest pending run whose thread has no
//! running run and no older pending one, in one transaction. Events are
//! `server_run_events (run, seq)`, appended in batches.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;

use rebound_protocol::records::{ThreadRecord, ThreadStatus};
use rebound_sqlite::{SqliteSaver, SqliteSaverError};
use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{
    MultitaskStrategy, RunRecord, RunStatus, Store, StoreError, StoredEvent, ThreadQuery, Write,
};

/// The server's schema version in `server_schema`.
const SERVER_SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS server_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS server_runs (
    seq                INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id             TEXT NOT NULL UNIQUE,
    thread_id          TEXT NOT NULL,
    assistant_id       TEXT NOT NULL,
    status             TEXT NOT NULL,
    created_ms         INTEGER NOT NULL,
    updated_ms         INTEGER NOT NULL,
    attempt            INTEGER NOT NULL,
    multitask_strategy TEXT NOT NULL,
    metadata           TEXT NOT NULL,
    kwargs             TEXT NOT NULL,
    base_checkpoint    TEXT,
    error              TEXT
);
CREATE INDEX IF NOT EXISTS server_runs_by_thread ON server_runs (thread_id, status, seq);
CREATE INDEX IF NOT EXISTS server_runs_by_status ON server_runs (status, seq);
CREATE TABLE IF NOT EXISTS server_run_events (
    run_id TEXT NOT NULL,
    seq    INTEGER NOT NULL,
    event  TEXT NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
";

const RUN_COLUMNS: &str = "run_id, thread_id, assistant_id, status, created_ms, updated_ms, attempt, multitask_strategy, metadata, kwargs, base_checkpoint, error";

/// The oldest claimable runs (at most ?1): pending, their thread not
/// running anything, no older pending run on their thread (so at most one
/// per thread).
const SELECT_CLAIMABLE: &str = "SELECT r.seq FROM server_runs r
    WHERE r.status = 'pending'
      AND NOT EXISTS (SELECT 1 FROM server_runs x WHERE x.thread_id = r.thread_id AND x.status = 'running')
      AND NOT EXISTS (SELECT 1 FROM server_runs y WHERE y.thread_id = r.thread_id AND y.status = 'pending' AND y.seq < r.seq)
    ORDER BY r.seq LIMIT ?1";

/// The server's store in one SQLite file, shared with the checkpointer:
/// its tables are read and written through the checkpointer's own
/// connection ([`SqliteSaver::with_connection`]), so that the run queue and
/// the checkpoints never wait for each other's lock or invalidate each
/// other's page cache.
pub struct SqliteStore {
    saver: Arc<SqliteSaver>,
}

impl SqliteStore {
    /// `record` as it is stored: `busy` is never stored from a record (it
    /// may have been read so because a run was pending); the thread's own
    /// status (busy only while its run holds it) is kept instead.
    fn stored_status(&self, record: &ThreadRecord) -> Result<ThreadRecord, StoreError> {
        let mut record = record.clone();
        if record.status == ThreadStatus::Busy {
            record.status = match self.saver.get_thread(&record.thread_id) {
                Ok(Some(current)) => current.status,
                Ok(None) => ThreadStatus::Idle,
                Err(error) => return Err(storage(error)),
            };
        }
        Ok(record)
    }

    /// Opens the server's tables in the file of `saver`, creating them if
    /// needed. A file whose server tables a newer rebound wrote is refused.
    pub fn open(saver: Arc<SqliteSaver>) -> Result<Self, StoreError> {
        let path = saver.path().to_path_buf();
        saver.with_connection(|conn| create_tables(conn, &path))?;
        Ok(SqliteStore { saver })
    }

    /// The checkpointer sharing the file.
    pub fn saver(&self) -> &Arc<SqliteSaver> {
        &self.saver
    }

    /// Runs `work` on the shared connection.
    fn with_conn<R>(&self, work: impl FnOnce(&mut Connection) -> R) -> R {
        self.saver.with_connection(work)
    }
}

fn database(error: rusqlite::Error) -> StoreError {
    match error.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::SystemIoFailure) => {
            StoreError::WriteFailed(error.to_string())
        }
        _ => StoreError::Database(error.to_string()),
    }
}

fn create_tables(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let tx = conn.transaction().map_err(database)?;
    tx.execute_batch(SCHEMA).map_err(database)?;
    let version: Option<i64> = tx
        .query_row("SELECT version FROM server_schema", [], |row| row.get(0))
        .optional()
        .map_err(database)?;
    match version {
        None => {
            tx.execute(
                "INSERT INTO server_schema (version) VALUES (?1)",
                [SERVER_SCHEMA_VERSION],
            )
            .map_err(database)?;
        }
        Some(v) if v > SERVER_SCHEMA_VERSION => {
            return Err(StoreError::Database(format!(
                "{} holds server tables of a newer rebound (server schema {v}; this build reads up to {SERVER_SCHEMA_VERSION})",
                path.display()
            )))
        }
        Some(_) => {}
    }
    tx.commit().map_err(database)?;
    // Room for the server's statements beside the checkpointer's.
    conn.set_prepared_statement_cache_capacity(96);
    Ok(())
}

fn to_sql_u64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn read_run(row: &Row<'_>) -> rusqlite::Result<RawRun> {
    Ok(RawRun {
        run_id: row.get(0)?,
        thread_id: row.get(1)?,
        assistant_id: row.get(2)?,
        status: row.get(3)?,
        created_ms: row.get(4)?,
        updated_ms: row.get(5)?,
        attempt: row.get(6)?,
        multitask_strategy: row.get(7)?,
        metadata: row.get(8)?,
        kwargs: row.get(9)?,
        base_checkpoint: row.get(10)?,
        error: row.get(11)?,
    })
}

/// A row of `server_runs` as read, before its text columns are decoded.
struct RawRun {
    run_id: String,
    thread_id: String,
    assistant_id: String,
    status: String,
    created_ms: i64,
    updated_ms: i64,
    attempt: i64,
    multitask_strategy: String,
    metadata: String,
    kwargs: String,
    base_checkpoint: Option<String>,
    error: Option<String>,
}

impl RawRun {
    fn decode(self) -> Result<RunRecord, StoreError> {
        let corrupt = |detail: String| StoreError::Corrupt {
            what: "run",
            detail,
        };
        Ok(RunRecord {
            status: RunStatus::parse(&self.status)
                .ok_or_else(|| corrupt(format!("unknown status {:?}", self.status)))?,
            multitask_strategy: MultitaskStrategy::parse(&self.multitask_strategy).ok_or_else(
                || corrupt(format!("unknown strategy {:?}", self.multitask_strategy)),
            )?,
            metadata: serde_json::from_str(&self.metadata)
                .map_err(|e| corrupt(format!("metadata: {e}")))?,
            kwargs: serde_json::from_str(&self.kwargs)
                .map_err(|e| corrupt(format!("kwargs: {e}")))?,
            created_ms: u64::try_from(self.created_ms).unwrap_or_default(),
            updated_ms: u64::try_from(self.updated_ms).unwrap_or_default(),
            attempt: u32::try_from(self.attempt).unwrap_or_default(),
            // One server per file: a claim is counted by the attempt.
            epoch: u64::try_from(self.attempt).unwrap_or_default(),
            run_id: self.run_id,
            thread_id: self.thread_id,
            assistant_id: self.assistant_id,
            base_checkpoint: self.base_checkpoint,
            error: self.error,
        })
    }
}

fn select_runs(
    conn: &Connection,
    filter: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<RunRecord>, StoreError> {
    let raws = conn
        .prepare_cached(&format!("SELECT {RUN_COLUMNS} FROM server_runs {filter}"))
        .and_then(|mut stmt| {
            stmt.query_map(params, read_run)?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(database)?;
    raws.into_iter().map(RawRun::decode).collect()
}

fn insert_run(conn: &Connection, run: &RunRecord) -> rusqlite::Result<()> {
    conn.prepare_cached(&format!(
        "INSERT INTO server_runs ({RUN_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
    ))?
    .execute(params![
        run.run_id,
        run.thread_id,
        run.assistant_id,
        run.status.as_str(),
        to_sql_u64(run.created_ms),
        to_sql_u64(run.updated_ms),
        run.attempt,
        run.multitask_strategy.as_str(),
        run.metadata.to_string(),
        run.kwargs.to_string(),
        run.base_checkpoint,
        run.error,
    ])?;
    Ok(())
}

fn apply_one(conn: &Connection, write: &Write) -> rusqlite::Result<()> {
    match write {
        Write::Enqueue(run) => insert_run(conn, run),
        // One server per file: no other worker can hold its runs, and an
        // event needs no fence.
        Write::Event { run_id, event, .. } => insert_event(conn, run_id, event),
        Write::RunEnd {
            run_id,
            epoch,
            status,
            error,
            thread_id,
            thread_status,
            at_ms,
            events,
        } => {
            for event in events {
                insert_event(conn, run_id, event)?;
            }
            let ended = conn
                .prepare_cached(
                    "UPDATE server_runs SET status = ?3, error = COALESCE(?4, error), updated_ms = ?5 WHERE run_id = ?1 AND attempt = ?2 AND status = 'running'",
                )?
                .execute(params![run_id, to_sql_u64(*epoch), status.as_str(), error, now_ms()])?;
            if ended > 0 {
                set_thread_status(conn, thread_id, *thread_status, *at_ms)?;
            }
            Ok(())
        }
        Write::BaseCheckpoint {
            run_id,
            epoch,
            checkpoint,
        } => conn
            .prepare_cached(
                "UPDATE server_runs SET base_checkpoint = ?2 WHERE run_id = ?1 AND attempt = ?3 AND base_checkpoint IS NULL",
            )?
            .execute(params![run_id, checkpoint, to_sql_u64(*epoch)])
            .map(|_| ()),
        Write::ThreadStatus {
            thread_id,
            status,
            at_ms,
        } => set_thread_status(conn, thread_id, *status, *at_ms),
    }
}

fn insert_event(conn: &Connection, run_id: &str, event: &StoredEvent) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO server_run_events (run_id, seq, event, data) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![run_id, to_sql_u64(event.seq), event.event, event.data])
    .map(|_| ())
}

// The thread records are rebound-sqlite's table (`thread_records`); written
// here, in the server's own transaction, so that a run's end is one commit.
fn set_thread_status(
    conn: &Connection,
    thread_id: &str,
    status: ThreadStatus,
    at_ms: u64,
) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE thread_records SET status = ?2, updated_ms = ?3 WHERE thread = ?1")?
        .execute(params![thread_id, status.as_str(), to_sql_u64(at_ms)])
        .map(|_| ())
}

/// Claims the oldest claimable runs, at most `limit`, in one transaction.
fn claim(conn: &mut Connection, limit: usize) -> Result<Vec<RunRecord>, StoreError> {
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(database)?;
    let seqs: Vec<i64> = tx
        .prepare_cached(SELECT_CLAIMABLE)
        .and_then(|mut stmt| {
            stmt.query_map([to_sql_u64(limit as u64)], |row| row.get(0))?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(database)?;
    let mut runs = Vec::with_capacity(seqs.len());
    for seq in seqs {
        tx.prepare_cached(
            "UPDATE server_runs SET status = 'running', attempt = attempt + 1, updated_ms = ?2 WHERE seq = ?1",
        )
        .and_then(|mut stmt| stmt.execute(params![seq, now_ms()]))
        .map_err(database)?;
        runs.extend(select_runs(&tx, "WHERE seq = ?1", [seq])?);
    }
    tx.commit().map_err(database)?;
    Ok(runs)
}

/// Whether the thread has a pending or running run: it is `busy` then, as
/// in the Agent Server (the record's own status says how it was left).
fn has_active_run(conn: &mut Connection, thread_id: &str) -> Result<bool, StoreError> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM server_runs WHERE thread_id = ?1 AND status IN ('pending', 'running'))",
    )
    .and_then(|mut stmt| stmt.query_row([thread_id], |row| row.get(0)))
    .map_err(database)
}

/// The threads with a pending or running run.
fn active_threads(conn: &mut Connection) -> Result<HashSet<String>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT DISTINCT thread_id FROM server_runs WHERE status IN ('pending', 'running')",
        )
        .map_err(database)?;
    let rows = stmt.query_map([], |row| row.get(0)).map_err(database)?;
    rows.collect::<rusqlite::Result<_>>().map_err(database)
}

fn now_ms() -> i64 {
    crate::time::now_ms().try_into().unwrap_or(i64::MAX)
}

fn storage(error: rebound_graph::checkpoint::CheckpointError) -> StoreError {
    if let rebound_graph::checkpoint::CheckpointError::Storage(inner) = &error {
        if let Some(SqliteSaverError::WriteFailed { detail, .. }) = inner.downcast_ref() {
            return StoreError::WriteFailed(detail.clone());
        }
    }
    StoreError::Database(error.to_string())
}

#[async_trait]
impl Store for SqliteStore {
    async fn create_thread(&self, record: &ThreadRecord) -> Result<bool, StoreError> {
        self.saver.put_thread_if_absent(record).map_err(storage)
    }

    async fn put_thread(&self, record: &ThreadRecord) -> Result<(), StoreError> {
        let stored = self.stored_status(record)?;
        self.saver.put_thread(&stored).map_err(storage)
    }

    async fn get_thread(&self, thread_id: &str) -> Result<Option<ThreadRecord>, StoreError> {
        let Some(mut record) = self.saver.get_thread(thread_id).map_err(storage)? else {
            return Ok(None);
        };
        if record.status != ThreadStatus::Busy
            && self.with_conn(|conn| has_active_run(conn, thread_id))?
        {
            record.status = ThreadStatus::Busy;
        }
        Ok(Some(record))
    }

    async fn delete_thread(&self, thread_id: &str) -> Result<bool, StoreError> {
        self.with_conn(|conn| {
            conn.execute(
                "DELETE FROM server_run_events WHERE run_id IN (SELECT run_id FROM server_runs WHERE thread_id = ?1)",
                [thread_id],
            )?;
            conn.execute("DELETE FROM server_runs WHERE thread_id = ?1", [thread_id])
        })
        .map_err(database)?;
        self.saver.delete_thread(thread_id).map_err(storage)
    }

    async fn delete_checkpoints(&self, thread_id: &str) -> Result<(), StoreError> {
        let record = self.saver.get_thread(thread_id).map_err(storage)?;
        self.saver.delete_thread(thread_id).map_err(storage)?;
        if let Some(record) = record {
            self.saver.put_thread(&record).map_err(storage)?;
        }
        Ok(())
    }

    async fn copy_thread(&self, from: &str, record: &ThreadRecord) -> Result<(), StoreError> {
        self.saver
            .copy_thread(from, &record.thread_id)
            .map_err(storage)?;
        // The copy has no runs: busy is its source's, not its own.
        let mut record = record.clone();
        if record.status == ThreadStatus::Busy {
            record.status = ThreadStatus::Idle;
        }
        self.saver.put_thread(&record).map_err(storage)
    }

    async fn search_threads(&self, query: &ThreadQuery) -> Result<Vec<ThreadRecord>, StoreError> {
        // Thread records are few next to checkpoints; filtering them here
        // keeps the metadata match (JSON containment) in one place.
        let mut all = self.saver.list_threads().map_err(storage)?;
        let active = self.with_conn(active_threads)?;
        for record in &mut all {
            if active.contains(&record.thread_id) {
                record.status = ThreadStatus::Busy;
            }
        }
        Ok(all
            .into_iter()
            .filter(|record| query.status.is_none_or(|s| record.status == s))
            .filter(|record| {
                query
                    .metadata
                    .iter()
                    .all(|(key, value)| record.metadata.get(key) == Some(value))
            })
            .skip(query.offset)
            .take(query.limit)
            .collect())
    }

    async fn claim_runs(&self, limit: usize) -> Result<Vec<RunRecord>, StoreError> {
        self.with_conn(|conn| claim(conn, limit))
    }

    async fn cancel_pending(&self, run_id: &str) -> Result<bool, StoreError> {
        let changed = self
            .with_conn(|conn| {
                conn.prepare_cached(
                    "UPDATE server_runs SET status = 'interrupted', updated_ms = ?2 WHERE run_id = ?1 AND status = 'pending'",
                )?
                .execute(params![run_id, now_ms()])
            })
            .map_err(database)?;
        Ok(changed > 0)
    }
    async fn get_run(&self, run_id: &str) -> Result<Option<RunRecord>, StoreError> {
        Ok(self
            .with_conn(|conn| select_runs(conn, "WHERE run_id = ?1", [run_id]))?
            .pop())
    }

    async fn list_runs(
        &self,
        thread_id: &str,
        status: Option<RunStatus>,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<RunRecord>, StoreError> {
        self.with_conn(|conn| {
            select_runs(
                conn,
                "WHERE thread_id = ?1 AND (?2 IS NULL OR status = ?2) ORDER BY seq DESC LIMIT ?3 OFFSET ?4",
                params![
                    thread_id,
                    status.map(RunStatus::as_str),
                    to_sql_u64(limit as u64),
                    to_sql_u64(offset as u64)
                ],
            )
        })
    }

    async fn active_runs(&self, thread_id: &str) -> Result<Vec<RunRecord>, StoreError> {
        self.with_conn(|conn| {
            select_runs(
                conn,
                "WHERE thread_id = ?1 AND status IN ('pending', 'running') ORDER BY seq",
                [thread_id],
            )
        })
    }

    async fn delete_run(&self, run_id: &str) -> Result<bool, StoreError> {
        let deleted = self
            .with_conn(|conn| {
                conn.execute("DELETE FROM server_run_events WHERE run_id = ?1", [run_id])?;
                conn.execute("DELETE FROM server_runs WHERE run_id = ?1", [run_id])
            })
            .map_err(database)?;
        Ok(deleted > 0)
    }

    async fn requeue_running(&self) -> Result<Vec<RunRecord>, StoreError> {
        self.with_conn(|conn| {
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(database)?;
            let runs = select_runs(&tx, "WHERE status = 'running' ORDER BY seq", [])?;
            tx.execute(
                "UPDATE server_runs SET status = 'pending', updated_ms = ?1 WHERE status = 'running'",
                [now_ms()],
            )
            .map_err(database)?;
            tx.commit().map_err(database)?;
            Ok(runs)
        })
    }

    async fn apply(&self, writes: &[Write]) -> Result<(), StoreError> {
        if writes.is_empty() {
            return Ok(());
        }
        self.with_conn(|conn| {
            let tx = conn.transaction()?;
            for write in writes {
                apply_one(&tx, write)?;
            }
            tx.commit()
        })
        .map_err(database)
    }

    async fn read_events(&self, run_id: &str, after: u64) -> Result<Vec<StoredEvent>, StoreError> {
        self.with_conn(|conn| {
            conn.prepare_cached(
                "SELECT seq, event, data FROM server_run_events WHERE run_id = ?1 AND seq > ?2 ORDER BY seq",
            )?
            .query_map(params![run_id, to_sql_u64(after)], |row| {
                Ok(StoredEvent {
                    seq: u64::try_from(row.get::<_, i64>(0)?).unwrap_or_default(),
                    event: row.get(1)?,
                    data: row.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(database)
    }
}
