//! Durable runs: the [`Checkpointer`] trait that stores one checkpoint per
//! superstep, what a stored checkpoint holds, and the in-memory saver.
//!
//! The engine encodes state and metadata into bytes; a checkpointer only
//! stores and retrieves them. A checkpoint's state is either a full
//! snapshot or a delta (the superstep's updates) over its parent, so a field
//! that did not change is not stored again.

pub(crate) mod codec;
mod id;
mod memory;

pub use codec::{Abandoned, CheckpointMetadata, CheckpointSource};
pub use id::{CheckpointId, ParseCheckpointIdError};
pub use memory::MemorySaver;

use async_trait::async_trait;

/// A checkpoint's state bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateBlob {
    /// The whole state.
    Snapshot(Vec<u8>),
    /// The updates of the superstep, to apply over the parent's state.
    Delta(Vec<u8>),
}

impl StateBlob {
    /// The encoded bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            StateBlob::Snapshot(bytes) | StateBlob::Delta(bytes) => bytes,
        }
    }

    /// Whether this is a full snapshot.
    pub fn is_snapshot(&self) -> bool {
        matches!(self, StateBlob::Snapshot(_))
    }
}

/// One stored checkpoint, as a checkpointer sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCheckpoint {
    /// The thread it belongs to.
    pub thread_id: String,
    /// Its id: unique, and increasing in creation order.
    pub id: CheckpointId,
    /// The checkpoint it follows (None for a thread's first).
    pub parent: Option<CheckpointId>,
    /// The number of supersteps the thread had run when it was taken.
    pub step: u64,
    /// The state, whole or as a delta over the parent.
    pub state: StateBlob,
    /// Engine-encoded metadata: next nodes and sends, join barriers,
    /// interrupts, the nodes that ran, route reasons, time and durations.
    pub meta: Vec<u8>,
}

/// What kind of pending write a [`PendingWrite`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WriteKind {
    /// A journaled call's recorded result.
    Journal,
    /// The update of a node that finished in a superstep that did not complete.
    Update,
    /// A pending interrupt (a node's dynamic one with its payload, or a
    /// static before/after one).
    Interrupt,
    /// A value given to resume a node's dynamic interrupt.
    Resume,
}

impl WriteKind {
    /// A stable one-word name, for storage.
    pub fn as_str(self) -> &'static str {
        match self {
            WriteKind::Journal => "journal",
            WriteKind::Update => "update",
            WriteKind::Interrupt => "interrupt",
            WriteKind::Resume => "resume",
        }
    }

    /// The kind from [`WriteKind::as_str`]'s name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "journal" => Some(WriteKind::Journal),
            "update" => Some(WriteKind::Update),
            "interrupt" => Some(WriteKind::Interrupt),
            "resume" => Some(WriteKind::Resume),
            _ => None,
        }
    }
}

/// A write made during the superstep that follows `checkpoint`, kept so that
/// a re-run of that superstep does not repeat it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingWrite {
    /// The thread.
    pub thread_id: String,
    /// The checkpoint the superstep started from.
    pub checkpoint: CheckpointId,
    /// The task that made it: the node's name, or `node#k` for the task of
    /// the superstep's k-th [`crate::Send`].
    pub node: String,
    /// What it is.
    pub kind: WriteKind,
    /// Its key within the node (a journal key; the interrupt's index).
    pub key: String,
    /// The encoded value.
    pub value: Vec<u8>,
}

/// One thread, as listed by [`Checkpointer::threads`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadSummary {
    /// The thread's id.
    pub thread_id: String,
    /// Its latest checkpoint.
    pub latest: CheckpointId,
    /// The latest checkpoint's step.
    pub step: u64,
    /// How many checkpoints it has.
    pub checkpoints: u64,
    /// The latest checkpoint's metadata.
    pub meta: Vec<u8>,
}

/// Why a checkpointer call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// Another run holds the thread.
    #[error(
        "thread {thread_id:?} is already being run ({holder}); only one run per thread at a time"
    )]
    ThreadBusy {
        /// The thread.
        thread_id: String,
        /// Who holds it (e.g. "process 1234").
        holder: String,
    },
    /// The store is not a rebound database, is corrupt, or was written by a newer rebound.
    #[error("checkpoint store {location} is unusable: {reason}")]
    Unusable {
        /// The file or store.
        location: String,
        /// What is wrong.
        reason: String,
    },
    /// A stored record could not be read back.
    #[error("stored checkpoint data is corrupt: {0}")]
    Corrupt(String),
    /// The storage backend failed.
    #[error("checkpoint storage failed: {0}")]
    Storage(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Storage for checkpoints. Implementations: [`MemorySaver`] here,
/// `rebound_sqlite::SqliteSaver` for the embedded database.
///
/// Contract: [`Checkpointer::put`] stores its whole batch atomically (all or
/// nothing); reads see only committed batches; ids are unique per thread.
#[async_trait]
pub trait Checkpointer: Send + Sync + 'static {
    /// Stores checkpoints and pending writes together, atomically.
    async fn put(
        &self,
        checkpoints: Vec<StoredCheckpoint>,
        writes: Vec<PendingWrite>,
    ) -> Result<(), CheckpointError>;

    /// Stores pending writes alone (a journaled call's result, as soon as it
    /// is known), atomically.
    async fn put_writes(&self, writes: Vec<PendingWrite>) -> Result<(), CheckpointError>;

    /// A thread's checkpoint by id, or its latest (highest id) when `id` is None.
    async fn get(
        &self,
        thread_id: &str,
        id: Option<CheckpointId>,
    ) -> Result<Option<StoredCheckpoint>, CheckpointError>;

    /// The checkpoint `id` and its ancestors back to (and including) the
    /// nearest full snapshot, newest first: what it takes to rebuild its
    /// state. Backends should override this with a single query.
    async fn get_chain(
        &self,
        thread_id: &str,
        id: CheckpointId,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        let mut chain = Vec::new();
        let mut current = Some(id);
        while let Some(id) = current {
            let Some(checkpoint) = self.get(thread_id, Some(id)).await? else {
                return Err(CheckpointError::Corrupt(format!(
                    "thread {thread_id:?}: checkpoint {id} is missing from the chain"
                )));
            };
            current = if checkpoint.state.is_snapshot() {
                None
            } else {
                checkpoint.parent
            };
            chain.push(checkpoint);
        }
        Ok(chain)
    }

    /// A thread's checkpoints, newest first, with ids below `before` if given,
    /// at most `limit` of them if given.
    async fn list(
        &self,
        thread_id: &str,
        before: Option<CheckpointId>,
        limit: Option<usize>,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError>;

    /// The pending writes recorded against a checkpoint, in the order written.
    async fn pending_writes(
        &self,
        thread_id: &str,
        checkpoint: CheckpointId,
    ) -> Result<Vec<PendingWrite>, CheckpointError>;

    /// Every thread, most recently updated first.
    async fn threads(&self) -> Result<Vec<ThreadSummary>, CheckpointError>;

    /// Claims a thread for one run; fails with [`CheckpointError::ThreadBusy`]
    /// while another run (in this process or another) holds it.
    async fn acquire(&self, thread_id: &str) -> Result<(), CheckpointError>;

    /// Releases a thread claimed with [`Checkpointer::acquire`].
    async fn release(&self, thread_id: &str) -> Result<(), CheckpointError>;
}
