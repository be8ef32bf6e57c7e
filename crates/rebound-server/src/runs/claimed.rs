//! The runs this server's queue claimed for its workers and no worker took
//! yet, and how many workers wait: what the app holds and the workers
//! share.

use crate::store::RunRecord;

/// Runs claimed for this server's workers and not yet taken by one, and how
/// many workers wait for work.
#[derive(Default)]
pub(crate) struct Claimed {
    runs: std::sync::Mutex<std::collections::VecDeque<RunRecord>>,
    idle: std::sync::atomic::AtomicIsize,
}

impl Claimed {
    pub(crate) fn take(&self) -> Option<RunRecord> {
        self.runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop_front()
    }

    pub(crate) fn give(&self, run: RunRecord) {
        self.runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push_back(run);
    }

    pub(crate) fn idle_count(&self) -> usize {
        usize::try_from(self.idle.load(std::sync::atomic::Ordering::Relaxed)).unwrap_or(0)
    }

    pub(crate) fn idle(&self, change: isize) {
        self.idle
            .fetch_add(change, std::sync::atomic::Ordering::Relaxed);
    }
}
