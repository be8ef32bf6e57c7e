//! Time travel: the state at any checkpoint, the history of a thread, and
//! updates that fork a new checkpoint as if a node had written them.

use std::sync::Arc;

use crate::branch::{kept_by_a_fork_of_the_past, save_head, Head};
use crate::checkpoint::codec::{
    decode, decode_meta, encode_json, encode_meta, push_delta, rebuild,
};
use crate::checkpoint::{
    CheckpointId, CheckpointMetadata, CheckpointSource, PendingWrite, StoredCheckpoint, WriteKind,
};
use crate::driver::{check_conflicts, resume_data, StoredCommand};
use crate::execute::NodeRun;
use crate::node::RunShared;
use crate::routing::{route, From};
use crate::send::task_key;
use crate::{CheckpointInfo, CompiledGraph, GraphError, RunConfig, RunId, State, StateSnapshot};

impl<S: State> CompiledGraph<S> {
    pub(crate) fn saver_and_thread(
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
        let interrupts = if metadata.is_finished() {
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
    /// latest) and saves the result as a new checkpoint following that one
    /// — a fork, when it is not the latest. Returns the new checkpoint's id
    /// (the thread's latest now); resume the thread to continue from it.
    ///
    /// What the superstep due at that checkpoint has done so far (its
    /// pending writes) goes to the new checkpoint according to whether the
    /// thread has moved on from it:
    /// - at the thread's latest checkpoint (its head: where a stopped
    ///   thread waits), all of it — the answers given to its interrupts,
    ///   finished nodes' updates, journaled results: editing a paused
    ///   thread loses no answer and repeats no effect;
    /// - at a checkpoint the thread has moved on from (any other: a fork of
    ///   its past, with or without values, [`COPY`] too), only what must not
    ///   be done twice — finished nodes' updates and journaled results —
    ///   and not its interrupts nor the answers given to them: the fork
    ///   asks its questions again when it runs, since going back before a
    ///   question is how one answers it differently (LangGraph's rule too).
    ///   Journaled results stay because their effects happened in the
    ///   world (a file written, a command run): a node that runs again on
    ///   the fork gets the recorded result rather than doing it twice — a
    ///   call made after an answer included, so journal an effect that
    ///   depends on the answer under a key naming it. A subgraph task's
    ///   child runs afresh, on a child thread of the fork (its own journaled
    ///   calls run again, once for the new branch). A replay of that
    ///   checkpoint (a resume by its id) takes the same.
    ///
    /// Then, with the writes it takes:
    /// - without `as_node`, the update is merged and the superstep stays
    ///   due, with those writes carried to the new checkpoint: interrupts
    ///   taken still wait, and a resume does not repeat what was done;
    /// - with `as_node` one of the nodes due, the update is that node's
    ///   result: when every other node of the superstep has finished, the
    ///   superstep completes with their kept updates and routes on; else the
    ///   others stay due, with their writes;
    /// - with `as_node` another node, the update is merged as that node's
    ///   and the next nodes are where its edges lead: the superstep that was
    ///   due is abandoned, and its pending writes are not carried (logged);
    /// - with `as_node` [`crate::END`], the update is merged and the thread
    ///   ends there: nothing is due, and the pending writes are dropped;
    /// - with `as_node` [`COPY`], the checkpoint is copied beside itself (a
    ///   sibling following the same parent, with the update merged and the
    ///   writes): a fork that leaves the original as it was.
    ///
    /// The tasks of [`crate::Send`]s due at the checkpoint count as nodes of
    /// its superstep: they stay due (with what they did so far) unless the
    /// superstep is abandoned or completed, and `as_node` one of the nodes
    /// the edges scheduled completes the superstep only when every send has
    /// finished too. A sent task cannot be named by `as_node` (a node that is
    /// only sent is "another node" above): answer its interrupt instead.
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
        let node =
            match as_node {
                None => AsNode::Unset,
                Some(crate::END) => AsNode::End,
                Some(COPY) => AsNode::Copy,
                Some(name) => AsNode::Node(self.graph.index_of(name).ok_or_else(|| {
                    GraphError::UnknownNode {
                        place: "update_state's as_node".to_string(),
                        node: name.to_string(),
                    }
                })?),
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
        node: AsNode,
        persist: Arc<crate::persist::PersistShared>,
    ) -> Result<CheckpointId, GraphError> {
        let (checkpoint, chain, state) = self.load(config).await?;
        let old = decode_meta(&checkpoint)?;
        let writes = if old.is_finished() {
            Vec::new()
        } else {
            persist
                .saver
                .pending_writes(&persist.thread_id, checkpoint.id)
                .await?
        };
        // All of them stay behind when the superstep is abandoned.
        let left_behind = writes.len();
        let writes = if is_latest(config, &checkpoint, &persist).await? {
            writes
        } else {
            kept_by_a_fork_of_the_past(writes)
        };
        let name = match node {
            AsNode::Unset | AsNode::Copy => UPDATE_NODE,
            AsNode::End => crate::END,
            AsNode::Node(i) => &*self.graph.nodes[i].name,
        };
        let mut draft = Draft {
            state,
            meta: CheckpointMetadata {
                source: CheckpointSource::Update,
                next: old.next.clone(),
                sends: old.sends.clone(),
                ran: vec![name.to_string()],
                reasons: Vec::new(),
                barriers: old.barriers.clone(),
                duration_us: 0,
                abandoned: None,
            },
            delta: Vec::new(),
        };
        let base = Base {
            checkpoint: &checkpoint,
            old: &old,
            persist: &persist,
        };
        let sibling = matches!(node, AsNode::Copy);
        let due = match node {
            AsNode::Node(index) if old.next.iter().any(|n| n == name) => Some(index),
            _ => None,
        };
        let carried = if let Some(index) = due {
            let data = resume_data(writes.clone())?;
            match self.others_finished(&checkpoint, &old, &data, name, &persist)? {
                Some(others) => {
                    self.complete_superstep(&mut draft, &base, others, index, update)?;
                    Vec::new()
                }
                None => {
                    // The node is done with this update; the others of the
                    // superstep still run on resume, with what they did so
                    // far. The state changes when the superstep completes.
                    draft.meta.ran = Vec::new();
                    carried_update(writes, name, update, &checkpoint, &persist)?
                }
            }
        } else {
            push_delta(&mut draft.delta, name, &update)?;
            draft.state.apply(update);
            self.write_as(&mut draft, &base, node, writes, left_behind)?
        };
        save_head(
            persist,
            Head {
                parent: &checkpoint,
                chain: &chain,
                step: if sibling {
                    checkpoint.step
                } else {
                    checkpoint.step + 1
                },
                state: &draft.state,
                delta: draft.delta,
                meta: encode_meta(&draft.meta),
                writes: carried,
                sibling,
            },
        )
        .await
        .map(|(id, _)| id)
    }

    /// The update as the last task of the superstep due, node `index`: it
    /// completes, with the finished siblings' kept updates (`others`), in
    /// merge order (nodes by name, then sends in emission order), and the
    /// run routes on from it.
    fn complete_superstep(
        &self,
        draft: &mut Draft<S>,
        base: &Base<'_>,
        others: Vec<NodeRun<S::Update>>,
        index: usize,
        update: S::Update,
    ) -> Result<(), GraphError> {
        let mut runs = others;
        runs.push(NodeRun {
            node: index,
            send: None,
            command: crate::Command::from(update),
            duration: std::time::Duration::ZERO,
        });
        runs.sort_by(|a, b| {
            a.send.cmp(&b.send).then_with(|| {
                self.graph.nodes[a.node]
                    .name
                    .cmp(&self.graph.nodes[b.node].name)
            })
        });
        let step = base.checkpoint.step;
        check_conflicts::<S>(&self.graph, &runs, step)?;
        let mut gotos = Vec::with_capacity(runs.len());
        for run in &mut runs {
            let node = &self.graph.nodes[run.node].name;
            for update in run.command.all_updates() {
                push_delta(&mut draft.delta, node, update)?;
            }
            for update in run.command.take_updates() {
                draft.state.apply(update);
            }
            gotos.push((run.node, run.command.goto.take()));
        }
        self.route_into(&mut draft.meta, gotos, &draft.state, step, base.persist)?;
        draft.meta.ran = base.old.next.clone();
        for send in &base.old.sends {
            if !draft.meta.ran.iter().any(|n| n == send.node()) {
                draft.meta.ran.push(send.node().to_string());
            }
        }
        Ok(())
    }

    /// What an update applied as `node` (not a task due) does to the new
    /// checkpoint's metadata, and the pending writes it carries.
    fn write_as(
        &self,
        draft: &mut Draft<S>,
        base: &Base<'_>,
        node: AsNode,
        writes: Vec<PendingWrite>,
        left_behind: usize,
    ) -> Result<Vec<PendingWrite>, GraphError> {
        let meta = &mut draft.meta;
        Ok(match node {
            // The superstep due, and what it has done so far, stay.
            AsNode::Unset => writes,
            AsNode::Copy => {
                meta.source = CheckpointSource::Fork;
                meta.ran = Vec::new();
                writes
            }
            AsNode::End => {
                meta.next = Vec::new();
                meta.sends = Vec::new();
                meta.barriers = Vec::new();
                Vec::new()
            }
            AsNode::Node(index) => {
                let from = vec![(index, None)];
                let step = base.checkpoint.step;
                self.route_into(meta, from, &draft.state, step, base.persist)?;
                if left_behind != 0 || !base.old.is_finished() {
                    // Told on the new checkpoint, so history shows it.
                    meta.abandoned = Some(crate::checkpoint::Abandoned {
                        next: base.old.next.clone(),
                        sends: base.old.sends.len(),
                        writes: left_behind,
                    });
                }
                Vec::new()
            }
        })
    }

    /// The results of the tasks due at `checkpoint` (`due`'s nodes and
    /// sends) other than node `name`'s, from their kept updates (`data`);
    /// `None` when one of them has not finished.
    fn others_finished(
        &self,
        checkpoint: &StoredCheckpoint,
        due: &CheckpointMetadata,
        data: &crate::driver::ResumeData,
        name: &str,
        persist: &crate::persist::PersistShared,
    ) -> Result<Option<Vec<NodeRun<S::Update>>>, GraphError> {
        let scheduled = due
            .next
            .iter()
            .filter(|n| *n != name)
            .map(|node| (node.as_str(), None));
        let sent = due
            .sends
            .iter()
            .enumerate()
            .map(|(k, send)| (send.node(), Some(k)));
        let mut runs = Vec::with_capacity(due.next.len() + due.sends.len());
        for (node, send) in scheduled.chain(sent) {
            let Some(bytes) = data.updates.get(&*task_key(node, send)) else {
                return Ok(None);
            };
            let index = self
                .graph
                .index_of(node)
                .ok_or_else(|| GraphError::UnknownNode {
                    place: format!("the tasks due at checkpoint {}", checkpoint.id),
                    node: node.to_string(),
                })?;
            let stored: StoredCommand<S::Update> =
                decode(bytes, &persist.thread_id, checkpoint.id, "pending update")?;
            runs.push(NodeRun {
                node: index,
                send,
                command: stored.into_command(),
                duration: std::time::Duration::ZERO,
            });
        }
        Ok(Some(runs))
    }

    /// Routes out of `from` (nodes with their gotos) over `state`, as the
    /// end of superstep `step` does, into `meta`: the next nodes by name,
    /// the sends, the routers' reasons and the join barriers.
    fn route_into(
        &self,
        meta: &mut CheckpointMetadata,
        from: Vec<(usize, Option<crate::Route>)>,
        state: &S,
        step: u64,
        persist: &crate::persist::PersistShared,
    ) -> Result<(), GraphError> {
        let mut barriers = std::mem::take(&mut meta.barriers);
        barriers.resize(self.graph.joins.len(), 0);
        let shared = routing_only(persist);
        let mut next = Vec::new();
        let mut sends = Vec::new();
        let mut reasons = Vec::new();
        for (index, goto) in from {
            let reason = route(
                &self.graph,
                From::node(&self.graph, index),
                goto,
                state,
                step,
                &shared,
                &mut barriers,
                &mut next,
                &mut sends,
            )?;
            reasons.extend(reason.map(std::borrow::Cow::into_owned));
        }
        next.sort_unstable();
        next.dedup();
        meta.next = next
            .iter()
            .map(|&i| self.graph.nodes[i].name.to_string())
            .collect();
        meta.sends = sends
            .into_iter()
            .map(|sent| {
                crate::Send::from_shared(self.graph.nodes[sent.node].name.to_string(), sent.arg)
            })
            .collect();
        meta.reasons = reasons;
        meta.barriers = trimmed(barriers);
        Ok(())
    }
}

/// Whether `checkpoint`, read for `config`, is its thread's latest (the
/// head a stopped thread waits at) rather than one the thread has moved on
/// from.
async fn is_latest(
    config: &RunConfig,
    checkpoint: &StoredCheckpoint,
    persist: &crate::persist::PersistShared,
) -> Result<bool, GraphError> {
    if config.checkpoint_id().is_none() {
        return Ok(true);
    }
    let latest = persist.saver.get(&persist.thread_id, None).await?;
    Ok(latest.is_some_and(|latest| latest.id == checkpoint.id))
}

/// The name an update without `as_node` is recorded under.
const UPDATE_NODE: &str = "__update__";

/// `update_state`'s `as_node` that copies the checkpoint beside itself:
/// with all its pending writes when it is the thread's latest, and with
/// only its finished nodes' updates and journaled results when the thread
/// has moved on from it (its questions are asked again; see
/// [`CompiledGraph::update_state`]).
pub const COPY: &str = "__copy__";

/// The checkpoint a fork is making: its state, metadata and delta.
struct Draft<S> {
    state: S,
    meta: CheckpointMetadata,
    delta: Vec<u8>,
}

/// What a fork starts from: the checkpoint, its metadata, and the store.
struct Base<'a> {
    checkpoint: &'a StoredCheckpoint,
    old: &'a CheckpointMetadata,
    persist: &'a crate::persist::PersistShared,
}

/// The pending writes of a superstep that goes on after `name` is done with
/// `update`: the others' writes so far, and the update, kept for when the
/// superstep completes.
fn carried_update<U: serde::Serialize>(
    writes: Vec<PendingWrite>,
    name: &str,
    update: U,
    checkpoint: &StoredCheckpoint,
    persist: &crate::persist::PersistShared,
) -> Result<Vec<PendingWrite>, GraphError> {
    let command = crate::Command::from(update);
    let mut carried: Vec<PendingWrite> = writes.into_iter().filter(|w| w.node != name).collect();
    carried.push(PendingWrite {
        thread_id: persist.thread_id.to_string(),
        checkpoint: checkpoint.id,
        node: name.to_string(),
        kind: WriteKind::Update,
        key: String::new(),
        value: encode_json(&StoredCommand::of(&command))?,
    });
    Ok(carried)
}

/// Whom `update_state` writes as.
#[derive(Clone, Copy)]
enum AsNode {
    /// Nobody: the superstep due stays.
    Unset,
    /// A node of the graph.
    Node(usize),
    /// END: the thread ends.
    End,
    /// A copy beside the checkpoint.
    Copy,
}

/// What routing outside a run needs: no events, no cancellation.
fn routing_only(persist: &crate::persist::PersistShared) -> RunShared {
    RunShared {
        run_id: RunId::new(),
        thread_id: Some(Arc::clone(&persist.thread_id)),
        events: Default::default(),
        cancellation: Default::default(),
        names: Default::default(),
        steps: Default::default(),
        modes: Default::default(),
        recursion_limit: crate::DEFAULT_RECURSION_LIMIT,
        durability: Default::default(),
        effect_gate: None,
    }
}

/// Join barriers as stored: empty when none has progress.
fn trimmed(barriers: Vec<u64>) -> Vec<u64> {
    if barriers.iter().any(|b| *b != 0) {
        barriers
    } else {
        Vec::new()
    }
}
