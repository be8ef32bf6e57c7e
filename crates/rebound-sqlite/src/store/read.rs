//! Reading checkpoints, pending writes and threads.
//!
//! Every checkpoint query reads `checkpoints` and `checkpoints_by_time` in
//! one statement, so it sees one snapshot of both.
//! Ids come back absolute (`base + id` for `checkpoints`).

use rebound_graph::checkpoint::{
    CheckpointError, CheckpointId, PendingWrite, StoredCheckpoint, ThreadSummary,
};
use rusqlite::params;
use rusqlite::types::ValueRef;

use super::Store;
use crate::codec::{decode_checkpoint, decode_write, non_negative};

/// The columns of `codec::decode_checkpoint` from `checkpoints` (with the
/// thread's base as `?2`) and from `checkpoints_by_time`.
macro_rules! clustered_columns {
    () => {
        "?2 + id AS aid, parent_gap, step, kind, state, meta"
    };
}
macro_rules! by_time_columns {
    () => {
        "id AS aid, parent_gap, step, kind, state, meta"
    };
}

/// ?1 thread key, ?2 base. A thread's latest row in `checkpoints_by_time`
/// is the one at its summary's highest id.
const SELECT_LATEST: &str = concat!(
    "SELECT * FROM (SELECT ",
    clustered_columns!(),
    " FROM checkpoints WHERE thread = ?1 ORDER BY id DESC LIMIT 1)",
    " UNION ALL SELECT ",
    by_time_columns!(),
    " FROM checkpoints_by_time",
    " WHERE id = (SELECT by_time_last FROM threads WHERE id = ?1) AND thread = ?1",
    " ORDER BY aid DESC LIMIT 1"
);
/// ?1 thread key, ?2 base, ?3 stored id, ?4 absolute id.
const SELECT_BY_ID: &str = concat!(
    "SELECT ",
    clustered_columns!(),
    " FROM checkpoints WHERE thread = ?1 AND id = ?3",
    " UNION ALL SELECT ",
    by_time_columns!(),
    " FROM checkpoints_by_time WHERE id = ?4 AND thread = ?1"
);
/// The listing of a thread, newest first, with `$bound` on the stored
/// (`?4`) and absolute (`?5`) ids. ?1 thread key, ?2 base, ?3 limit. The
/// thread's rows in `checkpoints_by_time` lie within its summary's id range:
/// scanned newest first, other threads' rows skipped, until `limit` are found.
macro_rules! select_list {
    ($clustered_bound:literal, $by_time_bound:literal) => {
        concat!(
            "SELECT * FROM (SELECT ",
            clustered_columns!(),
            " FROM checkpoints WHERE thread = ?1",
            $clustered_bound,
            " ORDER BY id DESC LIMIT ?3)",
            " UNION ALL SELECT * FROM (SELECT ",
            by_time_columns!(),
            " FROM checkpoints_by_time",
            " WHERE id >= (SELECT by_time_first FROM threads WHERE id = ?1)",
            " AND id <= (SELECT by_time_last FROM threads WHERE id = ?1)",
            $by_time_bound,
            " AND thread = ?1 ORDER BY id DESC LIMIT ?3)",
            " ORDER BY aid DESC LIMIT ?3"
        )
    };
}
const SELECT_LIST: &str = select_list!("", "");
const SELECT_LIST_BEFORE: &str = select_list!(" AND id < ?4", " AND id < ?5");
/// A checkpoint and its ancestors back to the nearest snapshot, following
/// parent links through both tables, newest first (a chain yields one row
/// per step, so the queue order is the chain order). ?1 thread key, ?2 base,
/// ?3 stored id, ?4 absolute id, ?5 most links followed.
const SELECT_CHAIN: &str = "
    WITH RECURSIVE chain(aid, parent_gap, step, kind, state, meta, depth) AS (
        SELECT ?2 + id, parent_gap, step, kind, state, meta, 0
            FROM checkpoints WHERE thread = ?1 AND id = ?3
        UNION ALL
        SELECT id, parent_gap, step, kind, state, meta, 0
            FROM checkpoints_by_time WHERE id = ?4 AND thread = ?1
        UNION ALL
        SELECT ?2 + c.id, c.parent_gap, c.step, c.kind, c.state, c.meta, chain.depth + 1
            FROM chain JOIN checkpoints AS c ON c.thread = ?1 AND c.id = chain.aid - chain.parent_gap - ?2
            WHERE chain.kind = 1 AND chain.depth < ?5
        UNION ALL
        SELECT t.id, t.parent_gap, t.step, t.kind, t.state, t.meta, chain.depth + 1
            FROM chain JOIN checkpoints_by_time AS t ON t.id = chain.aid - chain.parent_gap AND t.thread = ?1
            WHERE chain.kind = 1 AND chain.depth < ?5
    )
    SELECT aid, parent_gap, step, kind, state, meta FROM chain";
/// More links than any chain the engine writes (it snapshots every few
/// dozen deltas); reaching it means the parent links form a cycle.
const MAX_CHAIN: i64 = 1 << 16;
const SELECT_WRITES: &str =
    "SELECT node, kind, key, value FROM writes WHERE thread = ?1 AND checkpoint = ?2 ORDER BY seq";
/// Per thread, its latest checkpoint and its number of checkpoints, over
/// both tables (from `threads`' summary for `checkpoints_by_time`). With
/// `MAX()`, SQLite takes the bare columns (`step`, `meta`) from the row that
/// holds the maximum. `CROSS JOIN` keeps `threads` the outer loop: one
/// primary-key lookup per thread, not a scan of `checkpoints_by_time`.
const SELECT_THREADS: &str = "
    WITH clustered AS (
             SELECT thread, MAX(id) AS latest, step, meta, COUNT(*) AS n FROM checkpoints GROUP BY thread),
         both_tables AS (
             SELECT c.thread AS thread, t.base + c.latest AS latest, c.step AS step, c.meta AS meta, c.n AS n
             FROM clustered AS c JOIN threads AS t ON t.id = c.thread
             UNION ALL
             SELECT t.id, b.id, b.step, b.meta, t.by_time_count
             FROM threads AS t CROSS JOIN checkpoints_by_time AS b ON b.id = t.by_time_last AND b.thread = t.id)
    SELECT t.name, b.latest, b.step, b.meta, b.n
    FROM (SELECT thread, MAX(latest) AS latest, step, meta, SUM(n) AS n FROM both_tables GROUP BY thread) AS b
    JOIN threads AS t ON t.id = b.thread
    ORDER BY b.latest DESC";

impl Store {
    /// A thread's checkpoint by id, or its latest.
    pub(crate) fn get(
        &mut self,
        thread_id: &str,
        id: Option<CheckpointId>,
    ) -> Result<Option<StoredCheckpoint>, CheckpointError> {
        let cache = self.current_cache()?;
        let cached = match id {
            None => cache.latest(thread_id),
            Some(id) => cache.get(thread_id, id),
        };
        if let Some(cached) = cached {
            return Ok(Some(cached.clone()));
        }
        let Some(thread) = self.thread(thread_id)? else {
            return Ok(None);
        };
        let found = match id {
            None => {
                self.query_checkpoints(thread_id, SELECT_LATEST, params![thread.key, thread.base])?
            }
            Some(id) => match (thread.offset_of_stored(id), i64::try_from(id.as_u64())) {
                (Some(offset), Ok(absolute)) => self.query_checkpoints(
                    thread_id,
                    SELECT_BY_ID,
                    params![thread.key, thread.base, offset, absolute],
                )?,
                _ => Vec::new(), // such an id cannot have been stored
            },
        };
        let found = found.into_iter().next();
        if let Some(found) = &found {
            match id {
                None => self.cache.set_latest(thread_id, found),
                Some(_) => self.cache.insert_read(std::slice::from_ref(found)),
            }
        }
        Ok(found)
    }

    /// A checkpoint and its ancestors back to (and including) the nearest
    /// snapshot, newest first, in one query.
    pub(crate) fn get_chain(
        &mut self,
        thread_id: &str,
        id: CheckpointId,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        let missing = |id: CheckpointId| {
            CheckpointError::Corrupt(format!(
                "thread {thread_id:?}: checkpoint {id} is missing from the chain"
            ))
        };
        if let Some(chain) = self.current_cache()?.chain(thread_id, id) {
            return Ok(chain);
        }
        let Some(thread) = self.thread(thread_id)? else {
            return Err(missing(id));
        };
        let (Some(offset), Ok(absolute)) =
            (thread.offset_of_stored(id), i64::try_from(id.as_u64()))
        else {
            return Err(missing(id));
        };
        let chain = self.query_checkpoints(
            thread_id,
            SELECT_CHAIN,
            params![thread.key, thread.base, offset, absolute, MAX_CHAIN],
        )?;
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
            _ => {
                self.cache.insert_read(&chain);
                Ok(chain)
            }
        }
    }

    /// A thread's checkpoints, newest first.
    pub(crate) fn list(
        &mut self,
        thread_id: &str,
        before: Option<CheckpointId>,
        limit: Option<usize>,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        if before.is_none() && limit == Some(1) {
            // The latest alone: what a run's start and a thread's status ask.
            return Ok(self.get(thread_id, None)?.into_iter().collect());
        }
        let Some(thread) = self.thread(thread_id)? else {
            return Ok(Vec::new());
        };
        // SQLite reads a negative LIMIT as "no limit".
        let limit = limit.map_or(-1, |limit| i64::try_from(limit).unwrap_or(i64::MAX));
        // An id above every storable id bounds nothing.
        let bound = before.and_then(|before| {
            Some((
                thread.offset_of_stored(before)?,
                i64::try_from(before.as_u64()).ok()?,
            ))
        });
        match bound {
            Some((stored, absolute)) => self.query_checkpoints(
                thread_id,
                SELECT_LIST_BEFORE,
                params![thread.key, thread.base, limit, stored, absolute],
            ),
            None => self.query_checkpoints(
                thread_id,
                SELECT_LIST,
                params![thread.key, thread.base, limit],
            ),
        }
    }

    fn query_checkpoints(
        &self,
        thread_id: &str,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.sqlite(e))?;
        let mut rows = stmt.query(params).map_err(|e| self.sqlite(e))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.sqlite(e))? {
            out.push(decode_checkpoint(thread_id, row)?);
        }
        Ok(out)
    }

    /// The pending writes against a checkpoint, in write order.
    pub(crate) fn pending_writes(
        &mut self,
        thread_id: &str,
        checkpoint: CheckpointId,
    ) -> Result<Vec<PendingWrite>, CheckpointError> {
        let Some(thread) = self.thread(thread_id)? else {
            return Ok(Vec::new());
        };
        let Some(offset) = thread.offset_of_stored(checkpoint) else {
            return Ok(Vec::new());
        };
        let mut stmt = self
            .conn
            .prepare_cached(SELECT_WRITES)
            .map_err(|e| self.sqlite(e))?;
        let mut rows = stmt
            .query(params![thread.key, offset])
            .map_err(|e| self.sqlite(e))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.sqlite(e))? {
            out.push(decode_write(thread_id, checkpoint, row)?);
        }
        Ok(out)
    }

    /// Every thread with at least one checkpoint, most recently updated first.
    pub(crate) fn threads(&mut self) -> Result<Vec<ThreadSummary>, CheckpointError> {
        let mut stmt = self
            .conn
            .prepare_cached(SELECT_THREADS)
            .map_err(|e| self.sqlite(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.sqlite(e))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.sqlite(e))? {
            let get = |index: usize| {
                row.get_ref(index).map_err(|e| {
                    CheckpointError::Corrupt(format!("a thread summary's column {index}: {e}"))
                })
            };
            let thread_id = match get(0)? {
                ValueRef::Text(name) => String::from_utf8_lossy(name).into_owned(),
                _ => {
                    return Err(CheckpointError::Corrupt(
                        "a thread's name is not text".to_string(),
                    ))
                }
            };
            let corrupt =
                |what: &str| CheckpointError::Corrupt(format!("thread {thread_id:?}: {what}"));
            let latest = non_negative(get(1)?)
                .ok_or_else(|| corrupt("its latest id is not a non-negative integer"))?;
            let step = non_negative(get(2)?)
                .ok_or_else(|| corrupt("its step is not a non-negative integer"))?;
            let meta = match get(3)? {
                ValueRef::Blob(meta) => meta.to_vec(),
                _ => return Err(corrupt("its metadata is not a blob")),
            };
            let checkpoints = non_negative(get(4)?)
                .ok_or_else(|| corrupt("its checkpoint count is not an integer"))?;
            out.push(ThreadSummary {
                thread_id,
                latest: CheckpointId::from_u64(latest),
                step,
                checkpoints,
                meta,
            });
        }
        Ok(out)
    }
}
