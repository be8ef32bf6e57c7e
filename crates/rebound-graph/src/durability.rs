//! [`Durability`]: when a run's checkpoints are committed. A leaf of the
//! engine: the run's config names it, the persister follows it.

use std::time::Duration;

/// When checkpoints are committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Durability {
    /// Each superstep's checkpoint is committed before the next superstep
    /// starts (the default): a crash loses nothing that finished.
    #[default]
    Sync,
    /// Checkpoints are committed in batches of up to `max_steps`, or once the
    /// oldest uncommitted one is `max_delay` old; always at an interrupt, an
    /// error, the end of the run, and before a journaled call. A crash loses
    /// at most the uncommitted batch, which the run then repeats.
    Batched {
        /// Most checkpoints per transaction.
        max_steps: usize,
        /// Longest time a checkpoint stays uncommitted.
        max_delay: Duration,
    },
}

impl Durability {
    /// The mode's name, as reported: `sync` or `batched`.
    pub fn name(&self) -> &'static str {
        match self {
            Durability::Sync => "sync",
            Durability::Batched { .. } => "batched",
        }
    }

    /// Batched with 64 steps and 100 ms.
    pub fn batched() -> Self {
        Durability::Batched {
            max_steps: 64,
            max_delay: Duration::from_millis(100),
        }
    }
}
