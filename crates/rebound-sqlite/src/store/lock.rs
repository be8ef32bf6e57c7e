//! One run per thread: the `locks` table.
//!
//! A lock is claimed two ways: by the engine around each run
//! ([`Store::acquire`] and [`Store::release`]), and by an application that
//! keeps a thread for a while, across several runs ([`Store::hold`] and
//! [`Store::unhold`]). While this store holds a thread, the engine's runs of
//! it through this store use that claim instead of their own, and releasing
//! after a run leaves it in place.

use std::time::{SystemTime, UNIX_EPOCH};

use rebound_graph::checkpoint::CheckpointError;
use rusqlite::{params, OptionalExtension};

use super::{Store, WriteTx};
use crate::process::is_alive;

const SELECT_LOCK: &str = "SELECT pid FROM locks WHERE thread = ?1";
const UPSERT_LOCK: &str =
    "INSERT OR REPLACE INTO locks (thread, pid, acquired_at) VALUES (?1, ?2, ?3)";
const DELETE_LOCK: &str = "DELETE FROM locks WHERE thread = ?1 AND pid = ?2";

impl Store {
    /// Claims a thread for a run of this process, unless a live process
    /// (this one included) runs it. A holder that is no longer running is
    /// taken over.
    pub(crate) fn acquire(&mut self, thread_id: &str) -> Result<(), CheckpointError> {
        if self.kept.contains(thread_id) && !self.held.contains(thread_id) {
            // Held by the application for this run: the claim is in place.
            self.held.insert(thread_id.to_string());
            return Ok(());
        }
        self.claim(thread_id)?;
        self.held.insert(thread_id.to_string());
        Ok(())
    }

    /// Releases a thread a run of this process holds; releasing a thread it
    /// does not hold does nothing. A thread the application holds stays
    /// claimed.
    pub(crate) fn release(&mut self, thread_id: &str) -> Result<(), CheckpointError> {
        if !self.kept.contains(thread_id) {
            self.release_row(thread_id).map_err(|e| self.sqlite(e))?;
        }
        self.held.remove(thread_id);
        Ok(())
    }

    /// Claims a thread for the application until [`Store::unhold`], on the
    /// same terms as [`Store::acquire`].
    pub(crate) fn hold(&mut self, thread_id: &str) -> Result<(), CheckpointError> {
        self.claim(thread_id)?;
        self.kept.insert(thread_id.to_string());
        Ok(())
    }

    /// Ends [`Store::hold`]: the lock goes unless a run still holds it.
    pub(crate) fn unhold(&mut self, thread_id: &str) -> Result<(), CheckpointError> {
        if self.kept.remove(thread_id) && !self.held.contains(thread_id) {
            self.release_row(thread_id).map_err(|e| self.sqlite(e))?;
        }
        Ok(())
    }

    /// Writes this process's lock row, unless a live process holds one.
    fn claim(&mut self, thread_id: &str) -> Result<(), CheckpointError> {
        let tx = WriteTx::begin(&self.conn).map_err(|e| self.sqlite(e))?;
        let holder: Option<i64> = self
            .conn
            .prepare_cached(SELECT_LOCK)
            .and_then(|mut stmt| stmt.query_row([thread_id], |row| row.get(0)).optional())
            .map_err(|e| self.sqlite(e))?;
        match holder {
            Some(pid) if pid == self.pid => {
                return Err(CheckpointError::ThreadBusy {
                    thread_id: thread_id.to_string(),
                    holder: format!("another run in this process ({pid})"),
                })
            }
            Some(pid) if is_alive(pid) => {
                return Err(CheckpointError::ThreadBusy {
                    thread_id: thread_id.to_string(),
                    holder: format!("process {pid}"),
                })
            }
            _ => {}
        }
        self.conn
            .prepare_cached(UPSERT_LOCK)
            .and_then(|mut stmt| stmt.execute(params![thread_id, self.pid, unix_millis()]))
            .map_err(|e| self.sqlite(e))?;
        tx.commit().map_err(|e| self.sqlite(e))
    }

    pub(super) fn release_row(&self, thread_id: &str) -> rusqlite::Result<usize> {
        self.conn
            .prepare_cached(DELETE_LOCK)?
            .execute(params![thread_id, self.pid])
    }
}

fn unix_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
