//! The rows the queue reads and writes: runs, threads, events.

use super::{CancelAction, RunStatus, ThreadStatus};

/// One run as stored: the request, where it stands, and its lease.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    /// Its place in the queue: FIFO overall and per thread, kept by a
    /// requeue.
    pub seq: i64,
    /// Its id.
    pub run_id: String,
    /// The thread it runs on.
    pub thread_id: String,
    /// The assistant (graph) it runs.
    pub assistant_id: String,
    /// Where it stands.
    pub status: RunStatus,
    /// When it was created (ms since the Unix epoch, the database's clock).
    pub created_ms: i64,
    /// When it last changed.
    pub updated_ms: i64,
    /// How many times a worker claimed it.
    pub attempt: i32,
    /// What the client asked for when the thread was busy (`reject`,
    /// `enqueue`, `interrupt`, `rollback`).
    pub multitask_strategy: String,
    /// The client's metadata object.
    pub metadata: serde_json::Value,
    /// The request (input, command, config, stream modes...).
    pub kwargs: serde_json::Value,
    /// The thread's latest checkpoint when the run first started.
    pub base_checkpoint: Option<String>,
    /// Why it failed, for a run that did.
    pub error: Option<String>,
    /// The worker holding it, while it runs.
    pub owner: Option<String>,
    /// The epoch of its latest claim (0 before the first).
    pub epoch: i64,
    /// When its lease lapses unless renewed, while it runs.
    pub lease_expires_ms: Option<i64>,
    /// Not claimable before this (a backoff after a lapsed lease).
    pub available_ms: i64,
    /// How many of its leases lapsed and were reaped.
    pub expirations: i32,
    /// A cancel asked for and not yet carried out.
    pub cancel_requested: Option<CancelAction>,
}

/// A run to queue ([`super::RunQueue::enqueue`]).
#[derive(Debug, Clone, PartialEq)]
pub struct NewRun {
    /// Its id (a UUID).
    pub run_id: String,
    /// The thread it runs on.
    pub thread_id: String,
    /// The assistant (graph) it runs.
    pub assistant_id: String,
    /// What the client asked for when the thread was busy.
    pub multitask_strategy: String,
    /// The client's metadata object.
    pub metadata: serde_json::Value,
    /// The request.
    pub kwargs: serde_json::Value,
}

/// One thread's record.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadRow {
    /// Its id.
    pub thread_id: String,
    /// When it was created (ms since the Unix epoch).
    pub created_ms: i64,
    /// When it last changed.
    pub updated_ms: i64,
    /// Where it stands.
    pub status: ThreadStatus,
    /// The application's own fields: a JSON object.
    pub metadata: serde_json::Value,
}

/// Which threads [`super::RunQueue::search_threads`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadSearch {
    /// Only threads whose metadata contains this object (`@>`); `{}` for all.
    pub metadata: serde_json::Value,
    /// Only threads with this status.
    pub status: Option<ThreadStatus>,
    /// At most this many.
    pub limit: i64,
    /// After skipping this many.
    pub offset: i64,
}

impl Default for ThreadSearch {
    fn default() -> Self {
        ThreadSearch {
            metadata: serde_json::Value::Object(serde_json::Map::new()),
            status: None,
            limit: 10,
            offset: 0,
        }
    }
}

/// One event of a run's stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    /// Its position in the run's stream, from 1 (the SSE `id`).
    pub seq: i64,
    /// The SSE event name.
    pub event: String,
    /// Its data, one JSON text.
    pub data: String,
}
