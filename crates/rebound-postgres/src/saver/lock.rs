//! One run per thread: a session-level advisory lock per held thread, on a
//! connection kept for the run.

use std::sync::Arc;

use rebound_graph::checkpoint::CheckpointError;
use sqlx::pool::PoolConnection;
use sqlx::{Postgres, Row};
use tokio::sync::Mutex as AsyncMutex;

use super::{read_lock, PostgresSaver};
use crate::error::from_sqlx;

/// A thread of this saver: being claimed, or held on its connection.
pub(super) enum Slot {
    /// `acquire` is waiting for the database.
    Claiming,
    /// Held: the connection whose session holds the advisory lock. The
    /// thread's unguarded writes go through it too (see
    /// [`PostgresSaver::held_connection`]), one at a time.
    Held(HeldConnection),
    /// Held without the advisory lock, which a stale session still holds:
    /// the thread's guard excludes that session's writes.
    Guarded,
}

/// The connection of a held thread, shared by its writes and its release.
pub(super) type HeldConnection = Arc<AsyncMutex<PoolConnection<Postgres>>>;

/// Who holds an advisory lock: the session's process and client, from
/// `pg_stat_activity` (our lock connections name their process in
/// `application_name`). $1, $2: the key's high and low 32 bits.
const SELECT_HOLDER: &str = "
    SELECT a.pid, COALESCE(a.application_name, ''), COALESCE(host(a.client_addr), 'local')
    FROM pg_locks AS l LEFT JOIN pg_stat_activity AS a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND l.classid = $1::int8::oid AND l.objid = $2::int8::oid
    LIMIT 1";

/// The advisory-lock key of a thread: FNV-1a (64 bits) of a prefix, the
/// schema the saver's tables are in (advisory locks are per database, and
/// each schema is a store of its own) and the thread id; the same in every
/// process and build. A collision (two threads with one key, odds
/// ~n²/2⁶⁵) only makes one wait for the other.
pub(crate) fn lock_key(schema: &str, thread_id: &str) -> i64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let hash = b"rebound thread\0"
        .iter()
        .chain(schema.as_bytes())
        .chain(b"\0")
        .chain(thread_id.as_bytes())
        .fold(OFFSET, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(PRIME)
        });
    i64::from_ne_bytes(hash.to_ne_bytes())
}

/// Removes a `Claiming` slot when its `acquire` does not finish (failed or
/// cancelled).
struct ClaimGuard<'a> {
    saver: &'a PostgresSaver,
    thread_id: &'a str,
    done: bool,
}

impl Drop for ClaimGuard<'_> {
    fn drop(&mut self) {
        if !self.done {
            let mut held = super::lock(&self.saver.held);
            if matches!(held.get(self.thread_id), Some(Slot::Claiming)) {
                held.remove(self.thread_id);
            }
        }
    }
}

impl PostgresSaver {
    pub(super) async fn claim(&self, thread_id: &str) -> Result<(), CheckpointError> {
        {
            let mut held = super::lock(&self.held);
            if held.contains_key(thread_id) {
                return Err(CheckpointError::ThreadBusy {
                    thread_id: thread_id.to_string(),
                    holder: "another run in this process".to_string(),
                });
            }
            held.insert(thread_id.to_string(), Slot::Claiming);
        }
        let mut claim = ClaimGuard {
            saver: self,
            thread_id,
            done: false,
        };
        let key = lock_key(&self.schema, thread_id);
        // A connection handed back to the lock pool (also by a cancelled
        // call) gives up its locks first: see `connect::lock_pool`.
        let mut conn = self.locks.acquire().await.map_err(from_sqlx)?;
        let locked: bool = sqlx::query("SELECT pg_try_advisory_lock($1)")
            .bind(key)
            .fetch_one(&mut *conn)
            .await
            .and_then(|row| row.try_get(0))
            .map_err(from_sqlx)?;
        if !locked && read_lock(&self.guards).contains_key(thread_id) {
            // The thread is fenced by a guard (a run's lease), which also
            // refuses the writes of whoever held the thread before: a
            // worker that lost its lease while its session lives on
            // (paused, cut off from its run) would otherwise keep the
            // thread from the run's next worker until that session ends.
            super::lock(&self.held).insert(thread_id.to_string(), Slot::Guarded);
            claim.done = true;
            return Ok(());
        }
        if !locked {
            let holder = holder(&mut conn, key).await;
            return Err(CheckpointError::ThreadBusy {
                thread_id: thread_id.to_string(),
                holder,
            });
        }
        super::lock(&self.held).insert(
            thread_id.to_string(),
            Slot::Held(Arc::new(AsyncMutex::new(conn))),
        );
        claim.done = true;
        Ok(())
    }

    pub(super) async fn unclaim(&self, thread_id: &str) -> Result<(), CheckpointError> {
        let conn = {
            let mut held = super::lock(&self.held);
            match held.remove(thread_id) {
                Some(Slot::Held(conn)) => conn,
                Some(Slot::Guarded) => return Ok(()),
                // Not held (or still being claimed by a concurrent call,
                // which keeps its slot): nothing to release.
                Some(Slot::Claiming) => {
                    held.insert(thread_id.to_string(), Slot::Claiming);
                    return Ok(());
                }
                None => return Ok(()),
            }
        };
        // A write in flight on the connection finishes first.
        let mut conn = conn.lock().await;
        let unlocked = sqlx::query("SELECT pg_advisory_unlock($1)")
            .bind(lock_key(&self.schema, thread_id))
            .fetch_one(&mut **conn)
            .await
            .and_then(|row| row.try_get::<bool, _>(0));
        if !matches!(unlocked, Ok(true)) {
            // The session is gone (its locks with it) or in an unknown
            // state: close it rather than pool it. Either way the thread
            // is free once this connection is closed.
            conn.close_on_drop();
        }
        Ok(())
    }

    /// The connection holding `thread_id`'s lock, when this saver holds it
    /// with one (not while claiming it, nor when a guard fences it instead).
    pub(super) fn held_connection(&self, thread_id: &str) -> Option<HeldConnection> {
        match super::lock(&self.held).get(thread_id) {
            Some(Slot::Held(conn)) => Some(Arc::clone(conn)),
            _ => None,
        }
    }
}

/// Who holds the lock `key`, for [`CheckpointError::ThreadBusy`].
async fn holder(conn: &mut PoolConnection<Postgres>, key: i64) -> String {
    let high = key >> 32 & 0xffff_ffff;
    let low = key & 0xffff_ffff;
    let found = sqlx::query(SELECT_HOLDER)
        .bind(high)
        .bind(low)
        .fetch_optional(&mut **conn)
        .await;
    match found {
        Ok(Some(row)) => {
            let pid: i32 = row.try_get(0).unwrap_or_default();
            let name: String = row.try_get(1).unwrap_or_default();
            let client: String = row.try_get(2).unwrap_or_default();
            let name = if name.is_empty() {
                String::new()
            } else {
                format!("{name}, ")
            };
            format!("{name}client {client}, PostgreSQL backend {pid}")
        }
        _ => "another PostgreSQL session".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::lock_key;

    #[test]
    fn lock_keys_are_stable_and_distinct() {
        assert_eq!(lock_key("public", "t"), lock_key("public", "t"));
        assert_ne!(lock_key("public", "t"), lock_key("public", "u"));
        assert_ne!(lock_key("public", ""), lock_key("public", "t"));
        assert_ne!(lock_key("a", "t"), lock_key("b", "t"));
        assert_ne!(lock_key("a", "bc"), lock_key("ab", "c"));
    }
}
