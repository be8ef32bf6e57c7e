//! rebound's embedded checkpointer: [`SqliteSaver`] stores a graph's
//! checkpoints, pending writes and thread locks in one SQLite file.
//!
//! A graph compiled with it keeps each thread's checkpoints in the file,
//! where a later process (here, a second saver on the same file) finds them:
//!
//! ```
//! use std::sync::Arc;
//!
//! use rebound_graph::checkpoint::Checkpointer;
//! use rebound_graph::{RunConfig, State, StateGraph, END, START};
//! use rebound_sqlite::SqliteSaver;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
//! struct Tally {
//!     count: u32,
//! }
//!
//! fn graph() -> StateGraph<Tally> {
//!     let mut graph = StateGraph::<Tally>::new();
//!     graph
//!         .add_sync_node("add", |s, _| Ok(TallyUpdate::default().count(s.count + 1)))
//!         .add_edge(START, "add")
//!         .add_edge("add", END);
//!     graph
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("rebound.db");
//! let thread = RunConfig::new().with_thread_id("tally");
//!
//! let saver = Arc::new(SqliteSaver::open_default(&path)?);
//! let run = graph().compile()?.with_checkpointer(saver);
//! assert_eq!(run.invoke(Tally { count: 41 }, thread.clone()).await?.count, 42);
//!
//! // Reopened, the file still holds the thread: its state and its checkpoints.
//! let reopened = Arc::new(SqliteSaver::open_default(&path)?);
//! let threads = reopened.threads().await?;
//! assert_eq!(threads[0].thread_id, "tally");
//! let read = graph().compile()?.with_checkpointer(reopened);
//! assert_eq!(read.get_state(&thread).await?.values.count, 42);
//! // One checkpoint for the input, one for the superstep of `add`.
//! assert_eq!(read.history(&thread, None, None).await?.len(), 2);
//! # Ok(())
//! # }
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
/// The SQLite binding [`SqliteSaver::with_connection`] hands out, at the
/// version this crate uses.
pub use rusqlite;
pub use saver::{SaverStats, SqliteSaver, ThreadHold};
pub use schema::SCHEMA_VERSION;
pub use store::AppliedSettings;
