//! Reading checkpoints, pending writes and threads: one statement each,
//! the thread found by name inside the statement, tried again on another
//! connection when its own was lost (a read may run twice).

use std::future::Future;

use rebound_graph::checkpoint::{
    CheckpointError, CheckpointId, PendingWrite, StateBlob, StoredCheckpoint, ThreadSummary,
    WriteKind,
};
use sqlx::postgres::PgRow;
use sqlx::Row;

use super::PostgresSaver;
use crate::error::{connection_lost, from_sqlx};

/// The thread's key, by name ($1).
macro_rules! thread_key {
    () => {
        "(SELECT id FROM checkpoint_threads WHERE name = $1)"
    };
}

/// The columns [`decode_checkpoint`] reads.
macro_rules! checkpoint_columns {
    () => {
        "id, parent, step::int8, snapshot, state, meta"
    };
}

const SELECT_LATEST: &str = concat!(
    "SELECT ",
    checkpoint_columns!(),
    " FROM checkpoints WHERE thread = ",
    thread_key!(),
    " ORDER BY id DESC LIMIT 1"
);
const SELECT_BY_ID: &str = concat!(
    "SELECT ",
    checkpoint_columns!(),
    " FROM checkpoints WHERE thread = ",
    thread_key!(),
    " AND id = $2"
);
/// $2: the limit (NULL for none).
const SELECT_LIST: &str = concat!(
    "SELECT ",
    checkpoint_columns!(),
    " FROM checkpoints WHERE thread = ",
    thread_key!(),
    " ORDER BY id DESC LIMIT $2"
);
/// $2: the limit (NULL for none); $3: the id bound.
const SELECT_LIST_BEFORE: &str = concat!(
    "SELECT ",
    checkpoint_columns!(),
    " FROM checkpoints WHERE thread = ",
    thread_key!(),
    " AND id < $3 ORDER BY id DESC LIMIT $2"
);
/// A checkpoint ($2) and its ancestors back to the nearest snapshot,
/// following parent links, newest first; $3 bounds the links followed.
const SELECT_CHAIN: &str = concat!(
    "WITH RECURSIVE chain AS (
        SELECT thread, id, parent, step, snapshot, state, meta, 0 AS depth
            FROM checkpoints WHERE thread = ",
    thread_key!(),
    " AND id = $2
        UNION ALL
        SELECT c.thread, c.id, c.parent, c.step, c.snapshot, c.state, c.meta, chain.depth + 1
            FROM chain JOIN checkpoints AS c ON c.thread = chain.thread AND c.id = chain.parent
            WHERE NOT chain.snapshot AND chain.depth < $3
    )
    SELECT ",
    checkpoint_columns!(),
    " FROM chain ORDER BY depth"
);
/// More links than any chain the engine writes (it snapshots every few
/// dozen deltas); reaching it means the parent links form a cycle.
const MAX_CHAIN: i32 = 1 << 16;
const SELECT_WRITES: &str = concat!(
    "SELECT node, kind, key, value FROM checkpoint_writes WHERE thread = ",
    thread_key!(),
    " AND checkpoint = $2 ORDER BY seq"
);
/// Per thread with checkpoints: its latest, and how many it has; most
/// recently updated first (ties by name, for a stable order).
const SELECT_THREADS: &str = "
    SELECT t.name, latest.id, latest.step::int8, latest.meta, n.count
    FROM checkpoint_threads AS t
    CROSS JOIN LATERAL (
        SELECT id, step, meta FROM checkpoints WHERE thread = t.id ORDER BY id DESC LIMIT 1
    ) AS latest
    CROSS JOIN LATERAL (SELECT COUNT(*) AS count FROM checkpoints WHERE thread = t.id) AS n
    ORDER BY latest.id DESC, t.name";

impl PostgresSaver {
    /// Runs the read `statement`, again on another connection while its
    /// connection turns out lost (see [`crate::retry`]).
    pub(super) async fn reading<T, F, Fut>(&self, statement: F) -> Result<T, CheckpointError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, sqlx::Error>>,
    {
        crate::retry::when_lost(&self.pool, connection_lost, statement)
            .await
            .map_err(from_sqlx)
    }

    pub(super) async fn read_one(
        &self,
        thread_id: &str,
        id: Option<CheckpointId>,
    ) -> Result<Option<StoredCheckpoint>, CheckpointError> {
        let row = match id {
            None => {
                self.reading(|| {
                    sqlx::query(SELECT_LATEST)
                        .bind(thread_id)
                        .fetch_optional(&self.pool)
                })
                .await?
            }
            Some(id) => match i64::try_from(id.as_u64()) {
                Ok(id) => {
                    self.reading(|| {
                        sqlx::query(SELECT_BY_ID)
                            .bind(thread_id)
                            .bind(id)
                            .fetch_optional(&self.pool)
                    })
                    .await?
                }
                Err(_) => return Ok(None), // such an id cannot have been stored
            },
        };
        row.map(|row| decode_checkpoint(thread_id, &row))
            .transpose()
    }

    pub(super) async fn read_chain(
        &self,
        thread_id: &str,
        id: CheckpointId,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        let missing = |id: CheckpointId| {
            CheckpointError::Corrupt(format!(
                "thread {thread_id:?}: checkpoint {id} is missing from the chain"
            ))
        };
        let Ok(key) = i64::try_from(id.as_u64()) else {
            return Err(missing(id));
        };
        let rows = self
            .reading(|| {
                sqlx::query(SELECT_CHAIN)
                    .bind(thread_id)
                    .bind(key)
                    .bind(MAX_CHAIN)
                    .fetch_all(&self.pool)
            })
            .await?;
        let chain = rows
            .iter()
            .map(|row| decode_checkpoint(thread_id, row))
            .collect::<Result<Vec<_>, _>>()?;
        let Some(last) = chain.last() else {
            return Err(missing(id));
        };
        if chain.len() > usize::try_from(MAX_CHAIN).unwrap_or(usize::MAX) {
            return Err(CheckpointError::Corrupt(format!(
                "thread {thread_id:?}: the parent links from checkpoint {id} form a cycle"
            )));
        }
        // The chain stops early only where a delta's parent is not stored.
        match (last.state.is_snapshot(), last.parent) {
            (false, Some(parent)) => Err(missing(parent)),
            _ => Ok(chain),
        }
    }

    pub(super) async fn read_list(
        &self,
        thread_id: &str,
        before: Option<CheckpointId>,
        limit: Option<usize>,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        let limit = limit.map(|limit| i64::try_from(limit).unwrap_or(i64::MAX));
        // A bound above every storable id bounds nothing.
        let bound = before.and_then(|before| i64::try_from(before.as_u64()).ok());
        let rows = self
            .reading(|| {
                match bound {
                    Some(bound) => sqlx::query(SELECT_LIST_BEFORE)
                        .bind(thread_id)
                        .bind(limit)
                        .bind(bound),
                    None => sqlx::query(SELECT_LIST).bind(thread_id).bind(limit),
                }
                .fetch_all(&self.pool)
            })
            .await?;
        rows.iter()
            .map(|row| decode_checkpoint(thread_id, row))
            .collect()
    }

    pub(super) async fn read_writes(
        &self,
        thread_id: &str,
        checkpoint: CheckpointId,
    ) -> Result<Vec<PendingWrite>, CheckpointError> {
        let Ok(key) = i64::try_from(checkpoint.as_u64()) else {
            return Ok(Vec::new());
        };
        let rows = self
            .reading(|| {
                sqlx::query(SELECT_WRITES)
                    .bind(thread_id)
                    .bind(key)
                    .fetch_all(&self.pool)
            })
            .await?;
        rows.iter()
            .map(|row| decode_write(thread_id, checkpoint, row))
            .collect()
    }

    pub(super) async fn read_threads(&self) -> Result<Vec<ThreadSummary>, CheckpointError> {
        let rows = self
            .reading(|| sqlx::query(SELECT_THREADS).fetch_all(&self.pool))
            .await?;
        rows.iter()
            .map(|row| {
                let thread_id: String = column(row, 0, "a thread's name")?;
                let corrupt =
                    |what: &str| CheckpointError::Corrupt(format!("thread {thread_id:?}: {what}"));
                let latest: i64 = column(row, 1, "a thread's latest id")?;
                let step: i64 = column(row, 2, "a thread's latest step")?;
                let count: i64 = column(row, 4, "a thread's checkpoint count")?;
                Ok(ThreadSummary {
                    latest: CheckpointId::from_u64(
                        u64::try_from(latest).map_err(|_| corrupt("a negative checkpoint id"))?,
                    ),
                    step: u64::try_from(step).map_err(|_| corrupt("a negative step"))?,
                    checkpoints: u64::try_from(count).unwrap_or(0),
                    meta: column(row, 3, "a thread's latest metadata")?,
                    thread_id,
                })
            })
            .collect()
    }
}

/// Column `index` of `row`, or [`CheckpointError::Corrupt`] naming `what`.
fn column<'r, T>(row: &'r PgRow, index: usize, what: &str) -> Result<T, CheckpointError>
where
    T: sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
{
    row.try_get(index)
        .map_err(|e| CheckpointError::Corrupt(format!("{what} cannot be read: {e}")))
}

/// Decodes a row of `id, parent, step, snapshot, state, meta` of `thread_id`.
fn decode_checkpoint(thread_id: &str, row: &PgRow) -> Result<StoredCheckpoint, CheckpointError> {
    let corrupt = |what: &str| {
        CheckpointError::Corrupt(format!("a checkpoint of thread {thread_id:?}: {what}"))
    };
    let id: i64 = column(row, 0, "a checkpoint's id")?;
    let parent: Option<i64> = column(row, 1, "a checkpoint's parent")?;
    let step: i64 = column(row, 2, "a checkpoint's step")?;
    let snapshot: bool = column(row, 3, "a checkpoint's kind")?;
    let state: Vec<u8> = column(row, 4, "a checkpoint's state")?;
    let meta: Vec<u8> = column(row, 5, "a checkpoint's metadata")?;
    let to_id = |raw: i64, what: &str| {
        u64::try_from(raw)
            .map(CheckpointId::from_u64)
            .map_err(|_| corrupt(what))
    };
    Ok(StoredCheckpoint {
        thread_id: thread_id.to_string(),
        id: to_id(id, "its id is negative")?,
        parent: parent
            .map(|p| to_id(p, "its parent is negative"))
            .transpose()?,
        step: u64::try_from(step).map_err(|_| corrupt("its step is negative"))?,
        state: if snapshot {
            StateBlob::Snapshot(state)
        } else {
            StateBlob::Delta(state)
        },
        meta,
    })
}

/// Decodes a `checkpoint_writes` row of `node, kind, key, value`.
fn decode_write(
    thread_id: &str,
    checkpoint: CheckpointId,
    row: &PgRow,
) -> Result<PendingWrite, CheckpointError> {
    let kind: String = column(row, 1, "a pending write's kind")?;
    let kind = WriteKind::parse(&kind).ok_or_else(|| {
        CheckpointError::Corrupt(format!(
            "a pending write of thread {thread_id:?} at checkpoint {checkpoint}: unknown kind {kind:?}"
        ))
    })?;
    Ok(PendingWrite {
        thread_id: thread_id.to_string(),
        checkpoint,
        node: column(row, 0, "a pending write's node")?,
        kind,
        key: column(row, 2, "a pending write's key")?,
        value: column(row, 3, "a pending write's value")?,
    })
}
