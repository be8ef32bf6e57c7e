//! Time travel: the state at any checkpoint, the history of a thread, and
//! updates that fork a new checkpoint as if a node had written them.

use std::sync::Arc;

use crate::checkpoint::codec::{decode_meta, encode_json, encode_meta, push_delta, rebuild};
use crate::checkpoint::{
    CheckpointId, CheckpointMetadata, CheckpointSource, StateBlob, StoredCheckpoint,
};
use crate::driver::resume_data;
use crate::node::RunShared;
use crate::persist::{delta_blob, Persister};
use crate::routing::{route, From};
use crate::{CompiledGraph, Durability, GraphError, Interrupt, RunConfig, RunId, State};

/// A thread's state at one checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct StateSnapshot<S> {
    /// The state.
    pub values: S,
    /// The checkpoint.
    pub checkpoint_id: CheckpointId,
    /// The checkpoint it follows.
    pub parent_id: Option<CheckpointId>,
    /// Supersteps run on the thread up to it.
    pub step: u64,
    /// Its metadata (`metadata.next`: the nodes due to run; empty when finished).
    pub metadata: CheckpointMetadata,
    /// The interrupts waiting at it.
    pub interrupts: Vec<Interrupt>,
}

/// One checkpoint in a thread's history (without its state: ask
/// [`CompiledGraph::get_state`] with its id for that).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointInfo {
    /// The checkpoint.
    pub checkpoint_id: CheckpointId,
    /// The checkpoint it follows.
    pub parent_id: Option<CheckpointId>,
    /// Supersteps run on the thread up to it.
    pub step: u64,
    /// Its metadata.
    pub metadata: CheckpointMetadata,
    /// Whether it stores the whole state (else a delta over its parent).
    pub snapshot: bool,
    /// Bytes of state it stores.
    pub state_bytes: usize,
}

impl<S: State> CompiledGraph<S> {
    fn saver_and_thread(
        &self,
        config: &RunConfig,
    ) -> Result<(Arc<dyn crate::checkpoint::Checkpointer>, String), GraphError> {
        let Some(saver) = &self.checkpointer else {
            return Err(GraphError::NoCheckpointer {
                what: "reading a thread's state".to_string(),
            });
        };
        let Some(thread) = config.thread_id() else {
            return Err(GraphError::NoThreadId);
        };
        Ok((Arc::clone(saver), thread.to_string()))
    }

    async fn load(
        &self,
        config: &RunConfig,
    ) -> Result<(StoredCheckpoint, Vec<StoredCheckpoint>, S), GraphError> {
        let (saver, thread) = self.saver_and_thread(config)?;
        let checkpoint = saver
            .get(&thread, config.checkpoint_id())
            .await?
            .ok_or_else(|| match config.checkpoint_id() {
                Some(id) => GraphError::UnknownCheckpoint {
                    thread_id: thread.clone(),
                    checkpoint: id.to_string(),
                },
                None => GraphError::UnknownThread {
                    thread_id: thread.clone(),
                },
            })?;
        let chain = saver.get_chain(&thread, checkpoint.id).await?;
        let state = rebuild(&chain)?;
        Ok((checkpoint, chain, state))
    }

    /// The state at the config's checkpoint id, or at the thread's latest
    /// checkpoint: the same answer either way for the same checkpoint.
    pub async fn get_state(&self, config: &RunConfig) -> Result<StateSnapshot<S>, GraphError> {
        let (saver, thread) = self.saver_and_thread(config)?;
        let (checkpoint, _, values) = self.load(config).await?;
        let metadata = decode_meta(&checkpoint)?;
        let interrupts = if metadata.next.is_empty() {
            Vec::new()
        } else {
            resume_data(saver.pending_writes(&thread, checkpoint.id).await?)?.pending()
        };
        Ok(StateSnapshot {
            values,
            checkpoint_id: checkpoint.id,
            parent_id: checkpoint.parent,
            step: checkpoint.step,
            metadata,
            interrupts,
        })
    }

    /// The thread's checkpoints, newest first: at most `limit`, with ids
    /// below `before` when given.
    pub async fn history(
        &self,
        config: &RunConfig,
        before: Option<CheckpointId>,
        limit: Option<usize>,
    ) -> Result<Vec<CheckpointInfo>, GraphError> {
        let (saver, thread) = self.saver_and_thread(config)?;
        saver
            .list(&thread, before, limit)
            .await?
            .into_iter()
            .map(|checkpoint| {
                Ok(CheckpointInfo {
                    checkpoint_id: checkpoint.id,
                    parent_id: checkpoint.parent,
                    step: checkpoint.step,
                    metadata: decode_meta(&checkpoint)?,
                    snapshot: checkpoint.state.is_snapshot(),
                    state_bytes: checkpoint.state.bytes().len(),
                })
            })
            .collect()
    }

    /// Writes `update` into the state at the config's checkpoint (or the
    /// latest) as if node `as_node` had written it, and saves the result as
    /// a new checkpoint following that one — a fork, when it is not the
    /// latest. With `as_node`, the next nodes are where that node's edges
    /// lead from the new state; without, they stay as they were. Returns the
    /// new checkpoint's id; resume the thread to continue from it.
    pub async fn update_state(
        &self,
        config: &RunConfig,
        update: S::Update,
        as_node: Option<&str>,
    ) -> Result<CheckpointId, GraphError> {
        let persist = self
            .persistence(config)?
            .ok_or_else(|| GraphError::NoCheckpointer {
                what: "update_state".to_string(),
            })?;
        let node = match as_node {
            Some(name) => {
                Some(
                    self.graph
                        .index_of(name)
                        .ok_or_else(|| GraphError::UnknownNode {
                            place: "update_state's as_node".to_string(),
                            node: name.to_string(),
                        })?,
                )
            }
            None => None,
        };
        persist.saver.acquire(&persist.thread_id).await?;
        let result = self.fork(config, update, node, Arc::clone(&persist)).await;
        persist.saver.release(&persist.thread_id).await?;
        result
    }

    async fn fork(
        &self,
        config: &RunConfig,
        update: S::Update,
        node: Option<usize>,
        persist: Arc<crate::persist::PersistShared>,
    ) -> Result<CheckpointId, GraphError> {
        let (checkpoint, chain, mut state) = self.load(config).await?;
        let old = decode_meta(&checkpoint)?;
        let name = node.map_or("__update__", |i| &*self.graph.nodes[i].name);
        let mut delta = Vec::new();
        push_delta(&mut delta, name, &update)?;
        state.apply(update);

        let mut barriers = old.barriers.clone();
        barriers.resize(self.graph.joins.len(), 0);
        let (next, reasons) = match node {
            Some(index) => {
                let shared = RunShared {
                    run_id: RunId::new(),
                    thread_id: Some(Arc::clone(&persist.thread_id)),
                    events: Default::default(),
                    cancellation: Default::default(),
                    names: Default::default(),
                    steps: Default::default(),
                };
                let mut next = Vec::new();
                let reason = route(
                    &self.graph,
                    From::node(&self.graph, index),
                    None,
                    &state,
                    checkpoint.step,
                    &shared,
                    &mut barriers,
                    &mut next,
                )?;
                next.sort_unstable();
                next.dedup();
                let names = next
                    .iter()
                    .map(|&i| self.graph.nodes[i].name.to_string())
                    .collect();
                (
                    names,
                    reason.map(|r| vec![r.into_owned()]).unwrap_or_default(),
                )
            }
            None => (old.next.clone(), Vec::new()),
        };
        let meta = CheckpointMetadata {
            source: CheckpointSource::Update,
            next,
            ran: vec![name.to_string()],
            reasons,
            barriers: if barriers.iter().any(|b| *b != 0) {
                barriers
            } else {
                Vec::new()
            },
            duration_us: 0,
        };
        let mut persister = Persister::new(persist, Durability::Sync, Some(checkpoint.id));
        persister.resume_policy(&chain);
        let blob = if persister.wants_snapshot(delta.len() + 1) {
            StateBlob::Snapshot(encode_json(&state)?)
        } else {
            delta_blob(delta)
        };
        persister
            .save(checkpoint.step + 1, blob, encode_meta(&meta))
            .await
    }
}
