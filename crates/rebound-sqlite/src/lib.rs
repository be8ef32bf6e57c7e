//! rebound's embedded checkpointer: [`SqliteSaver`] stores a graph's
//! checkpoints, pending writes and thread locks in one SQLite file.
//!
//! ```no_run
//! use std::sync::Arc;
//! use rebound_graph::checkpoint::Checkpointer;
//! use rebound_sqlite::SqliteSaver;
//!
//! let saver: Arc<dyn Checkpointer> = Arc::new(SqliteSaver::open_default("rebound.db")?);
//! # Ok::<(), rebound_graph::checkpoint::CheckpointError>(())
//! ```
//!
//! The file layout (details at [`SCHEMA_VERSION`]): `threads` maps names to
//! small integers; `checkpoints` is a `WITHOUT ROWID` table keyed by
//! `(thread, id)`, written by commits of one or a few runs;
//! `checkpoints_by_time` holds the same rows in time order, written by group
//! commits of many concurrent runs; `writes` keeps pending writes in write
//! order; `locks` records which process runs which thread (the one answer
//! to "is it running": [`SqliteSaver::lock_holder`]); `thread_records` keeps
//! an application's [`ThreadRecord`] of each thread (times, a status, a
//! metadata object); and `rebound_schema` holds the schema version.

mod codec;
mod error;
mod group;
mod options;
mod process;
mod records;
mod saver;
mod schema;
mod store;

pub use error::SqliteSaverError;
pub use options::{ParseSynchronousError, SqliteOptions, Synchronous};
pub use records::{ParseThreadStatusError, ThreadRecord, ThreadStatus};
pub use saver::{SaverStats, SqliteSaver, ThreadHold};
pub use schema::SCHEMA_VERSION;
pub use store::AppliedSettings;
