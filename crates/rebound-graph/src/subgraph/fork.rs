//! A child run that another branch of the parent has taken on: when a
//! parent checkpoint's question inside a subgraph is answered again (its
//! superstep resumed on a new branch after the old branch's child ran on
//! from that question), the child is forked from the checkpoint where it
//! asked onto a thread of the new branch, so the new answer reaches it and
//! the old branch keeps its child thread as it was.

use super::namespace::Namespace;
use super::SUBGRAPH_SEPARATOR;
use crate::checkpoint::codec::{decode_meta, encode_json, encode_meta, rebuild};
use crate::checkpoint::{
    CheckpointId, CheckpointSource, Checkpointer, PendingWrite, StateBlob, StoredCheckpoint,
};
use crate::{GraphError, State};

/// Where a subgraph task finds its child run, given the one its journal
/// recorded (`recorded`), the parent checkpoint its superstep runs from
/// (`here`), the parent's thread and the task's key: `None` to go on with
/// the recorded child thread, or the namespace of a fork made for this
/// branch.
///
/// The recorded thread is taken as it is when the record names no stop
/// (the child has not asked anything yet, or the record predates stops),
/// when the child still waits where it stopped, when this very checkpoint
/// saw it stop (the child's later progress is this branch's own: a crash
/// or a failure mid-child), or when nothing has run on the child thread
/// since the stop (a user's `update_state` or time travel in the child,
/// which the parent's resume follows). Otherwise another branch ran the
/// child on: fork it from its stop.
pub(crate) async fn child_run_for<C: State>(
    saver: &dyn Checkpointer,
    recorded: &Namespace,
    here: CheckpointId,
    parent_thread: &str,
    task: &str,
) -> Result<Option<Namespace>, GraphError> {
    let Some(stop) = recorded.stopped_at else {
        return Ok(None);
    };
    if recorded.seen_from == Some(here) {
        return Ok(None);
    }
    let Some(head) = saver.get(&recorded.thread, None).await? else {
        return Ok(None);
    };
    if head.id == stop || !ran_since(saver, &recorded.thread, stop).await? {
        return Ok(None);
    }
    let thread = format!("{parent_thread}{SUBGRAPH_SEPARATOR}{task}:{here}");
    let stopped_at = match forked_stop(saver, &thread).await? {
        // Forked already (by an attempt that did not get to record it).
        Some(id) => id,
        None => fork::<C>(saver, &recorded.thread, stop, &thread).await?,
    };
    Ok(Some(Namespace {
        thread,
        prefix: recorded.prefix.clone(),
        stopped_at: Some(stopped_at),
        seen_from: Some(here),
    }))
}

/// Whether a superstep of the child ran on `thread` after its checkpoint
/// `stop` (a checkpoint the run loop made, not an edit).
async fn ran_since(
    saver: &dyn Checkpointer,
    thread: &str,
    stop: CheckpointId,
) -> Result<bool, GraphError> {
    for checkpoint in saver.list(thread, None, None).await? {
        if checkpoint.id <= stop {
            break;
        }
        if decode_meta(&checkpoint)?.source == CheckpointSource::Loop {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The stop a fork thread was made at: its oldest forked checkpoint.
async fn forked_stop(
    saver: &dyn Checkpointer,
    thread: &str,
) -> Result<Option<CheckpointId>, GraphError> {
    for checkpoint in saver.list(thread, None, None).await?.iter().rev() {
        if decode_meta(checkpoint)?.source == CheckpointSource::Fork {
            return Ok(Some(checkpoint.id));
        }
    }
    Ok(None)
}

/// Copies the child's checkpoint `stop` on `from`, with its pending writes
/// (its journal, its questions), onto the new thread `to`, after a copy of
/// the child's first checkpoint (the state it started from, which a
/// same-state subgraph's update counts from). Returns the copy's id.
async fn fork<C: State>(
    saver: &dyn Checkpointer,
    from: &str,
    stop: CheckpointId,
    to: &str,
) -> Result<CheckpointId, GraphError> {
    let Some(stopped) = saver.get(from, Some(stop)).await? else {
        return Err(GraphError::UnknownThread {
            thread_id: from.to_string(),
        });
    };
    let mut checkpoints = Vec::with_capacity(2);
    let mut parent = None;
    if stopped.parent.is_some() {
        if let Some(first) = saver.list(from, None, None).await?.pop() {
            let id = CheckpointId::new();
            checkpoints.push(snapshot_copy::<C>(saver, &first, to, id, None, None).await?);
            parent = Some(id);
        }
    }
    let id = CheckpointId::after(parent);
    let mut meta = decode_meta(&stopped)?;
    meta.source = CheckpointSource::Fork;
    checkpoints
        .push(snapshot_copy::<C>(saver, &stopped, to, id, parent, Some(encode_meta(&meta))).await?);
    let writes = saver
        .pending_writes(from, stop)
        .await?
        .into_iter()
        .map(|write| PendingWrite {
            thread_id: to.to_string(),
            checkpoint: id,
            ..write
        })
        .collect();
    saver.put(checkpoints, writes).await?;
    Ok(id)
}

/// `checkpoint` as a whole-state checkpoint `id` of `thread`, following
/// `parent`, with `meta` (its own when `None`).
async fn snapshot_copy<C: State>(
    saver: &dyn Checkpointer,
    checkpoint: &StoredCheckpoint,
    thread: &str,
    id: CheckpointId,
    parent: Option<CheckpointId>,
    meta: Option<Vec<u8>>,
) -> Result<StoredCheckpoint, GraphError> {
    let chain = saver
        .get_chain(&checkpoint.thread_id, checkpoint.id)
        .await?;
    let state: C = rebuild(&chain)?;
    Ok(StoredCheckpoint {
        thread_id: thread.to_string(),
        id,
        parent,
        step: checkpoint.step,
        state: StateBlob::Snapshot(encode_json(&state)?),
        meta: meta.unwrap_or_else(|| checkpoint.meta.clone()),
    })
}
