//! Where a child run lives: its [`Namespace`], journaled by the parent task,
//! and which of a checkpoint's pending writes records one.

use serde::{Deserialize, Serialize};

use crate::checkpoint::{CheckpointId, PendingWrite, WriteKind};

/// The journal key under which a subgraph task records its child's
/// namespace.
pub(crate) const NAMESPACE_KEY: &str = "__subgraph__";

/// Whether a pending write is a subgraph task's record of its child run
/// (the journaled [`Namespace`]). A replay of the superstep drops it: the
/// child runs again from its start, on a thread named after the new
/// branch's head, and the old branch keeps its own child thread.
pub(crate) fn records_child_run(write: &PendingWrite) -> bool {
    write.kind == WriteKind::Journal && write.key == NAMESPACE_KEY
}

/// A child run's place, journaled by the parent task when it first runs,
/// and again each time the child stops at an interrupt (the latest record
/// counts), or moves to a fork of its own ([`super::fork`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Namespace {
    /// The child's thread id.
    pub(crate) thread: String,
    /// What the child's interrupt ids are prefixed with in the parent.
    pub(crate) prefix: String,
    /// The child's checkpoint where it last stopped at an interrupt (None
    /// before it first did, and in records written before stops were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stopped_at: Option<CheckpointId>,
    /// The parent checkpoint whose superstep saw that stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) seen_from: Option<CheckpointId>,
}
