//! Writing batches.

use std::collections::HashMap;

use rebound_graph::checkpoint::{CheckpointError, CheckpointId, StoredCheckpoint};
use rusqlite::{params, ErrorCode};

use super::{Batch, Store, WriteTx};
use crate::codec::{encode_checkpoint, id_to_sql, ThreadRef};
use crate::error::{is_data_error, SqliteSaverError};

/// A group of at least this many batches goes to `checkpoints_by_time`.
/// Below it, writing to `checkpoints` costs a page per run, which is no more
/// than the time-ordered table's pages plus the thread summaries.
const BY_TIME_MIN_BATCHES: usize = 16;

const INSERT_THREAD: &str = "INSERT INTO threads (name, base) VALUES (?1, ?2)";
const INSERT_CHECKPOINT: &str =
    "INSERT INTO checkpoints (thread, id, parent_gap, step, kind, state, meta) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
const IN_CHECKPOINTS: &str =
    "SELECT EXISTS (SELECT 1 FROM checkpoints WHERE thread = ?1 AND id = ?2)";
const INSERT_BY_TIME: &str =
    "INSERT INTO checkpoints_by_time (id, thread, parent_gap, step, kind, state, meta)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
const IN_BY_TIME: &str =
    "SELECT EXISTS (SELECT 1 FROM checkpoints_by_time WHERE id = ?1 AND thread = ?2)";
const UPDATE_SUMMARY: &str = "UPDATE threads SET
     by_time_first = MIN(COALESCE(by_time_first, ?2), ?2),
     by_time_last = MAX(COALESCE(by_time_last, ?3), ?3),
     by_time_count = by_time_count + ?4
     WHERE id = ?1";
const NEXT_WRITE_SEQ: &str =
    "SELECT COALESCE(MAX(seq) + 1, 0) FROM writes WHERE thread = ?1 AND checkpoint = ?2";
const INSERT_WRITE: &str =
    "INSERT INTO writes (thread, checkpoint, seq, node, kind, key, value) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
/// Why a group of batches could not be committed together.
pub(crate) enum GroupFailure {
    /// The batch at this index of the group is at fault (bad value,
    /// duplicate id); the others can be retried without it.
    Batch(usize, CheckpointError),
    /// The transaction itself failed (busy, I/O, disk full, ...).
    Group(CheckpointError),
}

/// A failure while inserting one batch.
enum InsertFailure {
    /// The batch itself is invalid.
    Invalid(CheckpointError),
    /// SQLite failed.
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for InsertFailure {
    fn from(error: rusqlite::Error) -> Self {
        InsertFailure::Sqlite(error)
    }
}

/// Where a group's checkpoints go.
#[derive(Clone, Copy)]
enum Target {
    Checkpoints,
    ByTime,
}

/// What one write transaction has looked up or added so far.
#[derive(Default)]
struct TxState {
    /// Threads found or added; cached in the store once the transaction commits.
    threads: HashMap<String, ThreadRef>,
    /// The next `writes.seq` per (thread, stored checkpoint).
    next_seq: HashMap<(i64, i64), i64>,
    /// Per thread key: the lowest and highest id and the number of rows
    /// added to `checkpoints_by_time`.
    by_time: HashMap<i64, (i64, i64, i64)>,
}

impl Store {
    /// Stores every batch of `group` in one transaction.
    pub(crate) fn write_group(&mut self, group: &[&Batch]) -> Result<(), GroupFailure> {
        let target = if group.len() >= BY_TIME_MIN_BATCHES {
            Target::ByTime
        } else {
            Target::Checkpoints
        };
        let mut state = TxState::default();
        let tx = WriteTx::begin(&self.conn).map_err(|e| GroupFailure::Group(self.sqlite(e)))?;
        for (index, batch) in group.iter().enumerate() {
            self.insert_batch(batch, target, &mut state)
                .map_err(|failure| match failure {
                    InsertFailure::Invalid(error) => GroupFailure::Batch(index, error),
                    InsertFailure::Sqlite(error) if is_data_error(&error) => {
                        GroupFailure::Batch(index, self.sqlite(error))
                    }
                    InsertFailure::Sqlite(error) => GroupFailure::Group(self.sqlite(error)),
                })?;
        }
        self.update_summaries(&state)
            .map_err(|e| GroupFailure::Group(self.sqlite(e)))?;
        tx.commit()
            .map_err(|e| GroupFailure::Group(self.sqlite(e)))?;
        self.thread_keys.extend(state.threads);
        for batch in group {
            self.cache.insert_written(&batch.checkpoints);
        }
        Ok(())
    }

    /// Records the rows added to `checkpoints_by_time` in the threads' summaries.
    fn update_summaries(&self, state: &TxState) -> rusqlite::Result<()> {
        if state.by_time.is_empty() {
            return Ok(());
        }
        let mut update = self.conn.prepare_cached(UPDATE_SUMMARY)?;
        for (thread, (first, last, count)) in &state.by_time {
            update.execute(params![thread, first, last, count])?;
        }
        Ok(())
    }

    fn insert_batch(
        &self,
        batch: &Batch,
        target: Target,
        state: &mut TxState,
    ) -> Result<(), InsertFailure> {
        for checkpoint in &batch.checkpoints {
            let thread = self.thread_for_write(&checkpoint.thread_id, checkpoint.id, state)?;
            self.insert_checkpoint(thread, checkpoint, target)?;
            if let Target::ByTime = target {
                let id = id_to_sql(checkpoint.id).map_err(InsertFailure::Invalid)?;
                let summary = state.by_time.entry(thread.key).or_insert((id, id, 0));
                *summary = (summary.0.min(id), summary.1.max(id), summary.2 + 1);
            }
        }
        if batch.writes.is_empty() {
            return Ok(());
        }
        let mut insert = self.conn.prepare_cached(INSERT_WRITE)?;
        for write in &batch.writes {
            let thread = self.thread_for_write(&write.thread_id, write.checkpoint, state)?;
            let checkpoint = thread
                .offset(write.checkpoint)
                .map_err(InsertFailure::Invalid)?;
            let seq = match state.next_seq.get_mut(&(thread.key, checkpoint)) {
                Some(seq) => seq,
                None => {
                    let first: i64 = self
                        .conn
                        .prepare_cached(NEXT_WRITE_SEQ)?
                        .query_row(params![thread.key, checkpoint], |row| row.get(0))?;
                    state
                        .next_seq
                        .entry((thread.key, checkpoint))
                        .or_insert(first)
                }
            };
            insert.execute(params![
                thread.key,
                checkpoint,
                *seq,
                write.node,
                write.kind.as_str(),
                write.key,
                write.value
            ])?;
            *seq += 1;
        }
        Ok(())
    }

    /// Inserts one checkpoint into `target`, failing with
    /// [`SqliteSaverError::DuplicateCheckpoint`] if either table has its id.
    fn insert_checkpoint(
        &self,
        thread: ThreadRef,
        checkpoint: &StoredCheckpoint,
        target: Target,
    ) -> Result<(), InsertFailure> {
        let row = encode_checkpoint(thread, checkpoint).map_err(InsertFailure::Invalid)?;
        let absolute = id_to_sql(checkpoint.id).map_err(InsertFailure::Invalid)?;
        let duplicate = || {
            InsertFailure::Invalid(
                SqliteSaverError::DuplicateCheckpoint {
                    thread_id: checkpoint.thread_id.clone(),
                    id: checkpoint.id,
                }
                .into(),
            )
        };
        // An id is stored in one table only.
        let probe = |sql: &str, params: &[&dyn rusqlite::ToSql]| -> rusqlite::Result<bool> {
            self.conn
                .prepare_cached(sql)?
                .query_row(params, |r| r.get(0))
        };
        let elsewhere = match target {
            Target::Checkpoints => probe(IN_BY_TIME, params![absolute, thread.key])?,
            Target::ByTime => probe(IN_CHECKPOINTS, params![thread.key, row.id])?,
        };
        if elsewhere {
            return Err(duplicate());
        }
        let inserted = match target {
            Target::Checkpoints => self
                .conn
                .prepare_cached(INSERT_CHECKPOINT)?
                .execute(params![
                    thread.key,
                    row.id,
                    row.parent_gap,
                    row.step,
                    row.kind,
                    row.state,
                    row.meta
                ]),
            Target::ByTime => self.conn.prepare_cached(INSERT_BY_TIME)?.execute(params![
                absolute,
                thread.key,
                row.parent_gap,
                row.step,
                row.kind,
                row.state,
                row.meta
            ]),
        };
        match inserted {
            Ok(_) => Ok(()),
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::ConstraintViolation) => {
                Err(duplicate())
            }
            Err(e) => Err(e.into()),
        }
    }

    /// A thread inside a write transaction, added (with `first_id` as its
    /// base) if it is new.
    fn thread_for_write(
        &self,
        name: &str,
        first_id: CheckpointId,
        state: &mut TxState,
    ) -> Result<ThreadRef, InsertFailure> {
        if let Some(thread) = self
            .thread_keys
            .get(name)
            .or_else(|| state.threads.get(name))
        {
            return Ok(*thread);
        }
        let thread = match self.find_thread(name)? {
            Some(thread) => thread,
            None => {
                let base = id_to_sql(first_id).map_err(InsertFailure::Invalid)?;
                self.conn
                    .prepare_cached(INSERT_THREAD)?
                    .execute(params![name, base])?;
                ThreadRef {
                    key: self.conn.last_insert_rowid(),
                    base,
                }
            }
        };
        state.threads.insert(name.to_string(), thread);
        Ok(thread)
    }
}
