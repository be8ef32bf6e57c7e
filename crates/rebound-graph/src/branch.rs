//! New branch heads: a checkpoint that follows another one (a replay from
//! it, an update of it) and takes its pending writes along, saved with
//! them in one transaction, so that answers, finished siblings' updates
//! and journaled results are never left behind on the old branch.

use std::sync::Arc;
use std::time::Duration;

use crate::checkpoint::codec::encode_json;
use crate::checkpoint::{CheckpointId, PendingWrite, StateBlob, StoredCheckpoint};
use crate::persist::{delta_blob, PersistShared, Persister};
use crate::{Durability, GraphError, State};

/// Everything a new head is made of.
pub(crate) struct Head<'a, S> {
    /// The checkpoint it follows, and the chain its state was rebuilt
    /// from (newest first).
    pub(crate) parent: &'a StoredCheckpoint,
    pub(crate) chain: &'a [StoredCheckpoint],
    /// Its step.
    pub(crate) step: u64,
    /// Its state, and the delta over the parent's (from `push_delta`).
    pub(crate) state: &'a S,
    pub(crate) delta: Vec<u8>,
    /// Its encoded metadata.
    pub(crate) meta: Vec<u8>,
    /// The pending writes it takes along (any checkpoint id: they are
    /// re-keyed to the new one).
    pub(crate) writes: Vec<PendingWrite>,
    /// Whether it is a copy of `parent` beside it (following `parent`'s
    /// own parent, with its whole state) rather than a checkpoint after it.
    pub(crate) sibling: bool,
}

/// Saves `head` after its parent, with its writes, in one transaction.
/// Returns its id, and a writer positioned after it (its snapshot policy
/// counted), for a run that goes on from it.
pub(crate) async fn save_head<S: State>(
    persist: Arc<PersistShared>,
    head: Head<'_, S>,
) -> Result<(CheckpointId, Persister), GraphError> {
    // Held in the buffer until the writes go with it.
    let hold = Durability::Batched {
        max_steps: usize::MAX,
        max_delay: Duration::MAX,
    };
    let follows = if head.sibling {
        head.parent.parent
    } else {
        Some(head.parent.id)
    };
    let mut persister = Persister::new(persist, hold, follows);
    persister.resume_policy(head.chain);
    let blob = if head.sibling || persister.wants_snapshot(head.delta.len() + 1) {
        StateBlob::Snapshot(encode_json(head.state)?)
    } else {
        delta_blob(head.delta)
    };
    let id = persister.save(head.step, blob, head.meta).await?;
    let writes = head
        .writes
        .into_iter()
        .map(|write| PendingWrite {
            checkpoint: id,
            ..write
        })
        .collect();
    persister.flush_with(writes).await?;
    Ok((id, persister))
}
