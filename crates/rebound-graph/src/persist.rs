//! The engine's side of durability: building checkpoints (snapshot or delta),
//! the durability modes, and the buffer of checkpoints not yet committed.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::checkpoint::codec::finish_delta;
use crate::checkpoint::{
    CheckpointError, CheckpointId, Checkpointer, PendingWrite, StateBlob, StoredCheckpoint,
};
use crate::durability::Durability;
use crate::GraphError;

/// Snapshot a whole state when the deltas since the last snapshot reach this
/// many bytes, or four times the last snapshot, whichever is more: the
/// stored bytes stay linear in the data written, and rebuilding a state
/// reads about as much delta as snapshot.
const SNAPSHOT_MIN_DELTA_BYTES: usize = 4096;
/// ... or after this many deltas once they add up to the last snapshot's
/// size, to bound the chain a load walks without making storage quadratic.
const SNAPSHOT_MAX_CHAIN: usize = 64;

/// What nodes of a run share to write journal entries.
pub(crate) struct PersistShared {
    pub(crate) saver: Arc<dyn Checkpointer>,
    pub(crate) thread_id: Arc<str>,
    /// Checkpoints saved but not yet committed (batched durability).
    pub(crate) buffer: Mutex<Vec<StoredCheckpoint>>,
}

impl PersistShared {
    fn take_buffer(&self) -> Vec<StoredCheckpoint> {
        std::mem::take(&mut *self.buffer.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Commits the buffered checkpoints together with `writes`.
    pub(crate) async fn commit(&self, writes: Vec<PendingWrite>) -> Result<(), CheckpointError> {
        let checkpoints = self.take_buffer();
        if checkpoints.is_empty() && writes.is_empty() {
            return Ok(());
        }
        self.saver.put(checkpoints, writes).await
    }
}

/// A run's writer of checkpoints.
pub(crate) struct Persister {
    pub(crate) shared: Arc<PersistShared>,
    durability: Durability,
    oldest_unflushed: Option<Instant>,
    pub(crate) last_id: Option<CheckpointId>,
    delta_bytes_since_snapshot: usize,
    deltas_since_snapshot: usize,
    last_snapshot_bytes: usize,
}

impl Persister {
    pub(crate) fn new(
        shared: Arc<PersistShared>,
        durability: Durability,
        last_id: Option<CheckpointId>,
    ) -> Self {
        Persister {
            shared,
            durability,
            oldest_unflushed: None,
            last_id,
            delta_bytes_since_snapshot: 0,
            deltas_since_snapshot: 0,
            last_snapshot_bytes: 0,
        }
    }

    /// The same writer, committing per `durability` from now on.
    pub(crate) fn with_durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// Continues the snapshot policy from a loaded chain (newest first).
    pub(crate) fn resume_policy(&mut self, chain: &[StoredCheckpoint]) {
        for checkpoint in chain {
            match &checkpoint.state {
                StateBlob::Snapshot(bytes) => self.last_snapshot_bytes = bytes.len(),
                StateBlob::Delta(bytes) => {
                    self.delta_bytes_since_snapshot += bytes.len();
                    self.deltas_since_snapshot += 1;
                }
            }
        }
    }

    /// Whether the next checkpoint, whose delta is `delta_len` bytes, should
    /// be a full snapshot instead.
    pub(crate) fn wants_snapshot(&self, delta_len: usize) -> bool {
        let bytes = self.delta_bytes_since_snapshot + delta_len;
        bytes >= SNAPSHOT_MIN_DELTA_BYTES.max(4 * self.last_snapshot_bytes)
            || (self.deltas_since_snapshot + 1 >= SNAPSHOT_MAX_CHAIN
                && bytes >= self.last_snapshot_bytes)
    }

    /// Saves a checkpoint (committing it now or later, per the durability).
    pub(crate) async fn save(
        &mut self,
        step: u64,
        state: StateBlob,
        meta: Vec<u8>,
    ) -> Result<CheckpointId, GraphError> {
        match &state {
            StateBlob::Snapshot(bytes) => {
                self.last_snapshot_bytes = bytes.len();
                self.delta_bytes_since_snapshot = 0;
                self.deltas_since_snapshot = 0;
            }
            StateBlob::Delta(bytes) => {
                self.delta_bytes_since_snapshot += bytes.len();
                self.deltas_since_snapshot += 1;
            }
        }
        let id = CheckpointId::after(self.last_id);
        let checkpoint = StoredCheckpoint {
            thread_id: self.shared.thread_id.to_string(),
            id,
            parent: self.last_id,
            step,
            state,
            meta,
        };
        self.last_id = Some(id);
        let buffered = {
            let mut buffer = self.shared.buffer.lock().unwrap_or_else(|p| p.into_inner());
            buffer.push(checkpoint);
            buffer.len()
        };
        let flush = match self.durability {
            Durability::Sync => true,
            Durability::Batched {
                max_steps,
                max_delay,
            } => {
                let oldest = *self.oldest_unflushed.get_or_insert_with(Instant::now);
                buffered >= max_steps || oldest.elapsed() >= max_delay
            }
        };
        if flush {
            self.flush().await?;
        }
        Ok(id)
    }

    /// Commits whatever is buffered.
    pub(crate) async fn flush(&mut self) -> Result<(), GraphError> {
        self.oldest_unflushed = None;
        self.shared.commit(Vec::new()).await?;
        Ok(())
    }

    /// Commits whatever is buffered together with `writes`.
    pub(crate) async fn flush_with(&mut self, writes: Vec<PendingWrite>) -> Result<(), GraphError> {
        self.oldest_unflushed = None;
        self.shared.commit(writes).await?;
        Ok(())
    }
}

/// A delta blob from the `[node, update]` pairs built with `push_delta`.
pub(crate) fn delta_blob(delta: Vec<u8>) -> StateBlob {
    StateBlob::Delta(finish_delta(delta))
}

impl crate::scratch::JournalSink for PersistShared {
    fn thread_id(&self) -> &str {
        &self.thread_id
    }

    fn saver(&self) -> &Arc<dyn Checkpointer> {
        &self.saver
    }

    fn commit<'a>(
        &'a self,
        writes: Vec<PendingWrite>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), CheckpointError>> + Send + 'a>>
    {
        Box::pin(PersistShared::commit(self, writes))
    }
}
