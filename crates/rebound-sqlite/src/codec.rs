//! Conversions between the record types and SQLite values.

use rebound_graph::checkpoint::{
    CheckpointError, CheckpointId, PendingWrite, StateBlob, StoredCheckpoint, WriteKind,
};
use rusqlite::types::ValueRef;
use rusqlite::Row;

use crate::error::SqliteSaverError;

/// `kind` of a snapshot row.
const SNAPSHOT: i64 = 0;
/// `kind` of a delta row.
const DELTA: i64 = 1;

/// A thread as stored: its key in `threads`, and the id its stored ids are
/// relative to (its first checkpoint's, usually), so that a stored id takes
/// 4–6 bytes instead of 8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ThreadRef {
    pub key: i64,
    pub base: i64,
}

impl ThreadRef {
    /// A checkpoint id as stored for this thread.
    pub(crate) fn offset(self, id: CheckpointId) -> Result<i64, CheckpointError> {
        id_to_sql(id)?.checked_sub(self.base).ok_or_else(|| {
            SqliteSaverError::OutOfRange {
                what: "checkpoint id",
                value: id.as_u64(),
            }
            .into()
        })
    }

    /// A checkpoint id as stored for this thread, or None for an id that
    /// cannot have been stored.
    pub(crate) fn offset_of_stored(self, id: CheckpointId) -> Option<i64> {
        self.offset(id).ok()
    }
}

/// A checkpoint as bound to the `checkpoints` insert.
pub(crate) struct CheckpointRow<'a> {
    pub id: i64,
    pub parent_gap: Option<i64>,
    pub step: i64,
    pub kind: i64,
    pub state: &'a [u8],
    pub meta: &'a [u8],
}

/// A value as an SQLite INTEGER, or [`SqliteSaverError::OutOfRange`].
pub(crate) fn to_sql_int(what: &'static str, value: u64) -> Result<i64, CheckpointError> {
    i64::try_from(value).map_err(|_| SqliteSaverError::OutOfRange { what, value }.into())
}

/// A checkpoint id as stored.
pub(crate) fn id_to_sql(id: CheckpointId) -> Result<i64, CheckpointError> {
    to_sql_int("checkpoint id", id.as_u64())
}

/// Encodes a checkpoint's row.
pub(crate) fn encode_checkpoint(
    thread: ThreadRef,
    checkpoint: &StoredCheckpoint,
) -> Result<CheckpointRow<'_>, CheckpointError> {
    let parent_gap = match checkpoint.parent {
        // Both are in 0..=i64::MAX, so the difference cannot overflow.
        Some(parent) => Some(id_to_sql(checkpoint.id)? - id_to_sql(parent)?),
        None => None,
    };
    Ok(CheckpointRow {
        id: thread.offset(checkpoint.id)?,
        parent_gap,
        step: to_sql_int("step", checkpoint.step)?,
        kind: if checkpoint.state.is_snapshot() {
            SNAPSHOT
        } else {
            DELTA
        },
        state: checkpoint.state.bytes(),
        meta: &checkpoint.meta,
    })
}

/// Decodes a row of `id, parent_gap, step, kind, state, meta` of
/// `thread_id`, with `id` absolute.
pub(crate) fn decode_checkpoint(
    thread_id: &str,
    row: &Row<'_>,
) -> Result<StoredCheckpoint, CheckpointError> {
    let corrupt = |what: &str| {
        CheckpointError::Corrupt(format!("a checkpoint of thread {thread_id:?}: {what}"))
    };
    let raw_id = match value(row, 0)? {
        ValueRef::Integer(id) if id >= 0 => id,
        _ => return Err(corrupt("its id is not an integer in range")),
    };
    let parent = match value(row, 1)? {
        ValueRef::Null => None,
        ValueRef::Integer(gap) => Some(
            raw_id
                .checked_sub(gap)
                .and_then(|parent| u64::try_from(parent).ok())
                .map(CheckpointId::from_u64)
                .ok_or_else(|| corrupt("its parent is out of range"))?,
        ),
        _ => return Err(corrupt("its parent is not an integer")),
    };
    let step = non_negative(value(row, 2)?)
        .ok_or_else(|| corrupt("its step is not a non-negative integer"))?;
    let state = blob(value(row, 4)?).ok_or_else(|| corrupt("its state is not a blob"))?;
    let state = match value(row, 3)? {
        ValueRef::Integer(SNAPSHOT) => StateBlob::Snapshot(state),
        ValueRef::Integer(DELTA) => StateBlob::Delta(state),
        _ => return Err(corrupt("its kind is neither snapshot (0) nor delta (1)")),
    };
    let meta = blob(value(row, 5)?).ok_or_else(|| corrupt("its metadata is not a blob"))?;
    Ok(StoredCheckpoint {
        thread_id: thread_id.to_string(),
        id: CheckpointId::from_u64(raw_id.unsigned_abs()),
        parent,
        step,
        state,
        meta,
    })
}

/// Decodes a `writes` row of `node, kind, key, value`.
pub(crate) fn decode_write(
    thread_id: &str,
    checkpoint: CheckpointId,
    row: &Row<'_>,
) -> Result<PendingWrite, CheckpointError> {
    let corrupt = |what: &str| {
        CheckpointError::Corrupt(format!(
            "a pending write of thread {thread_id:?} at checkpoint {checkpoint}: {what}"
        ))
    };
    let node = text(value(row, 0)?).ok_or_else(|| corrupt("its node is not text"))?;
    let kind = text(value(row, 1)?).ok_or_else(|| corrupt("its kind is not text"))?;
    let kind = WriteKind::parse(&kind).ok_or_else(|| corrupt(&format!("unknown kind {kind:?}")))?;
    let key = text(value(row, 2)?).ok_or_else(|| corrupt("its key is not text"))?;
    let value = blob(value(row, 3)?).ok_or_else(|| corrupt("its value is not a blob"))?;
    Ok(PendingWrite {
        thread_id: thread_id.to_string(),
        checkpoint,
        node,
        kind,
        key,
        value,
    })
}

fn value<'r>(row: &'r Row<'_>, index: usize) -> Result<ValueRef<'r>, CheckpointError> {
    row.get_ref(index)
        .map_err(|e| CheckpointError::Corrupt(format!("column {index} cannot be read: {e}")))
}

/// A non-negative INTEGER as u64.
pub(crate) fn non_negative(value: ValueRef<'_>) -> Option<u64> {
    match value {
        ValueRef::Integer(v) => u64::try_from(v).ok(),
        _ => None,
    }
}

fn blob(value: ValueRef<'_>) -> Option<Vec<u8>> {
    match value {
        ValueRef::Blob(bytes) => Some(bytes.to_vec()),
        _ => None,
    }
}

fn text(value: ValueRef<'_>) -> Option<String> {
    match value {
        ValueRef::Text(bytes) => String::from_utf8(bytes.to_vec()).ok(),
        _ => None,
    }
}
