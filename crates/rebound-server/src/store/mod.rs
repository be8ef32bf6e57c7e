//! What the server keeps beside the checkpoints: thread records, the run
//! queue and each run's events. [`Store`] is the seam a shared store
//! (PostgreSQL) implements next; [`SqliteStore`] is the embedded default,
//! in the same `state.db` as the checkpoints.

mod postgres;
mod sqlite;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

pub use postgres::PostgresStore;
pub use sqlite::SqliteStore;

pub use rebound_protocol::records::{RunStatus, ThreadRecord, ThreadStatus};

/// What to do with a new run on a thread that already has one pending or
/// running (LangGraph's "double-texting").
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MultitaskStrategy {
    /// Refuse the new run (`409`).
    Reject,
    /// Run it after the others (the default).
    #[default]
    Enqueue,
    /// Stop the running run (its work so far is kept), then run the new one.
    Interrupt,
    /// Stop the running run, delete it and what it wrote, then run the new one.
    Rollback,
}

impl MultitaskStrategy {
    /// Its name in the API.
    pub fn as_str(self) -> &'static str {
        match self {
            MultitaskStrategy::Reject => "reject",
            MultitaskStrategy::Enqueue => "enqueue",
            MultitaskStrategy::Interrupt => "interrupt",
            MultitaskStrategy::Rollback => "rollback",
        }
    }

    /// The strategy named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "reject" => MultitaskStrategy::Reject,
            "enqueue" => MultitaskStrategy::Enqueue,
            "interrupt" => MultitaskStrategy::Interrupt,
            "rollback" => MultitaskStrategy::Rollback,
            _ => return None,
        })
    }
}

/// One run: a request to run an assistant on a thread, queued in the store.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// Its id (a UUID).
    pub run_id: String,
    /// The thread it runs on.
    pub thread_id: String,
    /// The assistant (graph) it runs.
    pub assistant_id: String,
    /// Where it stands.
    pub status: RunStatus,
    /// When it was created (ms since the Unix epoch).
    pub created_ms: u64,
    /// When it last changed.
    pub updated_ms: u64,
    /// How many times a worker took it (1 on its first run; more after a
    /// server restart resumed it).
    pub attempt: u32,
    /// The number of its current claim: every write a worker makes for
    /// the run carries it, and a write whose epoch is no longer the run's
    /// (the run was given to another worker since) is not made.
    pub epoch: u64,
    /// What the client asked for when the thread was busy.
    pub multitask_strategy: MultitaskStrategy,
    /// The client's metadata object.
    pub metadata: serde_json::Value,
    /// The request: input, command, config, stream modes, interrupts
    /// (see [`crate::runs::RunKwargs`]).
    pub kwargs: serde_json::Value,
    /// The thread's latest checkpoint when the run first started: a run
    /// that a restart finds `running` resumes from its own checkpoints if
    /// the thread moved past this one, else it starts again.
    pub base_checkpoint: Option<String>,
    /// Why it failed, for a run that did.
    pub error: Option<String>,
}

/// One event of a run's stream, as sent over SSE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its position in the run's stream, from 1: the SSE `id`.
    pub seq: u64,
    /// The SSE event name (`metadata`, `values`, `updates`, `events`,
    /// `custom`, `error`, `end`).
    pub event: String,
    /// Its data, one JSON text.
    pub data: String,
}

/// A write that may share its commit with others ([`Store::apply`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Write {
    /// Queues a run.
    Enqueue(Box<RunRecord>),
    /// Appends an event to a run's stream, while the claim `epoch` holds.
    Event {
        /// The run.
        run_id: String,
        /// The claim it is written under.
        epoch: u64,
        /// The event.
        event: StoredEvent,
    },
    /// Records a run's end and its thread's status, while the claim
    /// `epoch` holds (a run given to another worker since is left to it).
    RunEnd {
        /// The run.
        run_id: String,
        /// The claim it is written under.
        epoch: u64,
        /// How it ended.
        status: RunStatus,
        /// Why it failed, if it did.
        error: Option<String>,
        /// Its thread.
        thread_id: String,
        /// The thread's status after it.
        thread_status: ThreadStatus,
        /// When (ms since the Unix epoch).
        at_ms: u64,
        /// Its last events (`end`), stored in the same commit: a reader
        /// that sees them finds the run ended.
        events: Vec<StoredEvent>,
    },
    /// Records the checkpoint a run started from (on its first attempt:
    /// a value already recorded stays), while the claim `epoch` holds.
    BaseCheckpoint {
        /// The run.
        run_id: String,
        /// The claim it is written under.
        epoch: u64,
        /// The thread's latest checkpoint id, empty for none.
        checkpoint: String,
    },
    /// Records where a thread stands.
    ThreadStatus {
        /// The thread.
        thread_id: String,
        /// Its status.
        status: ThreadStatus,
        /// When (ms since the Unix epoch).
        at_ms: u64,
    },
}

/// What a heartbeat learned ([`Store::heartbeat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heartbeat {
    /// The claim is extended; `cancel` is set when an API server asked for
    /// the run to stop.
    Held {
        /// The cancel asked for, if any.
        cancel: Option<CancelKind>,
    },
    /// The claim expired and the run may be running elsewhere: stop it
    /// without writing anything more.
    Lost,
}

/// What another process sharing the store did ([`Store::notices`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreNotice {
    /// A run was queued or ended: a worker may find a run to take.
    Runs,
    /// A run's stream has new events.
    Events(String),
    /// Notices may have been missed (the connection was lost): look again.
    Missed,
}

/// How a cancelled run is stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelKind {
    /// Stop it; what it did stays.
    Interrupt,
    /// Stop it and undo what it did.
    Rollback,
}

impl CancelKind {
    /// Its name in the API (`interrupt`, `rollback`).
    pub fn as_str(self) -> &'static str {
        match self {
            CancelKind::Interrupt => "interrupt",
            CancelKind::Rollback => "rollback",
        }
    }
}

/// Which threads [`Store::search_threads`] returns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThreadQuery {
    /// Only threads whose metadata contains these key/value pairs.
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// Only threads with this status.
    pub status: Option<ThreadStatus>,
    /// At most this many.
    pub limit: usize,
    /// After skipping this many.
    pub offset: usize,
}

/// A failure of the store itself (not of the request).
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database failed.
    #[error("the server's store failed: {0}")]
    Database(String),
    /// The database could not be written: the disk is full or failing.
    /// The write was rolled back; what was committed before is intact.
    #[error(
        "the server cannot write its database: the disk is full or failing ({0}); \
         what this write held was not saved"
    )]
    WriteFailed(String),
    /// A stored value could not be read back.
    #[error("a stored {what} could not be read: {detail}")]
    Corrupt {
        /// What was being read.
        what: &'static str,
        /// What was wrong with it.
        detail: String,
    },
}

/// Threads, runs and run events: the server's storage, shared by its API
/// handlers and its workers.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Creates a thread record; `false` (and nothing written) when the
    /// thread has one already.
    async fn create_thread(&self, record: &ThreadRecord) -> Result<bool, StoreError>;
    /// Writes a thread record, replacing the one it has.
    async fn put_thread(&self, record: &ThreadRecord) -> Result<(), StoreError>;
    /// A thread's record.
    async fn get_thread(&self, thread_id: &str) -> Result<Option<ThreadRecord>, StoreError>;
    /// Deletes a thread: its record, checkpoints, runs and their events.
    /// `false` when there was no such thread.
    async fn delete_thread(&self, thread_id: &str) -> Result<bool, StoreError>;
    /// Deletes a thread's checkpoints and pending writes, keeping its
    /// record and runs (a rollback to before its first run).
    async fn delete_checkpoints(&self, thread_id: &str) -> Result<(), StoreError>;
    /// Copies a thread's checkpoints to a new thread with `record` (its
    /// runs stay with the original).
    async fn copy_thread(&self, from: &str, record: &ThreadRecord) -> Result<(), StoreError>;
    /// The threads matching `query`, the most recently updated first.
    async fn search_threads(&self, query: &ThreadQuery) -> Result<Vec<ThreadRecord>, StoreError>;

    /// Takes up to `limit` runs, oldest first, each the oldest pending run
    /// of a thread that has no running run, marks them running and counts
    /// their attempt (one transaction).
    async fn claim_runs(&self, limit: usize) -> Result<Vec<RunRecord>, StoreError>;
    /// Marks a run `interrupted` if it is still pending; whether it was
    /// (a worker may have taken it first).
    async fn cancel_pending(&self, run_id: &str) -> Result<bool, StoreError>;
    /// A run, by id.
    async fn get_run(&self, run_id: &str) -> Result<Option<RunRecord>, StoreError>;
    /// A thread's runs, newest first.
    async fn list_runs(
        &self,
        thread_id: &str,
        status: Option<RunStatus>,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<RunRecord>, StoreError>;
    /// A thread's runs that have not ended, oldest first.
    async fn active_runs(&self, thread_id: &str) -> Result<Vec<RunRecord>, StoreError>;
    /// Deletes a run and its events; `false` when there was none.
    async fn delete_run(&self, run_id: &str) -> Result<bool, StoreError>;
    /// At a server's start: the runs a killed server left `running` go
    /// back to `pending` (keeping their place in their thread's queue);
    /// returns them. A store shared by many processes leaves this to
    /// [`Store::reap`] and returns none.
    async fn requeue_running(&self) -> Result<Vec<RunRecord>, StoreError>;

    /// How long a claim lasts without a [`Store::heartbeat`]; `None` for a
    /// store whose claims last as long as the process (one server per
    /// file), where workers send no heartbeats.
    fn lease_ttl(&self) -> Option<std::time::Duration> {
        None
    }
    /// Extends the claim `epoch` of a running run; tells the worker of a
    /// cancel asked for elsewhere, or that the claim is lost.
    async fn heartbeat(&self, _run_id: &str, _epoch: u64) -> Result<Heartbeat, StoreError> {
        Ok(Heartbeat::Held { cancel: None })
    }
    /// Whether this process still holds the claim `epoch` on `run_id`,
    /// asked before each external effect of the run (a store of one server
    /// always does).
    async fn check_lease(&self, _run_id: &str, _epoch: u64) -> Result<bool, StoreError> {
        Ok(true)
    }
    /// Asks the worker running `run_id` to stop it (delivered by its next
    /// heartbeat); a store whose runs all run in this process has nothing
    /// to do (the server's own cancel handles reach them).
    async fn request_cancel(&self, _run_id: &str, _action: CancelKind) -> Result<(), StoreError> {
        Ok(())
    }
    /// Gives runs whose claim expired back to the queue (or fails them
    /// after too many attempts); any worker may call it, at any time.
    async fn reap(&self) -> Result<(), StoreError> {
        Ok(())
    }
    /// Gives a run this process stops (a graceful shutdown) back to the
    /// queue at once, keeping its place; a store of one server leaves it
    /// `running`, for [`Store::requeue_running`] at the next start.
    async fn requeue(&self, _run_id: &str, _epoch: u64) -> Result<(), StoreError> {
        Ok(())
    }
    /// Gives back, for another attempt after a backoff, a run whose attempt
    /// `epoch` failed for the infrastructure rather than for the run (its
    /// store's connection ended, its thread was still held by an earlier
    /// attempt); `false` when it cannot have one (its lease is lost, its
    /// attempts are spent, or the store is one server's, where such a
    /// failure is not passing): the run then ends with its error.
    async fn retry(&self, _run_id: &str, _epoch: u64) -> Result<bool, StoreError> {
        Ok(false)
    }
    /// What other processes sharing the store did (runs queued or ended,
    /// events appended), for a store shared by many; `None` for a store
    /// only this server writes.
    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<StoreNotice>> {
        None
    }
    /// Fences `run`'s checkpoint writes by its claim, until
    /// [`Store::unfence`]: a checkpoint of its thread written after the
    /// claim is lost fails, and so the run stops.
    fn fence(&self, _run: &RunRecord) {}
    /// Ends [`Store::fence`] for a thread.
    fn unfence(&self, _thread_id: &str) {}

    /// Applies writes in one transaction, in order: all or none.
    async fn apply(&self, writes: &[Write]) -> Result<(), StoreError>;
    /// A run's events after `after` (a seq), in order.
    async fn read_events(&self, run_id: &str, after: u64) -> Result<Vec<StoredEvent>, StoreError>;
}
