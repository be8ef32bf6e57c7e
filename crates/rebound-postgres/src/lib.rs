//! rebound's scale-out store on PostgreSQL: the one shared system when one
//! machine is not enough.
//!
//! * [`saver`]: the Postgres [`rebound_graph::checkpoint::Checkpointer`],
//!   with a schema versioned by embedded migrations.
//! * [`migrate`]: the schema, as embedded migrations applied in order.
//! * [`guard`]: a condition checked inside a checkpoint write's own
//!   transaction (how a run's lease fences its writes).
//! * [`queue`]: the run queue: claims with `FOR UPDATE SKIP LOCKED`, leases
//!   with an epoch, heartbeats, a reaper, and the run event log fanned out
//!   with `LISTEN/NOTIFY`.

mod error;
pub mod guard;
pub mod migrate;
pub mod queue;
mod retry;
pub mod saver;
#[cfg(feature = "testing")]
pub mod testing;

pub use error::PostgresError;
pub use guard::WriteGuard;
pub use saver::{PostgresOptions, PostgresSaver};
