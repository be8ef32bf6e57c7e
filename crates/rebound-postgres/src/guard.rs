//! [`WriteGuard`]: a condition checked inside a checkpoint write's own
//! transaction, so that a worker that lost its lease cannot write.
//!
//! A worker's lease can expire while it still runs (a long pause, a
//! partition); the run is then reclaimed by another worker. The first
//! worker's late writes must not land: with a guard attached to the thread
//! ([`crate::PostgresSaver::guard_thread`]), every `put` and `put_writes` to
//! the thread checks the guard in the transaction that inserts, before the
//! inserts, and rolls back with [`crate::PostgresError::Fenced`] when it no
//! longer holds. A guard that reads a row `FOR SHARE` (or `FOR UPDATE`) also
//! keeps a concurrent reclaim from committing in between.

use async_trait::async_trait;

/// A condition a guarded thread's writes must meet, checked inside each
/// write's transaction (for example: "run R is still leased at epoch E").
#[async_trait]
pub trait WriteGuard: Send + Sync + 'static {
    /// Checked inside the write's transaction before it commits; false aborts the write.
    async fn holds(&self, conn: &mut sqlx::PgConnection) -> Result<bool, sqlx::Error>;

    /// Names what was lost, for the error (e.g. "run 0192… epoch 3").
    fn describe(&self) -> String;
}
