//! A thread's checkpoints without running it: its history, its state at a
//! checkpoint, and a branch from an earlier one (`rebound history`, `show`
//! and `fork`). The thread's workflow graph is built with dependencies that
//! run nothing ([`crate::deps::inert`]): these read and write checkpoints
//! and call no node.

use std::path::Path;
use std::sync::Arc;

use rebound_agent::pev::PevState;
use rebound_agent::reflect::ReflectState;
use rebound_agent::workflow::{Workflow, WorkflowKind};
use rebound_graph::checkpoint::{CheckpointId, CheckpointSource, Checkpointer};
use rebound_graph::{CheckpointInfo, CompiledGraph, RunConfig, State, StateSnapshot};

use crate::error::WorkspaceError;
use crate::state::FoundThread;
use crate::threads::RunState;

/// The thread's workflow graph, with no model or tools behind it: for
/// reading and forking checkpoints, which run no node.
pub fn inert_graph<S: Workflow>(
    workspace: &Path,
    saver: Arc<dyn Checkpointer>,
) -> Result<CompiledGraph<S>, WorkspaceError> {
    let deps = crate::deps::inert(workspace)?;
    Ok(S::build(deps)?.with_checkpointer(saver))
}

/// The thread's checkpoints, oldest first (the newest `limit` when given).
pub async fn history(
    found: &FoundThread,
    limit: Option<usize>,
) -> Result<Vec<CheckpointInfo>, WorkspaceError> {
    match found.meta.workflow {
        WorkflowKind::Pev => history_of::<PevState>(found, limit).await,
        WorkflowKind::Reflect => history_of::<ReflectState>(found, limit).await,
        other => Err(WorkspaceError::Unsupported(other)),
    }
}

/// The thread's state, as JSON, at its latest checkpoint or at
/// `checkpoint`.
pub async fn snapshot(
    found: &FoundThread,
    checkpoint: Option<CheckpointId>,
) -> Result<StateSnapshot<serde_json::Value>, WorkspaceError> {
    match found.meta.workflow {
        WorkflowKind::Pev => snapshot_of::<PevState>(found, checkpoint).await,
        WorkflowKind::Reflect => snapshot_of::<ReflectState>(found, checkpoint).await,
        other => Err(WorkspaceError::Unsupported(other)),
    }
}

/// What a fork made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forked {
    /// The branch's first checkpoint: a copy of the state forked from, now
    /// the thread's latest.
    pub checkpoint_id: CheckpointId,
    /// The nodes a resume runs next (none when the checkpoint forked from
    /// ended a run).
    pub next: Vec<String>,
}

/// Branches the thread from its checkpoint `from` (see
/// `CompiledGraph::update_state` for what the branch keeps), and records
/// the thread as forked.
pub async fn fork(found: &mut FoundThread, from: CheckpointId) -> Result<Forked, WorkspaceError> {
    let forked = match found.meta.workflow {
        WorkflowKind::Pev => fork_of::<PevState>(found, from).await?,
        WorkflowKind::Reflect => fork_of::<ReflectState>(found, from).await?,
        other => return Err(WorkspaceError::Unsupported(other)),
    };
    found
        .meta
        .ended(RunState::Forked, Some(format!("checkpoint {from}")));
    found.threads.save(&found.meta)?;
    Ok(forked)
}

fn graph_of<S: Workflow>(found: &FoundThread) -> Result<CompiledGraph<S>, WorkspaceError> {
    inert_graph::<S>(&found.meta.workspace, Arc::clone(&found.saver))
}

fn config_of(found: &FoundThread) -> RunConfig {
    RunConfig::new().with_thread_id(found.meta.thread_id.clone())
}

async fn history_of<S: Workflow>(
    found: &FoundThread,
    limit: Option<usize>,
) -> Result<Vec<CheckpointInfo>, WorkspaceError> {
    let mut checkpoints = graph_of::<S>(found)?
        .history(&config_of(found), None, limit)
        .await?;
    checkpoints.reverse();
    Ok(checkpoints)
}

async fn snapshot_of<S: Workflow>(
    found: &FoundThread,
    checkpoint: Option<CheckpointId>,
) -> Result<StateSnapshot<serde_json::Value>, WorkspaceError> {
    let mut config = config_of(found);
    if let Some(id) = checkpoint {
        config = config.with_checkpoint_id(id);
    }
    Ok(graph_of::<S>(found)?
        .get_state(&config)
        .await?
        .into_json()?)
}

async fn fork_of<S: Workflow>(
    found: &FoundThread,
    from: CheckpointId,
) -> Result<Forked, WorkspaceError> {
    let graph = graph_of::<S>(found)?;
    let checkpoint_id = graph
        .update_state(
            &config_of(found).with_checkpoint_id(from),
            <S as State>::Update::default(),
            None,
        )
        .await?;
    let latest = graph.get_state(&config_of(found)).await?;
    Ok(Forked {
        checkpoint_id,
        next: latest.metadata.next,
    })
}

/// What made the checkpoint, for people: the nodes that ran, `(input)`,
/// `(fork)` or `(replay)`.
pub fn made_by(info: &CheckpointInfo) -> String {
    match info.metadata.source {
        CheckpointSource::Input => "(input)".to_string(),
        CheckpointSource::Fork => "(replay)".to_string(),
        CheckpointSource::Update if info.metadata.ran.iter().all(|n| n == "__update__") => {
            "(fork)".to_string()
        }
        _ => match &info.metadata.abandoned {
            // An update as another node: what it left behind is told.
            Some(abandoned) if !abandoned.next.is_empty() => format!(
                "{} (abandoned {})",
                info.metadata.ran.join(", "),
                abandoned.next.join(", ")
            ),
            _ => info.metadata.ran.join(", "),
        },
    }
}

/// Where the run goes from the checkpoint, for people: the next nodes and the tasks sent to
/// nodes (`summarize (3 sent)`), or END.
pub fn leads_to(info: &CheckpointInfo) -> String {
    if info.metadata.is_finished() {
        return "END".to_string();
    }
    let mut sent: Vec<(&str, usize)> = Vec::new();
    for send in &info.metadata.sends {
        match sent.iter_mut().find(|(node, _)| *node == send.node()) {
            Some((_, count)) => *count += 1,
            None => sent.push((send.node(), 1)),
        }
    }
    let mut next: Vec<String> = info.metadata.next.clone();
    next.extend(
        sent.iter()
            .map(|(node, count)| format!("{node} ({count} sent)")),
    );
    next.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rebound_graph::checkpoint::{
        Abandoned, CheckpointId, CheckpointMetadata, CheckpointSource,
    };

    fn info(metadata: CheckpointMetadata) -> CheckpointInfo {
        CheckpointInfo {
            checkpoint_id: CheckpointId::new(),
            parent_id: None,
            step: 3,
            metadata,
            snapshot: false,
            state_bytes: 0,
        }
    }

    #[test]
    fn sent_tasks_are_counted_by_node_after_the_next_nodes() {
        let row = info(CheckpointMetadata {
            source: CheckpointSource::Loop,
            ran: vec!["split".to_string()],
            next: vec!["join".to_string()],
            sends: vec![
                rebound_graph::Send::new("summarize", "a"),
                rebound_graph::Send::new("summarize", "b"),
                rebound_graph::Send::new("count", 1),
            ],
            ..CheckpointMetadata::default()
        });
        assert_eq!(leads_to(&row), "join, summarize (2 sent), count (1 sent)");
        assert_eq!(made_by(&row), "split");
    }

    #[test]
    fn an_update_as_another_node_names_what_it_abandoned() {
        let row = info(CheckpointMetadata {
            source: CheckpointSource::Update,
            ran: vec!["a".to_string()],
            abandoned: Some(Abandoned {
                next: vec!["ask".to_string()],
                sends: 0,
                writes: 2,
            }),
            ..CheckpointMetadata::default()
        });
        assert_eq!(made_by(&row), "a (abandoned ask)");
    }
}
