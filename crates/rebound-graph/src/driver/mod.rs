//! The superstep loop of one run: start (fresh or resumed), run the
//! scheduled nodes, merge their updates at the barrier, checkpoint, route,
//! repeat until nothing is left or an interrupt stops the run.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use crate::checkpoint::codec::{encode_json, encode_meta_view, push_delta, MetaView, Names, Sends};
use crate::checkpoint::{CheckpointSource, PendingWrite, StateBlob, WriteKind};
use crate::compile::Graph;
use crate::execute::NodeRun;
use crate::node::RunShared;
use crate::persist::{delta_blob, PersistShared, Persister};
use crate::routing::{route, From};
use crate::send::{task_key, SentTask};
use crate::{GraphError, Interrupt, InterruptKind, RunConfig, RunOutcome, State};

/// How many recently visited nodes a recursion-limit error lists.
const RECENT_NODES: usize = 10;

mod pending;
mod start;
mod superstep;

pub(crate) use pending::{resume_data, ResumeData, StoredCommand};

pub(crate) struct Driver<'a, S: State> {
    graph: &'a Arc<Graph<S>>,
    shared: &'a Arc<RunShared>,
    config: &'a RunConfig,
    persister: Option<Persister>,
    state: Arc<S>,
    /// The nodes the edges scheduled for the next superstep (by index).
    next: Vec<usize>,
    /// The sends scheduled for the next superstep, in emission order
    /// (empty, and never allocated, in a graph that does not send).
    sends: Vec<SentTask>,
    barriers: Vec<u64>,
    recent: VecDeque<usize>,
    /// The thread's superstep counter (continues across resumes).
    step: u64,
    /// Supersteps run by this call (what the recursion limit counts).
    steps_run: u64,
    resume: Option<ResumeData>,
    interrupt_before: Cow<'a, [bool]>,
    interrupt_after: Cow<'a, [bool]>,
    timed: bool,
}

impl<'a, S: State> Driver<'a, S> {
    /// The encoded metadata of a checkpoint taken now.
    fn meta_bytes(
        &self,
        source: CheckpointSource,
        ran: &[usize],
        reasons: &[Cow<'static, str>],
        duration: Duration,
    ) -> Vec<u8> {
        encode_meta_view(&MetaView {
            source,
            next: Names {
                graph: &**self.graph,
                indices: &self.next,
            },
            sends: Sends {
                graph: &**self.graph,
                sends: &self.sends,
            },
            ran: Names {
                graph: &**self.graph,
                indices: ran,
            },
            reasons,
            barriers: &self.barriers,
            duration_us: u64::try_from(duration.as_micros()).unwrap_or(u64::MAX),
        })
    }

    /// Whether a superstep is due.
    fn has_tasks(&self) -> bool {
        !self.next.is_empty() || !self.sends.is_empty()
    }

    /// The nodes due next, each once: the scheduled ones, then those of the
    /// sends, filtered by `keep`.
    fn due_nodes(&self, keep: impl Fn(usize) -> bool) -> Vec<usize> {
        let mut nodes: Vec<usize> = self.next.iter().copied().filter(|&i| keep(i)).collect();
        for sent in &self.sends {
            if keep(sent.node) && !nodes.contains(&sent.node) {
                nodes.push(sent.node);
            }
        }
        nodes
    }

    /// The state, for an interrupted outcome.
    fn state_clone(&self) -> S {
        (*self.state).clone()
    }

    /// Runs supersteps until the run ends (`None`: take the final state with
    /// [`Driver::into_state`]) or stops at an interrupt.
    pub(crate) async fn drive(&mut self) -> Result<Option<RunOutcome<S>>, GraphError> {
        let graph: &'a Arc<Graph<S>> = self.graph;
        let mut skip_before = self.resume.is_some();
        let mut runs: Vec<NodeRun<S::Update>> = Vec::with_capacity(4);
        while self.has_tasks() {
            if self.shared.cancellation.is_cancelled() {
                return Err(GraphError::Cancelled { step: self.step });
            }
            // A long run of sync nodes never awaits anything: give the
            // runtime its turn when the task's budget is spent.
            tokio::task::coop::consume_budget().await;

            if !skip_before
                && (self.next.iter().any(|&i| self.interrupt_before[i])
                    || self.sends.iter().any(|s| self.interrupt_before[s.node]))
            {
                let nodes = self.due_nodes(|i| self.interrupt_before[i]);
                return self
                    .stop_static(&nodes, InterruptKind::Before)
                    .await
                    .map(Some);
            }
            skip_before = false;
            if self.steps_run >= self.config.recursion_limit {
                return Err(GraphError::RecursionLimit {
                    limit: self.config.recursion_limit,
                    recent: self
                        .recent
                        .iter()
                        .map(|&i| graph.nodes[i].name.to_string())
                        .collect(),
                    pending: self
                        .due_nodes(|_| true)
                        .iter()
                        .map(|&i| graph.nodes[i].name.to_string())
                        .collect(),
                });
            }

            runs.clear();
            if let Some(outcome) = self.run_superstep(&mut runs).await? {
                return Ok(Some(outcome));
            }
            self.finish_superstep(&mut runs).await?;

            let mut after: Vec<usize> = Vec::new();
            for run in runs.iter() {
                if self.interrupt_after[run.node] && !after.contains(&run.node) {
                    after.push(run.node);
                }
            }
            if !after.is_empty() && self.has_tasks() {
                return self
                    .stop_static(&after, InterruptKind::After)
                    .await
                    .map(Some);
            }
        }
        if let Some(persister) = &mut self.persister {
            persister.flush().await?;
        }
        Ok(None)
    }

    /// The final state of a completed run.
    pub(crate) fn into_state(self) -> S {
        Arc::try_unwrap(self.state).unwrap_or_else(|shared| (*shared).clone())
    }

    /// Merges a completed superstep, routes, and saves its checkpoint.
    async fn finish_superstep(
        &mut self,
        runs: &mut [NodeRun<S::Update>],
    ) -> Result<(), GraphError> {
        let graph: &'a Arc<Graph<S>> = self.graph;
        let step = self.step;
        if runs.len() > 1 {
            check_conflicts::<S>(graph, runs, step)?;
        }
        let mut delta = Vec::new();
        if self.persister.is_some() {
            delta.reserve(128);
            for run in runs.iter() {
                let name = &graph.nodes[run.node].name;
                push_delta(&mut delta, name, &run.command.update)?;
                for update in run.command.more() {
                    push_delta(&mut delta, name, update)?;
                }
            }
        }
        let target = Arc::make_mut(&mut self.state);
        let mut gotos = Vec::with_capacity(runs.len());
        for run in runs.iter_mut() {
            let command = &mut run.command;
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                target.apply(std::mem::take(&mut command.update));
                if let Some(more) = command.more.take() {
                    for update in *more {
                        target.apply(update);
                    }
                }
            }))
            .map_err(|panic| GraphError::Panicked {
                place: format!("merging the update of {:?}", graph.nodes[run.node].name),
                message: crate::execute::panic_message(&*panic),
            })?;
            if self.recent.len() == RECENT_NODES {
                self.recent.pop_front();
            }
            self.recent.push_back(run.node);
            gotos.push((run.node, run.command.goto.take()));
        }
        self.next.clear();
        self.sends.clear();
        let mut reasons = Vec::new();
        for (index, goto) in gotos {
            let reason = route(
                graph,
                From::node(graph, index),
                goto,
                &self.state,
                step,
                self.shared,
                &mut self.barriers,
                &mut self.next,
                &mut self.sends,
            )?;
            if let Some(reason) = reason {
                if self.persister.is_some() {
                    reasons.push(reason);
                }
            }
        }
        if self.next.len() > 1 {
            self.next.sort_unstable();
            self.next.dedup();
        }
        self.step += 1;
        self.steps_run += 1;
        self.shared
            .steps
            .store(self.steps_run, std::sync::atomic::Ordering::Relaxed);

        if self.persister.is_some() {
            // Each node once, though its sends ran many times.
            let mut ran: Vec<usize> = Vec::with_capacity(runs.len());
            for run in runs.iter() {
                if run.send.is_none() || !ran.contains(&run.node) {
                    ran.push(run.node);
                }
            }
            let slowest = runs.iter().map(|r| r.duration).max().unwrap_or_default();
            let meta = self.meta_bytes(CheckpointSource::Loop, &ran, &reasons, slowest);
            let wants_snapshot = self
                .persister
                .as_ref()
                .is_some_and(|p| p.wants_snapshot(delta.len() + 1));
            let blob = if wants_snapshot {
                StateBlob::Snapshot(encode_json(&*self.state)?)
            } else {
                delta_blob(delta)
            };
            if let Some(persister) = &mut self.persister {
                persister.save(self.step, blob, meta).await?;
            }
        }
        self.emit_values();
        Ok(())
    }

    /// Tells the whole state, when the stream asks for values.
    fn emit_values(&self) {
        if self.shared.modes.values {
            self.shared.events.emit(|| crate::Event::Values {
                step: self.step,
                values: serde_json::to_value(&*self.state).unwrap_or(serde_json::Value::Null),
            });
        }
    }

    /// Stops at a static interrupt before or after `nodes`.
    async fn stop_static(
        &mut self,
        nodes: &[usize],
        kind: InterruptKind,
    ) -> Result<RunOutcome<S>, GraphError> {
        let Some(persister) = &mut self.persister else {
            return Err(GraphError::NoCheckpointer {
                what: "a static interrupt".to_string(),
            });
        };
        let checkpoint = persister.last_id.unwrap_or_default();
        let interrupts: Vec<Interrupt> = nodes
            .iter()
            .map(|&i| Interrupt {
                id: crate::interrupt::new_id(self.step, &self.graph.nodes[i].name, kind.as_str()),
                node: self.graph.nodes[i].name.to_string(),
                kind,
                payload: serde_json::Value::Null,
            })
            .collect();
        let mut writes = Vec::with_capacity(interrupts.len());
        for interrupt in &interrupts {
            writes.push(PendingWrite {
                thread_id: persister.shared.thread_id.to_string(),
                checkpoint,
                node: interrupt.node.clone(),
                kind: WriteKind::Interrupt,
                key: "static".to_string(),
                value: encode_json(interrupt)?,
            });
        }
        persister.flush_with(writes).await?;
        Ok(RunOutcome::Interrupted {
            state: self.state_clone(),
            interrupts,
            checkpoint_id: checkpoint,
        })
    }

    /// Commits what is buffered (after an error: the last good supersteps).
    pub(crate) async fn flush(&mut self) -> Result<(), GraphError> {
        match &mut self.persister {
            Some(persister) => persister.flush().await,
            None => Ok(()),
        }
    }
}

fn unknown_checkpoint(persist: &PersistShared, config: &RunConfig) -> GraphError {
    GraphError::UnknownCheckpoint {
        thread_id: persist.thread_id.to_string(),
        checkpoint: config
            .checkpoint_id
            .map(|c| c.to_string())
            .unwrap_or_default(),
    }
}

/// The fields a task writes, and those of them no other task of its
/// superstep may write: its replace-fields and its overwrites.
fn task_writes<S: State>(graph: &Graph<S>, command: &crate::Command<S::Update>) -> Writes {
    let mut written = S::written(&command.update);
    let mut overwritten = S::overwritten(&command.update);
    for update in command.more() {
        written = written.union(S::written(update));
        overwritten = overwritten.union(S::overwritten(update));
    }
    Writes {
        all: written,
        exclusive: written.intersection(graph.replace_fields.union(overwritten)),
    }
}

/// What [`task_writes`] answers.
#[derive(Clone, Copy)]
struct Writes {
    all: crate::FieldSet,
    exclusive: crate::FieldSet,
}

impl Writes {
    /// A field both write, one of them exclusively.
    fn clash(self, other: Writes) -> Option<usize> {
        self.exclusive
            .intersection(other.all)
            .union(other.exclusive.intersection(self.all))
            .indices()
            .next()
    }
}

/// Two tasks of one superstep writing the same replace-field, or the same
/// field when one of them overwrites it, is an error.
pub(crate) fn check_conflicts<S: State>(
    graph: &Graph<S>,
    runs: &[NodeRun<S::Update>],
    step: u64,
) -> Result<(), GraphError> {
    let written: Vec<Writes> = runs
        .iter()
        .map(|r| task_writes(graph, &r.command))
        .collect();
    // One pass tells whether any field is written twice (a fan-out of many
    // sends stays linear); only then is the first pair looked for.
    let mut seen = Writes {
        all: crate::FieldSet::EMPTY,
        exclusive: crate::FieldSet::EMPTY,
    };
    let mut twice = false;
    for set in &written {
        twice |= set.clash(seen).is_some();
        seen.all = seen.all.union(set.all);
        seen.exclusive = seen.exclusive.union(set.exclusive);
    }
    if !twice {
        return Ok(());
    }
    let name =
        |run: &NodeRun<S::Update>| task_key(&graph.nodes[run.node].name, run.send).into_owned();
    for (i, a) in written.iter().enumerate() {
        for (j, b) in written.iter().enumerate().skip(i + 1) {
            if let Some(field) = a.clash(*b) {
                return Err(GraphError::Conflict {
                    field: S::FIELDS.get(field).copied().unwrap_or("?"),
                    first: name(&runs[i]),
                    second: name(&runs[j]),
                    step,
                });
            }
        }
    }
    Ok(())
}
