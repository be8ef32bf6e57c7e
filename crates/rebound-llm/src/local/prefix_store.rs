//! Saved KV states of earlier prompts, so a call whose prompt begins like
//! any recent one — not only the last — decodes only the rest.
//!
//! An agent alternates call kinds (planner, editor, reviewer), each with
//! its own system text and a long shared context; the KV cache holds only
//! the last call, so without this the planner's second call decoded its
//! whole prompt again after an editor call. The store keeps the state of
//! each recent prompt, bounded by bytes, least recently used out first.

/// A prompt's saved state, with the tokens it holds.
struct Saved<S, T> {
    tokens: Vec<T>,
    state: S,
    bytes: usize,
    used: u64,
}

/// Recent prompts' states, at most `budget` bytes of them (one entry is
/// kept whatever its size).
pub(crate) struct PrefixStore<S, T> {
    entries: Vec<Saved<S, T>>,
    budget: usize,
    clock: u64,
}

/// A saved prompt sharing a prefix with a new one.
pub(crate) struct Hit<'a, S, T> {
    /// How many leading tokens the two prompts share.
    pub(crate) shared: usize,
    /// The saved state (of all of `tokens`).
    pub(crate) state: &'a S,
    /// The saved prompt's tokens.
    pub(crate) tokens: &'a [T],
}

/// How many leading items `a` and `b` share.
pub(crate) fn shared_prefix<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl<S, T: PartialEq> PrefixStore<S, T> {
    /// An empty store holding at most `budget` bytes of states.
    pub(crate) fn new(budget: usize) -> Self {
        PrefixStore {
            entries: Vec::new(),
            budget,
            clock: 0,
        }
    }

    /// The saved prompt sharing the longest prefix with `tokens` (none
    /// when no saved prompt shares a token); it counts as used.
    pub(crate) fn best(&mut self, tokens: &[T]) -> Option<Hit<'_, S, T>> {
        let (index, shared) = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, saved)| (i, shared_prefix(&saved.tokens, tokens)))
            .filter(|&(_, shared)| shared > 0)
            .max_by_key(|&(i, shared)| (shared, self.entries[i].used))?;
        self.clock += 1;
        let saved = &mut self.entries[index];
        saved.used = self.clock;
        Some(Hit {
            shared,
            state: &saved.state,
            tokens: &saved.tokens,
        })
    }

    /// Whether a saved prompt is exactly `tokens` or begins with them, so
    /// saving `tokens` would add nothing.
    pub(crate) fn covers(&self, tokens: &[T]) -> bool {
        self.entries
            .iter()
            .any(|saved| saved.tokens.len() >= tokens.len() && saved.tokens.starts_with(tokens))
    }

    /// Keeps `state`, the state of `tokens` (`bytes` large). Saved prompts
    /// that `tokens` begins with are dropped (the new one serves every
    /// prompt they serve); then the least recently used go until the
    /// store fits its budget.
    pub(crate) fn save(&mut self, tokens: Vec<T>, state: S, bytes: usize) {
        self.entries
            .retain(|saved| !tokens.starts_with(&saved.tokens));
        self.clock += 1;
        self.entries.push(Saved {
            tokens,
            state,
            bytes,
            used: self.clock,
        });
        while self.entries.len() > 1 && self.bytes() > self.budget {
            let Some(oldest) = self
                .entries
                .iter()
                .enumerate()
                .min_by_key(|(_, saved)| saved.used)
                .map(|(i, _)| i)
            else {
                break;
            };
            self.entries.remove(oldest);
        }
    }

    /// The bytes of all saved states.
    pub(crate) fn bytes(&self) -> usize {
        self.entries.iter().map(|saved| saved.bytes).sum()
    }

    /// How many prompts are saved.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Forgets every saved prompt.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> PrefixStore<&'static str, u32> {
        PrefixStore::new(100)
    }

    #[test]
    fn the_longest_shared_prefix_wins() {
        let mut store = store();
        store.save(vec![1, 2, 3, 4], "planner", 10);
        store.save(vec![1, 9, 9], "editor", 10);
        let hit = store.best(&[1, 2, 3, 7]).unwrap();
        assert_eq!((hit.shared, *hit.state), (3, "planner"));
        let hit = store.best(&[1, 9, 9, 9]).unwrap();
        assert_eq!((hit.shared, *hit.state), (3, "editor"));
        assert!(store.best(&[5, 6]).is_none());
    }

    #[test]
    fn a_prompt_that_extends_a_saved_one_replaces_it() {
        let mut store = store();
        store.save(vec![1, 2], "short", 10);
        store.save(vec![1, 2, 3], "long", 10);
        assert_eq!(store.len(), 1);
        assert!(store.covers(&[1, 2]));
        assert!(store.covers(&[1, 2, 3]));
        assert!(!store.covers(&[1, 2, 3, 4]));
        // A shorter prompt does not drop a longer one it begins.
        store.save(vec![1], "shorter", 10);
        assert_eq!(store.len(), 2);
    }

    #[test]
    fn the_least_recently_used_go_first_past_the_budget() {
        let mut store = store();
        store.save(vec![1], "a", 40);
        store.save(vec![2], "b", 40);
        store.best(&[1]); // a is now more recent than b
        store.save(vec![3], "c", 40);
        assert_eq!(store.len(), 2);
        assert!(store.best(&[2]).is_none(), "b was the least recently used");
        assert_eq!(*store.best(&[1]).unwrap().state, "a");
        assert_eq!(store.bytes(), 80);
    }

    #[test]
    fn one_entry_is_kept_whatever_its_size() {
        let mut store = store();
        store.save(vec![1], "a", 40);
        store.save(vec![2], "huge", 500);
        assert_eq!(store.len(), 1);
        assert_eq!(*store.best(&[2]).unwrap().state, "huge");
        store.clear();
        assert_eq!(store.len(), 0);
    }
}
