//! [`Backend`]: how the suite gets stores to run its scenarios on.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use rebound_graph::checkpoint::{CheckpointError, Checkpointer};

/// A checkpointer implementation under test: a factory of stores.
///
/// Every call to [`Backend::fresh`] creates a new, empty store (a new
/// SQLite file, a new Postgres schema, a new [`rebound_graph::checkpoint::MemorySaver`])
/// and hands out a saver on it; [`Backend::reopen`] opens the store of an
/// earlier saver again as a new saver instance, for scenarios that check what
/// a new process would find there.
#[async_trait]
pub trait Backend: Send + Sync {
    /// The store's name, for messages ("memory", "sqlite").
    fn name(&self) -> &str;

    /// A saver on a new, empty store that shares nothing with any store
    /// handed out before.
    async fn fresh(&self) -> Result<Arc<dyn Checkpointer>, CheckpointError>;

    /// The store that `saver` (handed out by [`Backend::fresh`] of this
    /// backend) writes to, opened again as a new saver instance: what another
    /// process opening the same store would see. A store that lives only in
    /// its saver (the memory saver) may return `saver` itself.
    async fn reopen(
        &self,
        saver: &Arc<dyn Checkpointer>,
    ) -> Result<Arc<dyn Checkpointer>, CheckpointError>;
}

/// Why a backend cannot run here (no database server on this machine, say):
/// [`crate::checkpointer_tests!`] prints the reason and skips the scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    /// What is missing, in a few words.
    pub reason: String,
}

impl Unavailable {
    /// A backend unavailable for `reason`.
    pub fn new(reason: impl Into<String>) -> Self {
        Unavailable {
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Unavailable {}

/// A saver on a fresh store of `backend`; a store that cannot be created
/// fails the scenario, naming the backend.
pub(crate) async fn fresh(backend: &dyn Backend) -> Arc<dyn Checkpointer> {
    match backend.fresh().await {
        Ok(saver) => saver,
        Err(error) => panic!("{}: cannot create a fresh store: {error}", backend.name()),
    }
}

/// `saver`'s store opened again; failing to reopen fails the scenario.
pub(crate) async fn reopen(
    backend: &dyn Backend,
    saver: &Arc<dyn Checkpointer>,
) -> Arc<dyn Checkpointer> {
    match backend.reopen(saver).await {
        Ok(saver) => saver,
        Err(error) => panic!("{}: cannot reopen a store: {error}", backend.name()),
    }
}
