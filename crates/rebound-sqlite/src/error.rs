//! [`SqliteSaverError`]: the failures this crate reports inside
//! [`CheckpointError::Storage`], and the mapping of SQLite's errors onto
//! [`CheckpointError`].

use rebound_graph::checkpoint::{CheckpointError, CheckpointId};
use rusqlite::ErrorCode;

/// A failure specific to the SQLite saver. It reaches callers boxed inside
/// [`CheckpointError::Storage`]; downcast to tell the cases apart.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SqliteSaverError {
    /// A checkpoint with this id is already stored for the thread.
    #[error("thread {thread_id:?} already has a checkpoint {id}")]
    DuplicateCheckpoint {
        /// The thread.
        thread_id: String,
        /// The id that was stored twice.
        id: CheckpointId,
    },
    /// A value does not fit SQLite's signed 64-bit INTEGER.
    #[error("{what} {value} does not fit a 64-bit signed SQLite integer")]
    OutOfRange {
        /// Which value ("checkpoint id", "step", ...).
        what: &'static str,
        /// The value.
        value: u64,
    },
    /// The transaction that committed this call together with other
    /// concurrent calls (group commit) failed as a whole; the message is the
    /// error it failed with, which the first call in the group received as is.
    #[error("group commit failed: {message}")]
    GroupCommitFailed {
        /// The error's text.
        message: String,
    },
    /// A thread record's metadata is not a JSON object.
    #[error("the metadata of thread {thread_id:?} must be a JSON object, not {found}")]
    MetadataNotObject {
        /// The thread.
        thread_id: String,
        /// What it is instead ("an array", "a string", ...).
        found: &'static str,
    },
    /// The database file could not be written (or read back): the disk is
    /// full, the file reached a size limit, or the device failed (a write or
    /// an fsync). The call failed: what it wrote is not reported saved
    /// (after a failed fsync it may still be in the file); what was
    /// committed before it is intact.
    #[error(
        "{location}: cannot write the database: the disk is full or failing ({detail}); \
         the failed write is not counted as saved: free space or fix the disk, then resume \
         the thread (it goes on from its last checkpoint in the file; a run that had none \
         saved yet is started again)"
    )]
    WriteFailed {
        /// The database file.
        location: String,
        /// SQLite's error, with its extended code.
        detail: String,
    },
    /// The group-commit leader went away without delivering this call's result.
    #[error("the group commit ended without a result for this call")]
    NoResult,
}

impl From<SqliteSaverError> for CheckpointError {
    fn from(error: SqliteSaverError) -> Self {
        CheckpointError::Storage(Box::new(error))
    }
}

/// Maps an SQLite error met while using the store at `location`.
pub(crate) fn from_sqlite(location: &str, error: rusqlite::Error) -> CheckpointError {
    match error.sqlite_error_code() {
        Some(ErrorCode::DatabaseCorrupt) => {
            CheckpointError::Corrupt(format!("{location}: {error}"))
        }
        Some(ErrorCode::NotADatabase) => CheckpointError::Unusable {
            location: location.to_string(),
            reason: format!("not an SQLite database ({error})"),
        },
        Some(ErrorCode::DiskFull | ErrorCode::SystemIoFailure) => {
            let detail = match &error {
                rusqlite::Error::SqliteFailure(code, _) => {
                    format!("{error}, SQLite code {}", code.extended_code)
                }
                _ => error.to_string(),
            };
            SqliteSaverError::WriteFailed {
                location: location.to_string(),
                detail,
            }
            .into()
        }
        _ => CheckpointError::Storage(Box::new(error)),
    }
}

/// Whether an SQLite error is caused by the data of the statement that met it
/// (so other batches of a group may still commit), rather than by the
/// database or the connection.
pub(crate) fn is_data_error(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(ErrorCode::ConstraintViolation | ErrorCode::TooBig | ErrorCode::TypeMismatch)
    )
}

/// A copy of `error` for another caller of the same failed group commit.
pub(crate) fn duplicate(error: &CheckpointError) -> CheckpointError {
    match error {
        CheckpointError::ThreadBusy { thread_id, holder } => CheckpointError::ThreadBusy {
            thread_id: thread_id.clone(),
            holder: holder.clone(),
        },
        CheckpointError::Unusable { location, reason } => CheckpointError::Unusable {
            location: location.clone(),
            reason: reason.clone(),
        },
        CheckpointError::Corrupt(reason) => CheckpointError::Corrupt(reason.clone()),
        // A storage error cannot be cloned: the other callers get its text.
        CheckpointError::Storage(source) => SqliteSaverError::GroupCommitFailed {
            message: source.to_string(),
        }
        .into(),
        // A kind added to `CheckpointError` later: its text, the same way.
        other => SqliteSaverError::GroupCommitFailed {
            message: other.to_string(),
        }
        .into(),
    }
}
