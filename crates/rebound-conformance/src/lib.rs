//! The checkpointer conformance suite: the durable-run scenarios of
//! `rebound-graph` (checkpoints and history, interrupts and resume, the
//! journal, pending writes, time travel and forks, errors and atomic
//! supersteps, `Send` with durability), written once against a [`Backend`]
//! so that every [`Checkpointer`](rebound_graph::checkpoint::Checkpointer)
//! store runs the same ones.
//!
//! A store's crate runs the suite from an integration test:
//!
//! ```ignore
//! // crates/rebound-conformance/tests/memory.rs
//! use rebound_conformance::{MemoryBackend, Unavailable};
//!
//! fn memory() -> Result<MemoryBackend, Unavailable> {
//!     Ok(MemoryBackend)
//! }
//!
//! rebound_conformance::checkpointer_tests!(memory());
//! ```
//!
//! The scenarios are test code: they assert, and a failed assertion or
//! `unwrap` is the failure being reported, so this crate allows both.

// The crate is a test suite: a panic is how a scenario fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod backend;
mod macros;
mod memory;
pub mod scenarios;

pub use backend::{Backend, Unavailable};
pub use macros::SCENARIOS;
pub use memory::MemoryBackend;
