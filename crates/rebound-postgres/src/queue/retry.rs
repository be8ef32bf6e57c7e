//! Statements tried again when the pooled connection they were given turns
//! out to be gone.
//!
//! A connection that PostgreSQL ended (`pg_terminate_backend`, a restart, a
//! failover) or that the network cut stays in the pool, idle, until it is
//! next used: the pool pings only connections idle for a while, so the
//! next statement on it fails, before PostgreSQL ran it, and the pool drops
//! it. Every connection of a worker cut off at once fails that way, one
//! statement each. A heartbeat or a lease check that fails so would stop a
//! run that still holds its lease (or fail it): the queue's fenced
//! statements, each safe to run twice, are tried again on another
//! connection instead, as many times as the pool may hold dead ones.

use std::future::Future;

use super::{QueueError, RunQueue};
use crate::error::connection_lost;

impl RunQueue {
    /// Runs `statement`, again while it fails because its connection was
    /// lost: at most once more than the pool has connections (each failed
    /// try drops one dead connection from the pool). Only for statements
    /// that may run twice: a lost connection may have run it before it
    /// was lost.
    pub(super) async fn retrying<T, F, Fut>(&self, mut statement: F) -> Result<T, QueueError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, QueueError>>,
    {
        let tries = self.pool.options().get_max_connections().saturating_add(1);
        let mut tried = 0;
        loop {
            tried += 1;
            match statement().await {
                Err(QueueError::Database(error)) if tried < tries && connection_lost(&error) => {
                    continue
                }
                done => return done,
            }
        }
    }
}
