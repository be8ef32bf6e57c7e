//! What reading a thread gives: its state at a checkpoint
//! ([`StateSnapshot`]) and a checkpoint of its history ([`CheckpointInfo`]).

use crate::checkpoint::{CheckpointId, CheckpointMetadata};
use crate::{GraphError, Interrupt};

/// A thread's state at one checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct StateSnapshot<S> {
    /// The state.
    pub values: S,
    /// The checkpoint.
    pub checkpoint_id: CheckpointId,
    /// The checkpoint it follows.
    pub parent_id: Option<CheckpointId>,
    /// Supersteps run on the thread up to it.
    pub step: u64,
    /// Its metadata (`metadata.next` and `metadata.sends`: the nodes and
    /// the sent tasks due to run; both empty when finished).
    pub metadata: CheckpointMetadata,
    /// The interrupts waiting at it.
    pub interrupts: Vec<Interrupt>,
}

impl<S: serde::Serialize> StateSnapshot<S> {
    /// The same snapshot with its values as JSON (for a caller that serves
    /// states of any type).
    pub fn into_json(self) -> Result<StateSnapshot<serde_json::Value>, GraphError> {
        Ok(StateSnapshot {
            values: serde_json::to_value(&self.values).map_err(GraphError::Encode)?,
            checkpoint_id: self.checkpoint_id,
            parent_id: self.parent_id,
            step: self.step,
            metadata: self.metadata,
            interrupts: self.interrupts,
        })
    }
}

/// One checkpoint in a thread's history (without its state: ask
/// [`crate::CompiledGraph::get_state`] with its id for that).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointInfo {
    /// The checkpoint.
    pub checkpoint_id: CheckpointId,
    /// The checkpoint it follows.
    pub parent_id: Option<CheckpointId>,
    /// Supersteps run on the thread up to it.
    pub step: u64,
    /// Its metadata.
    pub metadata: CheckpointMetadata,
    /// Whether it stores the whole state (else a delta over its parent).
    pub snapshot: bool,
    /// Bytes of state it stores.
    pub state_bytes: usize,
}
