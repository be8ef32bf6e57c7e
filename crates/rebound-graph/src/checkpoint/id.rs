//! [`CheckpointId`]: unique, time-ordered, 64-bit.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A checkpoint's id: microseconds since the Unix epoch shifted left by 8
/// bits, kept strictly increasing within a process. Ids therefore sort in
/// creation order, and fit an SQLite INTEGER. Shown as 16 hex digits.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct CheckpointId(u64);

static LAST: AtomicU64 = AtomicU64::new(0);

impl CheckpointId {
    /// A new id, greater than every id this process made before.
    pub fn new() -> Self {
        let micros = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_micros() as u64)
            .unwrap_or(0);
        let candidate = micros << 8;
        let mut last = LAST.load(Ordering::Relaxed);
        loop {
            let next = candidate.max(last + 1);
            match LAST.compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return CheckpointId(next),
                Err(actual) => last = actual,
            }
        }
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
}
