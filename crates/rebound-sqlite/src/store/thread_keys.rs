//! Thread names to their row of `threads`, remembered for the lookups that
//! follow. Rows of `threads` are never deleted or changed, so a
//! remembered mapping stays valid for good; but a server that makes a new
//! thread per conversation would keep every name it ever saw (found by a
//! 30-minute soak of the benchmark server, a new thread every 100 runs:
//! its anonymous memory grew 12%). So the map is bounded: when it is
//! full, it starts again empty, and a thread it no longer holds is looked
//! up once more (one indexed read).

use std::collections::HashMap;

use crate::codec::ThreadRef;

/// Threads remembered at most.
const LIMIT: usize = 16_384;

/// A bounded map of thread names to their row of `threads`.
pub(crate) struct ThreadKeys {
    map: HashMap<String, ThreadRef>,
    limit: usize,
}

impl Default for ThreadKeys {
    fn default() -> Self {
        ThreadKeys::with_limit(LIMIT)
    }
}

impl ThreadKeys {
    /// An empty map of at most `limit` threads.
    fn with_limit(limit: usize) -> Self {
        ThreadKeys {
            map: HashMap::new(),
            limit: limit.max(1),
        }
    }

    /// The row of `name`, when remembered.
    pub(crate) fn get(&self, name: &str) -> Option<&ThreadRef> {
        self.map.get(name)
    }

    /// Remembers `name`'s row; when the map is full, it first forgets
    /// every other.
    pub(crate) fn insert(&mut self, name: String, thread: ThreadRef) {
        if self.map.len() >= self.limit && !self.map.contains_key(&name) {
            self.map.clear();
        }
        self.map.insert(name, thread);
    }

    /// Remembers each of `threads`.
    pub(crate) fn extend(&mut self, threads: impl IntoIterator<Item = (String, ThreadRef)>) {
        for (name, thread) in threads {
            self.insert(name, thread);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key: i64) -> ThreadRef {
        ThreadRef { key, base: 0 }
    }

    #[test]
    fn the_map_never_holds_more_than_its_limit() {
        let mut keys = ThreadKeys::with_limit(3);
        keys.extend((0..3).map(|n| (format!("t{n}"), row(n))));
        assert_eq!(keys.get("t2").map(|t| t.key), Some(2));
        // Known names do not count twice.
        keys.insert("t1".to_string(), row(1));
        assert_eq!(keys.map.len(), 3);
        for n in 3..100 {
            keys.insert(format!("t{n}"), row(n));
            assert!(keys.map.len() <= 3);
            assert_eq!(keys.get(&format!("t{n}")).map(|t| t.key), Some(n));
        }
        assert!(keys.get("t0").is_none(), "forgotten, to be looked up again");
    }
}
