#![doc = include_str!("../README.md")]
// The crate is a test suite: a panic is how a scenario fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod backend;
mod macros;
mod memory;
pub mod scenarios;

pub use backend::{Backend, Unavailable};
pub use macros::SCENARIOS;
pub use memory::MemoryBackend;
