//! The thread listing (`rebound threads`): every thread of a state
//! directory, newest first, with its status, workflow, steps and goal.

use std::collections::BTreeMap;
use std::sync::Arc;

use rebound_graph::checkpoint::{Checkpointer, ThreadSummary};
use serde::Serialize;

use crate::error::WorkspaceError;
use crate::state::StateDir;
use crate::threads::ThreadStore;

/// One thread of the listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThreadListing {
    /// The thread id.
    pub thread_id: String,
    /// Its status in words (see [`crate::ThreadMeta::status`]).
    pub status: String,
    /// Its workflow's name (`?` for a thread with checkpoints and no
    /// record).
    pub workflow: String,
    /// The step of its latest checkpoint, if it has one.
    pub steps: Option<u64>,
    /// How many checkpoints it has, if any.
    pub checkpoints: Option<u64>,
    /// When it last changed, in milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// Its goal (empty when unknown).
    pub goal: String,
}

/// Every thread of `state`, the most recently updated first: each record,
/// joined with the checkpoint store's threads (threads with checkpoints
/// but no record are listed too; a subgraph's checkpoints, kept under a
/// namespace of their parent thread, are not a thread of their own). A
/// state directory with no database yet has no threads.
pub async fn list_threads(state: &StateDir) -> Result<Vec<ThreadListing>, WorkspaceError> {
    if !state.exists() {
        return Ok(Vec::new());
    }
    let saver = state.open()?;
    let records = ThreadStore::new(Arc::clone(&saver));
    let mut stored: BTreeMap<String, ThreadSummary> = saver
        .threads()
        .await
        .map_err(WorkspaceError::database(
            "cannot list the checkpointed threads",
        ))?
        .into_iter()
        .filter(|t| !rebound_graph::subgraph::is_subgraph_thread(&t.thread_id))
        .map(|t| (t.thread_id.clone(), t))
        .collect();
    let mut rows: Vec<ThreadListing> = Vec::new();
    for meta in records.all()? {
        let summary = stored.remove(&meta.thread_id);
        let holder = records.holder(&meta.thread_id)?;
        rows.push(ThreadListing {
            status: meta.status(holder),
            workflow: meta.workflow.to_string(),
            steps: summary.as_ref().map(|s| s.step),
            checkpoints: summary.as_ref().map(|s| s.checkpoints),
            updated_ms: meta
                .updated_ms
                .max(summary.map(|s| s.latest.created_ms()).unwrap_or(0)),
            goal: meta.goal,
            thread_id: meta.thread_id,
        });
    }
    for (thread_id, summary) in stored {
        let status = match records.holder(&thread_id)? {
            Some(pid) => format!("running (pid {pid})"),
            None => "unknown (not started by rebound run)".to_string(),
        };
        rows.push(ThreadListing {
            thread_id,
            status,
            workflow: "?".to_string(),
            steps: Some(summary.step),
            checkpoints: Some(summary.checkpoints),
            updated_ms: summary.latest.created_ms(),
            goal: String::new(),
        });
    }
    rows.sort_by(|a, b| {
        b.updated_ms
            .cmp(&a.updated_ms)
            .then_with(|| b.thread_id.cmp(&a.thread_id))
    });
    Ok(rows)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::threads::{RunState, ThreadMeta};
    use rebound_agent::workflow::WorkflowKind;

    #[tokio::test]
    async fn threads_are_listed_newest_first_and_none_without_a_database() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::new(dir.path().join(".rebound"));
        assert!(list_threads(&state).await.unwrap().is_empty());
        assert!(!state.exists(), "listing creates nothing");

        let threads = ThreadStore::new(state.open().unwrap());
        for (id, goal, updated) in [("run-a", "first", 1_000), ("run-b", "second", 2_000)] {
            let mut meta =
                ThreadMeta::new(id.to_string(), WorkflowKind::Pev, goal, dir.path(), "m");
            meta.ended(RunState::Finished, None);
            meta.updated_ms = updated;
            threads.save(&meta).unwrap();
        }
        let listed = list_threads(&state).await.unwrap();
        let ids: Vec<&str> = listed.iter().map(|t| t.thread_id.as_str()).collect();
        assert_eq!(ids, ["run-b", "run-a"]);
        assert_eq!(listed[0].status, "finished");
        assert_eq!(listed[0].workflow, "pev");
        assert_eq!(listed[0].steps, None, "no checkpoints yet");
    }
}
