//! Reading rows back: the column lists the queries select and their
//! decoding into [`RunRow`] and [`ThreadRow`].
//!
//! JSON travels as text (`::text` out, `::jsonb` in): this crate's sqlx is
//! built without its `json` feature.

use sqlx::postgres::PgRow;
use sqlx::Row;

use super::{CancelAction, QueueError, RunRow, RunStatus, ThreadRow, ThreadStatus};

/// The columns of a run, of the table aliased `r`, in [`decode_run`]'s
/// order (a macro so that queries stay `&'static str` through `concat!`).
macro_rules! run_columns {
    () => {
        "r.seq, r.run_id, r.thread_id, r.assistant_id, r.status, \
         (floor(extract(epoch FROM r.created_at) * 1000))::bigint, \
         (floor(extract(epoch FROM r.updated_at) * 1000))::bigint, \
         r.attempt, r.multitask_strategy, r.metadata::text, r.kwargs::text, \
         r.base_checkpoint, r.error, r.owner, r.epoch, \
         (floor(extract(epoch FROM r.lease_expires_at) * 1000))::bigint, \
         (floor(extract(epoch FROM r.available_at) * 1000))::bigint, \
         r.expirations, r.cancel_requested"
    };
}
pub(crate) use run_columns;

/// The status in force of the thread aliased `t`: `busy` while it has a
/// run pending or running (as the Agent Server counts it: a queued run
/// makes its thread busy before a worker takes it), else the status last
/// recorded. What [`thread_columns`] select and thread searches filter on.
macro_rules! thread_status {
    () => {
        "(CASE WHEN EXISTS (SELECT 1 FROM rebound_runs a \
            WHERE a.thread_id = t.thread_id AND a.status IN ('pending', 'running')) \
         THEN 'busy' ELSE t.status END)"
    };
}
pub(crate) use thread_status;

/// The columns of a thread, of the table aliased `t`, in
/// [`decode_thread`]'s order; its status is [`thread_status`]'s.
macro_rules! thread_columns {
    () => {
        concat!(
            "t.thread_id, \
             (floor(extract(epoch FROM t.created_at) * 1000))::bigint, \
             (floor(extract(epoch FROM t.updated_at) * 1000))::bigint, ",
            thread_status!(),
            ", t.metadata::text"
        )
    };
}
pub(crate) use thread_columns;

fn corrupt(what: &'static str, detail: String) -> QueueError {
    QueueError::Corrupt { what, detail }
}

fn json(what: &'static str, text: &str) -> Result<serde_json::Value, QueueError> {
    serde_json::from_str(text).map_err(|e| corrupt(what, e.to_string()))
}

/// A run selected with [`run_columns`].
pub(crate) fn decode_run(row: &PgRow) -> Result<RunRow, QueueError> {
    let status: String = row.try_get(4)?;
    let metadata: String = row.try_get(9)?;
    let kwargs: String = row.try_get(10)?;
    let cancel: Option<String> = row.try_get(18)?;
    Ok(RunRow {
        seq: row.try_get(0)?,
        run_id: row.try_get(1)?,
        thread_id: row.try_get(2)?,
        assistant_id: row.try_get(3)?,
        status: RunStatus::parse(&status)
            .ok_or_else(|| corrupt("run", format!("unknown status {status:?}")))?,
        created_ms: row.try_get(5)?,
        updated_ms: row.try_get(6)?,
        attempt: row.try_get(7)?,
        multitask_strategy: row.try_get(8)?,
        metadata: json("run metadata", &metadata)?,
        kwargs: json("run kwargs", &kwargs)?,
        base_checkpoint: row.try_get(11)?,
        error: row.try_get(12)?,
        owner: row.try_get(13)?,
        epoch: row.try_get(14)?,
        lease_expires_ms: row.try_get(15)?,
        available_ms: row.try_get(16)?,
        expirations: row.try_get(17)?,
        cancel_requested: cancel.as_deref().map(decode_cancel).transpose()?,
    })
}

/// A stored cancel action.
pub(crate) fn decode_cancel(name: &str) -> Result<CancelAction, QueueError> {
    CancelAction::parse(name).ok_or_else(|| corrupt("run", format!("unknown cancel {name:?}")))
}

/// A thread selected with [`thread_columns`].
pub(crate) fn decode_thread(row: &PgRow) -> Result<ThreadRow, QueueError> {
    let status: String = row.try_get(3)?;
    let metadata: String = row.try_get(4)?;
    Ok(ThreadRow {
        thread_id: row.try_get(0)?,
        created_ms: row.try_get(1)?,
        updated_ms: row.try_get(2)?,
        status: ThreadStatus::parse(&status)
            .ok_or_else(|| corrupt("thread", format!("unknown status {status:?}")))?,
        metadata: json("thread metadata", &metadata)?,
    })
}

/// Decodes every row with `decode`.
pub(crate) fn decode_all<T>(
    rows: &[PgRow],
    decode: fn(&PgRow) -> Result<T, QueueError>,
) -> Result<Vec<T>, QueueError> {
    rows.iter().map(decode).collect()
}
