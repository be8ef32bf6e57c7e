//! The fenced run queue and the run event log, shared by many API servers
//! and worker processes through one PostgreSQL database.
//!
//! * **Claims** ([`RunQueue::claim`]) take the oldest claimable runs with
//!   `FOR UPDATE SKIP LOCKED`: at most one running run per thread, FIFO per
//!   thread (a requeued run keeps its place), and a partial unique index as
//!   the hard backstop.
//! * **Leases** ([`Lease`]): every claim increments the run's `epoch`, and
//!   every write of the worker is fenced by `run_id + epoch + status =
//!   running`, so a paused or partitioned ("zombie") worker can never write
//!   after its run moved on: [`RunQueue::finish`], [`RunQueue::append_events`],
//!   [`RunQueue::heartbeat`], [`RunQueue::set_base_checkpoint`] and the
//!   checkpointer's writes (through [`LeaseGuard`]) are all refused.
//! * **The reaper** ([`RunQueue::reap`]), which any worker may call, queues
//!   again the runs whose lease lapsed (with an exponential backoff), or
//!   fails them after [`QueueConfig::max_attempts`].
//! * **Events** are appended under the lease and announced with one
//!   `NOTIFY` per batch, sent at commit ([`RunQueue::listen`]).
//!
//! Every time is the database's clock (`now()`), never a worker's.

/// The SQL of the wait before a run's next attempt, one definition for
/// the reaper and for a run given back after a passing failure:
/// `base * 2^(attempt - 1)` milliseconds, at most `cap` (`$attempt` a
/// column, `$base` and `$cap` the statement's parameters).
macro_rules! backoff_sql {
    ($attempt:literal, $base:literal, $cap:literal) => {
        concat!(
            "LEAST(",
            $base,
            "::float8 * power(2.0::float8, GREATEST(",
            $attempt,
            " - 1, 0)::float8), ",
            $cap,
            "::float8) * interval '1 millisecond'"
        )
    };
}

mod cancel;
mod claim;
mod config;
mod effect;
mod error;
mod events;
mod guard;
mod lease;
mod notify;
mod reap;
mod records;
mod retry;
mod rows;
mod runs;
mod status;
mod threads;

pub use cancel::CancelOutcome;
pub use config::QueueConfig;
pub use effect::EffectKey;
pub use error::QueueError;
pub use guard::{Lease, LeaseGuard};
pub use lease::Heartbeat;
pub use notify::{Notification, Notifications};
pub use reap::ReapReport;
pub use records::{EventRow, NewRun, RunRow, ThreadRow, ThreadSearch};
pub use status::{CancelAction, RunStatus, ThreadStatus};

use sqlx::PgPool;

/// The channel announcing queued and ended runs (a worker claims on it).
pub const RUNS_CHANNEL: &str = "rebound_runs";
/// The channel announcing appended run events, `<run_id>:<last_seq>`.
pub const EVENTS_CHANNEL: &str = "rebound_run_events";

/// The run queue, its leases and the run event log on one database.
///
/// Cheap to clone: it shares the pool.
#[derive(Debug, Clone)]
pub struct RunQueue {
    pool: PgPool,
    config: QueueConfig,
}

impl RunQueue {
    /// A queue on `pool`'s database, whose schema
    /// [`crate::migrate::migrate`] brought up to date.
    pub fn new(pool: PgPool, config: QueueConfig) -> Self {
        RunQueue { pool, config }
    }

    /// The pool it uses.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Its configuration.
    pub fn config(&self) -> &QueueConfig {
        &self.config
    }
}
