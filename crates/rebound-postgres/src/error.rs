//! [`PostgresError`]: the failures the Postgres saver reports inside
//! [`CheckpointError::Storage`], and the mapping of sqlx's errors onto
//! [`CheckpointError`].

use rebound_graph::checkpoint::{CheckpointError, CheckpointId};

use crate::migrate::MigrateError;

/// A failure specific to the Postgres saver. It reaches callers boxed inside
/// [`CheckpointError::Storage`]; downcast to tell the cases apart (or use
/// [`PostgresError::of`] and [`PostgresError::is_fenced`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PostgresError {
    /// The database could not be reached (after the configured retries) or
    /// refused the connection. The text never holds the URL's password.
    #[error("cannot connect to {location} after {attempts} attempt(s): {reason}")]
    Connect {
        /// The URL with its password replaced by `***`.
        location: String,
        /// How many connection attempts were made.
        attempts: u32,
        /// The last attempt's error, with the password removed.
        reason: String,
    },
    /// A query failed.
    #[error("PostgreSQL query failed: {0}")]
    Query(#[source] sqlx::Error),
    /// The schema could not be brought up to date.
    #[error("cannot migrate the rebound schema: {0}")]
    Migrate(#[source] MigrateError),
    /// A checkpoint with this id is already stored for the thread.
    #[error("thread {thread_id:?} already has a checkpoint {id}")]
    DuplicateCheckpoint {
        /// The thread.
        thread_id: String,
        /// The id that was stored twice.
        id: CheckpointId,
    },
    /// A value does not fit PostgreSQL's signed 64-bit BIGINT.
    #[error("{what} {value} does not fit a 64-bit signed PostgreSQL BIGINT")]
    OutOfRange {
        /// Which value ("checkpoint id", "step", ...).
        what: &'static str,
        /// The value.
        value: u64,
    },
    /// The thread's [`crate::WriteGuard`] no longer holds: the write was
    /// rolled back (the worker lost its lease; another one owns the run).
    #[error("write to thread {thread_id:?} refused: {guard} no longer holds")]
    Fenced {
        /// The thread written to.
        thread_id: String,
        /// What was lost ([`crate::WriteGuard::describe`]).
        guard: String,
    },
    /// The session that held the thread's lock (see
    /// [`rebound_graph::checkpoint::Checkpointer::acquire`]) was lost
    /// (the connection dropped, the server restarted, an administrator
    /// ended it): the thread is no longer this run's, so its write was not
    /// made. Another process may hold the thread now.
    #[error(
        "write to thread {thread_id:?} refused: the session holding its lock was lost ({reason})"
    )]
    LockLost {
        /// The thread written to.
        thread_id: String,
        /// How the session was lost.
        reason: String,
    },
}

impl PostgresError {
    /// The [`PostgresError`] inside a [`CheckpointError::Storage`], if it is one.
    pub fn of(error: &CheckpointError) -> Option<&PostgresError> {
        match error {
            CheckpointError::Storage(source) => source.downcast_ref::<PostgresError>(),
            _ => None,
        }
    }

    /// Whether `error` is a write refused by a [`crate::WriteGuard`]
    /// ([`PostgresError::Fenced`]).
    pub fn is_fenced(error: &CheckpointError) -> bool {
        matches!(PostgresError::of(error), Some(PostgresError::Fenced { .. }))
    }
}

impl From<PostgresError> for CheckpointError {
    fn from(error: PostgresError) -> Self {
        CheckpointError::Storage(Box::new(error))
    }
}

/// Maps an sqlx error met while querying: a value that cannot be decoded is
/// [`CheckpointError::Corrupt`], anything else [`PostgresError::Query`].
pub(crate) fn from_sqlx(error: sqlx::Error) -> CheckpointError {
    match error {
        sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_) => {
            CheckpointError::Corrupt(error.to_string())
        }
        other => PostgresError::Query(other).into(),
    }
}

/// Whether `error` says the connection was lost rather than that the
/// statement failed: an I/O error, a connection exception (SQLSTATE class
/// `08`), or the server ending the session (`57P01` admin shutdown,
/// `57P02` crash shutdown, `57P03` cannot connect now). The session is
/// gone, with every lock it held.
pub(crate) fn connection_lost(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_) => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            code.starts_with("08") || matches!(code.as_ref(), "57P01" | "57P02" | "57P03")
        }),
        _ => false,
    }
}

/// A value as a BIGINT, or [`PostgresError::OutOfRange`].
pub(crate) fn to_bigint(what: &'static str, value: u64) -> Result<i64, CheckpointError> {
    i64::try_from(value).map_err(|_| PostgresError::OutOfRange { what, value }.into())
}

/// A value as an INTEGER, or [`PostgresError::OutOfRange`].
pub(crate) fn to_integer(what: &'static str, value: u64) -> Result<i32, CheckpointError> {
    i32::try_from(value).map_err(|_| PostgresError::OutOfRange { what, value }.into())
}

/// A checkpoint id as stored.
pub(crate) fn id_to_sql(id: CheckpointId) -> Result<i64, CheckpointError> {
    to_bigint("checkpoint id", id.as_u64())
}
