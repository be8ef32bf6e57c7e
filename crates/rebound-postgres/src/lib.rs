#![doc = include_str!("../README.md")]

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
