//! The checkpoints this connection wrote or read last, kept in memory so
//! that the next run of a thread starts without reading its chain back.
//!
//! A run on a thread reads the thread's latest checkpoint and its chain
//! back to a snapshot, which the run before it has just written: under a
//! server's load those reads were a quarter of its time, all of it spent
//! on the one connection every run waits for. A stored checkpoint never
//! changes, so a copy stays right for as long as the row exists; what can
//! go stale is which checkpoint is a thread's latest, and whether a row
//! still exists. Both change only through this connection's own writes and
//! deletes, which keep the cache in step, or through another connection
//! (another process on the file), which SQLite's `PRAGMA data_version`
//! reveals: the whole cache is dropped then.
//!
//! Only threads whose latest checkpoint has been read are kept: a run
//! that only writes (a thread's first run, a benchmark of writes) pays for
//! no copies it would never read back. Bounded by bytes; the oldest
//! entries go first.

use std::collections::{HashMap, VecDeque};

use rebound_graph::checkpoint::{CheckpointId, StoredCheckpoint};

/// What an entry costs beyond its blobs (keys, bookkeeping), for the bound.
const ENTRY_OVERHEAD: usize = 128;

/// A thread's cached checkpoints, and its latest when known.
#[derive(Default)]
struct ThreadEntries {
    rows: HashMap<CheckpointId, StoredCheckpoint>,
    /// The thread's latest checkpoint (highest id), when known for sure.
    latest: Option<CheckpointId>,
}

/// Recently written or read checkpoints, by thread and id.
pub(crate) struct CheckpointCache {
    budget: usize,
    bytes: usize,
    /// Rows kept, over all threads.
    rows: usize,
    threads: HashMap<String, ThreadEntries>,
    /// Insertion order, for eviction (entries already gone are skipped).
    order: VecDeque<(String, CheckpointId)>,
    /// `PRAGMA data_version` when the cache was last known to be current.
    data_version: Option<i64>,
}

impl CheckpointCache {
    /// A cache of at most `budget` bytes (0: nothing is kept).
    pub(crate) fn new(budget: usize) -> Self {
        CheckpointCache {
            budget,
            bytes: 0,
            rows: 0,
            threads: HashMap::new(),
            order: VecDeque::new(),
            data_version: None,
        }
    }

    /// Whether it keeps anything at all.
    pub(crate) fn enabled(&self) -> bool {
        self.budget > 0
    }

    /// Drops everything if `data_version` shows another connection's
    /// commit since the last call.
    pub(crate) fn check_version(&mut self, data_version: i64) {
        if self.data_version != Some(data_version) {
            self.clear();
            self.data_version = Some(data_version);
        }
    }

    /// Drops everything.
    pub(crate) fn clear(&mut self) {
        self.threads.clear();
        self.order.clear();
        self.bytes = 0;
        self.rows = 0;
    }

    /// Drops everything of `thread_id` (deleted, or written over).
    pub(crate) fn forget_thread(&mut self, thread_id: &str) {
        if let Some(entries) = self.threads.remove(thread_id) {
            self.bytes = self
                .bytes
                .saturating_sub(entries.rows.values().map(cost).sum());
            self.rows = self.rows.saturating_sub(entries.rows.len());
        }
    }

    /// The checkpoint `id` of `thread_id`, if cached.
    pub(crate) fn get(&self, thread_id: &str, id: CheckpointId) -> Option<&StoredCheckpoint> {
        self.threads.get(thread_id)?.rows.get(&id)
    }

    /// The thread's latest checkpoint, if it is known and cached.
    pub(crate) fn latest(&self, thread_id: &str) -> Option<&StoredCheckpoint> {
        let entries = self.threads.get(thread_id)?;
        entries.rows.get(&entries.latest?)
    }

    /// The chain from `id` back to its snapshot, if every link is cached.
    pub(crate) fn chain(&self, thread_id: &str, id: CheckpointId) -> Option<Vec<StoredCheckpoint>> {
        let entries = self.threads.get(thread_id)?;
        let mut chain = Vec::new();
        let mut next = Some(id);
        while let Some(id) = next {
            let row = entries.rows.get(&id)?;
            chain.push(row.clone());
            if row.state.is_snapshot() {
                return Some(chain);
            }
            // A delta whose parent is not cached: read the chain instead
            // (and a delta without a parent is for the reader to judge).
            next = Some(row.parent?);
            if chain.len() > entries.rows.len() {
                return None; // a cycle: let the reader report it
            }
        }
        None
    }

    /// Records that `latest` is `thread_id`'s latest checkpoint (read so):
    /// from now on the thread's checkpoints are kept.
    pub(crate) fn set_latest(&mut self, thread_id: &str, latest: &StoredCheckpoint) {
        if !self.enabled() || cost(latest) > self.budget / 4 {
            return;
        }
        if !self.threads.contains_key(thread_id) {
            self.threads
                .insert(thread_id.to_string(), ThreadEntries::default());
        }
        self.insert(latest);
        if let Some(entries) = self.threads.get_mut(thread_id) {
            entries.latest = Some(latest.id);
        }
    }

    /// Keeps copies of checkpoints read, of the threads kept.
    pub(crate) fn insert_read(&mut self, rows: &[StoredCheckpoint]) {
        for row in rows {
            self.insert(row);
        }
    }

    /// Keeps copies of checkpoints this connection has just committed, of
    /// the threads kept; such a thread's latest is the newest.
    pub(crate) fn insert_written(&mut self, rows: &[StoredCheckpoint]) {
        for row in rows {
            self.insert(row);
            if let Some(entries) = self.threads.get_mut(&row.thread_id) {
                if entries.latest.is_some_and(|latest| latest < row.id) {
                    entries.latest = Some(row.id);
                }
            }
        }
    }

    /// Keeps a copy of `row` if its thread is kept (and the row fits).
    fn insert(&mut self, row: &StoredCheckpoint) {
        let size = cost(row);
        if size > self.budget / 4 {
            return;
        }
        let Some(entries) = self.threads.get_mut(&row.thread_id) else {
            return;
        };
        if entries.rows.contains_key(&row.id) {
            return;
        }
        entries.rows.insert(row.id, row.clone());
        self.bytes += size;
        self.rows += 1;
        self.order.push_back((row.thread_id.clone(), row.id));
        while self.bytes > self.budget {
            let Some((thread_id, id)) = self.order.pop_front() else {
                break;
            };
            let Some(entries) = self.threads.get_mut(&thread_id) else {
                continue;
            };
            if let Some(gone) = entries.rows.remove(&id) {
                self.bytes = self.bytes.saturating_sub(cost(&gone));
                self.rows = self.rows.saturating_sub(1);
            }
            if entries.rows.is_empty() {
                self.threads.remove(&thread_id);
            }
        }
        if self.order.len() > 4 * self.rows + 64 {
            // Entries forgotten with their thread linger in `order`.
            let threads = &self.threads;
            self.order.retain(|(thread_id, id)| {
                threads
                    .get(thread_id)
                    .is_some_and(|t| t.rows.contains_key(id))
            });
        }
    }
}

/// What a row costs the budget.
fn cost(row: &StoredCheckpoint) -> usize {
    row.state.bytes().len() + row.meta.len() + row.thread_id.len() + ENTRY_OVERHEAD
}

#[cfg(test)]
mod tests {
    use super::CheckpointCache;
    use rebound_graph::checkpoint::{CheckpointId, StateBlob, StoredCheckpoint};

    fn row(
        thread: &str,
        id: CheckpointId,
        parent: Option<CheckpointId>,
        snapshot: bool,
    ) -> StoredCheckpoint {
        StoredCheckpoint {
            thread_id: thread.to_string(),
            id,
            parent,
            step: 0,
            state: if snapshot {
                StateBlob::Snapshot(vec![1; 100])
            } else {
                StateBlob::Delta(vec![2; 10])
            },
            meta: Vec::new(),
        }
    }

    #[test]
    fn a_chain_is_served_only_when_every_link_is_cached() {
        let ids: Vec<CheckpointId> = (0..3).map(|_| CheckpointId::new()).collect();
        let mut cache = CheckpointCache::new(1 << 20);
        let rows = [
            row("t", ids[0], None, true),
            row("t", ids[1], Some(ids[0]), false),
            row("t", ids[2], Some(ids[1]), false),
        ];
        cache.set_latest("t", &rows[1]);
        cache.insert_written(&rows[2..]);
        assert!(cache.chain("t", ids[2]).is_none());
        cache.insert_read(&rows[..1]);
        let chain = cache.chain("t", ids[2]).unwrap();
        assert_eq!(
            chain.iter().map(|c| c.id).collect::<Vec<_>>(),
            [ids[2], ids[1], ids[0]]
        );
    }

    #[test]
    fn the_latest_is_known_only_once_read_and_then_follows_writes() {
        let ids: Vec<CheckpointId> = (0..2).map(|_| CheckpointId::new()).collect();
        let mut cache = CheckpointCache::new(1 << 20);
        let first = row("t", ids[0], None, true);
        let second = row("t", ids[1], Some(ids[0]), false);
        cache.insert_written(std::slice::from_ref(&first));
        assert!(cache.latest("t").is_none(), "a write alone proves nothing");
        assert!(
            cache.get("t", ids[0]).is_none(),
            "a thread whose latest was never read is not kept"
        );
        cache.set_latest("t", &first);
        assert_eq!(cache.latest("t").map(|c| c.id), Some(ids[0]));
        cache.insert_written(std::slice::from_ref(&second));
        assert_eq!(cache.latest("t").map(|c| c.id), Some(ids[1]));
        cache.forget_thread("t");
        assert!(cache.latest("t").is_none());
        cache.set_latest("t", &second);
        cache.check_version(1);
        assert!(
            cache.latest("t").is_none(),
            "a first version check drops all"
        );
        cache.set_latest("t", &second);
        cache.check_version(1);
        assert!(cache.latest("t").is_some());
        cache.check_version(2);
        assert!(cache.latest("t").is_none(), "another connection committed");
    }

    #[test]
    fn the_oldest_entries_go_past_the_budget() {
        let ids: Vec<CheckpointId> = (0..40).map(|_| CheckpointId::new()).collect();
        // Room for about ten snapshots of 100 bytes (plus overhead).
        let mut cache = CheckpointCache::new(10 * (100 + 1 + super::ENTRY_OVERHEAD));
        cache.set_latest("t", &row("t", ids[0], None, true));
        for id in &ids[1..] {
            cache.insert_written(&[row("t", *id, None, true)]);
        }
        assert!(cache.bytes <= cache.budget);
        assert!(cache.get("t", ids[0]).is_none());
        assert!(cache.get("t", ids[39]).is_some());
        let kept = ids
            .iter()
            .filter(|id| cache.get("t", **id).is_some())
            .count();
        assert!((8..=10).contains(&kept), "{kept}");
        let disabled = CheckpointCache::new(0);
        assert!(!disabled.enabled());
    }
}
