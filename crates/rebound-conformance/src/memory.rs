//! [`MemoryBackend`]: the suite on the in-memory saver.

use std::sync::Arc;

use async_trait::async_trait;
use rebound_graph::checkpoint::{CheckpointError, Checkpointer, MemorySaver};

use crate::Backend;

/// Runs the suite on [`MemorySaver`]: each fresh store is a new saver, and
/// reopening a store hands back the same saver (a memory store lives only in
/// its saver).
#[derive(Debug, Default, Clone, Copy)]
pub struct MemoryBackend;

#[async_trait]
impl Backend for MemoryBackend {
    fn name(&self) -> &str {
        "memory"
    }

    async fn fresh(&self) -> Result<Arc<dyn Checkpointer>, CheckpointError> {
        Ok(Arc::new(MemorySaver::new()))
    }

    async fn reopen(
        &self,
        saver: &Arc<dyn Checkpointer>,
    ) -> Result<Arc<dyn Checkpointer>, CheckpointError> {
        Ok(Arc::clone(saver))
    }
}
