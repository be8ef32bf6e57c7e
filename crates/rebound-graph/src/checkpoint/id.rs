//! [`CheckpointId`]: unique, time-ordered, 64-bit.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A checkpoint's id: microseconds since the Unix epoch shifted left by 8
/// bits, kept strictly increasing within a process and along every thread
/// ([`CheckpointId::after`] its parent, even when the clock stepped back
/// since the parent was made, in this process or another). Ids therefore
/// sort in creation order, and fit an SQLite INTEGER. Shown as 16 hex
/// digits.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct CheckpointId(u64);

static LAST: AtomicU64 = AtomicU64::new(0);

impl CheckpointId {
    /// A new id, greater than every id this process made before.
    pub fn new() -> Self {
        CheckpointId::after(None)
    }

    /// A new id for a checkpoint whose parent is `parent`: greater than
    /// every id this process made before and than the parent (so the
    /// newest checkpoint of a thread is its head even after the clock
    /// stepped back since the parent was made). A parent ahead of the
    /// clock moves only its own thread's ids ahead, not the process's.
    pub fn after(parent: Option<CheckpointId>) -> Self {
        let micros = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX >> 8))
            .unwrap_or(0);
        let mut last = LAST.load(Ordering::Relaxed);
        let fresh = loop {
            let next = (micros << 8).max(last.saturating_add(1));
            match LAST.compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break next,
                Err(actual) => last = actual,
            }
        };
        CheckpointId(above(fresh, parent))
    }

    /// When the id was made, in milliseconds since the Unix epoch.
    pub const fn created_ms(self) -> u64 {
        (self.0 >> 8) / 1000
    }

    /// The id as stored.
    pub const fn as_u64(self) -> u64 {
        self.0
    }

    /// An id from its stored value.
    pub const fn from_u64(value: u64) -> Self {
        CheckpointId(value)
    }
}

/// `fresh` (an id from the clock), or the id right after `parent` when
/// the parent is not below it.
fn above(fresh: u64, parent: Option<CheckpointId>) -> u64 {
    fresh.max(parent.map_or(0, |p| p.0.saturating_add(1)))
}

impl Default for CheckpointId {
    fn default() -> Self {
        CheckpointId::new()
    }
}

impl fmt::Display for CheckpointId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// A string that is not 1–16 hex digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a checkpoint id (expected up to 16 hex digits)")]
pub struct ParseCheckpointIdError(String);

impl FromStr for CheckpointId {
    type Err = ParseCheckpointIdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.is_empty() || s.len() > 16 {
            return Err(ParseCheckpointIdError(s.to_string()));
        }
        u64::from_str_radix(s, 16)
            .map(CheckpointId)
            .map_err(|_| ParseCheckpointIdError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_increase_and_round_trip_through_text() {
        let a = CheckpointId::new();
        let b = CheckpointId::new();
        assert!(b > a);
        assert_eq!(a.to_string().parse::<CheckpointId>(), Ok(a));
        assert!("xyz".parse::<CheckpointId>().is_err());
        assert!("".parse::<CheckpointId>().is_err());
    }

    #[test]
    fn an_id_follows_its_parent_when_the_clock_went_back() {
        let now = 1_700_000_000_000_000u64 << 8;
        // The parent was made an hour ahead of the clock (the clock has
        // since been set back), perhaps in another process.
        let parent = CheckpointId::from_u64(now + (3_600_000_000 << 8));
        assert_eq!(above(now, Some(parent)), parent.0 + 1);
        assert_eq!(above(now, None), now);
        assert_eq!(above(now, Some(CheckpointId::from_u64(5))), now);
        let ahead = CheckpointId::from_u64(CheckpointId::new().0 + (3_600_000_000 << 8));
        let child = CheckpointId::after(Some(ahead));
        assert!(child > ahead);
        assert!(CheckpointId::after(Some(child)) > child);
        // The process's own ids stay with the clock.
        assert!(CheckpointId::new() < ahead);
    }
}
