//! Thread and run records and their statuses, as the Agent Server API names
//! them: defined once, shared by the SQLite and PostgreSQL stores and the
//! server, so that no layer converts one through a string into another.
//!
//! ([`crate::RunStatus`], at the crate's root, is something else: how one
//! run of a graph ended, as its `run_finished` event says.)

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Where a thread stands.
///
/// A store does not take [`ThreadStatus::Busy`] from a record alone: a
/// thread is busy while a live process holds it (the SQLite store's lock,
/// a PostgreSQL run's lease), and only then.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
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

    /// The status named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        name.parse().ok()
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

/// What an application records about a thread beside its checkpoints, in
/// the shape of the Agent Server's threads: times, a status and a metadata
/// object. (The SQLite store keeps it in the same file as the checkpoints;
/// the PostgreSQL store in its `threads` table.)
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
    /// exactly when a live process holds the thread, and
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

/// Where a queued run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Queued, waiting for a worker (or for the run before it on its thread).
    Pending,
    /// A worker holds it (through a lease, in PostgreSQL).
    Running,
    /// It ran to the end.
    Success,
    /// It failed (or its lease lapsed on its last attempt).
    Error,
    /// It ran out of time.
    Timeout,
    /// It stopped at an interrupt, or was cancelled.
    Interrupted,
}

impl RunStatus {
    /// Its name in the API and in the stores.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Pending => "pending",
            RunStatus::Running => "running",
            RunStatus::Success => "success",
            RunStatus::Error => "error",
            RunStatus::Timeout => "timeout",
            RunStatus::Interrupted => "interrupted",
        }
    }

    /// The status named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "pending" => RunStatus::Pending,
            "running" => RunStatus::Running,
            "success" => RunStatus::Success,
            "error" => RunStatus::Error,
            "timeout" => RunStatus::Timeout,
            "interrupted" => RunStatus::Interrupted,
            _ => return None,
        })
    }

    /// Whether the run has ended (it will not run again).
    pub fn is_final(self) -> bool {
        !matches!(self, RunStatus::Pending | RunStatus::Running)
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_through_their_names_and_json() {
        for status in [
            ThreadStatus::Idle,
            ThreadStatus::Busy,
            ThreadStatus::Interrupted,
            ThreadStatus::Error,
        ] {
            assert_eq!(status.to_string().parse::<ThreadStatus>(), Ok(status));
            assert_eq!(
                serde_json::to_value(status).ok(),
                Some(serde_json::json!(status.as_str()))
            );
        }
        assert_eq!(
            "running".parse::<ThreadStatus>(),
            Err(ParseThreadStatusError("running".to_string()))
        );
        for status in [
            RunStatus::Pending,
            RunStatus::Running,
            RunStatus::Success,
            RunStatus::Error,
            RunStatus::Timeout,
            RunStatus::Interrupted,
        ] {
            assert_eq!(RunStatus::parse(status.as_str()), Some(status));
            assert_eq!(
                serde_json::to_value(status).ok(),
                Some(serde_json::json!(status.as_str()))
            );
        }
        assert_eq!(RunStatus::parse("idle"), None);
        assert!(RunStatus::Timeout.is_final() && !RunStatus::Running.is_final());
    }
}
