//! [`PostgresOptions`]: how [`crate::PostgresSaver::connect`] connects.

use std::time::Duration;

/// Connection settings of a [`crate::PostgresSaver`].
///
/// ```
/// use std::time::Duration;
///
/// use rebound_postgres::PostgresOptions;
///
/// let options = PostgresOptions::default()
///     .with_max_connections(32)
///     .with_connect_retries(10)
///     .with_retry_backoff(Duration::from_millis(250));
/// assert_eq!(options.max_connections(), 32);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostgresOptions {
    max_connections: u32,
    lock_connections: u32,
    connect_timeout: Duration,
    connect_retries: u32,
    retry_backoff: Duration,
    max_backoff: Duration,
    idle_in_transaction_timeout: Option<Duration>,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        PostgresOptions {
            max_connections: 16,
            lock_connections: 64,
            connect_timeout: Duration::from_secs(5),
            connect_retries: 5,
            retry_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(5),
            idle_in_transaction_timeout: None,
        }
    }
}

impl PostgresOptions {
    /// The most connections the pool for reads and writes opens (16 by default).
    pub fn with_max_connections(mut self, max: u32) -> Self {
        self.max_connections = max.max(1);
        self
    }

    /// The most threads this saver can hold at once through
    /// [`rebound_graph::checkpoint::Checkpointer::acquire`]: each held
    /// thread keeps one connection of a second pool (64 by default).
    pub fn with_lock_connections(mut self, max: u32) -> Self {
        self.lock_connections = max.max(1);
        self
    }

    /// How long one connection attempt, or a wait for a pooled connection,
    /// may take (5 s by default).
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How many times [`crate::PostgresSaver::connect`] tries again while
    /// the database cannot be reached (5 by default; 0 tries once).
    pub fn with_connect_retries(mut self, retries: u32) -> Self {
        self.connect_retries = retries;
        self
    }

    /// The wait before the first retry; each next wait doubles, up to 5 s
    /// (200 ms by default).
    pub fn with_retry_backoff(mut self, backoff: Duration) -> Self {
        self.retry_backoff = backoff;
        self
    }

    /// How long a session may sit idle inside a transaction before
    /// PostgreSQL ends it, releasing its locks
    /// (`idle_in_transaction_session_timeout`; unbounded by default). A
    /// process paused in the middle of a transaction (`SIGSTOP`, a frozen
    /// VM) otherwise keeps the rows it locked for as long as it stays
    /// paused: a fenced checkpoint write holds its run's row, which the
    /// reaper then passes over, so the run is never given to another
    /// worker. A server on PostgreSQL bounds it by its lease.
    pub fn with_idle_in_transaction_timeout(mut self, timeout: Duration) -> Self {
        self.idle_in_transaction_timeout = Some(timeout);
        self
    }

    /// The most connections of the read/write pool.
    pub fn max_connections(&self) -> u32 {
        self.max_connections
    }

    /// The most threads held at once.
    pub fn lock_connections(&self) -> u32 {
        self.lock_connections
    }

    /// The timeout of one connection attempt.
    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// The retries while the database cannot be reached.
    pub fn connect_retries(&self) -> u32 {
        self.connect_retries
    }

    /// How long a session may sit idle inside a transaction, if bounded.
    pub fn idle_in_transaction_timeout(&self) -> Option<Duration> {
        self.idle_in_transaction_timeout
    }

    /// The wait before retry `attempt` (1 for the first retry).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32 << attempt.saturating_sub(1).min(16);
        self.retry_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }
}
