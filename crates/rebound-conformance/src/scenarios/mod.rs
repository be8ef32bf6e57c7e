//! The scenarios, one module per concern. Each is a public async function
//! taking the [`crate::Backend`] to run on; it panics (fails) when the store
//! does not behave.

pub mod checkpoints;
pub mod errors;
pub mod forks;
pub mod interrupts;
pub mod journal;
pub mod pending;
pub mod reopen;
pub mod send;
pub mod time_travel;
