#![doc = include_str!("../README.md")]

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
