//! New branch heads: a checkpoint that follows another one (a replay from
//! it, an update of it) and takes its pending writes along, saved with
//! them in one transaction, so that finished siblings' updates and
//! journaled results are never left behind on the old branch — and, from a
//! checkpoint the thread has moved on from, which of its writes a new
//! branch takes ([`kept_by_a_fork_of_the_past`]).

use std::sync::Arc;
use std::time::Duration;

use crate::checkpoint::codec::encode_json;
use crate::checkpoint::{CheckpointId, PendingWrite, StateBlob, StoredCheckpoint, WriteKind};
use crate::persist::{delta_blob, PersistShared, Persister};
use crate::{Durability, GraphError, State};

/// The pending writes of a checkpoint the thread has moved on from (one
/// that is not its latest) that a new branch from it takes along: what its
/// superstep did that must not be done twice — the updates of tasks that
/// finished, and journaled results (effects that already happened in the
/// world). Left behind: its interrupts and the answers given to them (the
/// new branch asks its questions again: going back before a question is
/// how one answers it differently), and its subgraph tasks' records of
/// their child runs (the children run afresh, on the new branch's own
/// child threads). A replay of that checkpoint and an `update_state` of it
/// (with or without values, `COPY` too) take the same.
pub(crate) fn kept_by_a_fork_of_the_past(mut writes: Vec<PendingWrite>) -> Vec<PendingWrite> {
    writes.retain(|w| {
        matches!(w.kind, WriteKind::Journal | WriteKind::Update)
            && !crate::subgraph::records_child_run(w)
    });
    writes
}

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
