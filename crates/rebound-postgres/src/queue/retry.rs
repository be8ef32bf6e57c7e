//! The queue's statements that may run twice, tried again on another
//! connection when theirs was lost (see [`crate::retry`]): a heartbeat or
//! a lease check that failed so would stop a run that still holds its
//! lease, and a failed read would fail an API request.

use std::future::Future;

use super::{QueueError, RunQueue};
use crate::error::connection_lost;

impl RunQueue {
    /// Runs `statement`, again while it fails because its connection was
    /// lost (see [`crate::retry::when_lost`]). Only for statements that
    /// may run twice.
    pub(super) async fn retrying<T, F, Fut>(&self, statement: F) -> Result<T, QueueError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, QueueError>>,
    {
        crate::retry::when_lost(
            &self.pool,
            |error| matches!(error, QueueError::Database(error) if connection_lost(error)),
            statement,
        )
        .await
    }
}
