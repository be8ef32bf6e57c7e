//! [`QueueError`]: why a queue operation failed.

use super::RunStatus;

/// Why a queue operation failed (a lost lease is not an error: the fenced
/// operations return `false` or [`super::Heartbeat::Lost`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueueError {
    /// The database failed.
    #[error("the run queue's database failed: {0}")]
    Database(#[from] sqlx::Error),
    /// A stored value could not be read back.
    #[error("a stored {what} could not be read: {detail}")]
    Corrupt {
        /// What was being read.
        what: &'static str,
        /// What was wrong with it.
        detail: String,
    },
    /// [`super::RunQueue::finish`] was given a status that is not final.
    #[error("a run cannot finish as {0:?}: give a final status")]
    NotFinal(RunStatus),
}
