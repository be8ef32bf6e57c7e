//! [`ThreadRecord`]: what an application records about a thread beside its
//! checkpoints, in the shape of the LangGraph Agent Server's threads (times,
//! a status, a metadata object).

use std::fmt;
use std::str::FromStr;

/// Where a thread stands, as the Agent Server API names it.
///
/// [`ThreadStatus::Busy`] is never taken from the record alone: a thread is
/// busy while a live process holds its lock (the `locks` table), and only
/// then. See [`ThreadRecord::status`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadStatus {
    /// Nothing runs it and nothing waits: it finished, stopped or was never
    /// run.
    Idle,
    /// A live process runs it.
    Busy,
    /// It waits for input (an interrupt).
    Interrupted,
    /// Its last run failed, or died without recording how it ended.
    Error,
}

impl ThreadStatus {
    /// Its name: `idle`, `busy`, `interrupted` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            ThreadStatus::Idle => "idle",
            ThreadStatus::Busy => "busy",
            ThreadStatus::Interrupted => "interrupted",
            ThreadStatus::Error => "error",
        }
    }
}

impl fmt::Display for ThreadStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a [`ThreadStatus`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown thread status {0:?}: expected idle, busy, interrupted or error")]
pub struct ParseThreadStatusError(pub String);

impl FromStr for ThreadStatus {
    type Err = ParseThreadStatusError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "idle" => Ok(ThreadStatus::Idle),
            "busy" => Ok(ThreadStatus::Busy),
            "interrupted" => Ok(ThreadStatus::Interrupted),
            "error" => Ok(ThreadStatus::Error),
            other => Err(ParseThreadStatusError(other.to_string())),
        }
    }
}

/// An application's record of one thread, kept in the same file as its
/// checkpoints (`thread_records`).
///
/// ```
/// use rebound_sqlite::{SqliteSaver, ThreadRecord, ThreadStatus};
///
/// let dir = tempfile::tempdir()?;
/// let saver = SqliteSaver::open_default(dir.path().join("state.db"))?;
/// let record = ThreadRecord::new("t-1", 1_000, serde_json::json!({"goal": "fix it"}))
///     .with_status(ThreadStatus::Interrupted);
/// saver.put_thread(&record)?;
/// assert_eq!(saver.get_thread("t-1")?, Some(record));
/// assert_eq!(saver.lock_holder("t-1")?, None); // nobody runs it
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadRecord {
    /// The thread id, as runs and checkpoints name it.
    pub thread_id: String,
    /// When the record was created, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// When it last changed.
    pub updated_ms: u64,
    /// Where the thread stands. As written, the status the application
    /// last recorded; as read, the status in force: [`ThreadStatus::Busy`]
    /// exactly when a live process holds the thread's lock, and
    /// [`ThreadStatus::Error`] for a recorded `Busy` whose process is gone
    /// (it died without recording how the run ended).
    pub status: ThreadStatus,
    /// The application's own fields: a JSON object.
    pub metadata: serde_json::Value,
}

impl ThreadRecord {
    /// A new, [`ThreadStatus::Idle`] record created (and updated) at `now_ms`.
    pub fn new(thread_id: impl Into<String>, now_ms: u64, metadata: serde_json::Value) -> Self {
        ThreadRecord {
            thread_id: thread_id.into(),
            created_ms: now_ms,
            updated_ms: now_ms,
            status: ThreadStatus::Idle,
            metadata,
        }
    }

    /// The record with `status`.
    #[must_use]
    pub fn with_status(mut self, status: ThreadStatus) -> Self {
        self.status = status;
        self
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn statuses_round_trip_through_their_names() {
        for status in [
            ThreadStatus::Idle,
            ThreadStatus::Busy,
            ThreadStatus::Interrupted,
            ThreadStatus::Error,
        ] {
            assert_eq!(status.to_string().parse::<ThreadStatus>(), Ok(status));
        }
        assert_eq!(
            "running".parse::<ThreadStatus>(),
            Err(ParseThreadStatusError("running".to_string()))
        );
    }
}
