//! [`Store`]: one SQLite connection and the synchronous operations on it.
//!
//! Checkpoints are written to one of two tables (see
//! [`crate::SCHEMA_VERSION`]): a commit holding one or a few runs'
//! checkpoints goes to `checkpoints`, clustered by thread, where it appends
//! to the end of each thread's range; a group commit of many runs goes to
//! `checkpoints_by_time`, where the rows of one commit share pages instead
//! of costing one page write per run. Reads look at both.

mod cache;
mod lock;
mod read;
mod records;
mod thread_keys;
mod write;

use std::collections::HashSet;
use std::path::Path;

use rebound_graph::checkpoint::{CheckpointError, PendingWrite, StoredCheckpoint};
use rusqlite::{Connection, OptionalExtension};

use crate::codec::ThreadRef;
use crate::error::from_sqlite;
use crate::options::SqliteOptions;
use crate::process::current_pid;
use crate::schema;

pub(crate) use write::GroupFailure;

const SELECT_THREAD: &str = "SELECT id, base FROM threads WHERE name = ?1";

/// The checkpoints and pending writes of one `put`, stored atomically.
#[derive(Debug)]
pub(crate) struct Batch {
    pub checkpoints: Vec<StoredCheckpoint>,
    pub writes: Vec<PendingWrite>,
}

/// An open database.
pub(crate) struct Store {
    conn: Connection,
    location: String,
    pid: i64,
    /// Thread names to their row of `threads` (committed rows only;
    /// bounded).
    thread_keys: thread_keys::ThreadKeys,
    /// Threads a run through this store has acquired and not yet released.
    held: HashSet<String>,
    /// Threads the application holds through this store ([`Store::hold`]),
    /// across runs.
    kept: HashSet<String>,
    /// Checkpoints written or read lately (see [`cache`]).
    cache: cache::CheckpointCache,
}

impl Store {
    /// The connection, for [`crate::SqliteSaver::with_connection`]
    /// (which must leave the checkpoint tables alone: the cache keeps
    /// copies of their rows).
    pub(crate) fn connection(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// Opens (creating if needed) and migrates the database at `path`.
    pub(crate) fn open(path: &Path, options: &SqliteOptions) -> Result<Store, CheckpointError> {
        let location = path.display().to_string();
        let mut conn = Connection::open(path).map_err(|e| CheckpointError::Unusable {
            location: location.clone(),
            reason: format!("it cannot be opened ({e})"),
        })?;
        let sqlite = |e| from_sqlite(&location, e);
        conn.busy_timeout(options.busy_timeout).map_err(sqlite)?;
        // The query planner stability guarantee: a statement's plan never
        // depends on the values bound to it. Without it SQLite marks
        // statements with `LIMIT ?` or parameters it could fold for a
        // re-prepare whenever a new value is bound: every read of another
        // thread's chain was parsed and planned again (a quarter of a
        // server's CPU time under load).
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )
        .map_err(sqlite)?;
        // Before anything is changed: refuse a file that is not ours.
        schema::check(&conn, &location)?;
        // Takes effect only while the file is still empty.
        conn.pragma_update(None, "page_size", schema::PAGE_SIZE)
            .map_err(sqlite)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .map_err(sqlite)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(CheckpointError::Unusable {
                location,
                reason: format!("it cannot use the WAL journal (journal mode stays {mode:?})"),
            });
        }
        conn.pragma_update(None, "synchronous", options.synchronous.as_str())
            .map_err(sqlite)?;
        schema::migrate(&mut conn, &location)?;
        schema::tune(&conn).map_err(sqlite)?;
        if options.mmap_size > 0 {
            let bytes = i64::try_from(options.mmap_size).unwrap_or(i64::MAX);
            conn.pragma_update(None, "mmap_size", bytes)
                .map_err(sqlite)?;
        }
        conn.set_prepared_statement_cache_capacity(48);
        Ok(Store {
            conn,
            location,
            pid: current_pid(),
            thread_keys: thread_keys::ThreadKeys::default(),
            held: HashSet::new(),
            kept: HashSet::new(),
            cache: cache::CheckpointCache::new(options.cache_bytes),
        })
    }

    /// The cache, emptied first if another connection has committed to
    /// the file since it was last checked.
    fn current_cache(&mut self) -> Result<&mut cache::CheckpointCache, CheckpointError> {
        if self.cache.enabled() {
            let version: i64 = self
                .conn
                .prepare_cached("PRAGMA data_version")
                .and_then(|mut stmt| stmt.query_row([], |row| row.get(0)))
                .map_err(|e| self.sqlite(e))?;
            self.cache.check_version(version);
        }
        Ok(&mut self.cache)
    }

    fn sqlite(&self, error: rusqlite::Error) -> CheckpointError {
        from_sqlite(&self.location, error)
    }

    fn find_thread(&self, name: &str) -> rusqlite::Result<Option<ThreadRef>> {
        self.conn
            .prepare_cached(SELECT_THREAD)?
            .query_row([name], |row| {
                Ok(ThreadRef {
                    key: row.get(0)?,
                    base: row.get(1)?,
                })
            })
            .optional()
    }

    /// An existing thread, or None.
    fn thread(&mut self, name: &str) -> Result<Option<ThreadRef>, CheckpointError> {
        if let Some(thread) = self.thread_keys.get(name) {
            return Ok(Some(*thread));
        }
        let found = self.find_thread(name).map_err(|e| match e {
            rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::InvalidColumnType(..) => CheckpointError::Corrupt(format!(
                "thread {name:?}: its row in threads is unreadable ({e})"
            )),
            e => self.sqlite(e),
        })?;
        if let Some(thread) = found {
            self.thread_keys.insert(name.to_string(), thread);
        }
        Ok(found)
    }
}

impl Drop for Store {
    /// Releases the threads still held, so that a saver dropped without
    /// `release` (a failed run) does not leave them busy for this process's
    /// lifetime. Best effort: a lock left behind is taken over once this
    /// process has exited.
    fn drop(&mut self) {
        let held = std::mem::take(&mut self.held);
        let kept = std::mem::take(&mut self.kept);
        for thread_id in held.union(&kept) {
            let _ = self.release_row(thread_id);
        }
    }
}

/// A `BEGIN IMMEDIATE` write transaction on cached statements, rolled back
/// when dropped without [`WriteTx::commit`] (including on panic).
struct WriteTx<'c> {
    conn: &'c Connection,
    open: bool,
}

impl<'c> WriteTx<'c> {
    fn begin(conn: &'c Connection) -> rusqlite::Result<Self> {
        if !conn.is_autocommit() {
            // A transaction left open by an earlier failure (e.g. a failed
            // ROLLBACK): end it before starting ours.
            conn.prepare_cached("ROLLBACK")?.execute([])?;
        }
        conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        Ok(WriteTx { conn, open: true })
    }

    fn commit(mut self) -> rusqlite::Result<()> {
        self.conn.prepare_cached("COMMIT")?.execute([])?;
        self.open = false;
        Ok(())
    }
}

impl Drop for WriteTx<'_> {
    fn drop(&mut self) {
        if self.open && !self.conn.is_autocommit() {
            let _ = self
                .conn
                .prepare_cached("ROLLBACK")
                .and_then(|mut stmt| stmt.execute([]));
        }
    }
}

/// What an open connection actually uses, read back from SQLite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedSettings {
    /// `PRAGMA journal_mode`: always "wal".
    pub journal_mode: String,
    /// `PRAGMA synchronous`: 1 for NORMAL, 2 for FULL.
    pub synchronous: i64,
    /// `PRAGMA page_size`, fixed when the file was created.
    pub page_size: i64,
    /// `PRAGMA busy_timeout`, in milliseconds.
    pub busy_timeout_ms: i64,
    /// The file's schema version.
    pub schema_version: i64,
}

impl Store {
    /// Reads the connection's settings back from SQLite.
    pub(crate) fn applied_settings(&self) -> Result<AppliedSettings, CheckpointError> {
        let pragma = |name: &str| -> rusqlite::Result<rusqlite::types::Value> {
            self.conn
                .query_row(&format!("PRAGMA {name}"), [], |row| row.get(0))
        };
        let int = |name: &str| -> Result<i64, CheckpointError> {
            match pragma(name).map_err(|e| self.sqlite(e))? {
                rusqlite::types::Value::Integer(value) => Ok(value),
                other => Err(CheckpointError::Corrupt(format!(
                    "PRAGMA {name} returned {other:?}"
                ))),
            }
        };
        let journal_mode = match pragma("journal_mode").map_err(|e| self.sqlite(e))? {
            rusqlite::types::Value::Text(mode) => mode,
            other => format!("{other:?}"),
        };
        let schema_version = self
            .conn
            .query_row(
                &format!("SELECT version FROM {}", schema::SCHEMA_TABLE),
                [],
                |row| row.get(0),
            )
            .map_err(|e| self.sqlite(e))?;
        Ok(AppliedSettings {
            journal_mode,
            synchronous: int("synchronous")?,
            page_size: int("page_size")?,
            busy_timeout_ms: int("busy_timeout")?,
            schema_version,
        })
    }
}
