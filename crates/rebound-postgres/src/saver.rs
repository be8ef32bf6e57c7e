//! [`PostgresSaver`]: the [`Checkpointer`] over a PostgreSQL database.

mod admin;
mod connect;
mod lock;
mod options;
mod read;
mod write;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use async_trait::async_trait;
use rebound_graph::checkpoint::{
    CheckpointError, CheckpointId, Checkpointer, PendingWrite, StoredCheckpoint, ThreadSummary,
};
use sqlx::PgPool;

pub use options::PostgresOptions;

use crate::error::PostgresError;
use crate::guard::WriteGuard;
use crate::migrate::{self, MigrateError};

/// Checkpoints in a PostgreSQL database: the [`Checkpointer`] for many
/// processes and machines sharing one store.
///
/// * Schema `migrations/0001_checkpoints.sql`, applied by [`migrate`] when
///   the saver connects: thread names mapped to small integers
///   (`checkpoint_threads`), one compact row per checkpoint keyed by
///   `(thread, id)` with its state (snapshot or delta) and metadata as
///   bytes (`checkpoints`), and pending writes in write order
///   (`checkpoint_writes`).
/// * [`Checkpointer::put`] is one statement: multi-row inserts from arrays
///   (`UNNEST`), the checkpoints' and the writes' in one data-modifying CTE,
///   in the statement's implicit transaction: one round trip, all or
///   nothing. A thread's key is looked up (or added) once per saver and
///   cached. A thread held with [`Checkpointer::acquire`] is written
///   through the connection that holds its lock (below), one write at a
///   time; other calls run on a connection pool, so concurrent runs do not
///   wait for one connection. sqlx caches each statement prepared per
///   connection, and the saver's own pool skips sqlx's ping of recently
///   used connections before use (sqlx still pings each one handed back,
///   which is why a held thread's writes stay on its own connection: W3's
///   put went from ~140 to ~52 µs with `synchronous_commit=off`). A thread
///   with a [`WriteGuard`] takes a transaction instead: the guard's check,
///   then the same statement, then the commit.
/// * Ids are unique per thread: a checkpoint id stored twice fails the
///   whole batch with [`PostgresError::DuplicateCheckpoint`], as
///   `rebound_sqlite::SqliteSaver` does (`MemorySaver` replaces the
///   checkpoint).
/// * [`Checkpointer::get_chain`] is one recursive query along parent links
///   back to the nearest snapshot; every other read is one statement too.
/// * [`Checkpointer::acquire`] takes a session-level advisory lock
///   (`pg_try_advisory_lock`) on a 64-bit hash of the thread id (and of
///   the schema, so that stores in different schemas of one database do
///   not exclude each other), on a
///   connection of a second pool kept for the run; it fails at once with
///   [`CheckpointError::ThreadBusy`] (naming the holding process and
///   backend) when another session holds it. Why a session lock rather
///   than a row in a table: PostgreSQL frees it when the session ends, so a
///   holder that dies (`SIGKILL`, a crash, a lost connection) cannot block
///   the thread for ever, with no lease to expire or reaper to run, and no
///   write per acquire. A run whose lock connection was lost loses its
///   claim: its next write, made through that connection, fails with
///   [`PostgresError::LockLost`] instead of landing beside the thread's
///   next holder's. Writes that must be fenced by something else than the
///   session (a run's lease) use a [`WriteGuard`]
///   ([`PostgresSaver::guard_thread`]). A guarded thread
///   whose lock another session still holds is acquired without it: the
///   guard, not the lock, excludes that session's writes (a worker paused
///   past its run's lease keeps its session, and would otherwise keep the
///   thread from the run's next worker).
/// * Errors: [`CheckpointError::Storage`] holding a [`PostgresError`]
///   (duplicate ids, fencing, query and connection failures; never the
///   URL's password), [`CheckpointError::Corrupt`] for rows that cannot be
///   decoded, [`CheckpointError::Unusable`] for a schema newer than this
///   build's.
///
/// ```no_run
/// use std::sync::Arc;
///
/// use rebound_postgres::{PostgresOptions, PostgresSaver};
///
/// # async fn demo() -> Result<(), rebound_graph::checkpoint::CheckpointError> {
/// let saver = PostgresSaver::connect(
///     "postgres://rebound:secret@db.internal:5432/rebound",
///     PostgresOptions::default().with_max_connections(32),
/// )
/// .await?;
/// let saver = Arc::new(saver); // compiled_graph.with_checkpointer(saver)
/// # let _ = saver;
/// # Ok(())
/// # }
/// ```
pub struct PostgresSaver {
    /// Reads and writes.
    pool: PgPool,
    /// One connection per held thread.
    locks: PgPool,
    /// Thread name → key in `checkpoint_threads` (keys never change).
    thread_keys: RwLock<HashMap<String, i32>>,
    /// The guards of guarded threads.
    guards: RwLock<HashMap<String, Arc<dyn WriteGuard>>>,
    /// The threads this saver claims or holds.
    held: Mutex<HashMap<String, lock::Slot>>,
    /// The schema of the saver's tables (part of each thread's lock key).
    schema: String,
}

impl std::fmt::Debug for PostgresSaver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresSaver")
            .field(
                "database",
                &connect::location_of(&self.pool.connect_options()),
            )
            .finish_non_exhaustive()
    }
}

impl PostgresSaver {
    /// Connects to the database at `url` and brings its schema up to date.
    ///
    /// While the database cannot be reached (refused, timed out, starting
    /// up), tries again as `options` say, waiting longer each time; then
    /// fails with [`PostgresError::Connect`] (a wrong password or a missing
    /// database fails at once). A database whose rebound schema is newer
    /// than this build's is refused with [`CheckpointError::Unusable`].
    /// No error text holds the URL's password.
    pub async fn connect(url: &str, options: PostgresOptions) -> Result<Self, CheckpointError> {
        let pool = connect::connect_pool(url, &options).await?;
        Self::with_pools(pool, &options).await
    }

    /// A saver on an existing pool (shared with other parts of an
    /// application), with default [`PostgresOptions`] for the connections
    /// that hold threads. Brings the schema up to date.
    pub async fn from_pool(pool: PgPool) -> Result<Self, CheckpointError> {
        Self::with_pools(pool, &PostgresOptions::default()).await
    }

    async fn with_pools(pool: PgPool, options: &PostgresOptions) -> Result<Self, CheckpointError> {
        migrate::migrate(&pool).await.map_err(|error| match error {
            MigrateError::Newer { .. } => CheckpointError::Unusable {
                location: connect::location_of(&pool.connect_options()),
                reason: error.to_string(),
            },
            other => PostgresError::Migrate(other).into(),
        })?;
        let schema: Option<String> = sqlx::query_scalar("SELECT current_schema()")
            .fetch_one(&pool)
            .await
            .map_err(crate::error::from_sqlx)?;
        Ok(PostgresSaver {
            schema: schema.unwrap_or_default(),
            locks: connect::lock_pool(&pool, options),
            pool,
            thread_keys: RwLock::default(),
            guards: RwLock::default(),
            held: Mutex::default(),
        })
    }

    /// The pool of reads and writes (to share with other stores on the
    /// same database).
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Fences the writes to `thread_id`: from now on every `put` and
    /// `put_writes` touching it checks `guard` in its own transaction,
    /// before inserting, and fails with [`PostgresError::Fenced`] (rolled
    /// back) when the guard no longer holds. Replaces an earlier guard.
    pub fn guard_thread(&self, thread_id: &str, guard: Arc<dyn WriteGuard>) {
        write_lock(&self.guards).insert(thread_id.to_string(), guard);
    }

    /// Removes the guard of `thread_id`, if any.
    pub fn unguard_thread(&self, thread_id: &str) {
        write_lock(&self.guards).remove(thread_id);
    }
}

#[async_trait]
impl Checkpointer for PostgresSaver {
    async fn put(
        &self,
        checkpoints: Vec<StoredCheckpoint>,
        writes: Vec<PendingWrite>,
    ) -> Result<(), CheckpointError> {
        self.write(checkpoints, writes).await
    }

    async fn put_writes(&self, writes: Vec<PendingWrite>) -> Result<(), CheckpointError> {
        self.write(Vec::new(), writes).await
    }

    async fn get(
        &self,
        thread_id: &str,
        id: Option<CheckpointId>,
    ) -> Result<Option<StoredCheckpoint>, CheckpointError> {
        self.read_one(thread_id, id).await
    }

    async fn get_chain(
        &self,
        thread_id: &str,
        id: CheckpointId,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        self.read_chain(thread_id, id).await
    }

    async fn list(
        &self,
        thread_id: &str,
        before: Option<CheckpointId>,
        limit: Option<usize>,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        self.read_list(thread_id, before, limit).await
    }

    async fn pending_writes(
        &self,
        thread_id: &str,
        checkpoint: CheckpointId,
    ) -> Result<Vec<PendingWrite>, CheckpointError> {
        self.read_writes(thread_id, checkpoint).await
    }

    async fn threads(&self) -> Result<Vec<ThreadSummary>, CheckpointError> {
        self.read_threads().await
    }

    async fn acquire(&self, thread_id: &str) -> Result<(), CheckpointError> {
        self.claim(thread_id).await
    }

    async fn release(&self, thread_id: &str) -> Result<(), CheckpointError> {
        self.unclaim(thread_id).await
    }
}

// The maps are only read or replaced whole under these locks (no await
// while held), so a poisoned lock still holds consistent data.

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn read_lock<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn write_lock<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
