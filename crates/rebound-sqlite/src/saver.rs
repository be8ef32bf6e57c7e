//! [`SqliteSaver`]: the [`Checkpointer`] over one SQLite file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use rebound_graph::checkpoint::{
    CheckpointError, CheckpointId, Checkpointer, PendingWrite, StoredCheckpoint, ThreadSummary,
};

use crate::error::{duplicate, SqliteSaverError};
use crate::group::{self, Queue};
use crate::options::{SqliteOptions, Synchronous};
use crate::records::ThreadRecord;
use crate::store::{AppliedSettings, Batch, GroupFailure, Store};

/// Checkpoints in one SQLite file: the embedded default [`Checkpointer`].
///
/// * One file, WAL journal, `synchronous` as configured
///   ([`Synchronous::Normal`] by default). Several savers and processes may
///   use the same file; writers wait up to the busy timeout for each other.
/// * Compact rows: thread names are mapped to small integers and each
///   checkpoint is one row of a `WITHOUT ROWID` table keyed by
///   `(thread, id)`, about 150 bytes on disk for a typical delta.
/// * [`Checkpointer::put`] commits its whole batch in one transaction. Calls
///   that arrive together (many concurrent runs sharing a saver) share one
///   transaction: the first caller leads, the others wait for its commit.
///   Such a group of many runs is appended to a time-ordered table, so that
///   its commit writes a few pages rather than one page per run.
/// * The SQLite work runs inline on the calling task, under a mutex: a call
///   blocks its thread for about one commit (tens of microseconds with
///   `NORMAL`), which costs less than handing it to another thread.
/// * [`Checkpointer::acquire`] records the holding process in the file, so
///   one run per thread holds across processes; a holder that died (even by
///   `SIGKILL`) is taken over.
///
/// ```no_run
/// use rebound_sqlite::{SqliteOptions, SqliteSaver, Synchronous};
///
/// let saver = SqliteSaver::open(
///     "runs.db",
///     SqliteOptions::default().with_synchronous(Synchronous::Full),
/// )?;
/// assert_eq!(saver.synchronous().to_string(), "full");
/// # Ok::<(), rebound_graph::checkpoint::CheckpointError>(())
/// ```
pub struct SqliteSaver {
    shared: Arc<Shared>,
}

/// What the saver and its group-commit leaders share.
pub(crate) struct Shared {
    store: Mutex<Store>,
    queue: Mutex<Queue>,
    path: PathBuf,
    options: SqliteOptions,
    counters: Counters,
}

#[derive(Default)]
struct Counters {
    puts: AtomicU64,
    commits: AtomicU64,
    checkpoints: AtomicU64,
    writes: AtomicU64,
}

/// What a [`SqliteSaver`] has written since it was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SaverStats {
    /// Non-empty `put` and `put_writes` calls.
    pub puts: u64,
    /// Transactions that committed them (fewer than `puts` when calls were
    /// grouped).
    pub commits: u64,
    /// Checkpoints stored.
    pub checkpoints: u64,
    /// Pending writes stored.
    pub writes: u64,
}

impl SqliteSaver {
    /// Opens the database at `path`, creating it if it does not exist and
    /// migrating it to this build's schema.
    ///
    /// Fails with [`CheckpointError::Unusable`] when the file is not an
    /// SQLite database, is another application's database, or was written by
    /// a newer rebound.
    pub fn open(path: impl AsRef<Path>, options: SqliteOptions) -> Result<Self, CheckpointError> {
        let path = path.as_ref().to_path_buf();
        let store = Store::open(&path, &options)?;
        Ok(SqliteSaver {
            shared: Arc::new(Shared {
                store: Mutex::new(store),
                queue: Mutex::new(Queue::default()),
                path,
                options,
                counters: Counters::default(),
            }),
        })
    }

    /// Opens the database at `path` with [`SqliteOptions::default`].
    pub fn open_default(path: impl AsRef<Path>) -> Result<Self, CheckpointError> {
        SqliteSaver::open(path, SqliteOptions::default())
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// The options it was opened with.
    pub fn options(&self) -> &SqliteOptions {
        &self.shared.options
    }

    /// The `synchronous` setting in use (displays as "normal" or "full").
    pub fn synchronous(&self) -> Synchronous {
        self.shared.options.synchronous
    }

    /// How long a call waits for another writer's lock.
    pub fn busy_timeout(&self) -> Duration {
        self.shared.options.busy_timeout
    }

    /// The settings its connection actually uses, read back from SQLite
    /// (journal mode, `synchronous`, page size, busy timeout, schema version).
    pub fn applied_settings(&self) -> Result<AppliedSettings, CheckpointError> {
        self.store().applied_settings()
    }

    /// What it has written so far.
    pub fn stats(&self) -> SaverStats {
        let counters = &self.shared.counters;
        SaverStats {
            puts: counters.puts.load(Ordering::Relaxed),
            commits: counters.commits.load(Ordering::Relaxed),
            checkpoints: counters.checkpoints.load(Ordering::Relaxed),
            writes: counters.writes.load(Ordering::Relaxed),
        }
    }

    /// Creates or replaces the record of `record.thread_id` (an existing
    /// record keeps its `created_ms`).
    ///
    /// Fails with [`SqliteSaverError::MetadataNotObject`] (inside
    /// [`CheckpointError::Storage`]) when the metadata is not a JSON object.
    pub fn put_thread(&self, record: &ThreadRecord) -> Result<(), CheckpointError> {
        self.store().put_thread(record)
    }

    /// Creates the record unless the thread already has one (for imports:
    /// an existing record is newer). Whether it was created.
    pub fn put_thread_if_absent(&self, record: &ThreadRecord) -> Result<bool, CheckpointError> {
        self.store().put_thread_if_absent(record)
    }

    /// The record of `thread_id`, if it has one, with its status in force
    /// (see [`ThreadRecord::status`]).
    pub fn get_thread(&self, thread_id: &str) -> Result<Option<ThreadRecord>, CheckpointError> {
        self.store().get_thread(thread_id)
    }

    /// Every thread record, the most recently updated first, with their
    /// statuses in force.
    pub fn list_threads(&self) -> Result<Vec<ThreadRecord>, CheckpointError> {
        self.store().list_threads()
    }

    /// Deletes everything stored of `thread_id` (checkpoints, pending
    /// writes, its record, its lock); whether there was anything. The
    /// caller makes sure no run is using the thread.
    pub fn delete_thread(&self, thread_id: &str) -> Result<bool, CheckpointError> {
        self.store().delete_thread(thread_id)
    }

    /// Copies `from`'s checkpoints and pending writes to `to`, a thread
    /// that has never had a checkpoint (a subgraph's own threads are not
    /// copied); whether `from` had any. Fails when `to` has checkpoints.
    pub fn copy_thread(&self, from: &str, to: &str) -> Result<bool, CheckpointError> {
        self.store().copy_thread(from, to)
    }

    /// The process running `thread_id`: the live holder of its lock, if any
    /// (this process included). This is the one answer to "is this thread
    /// running"; a lock left by a process that has exited does not count.
    pub fn lock_holder(&self, thread_id: &str) -> Result<Option<u32>, CheckpointError> {
        self.store().lock_holder(thread_id)
    }

    /// Claims `thread_id` for this process until the returned guard is
    /// released or dropped, across any number of runs: for an application
    /// that runs a thread in several goes (asking the user in between) and
    /// must show it as running, and keep other processes off it, throughout.
    ///
    /// Fails with [`CheckpointError::ThreadBusy`] when a live process (this
    /// one included) holds the thread. While the guard lives, runs of the
    /// thread through this saver use its claim (one run at a time, as
    /// always), and their release leaves it in place.
    pub fn hold_thread(&self, thread_id: &str) -> Result<ThreadHold, CheckpointError> {
        self.store().hold(thread_id)?;
        Ok(ThreadHold {
            shared: Arc::clone(&self.shared),
            thread_id: Some(thread_id.to_string()),
        })
    }

    /// Runs `work` on the saver's own connection, under the lock that
    /// serializes all of the saver's work: for an application keeping its
    /// own tables in the same file (the server's run queue, say).
    ///
    /// Sharing the connection rather than opening a second one matters
    /// under load: two connections writing one file in turn wait for each
    /// other's lock (SQLite's busy handler sleeps at least a millisecond),
    /// and each write by one drops the other's page cache and memory map.
    /// `work` must not keep a transaction open past its return (a
    /// [`rusqlite::Transaction`] that is dropped rolls back) and should be
    /// short: every checkpoint written through this saver waits for it.
    pub fn with_connection<R>(&self, work: impl FnOnce(&mut rusqlite::Connection) -> R) -> R {
        work(self.store().connection())
    }

    async fn submit(
        &self,
        checkpoints: Vec<StoredCheckpoint>,
        writes: Vec<PendingWrite>,
    ) -> Result<(), CheckpointError> {
        if checkpoints.is_empty() && writes.is_empty() {
            return Ok(());
        }
        self.shared.counters.puts.fetch_add(1, Ordering::Relaxed);
        group::submit(
            &self.shared,
            Batch {
                checkpoints,
                writes,
            },
        )
        .await
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        self.shared.lock_store()
    }
}

/// A thread claimed by [`SqliteSaver::hold_thread`]; dropping it releases
/// the claim (best effort; [`ThreadHold::release`] reports a failure).
#[must_use = "the thread is released when the guard is dropped"]
pub struct ThreadHold {
    shared: Arc<Shared>,
    /// The thread, until released.
    thread_id: Option<String>,
}

impl ThreadHold {
    /// The thread it holds.
    pub fn thread_id(&self) -> &str {
        self.thread_id.as_deref().unwrap_or_default()
    }

    /// Releases the thread now (unless a run of it is still under way, which
    /// releases it when it ends).
    pub fn release(mut self) -> Result<(), CheckpointError> {
        match self.thread_id.take() {
            Some(thread_id) => self.shared.lock_store().unhold(&thread_id),
            None => Ok(()),
        }
    }
}

impl Drop for ThreadHold {
    fn drop(&mut self) {
        if let Some(thread_id) = self.thread_id.take() {
            let _ = self.shared.lock_store().unhold(&thread_id);
        }
    }
}

impl std::fmt::Debug for ThreadHold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadHold")
            .field("thread_id", &self.thread_id)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for SqliteSaver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteSaver")
            .field("path", &self.shared.path)
            .field("options", &self.shared.options)
            .finish_non_exhaustive()
    }
}

impl Shared {
    // A panic while a lock is held cannot leave the store half-written: a
    // write transaction is rolled back when its guard drops during the
    // unwind, and caches change only after a commit. So a poisoned lock is
    // still usable.
    fn lock_store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn lock_queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes a group of batches, in one transaction if possible, and
    /// returns each batch's own outcome. A batch at fault (a duplicate id, a
    /// value out of range) fails alone and the rest are committed without
    /// it; a failure of the transaction itself (busy, I/O) fails them all.
    pub(crate) fn write_batches(&self, batches: &[Batch]) -> Vec<Result<(), CheckpointError>> {
        let mut outcomes: Vec<Option<Result<(), CheckpointError>>> =
            batches.iter().map(|_| None).collect();
        let mut pending: Vec<usize> = (0..batches.len()).collect();
        let mut store = self.lock_store();
        while !pending.is_empty() {
            let group: Vec<&Batch> = pending.iter().map(|&index| &batches[index]).collect();
            match store.write_group(&group) {
                Ok(()) => {
                    let counters = &self.counters;
                    counters.commits.fetch_add(1, Ordering::Relaxed);
                    let checkpoints: usize =
                        group.iter().map(|batch| batch.checkpoints.len()).sum();
                    let writes: usize = group.iter().map(|batch| batch.writes.len()).sum();
                    counters
                        .checkpoints
                        .fetch_add(checkpoints as u64, Ordering::Relaxed);
                    counters.writes.fetch_add(writes as u64, Ordering::Relaxed);
                    for index in pending.drain(..) {
                        outcomes[index] = Some(Ok(()));
                    }
                }
                Err(GroupFailure::Batch(at, error)) => {
                    let index = pending.remove(at);
                    outcomes[index] = Some(Err(error));
                }
                Err(GroupFailure::Group(error)) => {
                    let mut rest = pending.drain(..);
                    let first = rest.next();
                    for index in rest {
                        outcomes[index] = Some(Err(duplicate(&error)));
                    }
                    if let Some(index) = first {
                        outcomes[index] = Some(Err(error));
                    }
                }
            }
        }
        drop(store);
        outcomes
            .into_iter()
            .map(|outcome| outcome.unwrap_or_else(|| Err(SqliteSaverError::NoResult.into())))
            .collect()
    }
}

#[async_trait]
impl Checkpointer for SqliteSaver {
    async fn put(
        &self,
        checkpoints: Vec<StoredCheckpoint>,
        writes: Vec<PendingWrite>,
    ) -> Result<(), CheckpointError> {
        self.submit(checkpoints, writes).await
    }

    async fn put_writes(&self, writes: Vec<PendingWrite>) -> Result<(), CheckpointError> {
        self.submit(Vec::new(), writes).await
    }

    async fn get(
        &self,
        thread_id: &str,
        id: Option<CheckpointId>,
    ) -> Result<Option<StoredCheckpoint>, CheckpointError> {
        self.store().get(thread_id, id)
    }

    async fn get_chain(
        &self,
        thread_id: &str,
        id: CheckpointId,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        self.store().get_chain(thread_id, id)
    }

    async fn list(
        &self,
        thread_id: &str,
        before: Option<CheckpointId>,
        limit: Option<usize>,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        self.store().list(thread_id, before, limit)
    }

    async fn pending_writes(
        &self,
        thread_id: &str,
        checkpoint: CheckpointId,
    ) -> Result<Vec<PendingWrite>, CheckpointError> {
        self.store().pending_writes(thread_id, checkpoint)
    }

    async fn threads(&self) -> Result<Vec<ThreadSummary>, CheckpointError> {
        self.store().threads()
    }

    async fn acquire(&self, thread_id: &str) -> Result<(), CheckpointError> {
        self.store().acquire(thread_id)
    }

    async fn release(&self, thread_id: &str) -> Result<(), CheckpointError> {
        self.store().release(thread_id)
    }
}
