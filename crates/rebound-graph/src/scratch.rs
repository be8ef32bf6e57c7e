//! What one node attempt carries to journal its calls and interrupt: the
//! results recorded by an earlier run of it, the resume values, and where
//! new results are committed ([`JournalSink`]: the run's persistence, seen
//! only through what the journal needs). `NodeContext` holds it; nothing
//! here knows how checkpoints are stored.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

use crate::checkpoint::{CheckpointError, CheckpointId, Checkpointer, PendingWrite};

/// Where a node attempt's journaled results are committed.
pub(crate) trait JournalSink: Send + Sync {
    /// The thread the run checkpoints.
    fn thread_id(&self) -> &str;
    /// The run's checkpointer.
    fn saver(&self) -> &Arc<dyn Checkpointer>;
    /// Commits `writes` as pending writes, with the checkpoints not yet
    /// committed, before it returns.
    fn commit<'a>(
        &'a self,
        writes: Vec<PendingWrite>,
    ) -> Pin<Box<dyn Future<Output = Result<(), CheckpointError>> + Send + 'a>>;
}

/// What one node attempt needs to journal and interrupt.
pub(crate) struct NodeScratch {
    /// Where its journaled results are committed.
    pub(crate) sink: Arc<dyn JournalSink>,
    /// The checkpoint the superstep started from.
    pub(crate) checkpoint: CheckpointId,
    /// Results recorded by an earlier run of this node in this superstep.
    pub(crate) recorded: Option<Arc<HashMap<String, Vec<u8>>>>,
    /// Values given to resume this node's interrupts, by index.
    pub(crate) resume: Option<Arc<Vec<serde_json::Value>>>,
    /// Answers to the interrupts of a subgraph this node runs, by their ids
    /// in this graph.
    pub(crate) answers: Option<Arc<BTreeMap<String, serde_json::Value>>>,
    occurrences: Mutex<HashMap<String, u32>>,
    /// The interrupts this attempt reached so far.
    pub(crate) interrupts_seen: AtomicUsize,
}

impl NodeScratch {
    pub(crate) fn new(
        sink: Arc<dyn JournalSink>,
        checkpoint: CheckpointId,
        recorded: Option<Arc<HashMap<String, Vec<u8>>>>,
        resume: Option<Arc<Vec<serde_json::Value>>>,
        answers: Option<Arc<BTreeMap<String, serde_json::Value>>>,
    ) -> Self {
        NodeScratch {
            sink,
            checkpoint,
            recorded,
            resume,
            answers,
            occurrences: Mutex::new(HashMap::new()),
            interrupts_seen: AtomicUsize::new(0),
        }
    }

    /// The storage key of the n-th use of `key` in this attempt.
    pub(crate) fn key_for(&self, key: &str) -> String {
        let mut occurrences = self.occurrences.lock().unwrap_or_else(|p| p.into_inner());
        let count = occurrences.entry(key.to_string()).or_insert(0);
        let full = if *count == 0 {
            key.to_string()
        } else {
            format!("{key}#{count}")
        };
        *count += 1;
        full
    }
}
