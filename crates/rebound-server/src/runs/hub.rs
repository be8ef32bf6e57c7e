//! The live side of run streams: each running run's events in memory, for
//! every client streaming it, however many and however slow.
//!
//! A run's events are one shared list; a client keeps only its position in
//! it, so a slow client costs no memory and never holds the run back (the
//! socket's own buffer bounds what waits for it). Events of earlier
//! attempts, and of runs that ended, are read from the store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::sync::watch;

use crate::store::StoredEvent;

/// One live run's events.
pub(crate) struct RunChannel {
    events: Mutex<Vec<StoredEvent>>,
    /// The last seq pushed, and whether the run ended.
    progress: watch::Sender<(u64, bool)>,
    /// The state it ended with (with `__interrupt__` or `__error__`), for
    /// clients waiting for it.
    result: Mutex<Option<Value>>,
}

impl RunChannel {
    fn new() -> Self {
        RunChannel {
            events: Mutex::new(Vec::new()),
            progress: watch::channel((0, false)).0,
            result: Mutex::new(None),
        }
    }

    /// Adds an event (seqs increase).
    pub(crate) fn push(&self, event: StoredEvent) {
        let seq = event.seq;
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
        self.progress.send_modify(|p| p.0 = seq);
    }

    /// Records the state the run ended with.
    pub(crate) fn set_result(&self, result: Value) {
        *self.result.lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
    }

    /// The state the run ended with, once it has.
    pub(crate) fn result(&self) -> Option<Value> {
        self.result
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Marks the run ended: clients that caught up stop.
    pub(crate) fn finish(&self) {
        self.progress.send_modify(|p| p.1 = true);
    }

    /// The events after `after`.
    pub(crate) fn after(&self, after: u64) -> Vec<StoredEvent> {
        let events = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        let start = events.partition_point(|e| e.seq <= after);
        events[start..].to_vec()
    }

    /// A receiver of the progress.
    pub(crate) fn subscribe(&self) -> watch::Receiver<(u64, bool)> {
        self.progress.subscribe()
    }

    /// Whether the run ended.
    pub(crate) fn is_finished(&self) -> bool {
        self.progress.borrow().1
    }
}

/// The live runs' channels, by run id.
#[derive(Default)]
pub(crate) struct Hub {
    runs: Mutex<HashMap<String, Arc<RunChannel>>>,
}

impl Hub {
    /// The channel of `run_id`, made if it has none.
    pub(crate) fn open(&self, run_id: &str) -> Arc<RunChannel> {
        let mut runs = self.runs.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(
            runs.entry(run_id.to_string())
                .or_insert_with(|| Arc::new(RunChannel::new())),
        )
    }

    /// The channel of `run_id`, if it is live.
    pub(crate) fn get(&self, run_id: &str) -> Option<Arc<RunChannel>> {
        self.runs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(run_id)
            .cloned()
    }

    /// Forgets `run_id`'s channel (clients streaming it keep theirs).
    pub(crate) fn close(&self, run_id: &str) {
        self.runs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(run_id);
    }
}
