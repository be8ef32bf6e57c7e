//! The database layout and its migrations.
//!
//! `rebound_schema` holds one row, the schema version. [`MIGRATIONS`]`[i]`
//! takes a database from version `i` to `i + 1`; all pending migrations run
//! in one transaction when a saver opens the file.

use rebound_graph::checkpoint::CheckpointError;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::error::from_sqlite;

/// The name of the table that marks a rebound database.
pub(crate) const SCHEMA_TABLE: &str = "rebound_schema";

/// The page size of a new database file.
pub(crate) const PAGE_SIZE: i64 = 2048;

/// The ordered migrations: `MIGRATIONS[i]` takes version `i` to `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE threads (
        id            INTEGER PRIMARY KEY,
        name          TEXT NOT NULL UNIQUE,
        base          INTEGER NOT NULL,
        by_time_first INTEGER,
        by_time_last  INTEGER,
        by_time_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE checkpoints (
        thread     INTEGER NOT NULL,
        id         INTEGER NOT NULL,
        parent_gap INTEGER,
        step       INTEGER NOT NULL,
        kind       INTEGER NOT NULL,
        state      BLOB NOT NULL,
        meta       BLOB NOT NULL,
        PRIMARY KEY (thread, id)
    ) WITHOUT ROWID;
    CREATE TABLE checkpoints_by_time (
        id         INTEGER NOT NULL,
        thread     INTEGER NOT NULL,
        parent_gap INTEGER,
        step       INTEGER NOT NULL,
        kind       INTEGER NOT NULL,
        state      BLOB NOT NULL,
        meta       BLOB NOT NULL,
        PRIMARY KEY (id, thread)
    ) WITHOUT ROWID;
    CREATE TABLE writes (
        thread     INTEGER NOT NULL,
        checkpoint INTEGER NOT NULL,
        seq        INTEGER NOT NULL,
        node       TEXT NOT NULL,
        kind       TEXT NOT NULL,
        key        TEXT NOT NULL,
        value      BLOB NOT NULL,
        PRIMARY KEY (thread, checkpoint, seq)
    ) WITHOUT ROWID;
    CREATE TABLE locks (
        thread      TEXT PRIMARY KEY,
        pid         INTEGER NOT NULL,
        acquired_at INTEGER NOT NULL
    ) WITHOUT ROWID;
",
    "
    CREATE TABLE thread_records (
        thread     TEXT PRIMARY KEY,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        status     TEXT NOT NULL,
        metadata   TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX thread_records_by_update ON thread_records (updated_ms);
",
];

/// The schema version this build writes, and the newest it can read.
///
/// `rebound_schema (version)` holds a file's version. Opening a file of an
/// older version migrates it (version 1 gains `thread_records`). Layout of
/// version 2:
/// * `threads`: thread names mapped to small integers (`id`), so that the
///   per-checkpoint key stays a few bytes; each thread's `base`, the first
///   checkpoint id stored for it; and a summary of its rows in
///   `checkpoints_by_time`: the lowest and highest id, and how many.
/// * `checkpoints`: one row per checkpoint, clustered by `(thread, id)`
///   (`WITHOUT ROWID`: the rows are the primary-key b-tree, no second copy of
///   the key). `id` is [`CheckpointId::as_u64`] minus the thread's `base`
///   (4–6 bytes for a thread younger than days, where the id itself takes
///   8); `parent_gap` is `id - parent` (NULL without a parent), 2–4 bytes
///   where the parent would take 8; `kind` is 0 for a snapshot and 1 for a
///   delta (SQLite stores 0 and 1 in no bytes at all).
/// * `checkpoints_by_time`: the same columns, for the checkpoints of group
///   commits of many runs at once. Keyed by `(id, thread)` with `id`
///   absolute, so one commit's rows are appended to the same few pages,
///   where `checkpoints` (or any index by thread) would take a page write per
///   run. A thread's rows are found through its summary in `threads`: the
///   latest by its highest id, a listing by scanning its id range. An id is
///   stored in one of the two tables only.
/// * `writes`: pending writes, in write order (`seq`) per checkpoint
///   (`checkpoint` relative to the thread's `base` too).
/// * `locks`: which process runs which thread: the one record of whether a
///   thread is running.
/// * `thread_records` (since version 2): what an application records about
///   each thread beside its checkpoints ([`ThreadRecord`]): its times, its
///   status and a JSON object of metadata (`metadata`, as text), indexed by
///   the time of its last change.
///
/// [`ThreadRecord`]: crate::ThreadRecord
/// [`CheckpointId::as_u64`]: rebound_graph::checkpoint::CheckpointId::as_u64
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// What the file holds, as far as opening is concerned.
enum Contents {
    /// No tables at all: a new (or empty) database.
    Empty,
    /// A rebound database at this schema version.
    Rebound(i64),
}

/// Checks that `conn` is a rebound database (or an empty one) without
/// changing anything. Fails with [`CheckpointError::Unusable`] for a file that
/// is not SQLite, a database of another application, or a newer schema.
pub(crate) fn check(conn: &Connection, location: &str) -> Result<(), CheckpointError> {
    inspect(conn, location).map(|_| ())
}

/// Brings the database up to [`SCHEMA_VERSION`] in one transaction.
pub(crate) fn migrate(conn: &mut Connection, location: &str) -> Result<(), CheckpointError> {
    let sqlite = |e| from_sqlite(location, e);
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sqlite)?;
    // Checked again inside the write transaction: another process may have
    // created or upgraded the schema since `check`.
    let current = match inspect(&tx, location)? {
        Contents::Empty => {
            tx.execute_batch(&format!(
                "CREATE TABLE {SCHEMA_TABLE} (version INTEGER NOT NULL); INSERT INTO {SCHEMA_TABLE} (version) VALUES (0);"
            ))
            .map_err(sqlite)?;
            0
        }
        Contents::Rebound(version) => version,
    };
    if current == SCHEMA_VERSION {
        return Ok(()); // dropping `tx` rolls back the (empty) transaction
    }
    for (from, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(current).unwrap_or(0))
    {
        tx.execute_batch(sql)
            .map_err(|e| CheckpointError::Unusable {
                location: location.to_string(),
                reason: format!("migration from schema version {from} failed: {e}"),
            })?;
    }
    tx.execute(
        &format!("UPDATE {SCHEMA_TABLE} SET version = ?1"),
        [SCHEMA_VERSION],
    )
    .map_err(sqlite)?;
    tx.commit().map_err(sqlite)
}

/// Per-connection settings, after the migration.
pub(crate) fn tune(conn: &Connection) -> rusqlite::Result<()> {
    // 2 MiB of page cache, SQLite's default size (16 MiB before). A bigger
    // cache costs more than it saves under many writes: when a page split
    // reorders pages, SQLite's b-tree parks a page at the lock-byte page's
    // number (page 524,289 with 2 KiB pages), and the commit that follows
    // then scans the whole cache for pages past the end of the file
    // (`pcache1TruncateUnsafe`): 15% of `rebound serve`'s time with 16 MiB,
    // 1-3% with 2 MiB; runs/s +15-20%, alternated run by run.
    conn.pragma_update(None, "cache_size", -2_048)
}

fn inspect(conn: &Connection, location: &str) -> Result<Contents, CheckpointError> {
    let unusable = |reason: String| CheckpointError::Unusable {
        location: location.to_string(),
        reason,
    };
    let tables = table_names(conn).map_err(|e| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => {
            unusable(format!("the file is not an SQLite database ({e})"))
        }
        _ => from_sqlite(location, e),
    })?;
    if !tables.iter().any(|name| name == SCHEMA_TABLE) {
        if tables.is_empty() {
            return Ok(Contents::Empty);
        }
        let shown: Vec<&str> = tables.iter().take(5).map(String::as_str).collect();
        let more = if tables.len() > shown.len() {
            ", ..."
        } else {
            ""
        };
        return Err(unusable(format!(
            "an SQLite database of another application: it has tables ({}{more}) but no {SCHEMA_TABLE} table",
            shown.join(", ")
        )));
    }
    let version: Option<rusqlite::types::Value> = conn
        .query_row(
            &format!("SELECT version FROM {SCHEMA_TABLE} LIMIT 1"),
            [],
            |row| row.get(0),
        )
        .optional()
        .map_err(|e| from_sqlite(location, e))?;
    let version = match version {
        Some(rusqlite::types::Value::Integer(version)) if version >= 0 => version,
        other => {
            return Err(unusable(format!(
                "its {SCHEMA_TABLE} table holds no valid version ({other:?})"
            )))
        }
    };
    if version > SCHEMA_VERSION {
        return Err(unusable(format!(
            "it was written by a newer rebound: its schema version is {version}, this build supports up to version {SCHEMA_VERSION}"
        )));
    }
    Ok(Contents::Rebound(version))
}

fn table_names(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")?;
    let names = stmt.query_map([], |row| row.get(0))?;
    names.collect()
}
