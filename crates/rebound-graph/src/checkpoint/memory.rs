//! [`MemorySaver`]: checkpoints in process memory, for tests and short-lived runs.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;

use async_trait::async_trait;

use super::{
    CheckpointError, CheckpointId, Checkpointer, PendingWrite, StoredCheckpoint, ThreadSummary,
};

#[derive(Default)]
struct Thread {
    checkpoints: BTreeMap<CheckpointId, StoredCheckpoint>,
    writes: HashMap<CheckpointId, Vec<PendingWrite>>,
}

#[derive(Default)]
struct Inner {
    threads: HashMap<String, Thread>,
    running: HashSet<String>,
}

/// Keeps every checkpoint in memory. Atomic per call (one lock).
///
/// Attached with [`crate::CompiledGraph::with_checkpointer`], it makes runs
/// durable on their thread: here a run stops before a node
/// ([`crate::RunConfig::with_interrupt_before`]), its state is read back,
/// and the run resumes.
///
/// ```
/// use std::sync::Arc;
///
/// use rebound_graph::checkpoint::MemorySaver;
/// use rebound_graph::{RunConfig, State, StateGraph, END, START};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
/// struct Job {
///     #[state(append)]
///     done: Vec<String>,
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut graph = StateGraph::<Job>::new();
/// graph
///     .add_sync_node("build", |_, _| Ok(JobUpdate::default().done(vec!["build".into()])))
///     .add_sync_node("ship", |_, _| Ok(JobUpdate::default().done(vec!["ship".into()])))
///     .add_edge(START, "build")
///     .add_edge("build", "ship")
///     .add_edge("ship", END);
/// let graph = graph.compile()?.with_checkpointer(Arc::new(MemorySaver::new()));
/// let thread = RunConfig::new().with_thread_id("job-7");
///
/// let outcome = graph
///     .run(Job::default(), thread.clone().with_interrupt_before(["ship"]))
///     .await?;
/// assert!(outcome.is_interrupted());
/// let saved = graph.get_state(&thread).await?;
/// assert_eq!(saved.values.done, ["build"]);
///
/// let finished = graph.resume(thread.clone()).await?;
/// assert_eq!(finished.state().done, ["build", "ship"]);
/// let history = graph.history(&thread, None, None).await?;
/// // Newest first: after `ship`, after `build`, and the input.
/// assert_eq!(history.len(), 3);
/// assert_eq!(history[0].checkpoint_id, graph.get_state(&thread).await?.checkpoint_id);
/// # Ok(())
/// # }
/// ```
#[derive(Default)]
pub struct MemorySaver {
    inner: Mutex<Inner>,
}

impl MemorySaver {
    /// An empty saver.
    pub fn new() -> Self {
        MemorySaver::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave a half-applied batch
        // (every mutation is a push or insert), so a poisoned lock is usable.
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl Checkpointer for MemorySaver {
    async fn put(
        &self,
        checkpoints: Vec<StoredCheckpoint>,
        writes: Vec<PendingWrite>,
    ) -> Result<(), CheckpointError> {
        let mut inner = self.lock();
        for checkpoint in checkpoints {
            if !inner.threads.contains_key(&checkpoint.thread_id) {
                inner
                    .threads
                    .insert(checkpoint.thread_id.clone(), Thread::default());
            }
            if let Some(thread) = inner.threads.get_mut(&checkpoint.thread_id) {
                thread.checkpoints.insert(checkpoint.id, checkpoint);
            }
        }
        for write in writes {
            let thread = inner.threads.entry(write.thread_id.clone()).or_default();
            thread
                .writes
                .entry(write.checkpoint)
                .or_default()
                .push(write);
        }
        Ok(())
    }

    async fn put_writes(&self, writes: Vec<PendingWrite>) -> Result<(), CheckpointError> {
        self.put(Vec::new(), writes).await
    }

    async fn get(
        &self,
        thread_id: &str,
        id: Option<CheckpointId>,
    ) -> Result<Option<StoredCheckpoint>, CheckpointError> {
        let inner = self.lock();
        let Some(thread) = inner.threads.get(thread_id) else {
            return Ok(None);
        };
        Ok(match id {
            Some(id) => thread.checkpoints.get(&id).cloned(),
            None => thread.checkpoints.values().next_back().cloned(),
        })
    }

    async fn list(
        &self,
        thread_id: &str,
        before: Option<CheckpointId>,
        limit: Option<usize>,
    ) -> Result<Vec<StoredCheckpoint>, CheckpointError> {
        let inner = self.lock();
        let Some(thread) = inner.threads.get(thread_id) else {
            return Ok(Vec::new());
        };
        let upper = before.map(|b| b.as_u64()).unwrap_or(u64::MAX);
        Ok(thread
            .checkpoints
            .range(..CheckpointId::from_u64(upper))
            .rev()
            .take(limit.unwrap_or(usize::MAX))
            .map(|(_, c)| c.clone())
            .collect())
    }

    async fn pending_writes(
        &self,
        thread_id: &str,
        checkpoint: CheckpointId,
    ) -> Result<Vec<PendingWrite>, CheckpointError> {
        let inner = self.lock();
        Ok(inner
            .threads
            .get(thread_id)
            .and_then(|t| t.writes.get(&checkpoint))
            .cloned()
            .unwrap_or_default())
    }

    async fn threads(&self) -> Result<Vec<ThreadSummary>, CheckpointError> {
        let inner = self.lock();
        let mut out: Vec<ThreadSummary> = inner
            .threads
            .iter()
            .filter_map(|(id, thread)| {
                let latest = thread.checkpoints.values().next_back()?;
                Some(ThreadSummary {
                    thread_id: id.clone(),
                    latest: latest.id,
                    step: latest.step,
                    checkpoints: thread.checkpoints.len() as u64,
                    meta: latest.meta.clone(),
                })
            })
            .collect();
        out.sort_by_key(|t| std::cmp::Reverse(t.latest));
        Ok(out)
    }

    async fn acquire(&self, thread_id: &str) -> Result<(), CheckpointError> {
        let mut inner = self.lock();
        if !inner.running.insert(thread_id.to_string()) {
            return Err(CheckpointError::ThreadBusy {
                thread_id: thread_id.to_string(),
                holder: "another run in this process".to_string(),
            });
        }
        Ok(())
    }

    async fn release(&self, thread_id: &str) -> Result<(), CheckpointError> {
        self.lock().running.remove(thread_id);
        Ok(())
    }
}
