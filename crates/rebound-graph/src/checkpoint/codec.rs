//! How the engine encodes a checkpoint: JSON for the state (a snapshot, or a
//! delta listing the superstep's updates as `[[node, update], ...]`) and for
//! the metadata (short keys, since every checkpoint carries it).

use std::time::{SystemTime, UNIX_EPOCH};

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
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// What a checkpoint records besides the state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointMetadata {
    /// How it came to be.
    #[serde(rename = "s", default)]
    pub source: CheckpointSource,
    /// The nodes due to run next (empty once the run has finished).
    #[serde(rename = "n", default, skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<String>,
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
    /// When it was taken, in milliseconds since the Unix epoch.
    #[serde(rename = "t", default)]
    pub time_ms: u64,
    /// How long the superstep's nodes took, in microseconds (the slowest).
    #[serde(rename = "d", default, skip_serializing_if = "is_zero")]
    pub duration_us: u64,
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
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
            message: error.inner().to_string(),
        }
    })
}

pub(crate) fn encode_json<T: Serialize>(value: &T) -> Result<Vec<u8>, GraphError> {
    serde_json::to_vec(value).map_err(|e| GraphError::Encode(e.to_string()))
}

/// Appends `[node, update]` to a delta being built (`[` ... `]`).
pub(crate) fn push_delta<U: Serialize>(
    delta: &mut Vec<u8>,
    node: &str,
    update: &U,
) -> Result<(), GraphError> {
    delta.push(if delta.is_empty() { b'[' } else { b',' });
    serde_json::to_writer(&mut *delta, &(node, update))
        .map_err(|e| GraphError::Encode(e.to_string()))
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
