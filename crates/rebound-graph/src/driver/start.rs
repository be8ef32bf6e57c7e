//! Starting a run: fresh from an input state, or resumed from a thread's
//! checkpoint (its state rebuilt, its pending writes read back).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use super::pending::{resume_data, Awaiting, ResumeData, SUBGRAPH_ANSWER};
use super::{unknown_checkpoint, Driver, RECENT_NODES};
use crate::branch::{kept_by_a_fork_of_the_past, save_head, Head};
use crate::checkpoint::codec::{decode_meta, encode_json, encode_meta, push_delta, rebuild};
use crate::checkpoint::{
    CheckpointId, CheckpointMetadata, CheckpointSource, PendingWrite, StateBlob, StoredCheckpoint,
    WriteKind,
};
use crate::compile::Graph;
use crate::node::RunShared;
use crate::persist::{delta_blob, PersistShared, Persister};
use crate::routing::{route, From};
use crate::send::SentTask;
use crate::{GraphError, Input, ResumeCommand, RunConfig, State};

/// The name an input's update is stored under in its checkpoint's delta.
const INPUT: &str = "__input__";

/// The checkpoint an input was merged into: its chain (newest first, down
/// to a snapshot) and the input's delta on it (`[[name, update]]` unclosed,
/// as `push_delta` builds it).
struct Merged {
    chain: Vec<crate::checkpoint::StoredCheckpoint>,
    delta: Vec<u8>,
}

/// What every way of starting a run needs.
struct Setup<'a, S: State> {
    graph: &'a Arc<Graph<S>>,
    config: &'a RunConfig,
    shared: &'a Arc<RunShared>,
    interrupt_before: Cow<'a, [bool]>,
    interrupt_after: Cow<'a, [bool]>,
}

impl<'a, S: State> Driver<'a, S> {
    /// Prepares a run: a fresh one from `input`, or a resumed one from the
    /// thread's checkpoint.
    pub(crate) async fn start(
        graph: &'a Arc<Graph<S>>,
        persist: Option<Arc<PersistShared>>,
        input: Input<S>,
        config: &'a RunConfig,
        shared: &'a Arc<RunShared>,
    ) -> Result<Self, GraphError> {
        // Borrow the graph's static interrupts; copy them only to add the run's own.
        let mut interrupt_before = Cow::Borrowed(graph.interrupt_before.as_slice());
        let mut interrupt_after = Cow::Borrowed(graph.interrupt_after.as_slice());
        for (names, flags, place) in [
            (
                &config.interrupt_before,
                &mut interrupt_before,
                "RunConfig::interrupt_before",
            ),
            (
                &config.interrupt_after,
                &mut interrupt_after,
                "RunConfig::interrupt_after",
            ),
        ] {
            for name in names {
                if name == crate::ALL_NODES {
                    flags.to_mut().iter_mut().for_each(|flag| *flag = true);
                    continue;
                }
                let index = graph
                    .index_of(name)
                    .ok_or_else(|| GraphError::UnknownNode {
                        place: place.to_string(),
                        node: name.clone(),
                    })?;
                flags.to_mut()[index] = true;
            }
        }
        let setup = Setup {
            graph,
            config,
            shared,
            interrupt_before,
            interrupt_after,
        };
        match input {
            Input::State(state) => Self::start_fresh(setup, persist, state, None).await,
            Input::Resume => Self::start_resumed(setup, persist, None, None).await,
            Input::ResumeWith(value) => {
                Self::start_resumed(setup, persist, Some(Answers::One(value)), None).await
            }
            Input::ResumeMap(values) => {
                Self::start_resumed(setup, persist, Some(Answers::ById(values)), None).await
            }
            Input::Command(command) => Self::start_commanded(setup, persist, command).await,
            Input::Update(update) => {
                let (state, merged) =
                    Self::merged_input(persist.as_deref(), config, update).await?;
                Self::start_fresh(setup, persist, state, Some(merged)).await
            }
        }
    }

    fn empty(setup: Setup<'a, S>, state: S, persister: Option<Persister>) -> Self {
        let Setup {
            graph,
            config,
            shared,
            interrupt_before,
            interrupt_after,
        } = setup;
        let timed = shared.events.is_active() || persister.is_some();
        Driver {
            graph,
            shared,
            config,
            persister,
            state: Arc::new(state),
            next: Vec::with_capacity(4),
            sends: Vec::new(),
            barriers: vec![0; graph.joins.len()],
            recent: VecDeque::with_capacity(RECENT_NODES),
            step: 0,
            steps_run: 0,
            resume: None,
            interrupt_before,
            interrupt_after,
            timed,
        }
    }

    /// A run from `state`: the thread's first, a new start replacing its
    /// state, or (`merged`) its state with an input merged in.
    async fn start_fresh(
        setup: Setup<'a, S>,
        persist: Option<Arc<PersistShared>>,
        state: S,
        merged: Option<Merged>,
    ) -> Result<Self, GraphError> {
        let (graph, config, shared) = (setup.graph, setup.config, setup.shared);
        let mut parent = None;
        let mut step = 0;
        match (&persist, &merged) {
            (Some(_), Some(merged)) => {
                parent = merged.chain.first().map(|base| base.id);
                step = merged.chain.first().map_or(0, |base| base.step);
            }
            (Some(persist), None) => {
                let base = persist
                    .saver
                    .get(&persist.thread_id, config.checkpoint_id)
                    .await?;
                if config.checkpoint_id.is_some() && base.is_none() {
                    return Err(unknown_checkpoint(persist, config));
                }
                if let Some(base) = base {
                    parent = Some(base.id);
                    step = base.step;
                }
            }
            (None, _) => {}
        }
        let persister = persist.map(|p| {
            let mut persister = Persister::new(p, config.durability, parent);
            if let Some(merged) = &merged {
                persister.resume_policy(&merged.chain);
            }
            persister
        });
        let mut driver = Self::empty(setup, state, persister);
        driver.step = step;
        let reason = route(
            graph,
            From::start(graph),
            None,
            &driver.state,
            step,
            shared,
            &mut driver.barriers,
            &mut driver.next,
            &mut driver.sends,
        )?;
        driver.next.sort_unstable();
        driver.next.dedup();
        if driver.persister.is_some() {
            // An input merged into the thread's state is stored as that
            // change (a delta on the checkpoint it was merged into), not as
            // the whole state again, unless the snapshot policy asks for one.
            let blob = match merged {
                Some(merged)
                    if !driver
                        .persister
                        .as_ref()
                        .is_some_and(|p| p.wants_snapshot(merged.delta.len() + 1)) =>
                {
                    delta_blob(merged.delta)
                }
                _ => StateBlob::Snapshot(encode_json(&*driver.state)?),
            };
            let reasons: Vec<Cow<'static, str>> = reason.into_iter().collect();
            let meta = driver.meta_bytes(CheckpointSource::Input, &[], &reasons, Duration::ZERO);
            if let Some(persister) = &mut driver.persister {
                persister.save(step, blob, meta).await?;
            }
        }
        driver.emit_values();
        Ok(driver)
    }

    /// The thread's latest state (or the config's checkpoint's) with
    /// `update` merged in: the input of a fresh run; and what it was merged
    /// into.
    async fn merged_input(
        persist: Option<&PersistShared>,
        config: &RunConfig,
        update: serde_json::Value,
    ) -> Result<(S, Merged), GraphError> {
        let Some(persist) = persist else {
            return Err(GraphError::NoCheckpointer {
                what: "an input merged into the thread's state".to_string(),
            });
        };
        let thread = persist.thread_id.to_string();
        let Some(base) = persist.saver.get(&thread, config.checkpoint_id).await? else {
            return Err(match config.checkpoint_id {
                Some(_) => unknown_checkpoint(persist, config),
                None => GraphError::UnknownThread { thread_id: thread },
            });
        };
        let chain = persist.saver.get_chain(&thread, base.id).await?;
        let mut state: S = rebuild(&chain)?;
        let update = decode_update::<S>(update, "the input")?;
        let mut delta = Vec::new();
        push_delta(&mut delta, INPUT, &update)?;
        state.apply(update);
        Ok((state, Merged { chain, delta }))
    }

    /// Resumes the thread with a [`ResumeCommand`]: its answers, and its
    /// update and goto applied to a new checkpoint saved with the answers.
    async fn start_commanded(
        setup: Setup<'a, S>,
        persist: Option<Arc<PersistShared>>,
        command: ResumeCommand,
    ) -> Result<Self, GraphError> {
        let ResumeCommand {
            resume,
            resume_map,
            update,
            goto,
        } = command;
        let answers = match (resume, resume_map.is_empty()) {
            (Some(_), false) => {
                return Err(GraphError::BadInput {
                    reason: "give either one resume value or values by interrupt id, not both"
                        .to_string(),
                })
            }
            (Some(value), true) => Some(Answers::One(value)),
            (None, false) => Some(Answers::ById(resume_map)),
            (None, true) => None,
        };
        let change = (update.is_some() || goto.is_some()).then_some(Change { update, goto });
        Self::start_resumed(setup, persist, answers, change).await
    }

    /// Resumes the thread; `value` answers its waiting dynamic interrupts;
    /// `change` writes to the state and picks the next nodes first.
    async fn start_resumed(
        setup: Setup<'a, S>,
        persist: Option<Arc<PersistShared>>,
        value: Option<Answers>,
        change: Option<Change>,
    ) -> Result<Self, GraphError> {
        let (graph, config) = (setup.graph, setup.config);
        let Some(persist) = persist else {
            return Err(GraphError::NoCheckpointer {
                what: "resuming a run".to_string(),
            });
        };
        let thread = persist.thread_id.to_string();
        let (checkpoint, is_latest) = resumed_checkpoint(&persist, config, &thread).await?;
        let meta = decode_meta(&checkpoint)?;
        if meta.is_finished() {
            return Err(GraphError::NothingToResume {
                thread_id: thread,
                reason: format!(
                    "checkpoint {} has nothing left to run (the run finished)",
                    checkpoint.id
                ),
            });
        }
        let chain = persist.saver.get_chain(&thread, checkpoint.id).await?;
        let mut state: S = rebuild(&chain)?;
        let mut writes = persist.saver.pending_writes(&thread, checkpoint.id).await?;
        if value.is_none() && !is_latest {
            // A replay, or a command's change there (a fork of the past,
            // as `update_state` makes): the superstep runs again, asking
            // its questions again; what it already did (journaled results,
            // finished siblings) is not done twice. Its subgraph tasks run
            // their children afresh, on the new branch's child threads.
            writes = kept_by_a_fork_of_the_past(writes);
        }
        let mut next = meta.next.clone();
        let mut sends = meta.sends.clone();
        let delta = match &change {
            Some(change) => change.apply(graph, &mut state, &mut next, &mut sends, &mut writes)?,
            None => Vec::new(),
        };
        let mut data = resume_data(writes.clone())?;
        let answer_writes = match &value {
            None => Vec::new(),
            Some(answers) => {
                let matched = answers.matched(&data, &thread, checkpoint.id)?;
                give_answers(matched, &mut data, &thread, checkpoint.id)?
            }
        };
        // A checkpoint the thread has moved on from is continued on a new
        // branch head that takes its pending writes along (those kept
        // above): the old branch stays as it was, and what happens next is
        // on the thread's head.
        // A command's change is a new checkpoint too, saved together with
        // its answers.
        let (persister, step) = if is_latest && change.is_none() {
            if !answer_writes.is_empty() {
                persist.saver.put_writes(answer_writes).await?;
            }
            let mut persister =
                Persister::new(Arc::clone(&persist), config.durability, Some(checkpoint.id));
            persister.resume_policy(&chain);
            (persister, checkpoint.step)
        } else {
            let changed = change.is_some();
            let head_meta = CheckpointMetadata {
                source: if changed {
                    CheckpointSource::Update
                } else {
                    CheckpointSource::Fork
                },
                next: next.clone(),
                sends: sends.clone(),
                ran: if delta.is_empty() {
                    Vec::new()
                } else {
                    vec![COMMAND_NODE.to_string()]
                },
                reasons: Vec::new(),
                duration_us: 0,
                abandoned: None,
                ..meta.clone()
            };
            writes.extend(answer_writes);
            let step = checkpoint.step + u64::from(changed);
            let (_, persister) = save_head(
                Arc::clone(&persist),
                Head {
                    parent: &checkpoint,
                    chain: &chain,
                    step,
                    state: &state,
                    delta,
                    meta: encode_meta(&head_meta),
                    writes,
                    sibling: false,
                },
            )
            .await?;
            (persister.with_durability(config.durability), step)
        };
        let mut driver = Self::empty(setup, state, Some(persister));
        driver.step = step;
        driver.schedule(&next, &sends, &meta.barriers, checkpoint.id)?;
        driver.resume = Some(data);
        Ok(driver)
    }

    /// Schedules the nodes `next` and the tasks `sends` stored in
    /// `checkpoint`, with its join barriers' progress.
    fn schedule(
        &mut self,
        next: &[String],
        sends: &[crate::Send],
        barriers: &[u64],
        checkpoint: CheckpointId,
    ) -> Result<(), GraphError> {
        let unknown = |what: &str, node: &str| GraphError::UnknownNode {
            place: format!("the {what} stored in checkpoint {checkpoint}"),
            node: node.to_string(),
        };
        for name in next {
            let index = self
                .graph
                .index_of(name)
                .ok_or_else(|| unknown("next nodes", name))?;
            self.next.push(index);
        }
        for send in sends {
            let node = self
                .graph
                .index_of(send.node())
                .ok_or_else(|| unknown("sends", send.node()))?;
            self.sends.push(SentTask {
                node,
                arg: Arc::clone(send.arg_shared()),
            });
        }
        for (slot, bits) in self.barriers.iter_mut().zip(barriers) {
            *slot = *bits;
        }
        Ok(())
    }
}

/// The checkpoint a resume starts from (the one `config` names, else the
/// thread's latest), and whether it is the latest.
async fn resumed_checkpoint(
    persist: &PersistShared,
    config: &RunConfig,
    thread: &str,
) -> Result<(StoredCheckpoint, bool), GraphError> {
    let Some(latest) = persist.saver.get(thread, None).await? else {
        return Err(GraphError::NothingToResume {
            thread_id: thread.to_string(),
            reason: "the thread has no checkpoint (unknown thread)".to_string(),
        });
    };
    match config.checkpoint_id {
        Some(id) if id != latest.id => {
            let checkpoint = persist
                .saver
                .get(thread, Some(id))
                .await?
                .ok_or_else(|| unknown_checkpoint(persist, config))?;
            Ok((checkpoint, false))
        }
        _ => Ok((latest, true)),
    }
}

/// Gives each waiting interrupt of `answers` its value in `data` (an
/// interrupt's call: replacing an earlier answer to it, one the node
/// rejected, say; a subgraph's: by id), and returns the pending writes
/// that record them.
fn give_answers(
    answers: Vec<(Awaiting, serde_json::Value)>,
    data: &mut ResumeData,
    thread: &str,
    checkpoint: CheckpointId,
) -> Result<Vec<PendingWrite>, GraphError> {
    let mut writes = Vec::with_capacity(answers.len());
    for (waiting, value) in answers {
        let key = match waiting.call {
            Some(call) => call.to_string(),
            None => format!("{SUBGRAPH_ANSWER}{}", waiting.id),
        };
        writes.push(PendingWrite {
            thread_id: thread.to_string(),
            checkpoint,
            node: waiting.node.clone(),
            kind: WriteKind::Resume,
            key,
            value: encode_json(&value)?,
        });
        match waiting.call {
            Some(call) => {
                let given = data.resume.entry(waiting.node).or_default();
                given.truncate(call);
                given.push(value);
            }
            None => {
                data.sub_answers
                    .entry(waiting.node)
                    .or_default()
                    .insert(waiting.id, value);
            }
        }
    }
    Ok(writes)
}

/// The values a resume gives.
enum Answers {
    /// One value, for the one interrupt that waits.
    One(serde_json::Value),
    /// Values by interrupt id.
    ById(std::collections::BTreeMap<String, serde_json::Value>),
}

impl Answers {
    /// The waiting interrupts these values answer, each with its value;
    /// a typed error when nothing waits, when one value would answer
    /// several, or for an id that is not waiting.
    fn matched(
        &self,
        data: &ResumeData,
        thread: &str,
        checkpoint: crate::checkpoint::CheckpointId,
    ) -> Result<Vec<(Awaiting, serde_json::Value)>, GraphError> {
        let waiting = data.awaiting_values();
        let ids = || waiting.iter().map(|w| w.id.clone()).collect::<Vec<_>>();
        if waiting.is_empty() {
            return Err(GraphError::NothingToResume {
                thread_id: thread.to_string(),
                reason: format!("no interrupt is waiting for a value at checkpoint {checkpoint}"),
            });
        }
        match self {
            Answers::One(value) => match &waiting[..] {
                [only] => Ok(vec![(only.clone(), value.clone())]),
                _ => Err(GraphError::AmbiguousResume {
                    thread_id: thread.to_string(),
                    waiting: ids(),
                }),
            },
            Answers::ById(values) => values
                .iter()
                .map(|(id, value)| {
                    waiting
                        .iter()
                        .find(|w| &w.id == id)
                        .map(|w| (w.clone(), value.clone()))
                        .ok_or_else(|| GraphError::UnknownInterrupt {
                            thread_id: thread.to_string(),
                            id: id.clone(),
                            waiting: ids(),
                        })
                })
                .collect(),
        }
    }
}

/// The name a command's update is recorded under.
const COMMAND_NODE: &str = "__command__";

/// What a [`ResumeCommand`] changes before the run goes on.
struct Change {
    /// Fields to write, as JSON of the state's update.
    update: Option<serde_json::Value>,
    /// The nodes to run next.
    goto: Option<Vec<String>>,
}

impl Change {
    /// Writes the update into `state` and replaces the tasks due (`next`
    /// and `sends`) with the goto's nodes, dropping the pending writes of
    /// tasks no longer due; returns the update's delta. Nothing is changed
    /// when it fails.
    fn apply<S: State>(
        &self,
        graph: &Graph<S>,
        state: &mut S,
        next: &mut Vec<String>,
        sends: &mut Vec<crate::Send>,
        writes: &mut Vec<PendingWrite>,
    ) -> Result<Vec<u8>, GraphError> {
        if let Some(goto) = &self.goto {
            if goto.is_empty() {
                return Err(GraphError::BadInput {
                    reason: "its goto names no node to run".to_string(),
                });
            }
            if let Some(unknown) = goto.iter().find(|name| graph.index_of(name).is_none()) {
                return Err(GraphError::UnknownNode {
                    place: "the command's goto".to_string(),
                    node: unknown.clone(),
                });
            }
        }
        let mut delta = Vec::new();
        if let Some(update) = &self.update {
            let update = decode_update::<S>(update.clone(), "the command")?;
            push_delta(&mut delta, COMMAND_NODE, &update)?;
            state.apply(update);
        }
        if let Some(goto) = &self.goto {
            *next = goto.clone();
            next.sort();
            next.dedup();
            sends.clear();
            // Nodes no longer due take their pending writes with them.
            writes.retain(|w| next.contains(&w.node));
        }
        Ok(delta)
    }
}

/// `value` as the state's update type; `what` names where it came from.
fn decode_update<S: State>(value: serde_json::Value, what: &str) -> Result<S::Update, GraphError> {
    serde_json::from_value(value).map_err(|e| GraphError::BadInput {
        reason: format!("{what}'s update does not fit the state: {e}"),
    })
}
