//! How the engine encodes a checkpoint: JSON for the state (a snapshot, or a
//! delta listing the superstep's updates as `[[node, update], ...]`) and for
//! the metadata (short keys, since every checkpoint carries it).

use serde::{Deserialize, Serialize};

use super::{CheckpointId, StateBlob, StoredCheckpoint};
use crate::{GraphError, State};

/// How a checkpoint came to be.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CheckpointSource {
    /// The input of a run.
    #[default]
    #[serde(rename = "i")]
    Input,
    /// The end of a superstep.
    #[serde(rename = "l")]
    Loop,
    /// An update made with `update_state`.
    #[serde(rename = "u")]
    Update,
    /// A new branch head: a replay of an earlier checkpoint (or a resume
    /// of an interrupted one the thread has moved on from), with its state
    /// and its pending writes.
    #[serde(rename = "f")]
    Fork,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// What a checkpoint records besides the state. (Its time is in its id:
/// [`CheckpointId::created_ms`].)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointMetadata {
    /// How it came to be.
    #[serde(rename = "s", default)]
    pub source: CheckpointSource,
    /// The nodes the edges scheduled to run next, by name. With `sends`,
    /// what is due (both empty once the run has finished:
    /// [`CheckpointMetadata::is_finished`]).
    #[serde(rename = "n", default, skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<String>,
    /// The tasks of [`crate::Send`]s due next, in emission order: each runs
    /// its node with its payload, after the nodes of `next`.
    #[serde(rename = "t", default, skip_serializing_if = "Vec::is_empty")]
    pub sends: Vec<crate::Send>,
    /// The nodes whose updates this checkpoint holds (those that ran in the
    /// superstep, or the `as_node` of an update).
    #[serde(rename = "r", default, skip_serializing_if = "Vec::is_empty")]
    pub ran: Vec<String>,
    /// The reasons routers attached to the choices that led to `next`.
    #[serde(rename = "w", default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// The join barriers' progress (bits of the sources seen), by join.
    #[serde(rename = "b", default, skip_serializing_if = "Vec::is_empty")]
    pub barriers: Vec<u64>,
    /// How long the superstep's nodes took, in microseconds (the slowest).
    #[serde(rename = "d", default, skip_serializing_if = "is_zero")]
    pub duration_us: u64,
    /// What an `update_state` as another node than the due ones left
    /// behind: the superstep that was due, which will not run.
    #[serde(rename = "a", default, skip_serializing_if = "Option::is_none")]
    pub abandoned: Option<Abandoned>,
}

/// A due superstep that an `update_state` as another node abandoned: the
/// graph routed anew from that node, so these tasks will not run and the
/// writes they had made are not carried to the new checkpoint (they stay
/// on the parent checkpoint, which a replay can resume).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Abandoned {
    /// The nodes that were due.
    #[serde(rename = "n", default, skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<String>,
    /// How many sent tasks were due.
    #[serde(rename = "t", default, skip_serializing_if = "is_zero_usize")]
    pub sends: usize,
    /// How many pending writes (finished tasks' updates, journaled
    /// results, interrupts, answers) the superstep had.
    #[serde(rename = "w", default, skip_serializing_if = "is_zero_usize")]
    pub writes: usize,
}

fn is_zero_usize(value: &usize) -> bool {
    *value == 0
}

impl CheckpointMetadata {
    /// Whether nothing is due at this checkpoint (no node scheduled, no
    /// send): the run finished there.
    pub fn is_finished(&self) -> bool {
        self.next.is_empty() && self.sends.is_empty()
    }
}

/// What the codec needs of a compiled graph: its nodes' names by index
/// (the codec writes names, the run loop works with indices). Implemented
/// by the compiled graph; the codec depends on nothing above it.
pub(crate) trait NodeNames {
    /// The name of the node at `index`.
    fn node_name(&self, index: usize) -> &str;
}

/// Node names by index, serialized as a list of names without copying them.
pub(crate) struct Names<'a, G: NodeNames> {
    pub(crate) graph: &'a G,
    pub(crate) indices: &'a [usize],
}

impl<G: NodeNames> Serialize for Names<'_, G> {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.collect_seq(self.indices.iter().map(|&i| self.graph.node_name(i)))
    }
}

fn no_names<G: NodeNames>(names: &Names<'_, G>) -> bool {
    names.indices.is_empty()
}

/// Scheduled sends, serialized as [`crate::Send`]s (`[node, arg]`) without
/// copying them.
pub(crate) struct Sends<'a, G: NodeNames> {
    pub(crate) graph: &'a G,
    pub(crate) sends: &'a [crate::send::SentTask],
}

impl<G: NodeNames> Serialize for Sends<'_, G> {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.collect_seq(
            self.sends
                .iter()
                .map(|send| (self.graph.node_name(send.node), &*send.arg)),
        )
    }
}

fn no_sends<G: NodeNames>(sends: &Sends<'_, G>) -> bool {
    sends.sends.is_empty()
}

fn all_zero(bits: &&[u64]) -> bool {
    bits.iter().all(|b| *b == 0)
}

/// [`CheckpointMetadata`] as the run loop writes it, borrowing everything:
/// the same keys, so it reads back as a `CheckpointMetadata`.
#[derive(Serialize)]
#[serde(bound = "")]
pub(crate) struct MetaView<'a, G: NodeNames> {
    #[serde(rename = "s")]
    pub(crate) source: CheckpointSource,
    #[serde(rename = "n", skip_serializing_if = "no_names")]
    pub(crate) next: Names<'a, G>,
    #[serde(rename = "t", skip_serializing_if = "no_sends")]
    pub(crate) sends: Sends<'a, G>,
    #[serde(rename = "r", skip_serializing_if = "no_names")]
    pub(crate) ran: Names<'a, G>,
    #[serde(rename = "w", skip_serializing_if = "<[_]>::is_empty")]
    pub(crate) reasons: &'a [std::borrow::Cow<'static, str>],
    #[serde(rename = "b", skip_serializing_if = "all_zero")]
    pub(crate) barriers: &'a [u64],
    #[serde(rename = "d", skip_serializing_if = "is_zero")]
    pub(crate) duration_us: u64,
}

pub(crate) fn encode_meta_view<G: NodeNames>(meta: &MetaView<'_, G>) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    // Serializing names, integers, strings and JSON values into a Vec
    // cannot fail.
    let _ = serde_json::to_writer(&mut out, meta);
    out
}

pub(crate) fn encode_meta(meta: &CheckpointMetadata) -> Vec<u8> {
    // Serializing a struct of strings and integers into a Vec cannot fail.
    serde_json::to_vec(meta).unwrap_or_default()
}

pub(crate) fn decode_meta(checkpoint: &StoredCheckpoint) -> Result<CheckpointMetadata, GraphError> {
    decode(
        &checkpoint.meta,
        &checkpoint.thread_id,
        checkpoint.id,
        "metadata",
    )
}

/// Decodes JSON, naming the thread, the checkpoint and the path to the bad field.
pub(crate) fn decode<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    thread_id: &str,
    checkpoint: CheckpointId,
    what: &str,
) -> Result<T, GraphError> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        GraphError::BadStoredState {
            thread_id: thread_id.to_string(),
            checkpoint: checkpoint.to_string(),
            what: what.to_string(),
            path: error.path().to_string(),
            source: error.into_inner(),
        }
    })
}

pub(crate) fn encode_json<T: Serialize>(value: &T) -> Result<Vec<u8>, GraphError> {
    serde_json::to_vec(value).map_err(GraphError::Encode)
}

/// Appends `[node, update]` to a delta being built (`[` ... `]`).
pub(crate) fn push_delta<U: Serialize>(
    delta: &mut Vec<u8>,
    node: &str,
    update: &U,
) -> Result<(), GraphError> {
    delta.push(if delta.is_empty() { b'[' } else { b',' });
    serde_json::to_writer(&mut *delta, &(node, update)).map_err(GraphError::Encode)
}

pub(crate) fn finish_delta(mut delta: Vec<u8>) -> Vec<u8> {
    if delta.is_empty() {
        delta.push(b'[');
    }
    delta.push(b']');
    delta
}

/// Rebuilds the state of `chain[0]` from a chain as returned by
/// `Checkpointer::get_chain` (newest first, ending at a snapshot).
pub(crate) fn rebuild<S: State>(chain: &[StoredCheckpoint]) -> Result<S, GraphError> {
    let Some(base) = chain.last() else {
        return Err(GraphError::Checkpoint(super::CheckpointError::Corrupt(
            "empty checkpoint chain".to_string(),
        )));
    };
    let StateBlob::Snapshot(bytes) = &base.state else {
        return Err(GraphError::Checkpoint(super::CheckpointError::Corrupt(
            format!(
                "thread {:?}: checkpoint {} is a delta with no snapshot before it",
                base.thread_id, base.id
            ),
        )));
    };
    let mut state: S = decode(bytes, &base.thread_id, base.id, "state")?;
    for checkpoint in chain.iter().rev().skip(1) {
        let updates: Vec<(String, S::Update)> = decode(
            checkpoint.state.bytes(),
            &checkpoint.thread_id,
            checkpoint.id,
            "state delta",
        )?;
        for (_, update) in updates {
            state.apply(update);
        }
    }
    Ok(state)
}
