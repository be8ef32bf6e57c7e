//! [`QueueConfig`]: leases, attempts and backoff.

use std::time::Duration;

/// How the queue leases runs and retries those whose lease lapsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueConfig {
    /// How long a claim or a heartbeat holds a run (default 10 s). Workers
    /// heartbeat well within it (a third of it is a good interval).
    pub lease_ttl: Duration,
    /// The claims a run may take: a lease that lapses on the last one
    /// fails the run (default 3).
    pub max_attempts: u32,
    /// The wait before a reaped run may be claimed again, doubled for each
    /// further attempt: `backoff_base * 2^(attempt - 1)` (default 1 s).
    pub backoff_base: Duration,
    /// The longest such wait (default 60 s).
    pub backoff_cap: Duration,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            lease_ttl: Duration::from_secs(10),
            max_attempts: 3,
            backoff_base: Duration::from_secs(1),
            backoff_cap: Duration::from_secs(60),
        }
    }
}

/// `duration` in whole milliseconds, as SQL takes it.
pub(crate) fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
