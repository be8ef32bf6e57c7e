//! The conformance suite on the in-memory saver.

use rebound_conformance::{MemoryBackend, Unavailable};

/// A fresh memory backend per scenario; always available.
fn memory() -> Result<MemoryBackend, Unavailable> {
    Ok(MemoryBackend)
}

rebound_conformance::checkpointer_tests!(memory());
