//! The superstep loop of one run: start (fresh or resumed), run the
//! scheduled nodes, merge their updates at the barrier, checkpoint, route,
//! repeat until nothing is left or an interrupt stops the run.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use crate::checkpoint::codec::{
    decode, encode_json, encode_meta_view, push_delta, MetaView, Names,
};
use crate::checkpoint::{CheckpointSource, PendingWrite, StateBlob, WriteKind};
use crate::compile::Graph;
use crate::execute::{run_node, NodeEnd, NodeRun, ScratchSeed};
use crate::node::RunShared;
use crate::persist::{delta_blob, PersistShared, Persister};
use crate::routing::{route, From};
use crate::{GraphError, Interrupt, InterruptKind, RunConfig, RunOutcome, State};

/// How many recently visited nodes a recursion-limit error lists.
const RECENT_NODES: usize = 10;

mod pending;
mod start;

pub(crate) use pending::{resume_data, ResumeData, StoredCommand};

pub(crate) struct Driver<'a, S: State> {
    graph: &'a Arc<Graph<S>>,
    shared: &'a Arc<RunShared>,
    config: &'a RunConfig,
    persister: Option<Persister>,
    state: Arc<S>,
    next: Vec<usize>,
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
                graph: self.graph,
                indices: &self.next,
            },
            ran: Names {
                graph: self.graph,
                indices: ran,
            },
            reasons,
            barriers: &self.barriers,
            duration_us: u64::try_from(duration.as_micros()).unwrap_or(u64::MAX),
        })
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
        while !self.next.is_empty() {
            if self.shared.cancellation.is_cancelled() {
                return Err(GraphError::Cancelled { step: self.step });
            }
            // A long run of sync nodes never awaits anything: give the
            // runtime its turn when the task's budget is spent.
            tokio::task::coop::consume_budget().await;

            if !skip_before && self.next.iter().any(|&i| self.interrupt_before[i]) {
                let nodes: Vec<usize> = self
                    .next
                    .iter()
                    .copied()
                    .filter(|&i| self.interrupt_before[i])
                    .collect();
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
                        .next
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

            let after: Vec<usize> = runs
                .iter()
                .map(|r| r.node)
                .filter(|&i| self.interrupt_after[i])
                .collect();
            if !after.is_empty() && !self.next.is_empty() {
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

    /// Runs the scheduled nodes (reusing what a resumed superstep already
    /// has) into `runs`, sorted by node name. Returns an outcome when the
    /// superstep stopped at an interrupt.
    async fn run_superstep(
        &mut self,
        runs: &mut Vec<NodeRun<S::Update>>,
    ) -> Result<Option<RunOutcome<S>>, GraphError> {
        let graph: &'a Arc<Graph<S>> = self.graph;
        // The common case: one node, nothing to reuse, nobody to cancel.
        if let ([only], None, None) = (&self.next[..], &self.resume, &self.config.cancellation) {
            let only = *only;
            let seed = self.persister.as_ref().and_then(|p| {
                Some(ScratchSeed {
                    persist: Arc::clone(&p.shared),
                    checkpoint: p.last_id?,
                    recorded: None,
                    resume: None,
                })
            });
            let state = Arc::clone(&self.state);
            let end = run_node(
                graph,
                only,
                state,
                self.shared,
                self.step,
                self.timed,
                seed.as_ref(),
            )
            .await;
            return match end {
                Ok(NodeEnd::Done(run)) => {
                    runs.push(run);
                    Ok(None)
                }
                other => self.settle(vec![other], runs, None).await,
            };
        }
        let resume = self.resume.take();
        let seed_for = |index: usize| -> Option<ScratchSeed> {
            let persister = self.persister.as_ref()?;
            let name = &*graph.nodes[index].name;
            Some(ScratchSeed {
                persist: Arc::clone(&persister.shared),
                checkpoint: persister.last_id?,
                recorded: resume
                    .as_ref()
                    .and_then(|r| r.journal.get(name))
                    .map(|m| Arc::new(m.clone())),
                resume: resume
                    .as_ref()
                    .and_then(|r| r.resume.get(name))
                    .map(|v| Arc::new(v.clone())),
            })
        };

        let mut ends: Vec<Result<NodeEnd<S::Update>, GraphError>> =
            Vec::with_capacity(self.next.len());
        let mut to_run: Vec<usize> = Vec::with_capacity(self.next.len());
        for &index in &self.next {
            let stored = resume
                .as_ref()
                .and_then(|r| r.updates.get(&*graph.nodes[index].name));
            match stored {
                Some(bytes) => {
                    let thread = self
                        .persister
                        .as_ref()
                        .map(|p| p.shared.thread_id.to_string())
                        .unwrap_or_default();
                    let checkpoint = self
                        .persister
                        .as_ref()
                        .and_then(|p| p.last_id)
                        .unwrap_or_default();
                    let stored: StoredCommand<S::Update> =
                        decode(bytes, &thread, checkpoint, "pending update")?;
                    ends.push(Ok(NodeEnd::Done(NodeRun {
                        node: index,
                        command: stored.into_command(),
                        duration: Duration::ZERO,
                    })));
                }
                None => to_run.push(index),
            }
        }
        let step = self.step;
        let execution = async {
            let mut ends = Vec::with_capacity(to_run.len());
            if let [only] = to_run[..] {
                let seed = seed_for(only);
                let state = Arc::clone(&self.state);
                ends.push(
                    run_node(
                        graph,
                        only,
                        state,
                        self.shared,
                        step,
                        self.timed,
                        seed.as_ref(),
                    )
                    .await,
                );
            } else if !to_run.is_empty() {
                let mut tasks = tokio::task::JoinSet::new();
                for &index in &to_run {
                    let graph = Arc::clone(graph);
                    let state = Arc::clone(&self.state);
                    let shared = Arc::clone(self.shared);
                    let seed = seed_for(index);
                    let timed = self.timed;
                    tasks.spawn(async move {
                        run_node(&graph, index, state, &shared, step, timed, seed.as_ref()).await
                    });
                }
                while let Some(joined) = tasks.join_next().await {
                    let end = match joined {
                        Ok(end) => end,
                        // A sibling stopped below, after another failed.
                        Err(e) if e.is_cancelled() => continue,
                        Err(e) => Err(GraphError::TaskFailed {
                            message: e.to_string(),
                        }),
                    };
                    if end.is_err() {
                        // The superstep fails: its other nodes stop at their
                        // next await point instead of running to the end;
                        // those that finished stay as pending writes.
                        tasks.abort_all();
                    }
                    ends.push(end);
                }
            }
            ends
        };
        // Cancelling stops the running nodes at their next await point and
        // returns here, so that the run can still commit what it buffered.
        let executed = match &self.config.cancellation {
            None => execution.await,
            Some(token) => tokio::select! {
                biased;
                _ = token.cancelled() => return Err(GraphError::Cancelled { step }),
                executed = execution => executed,
            },
        };
        ends.extend(executed);

        self.settle(ends, runs, resume).await
    }

    /// Sorts a superstep's node results by name into `runs`; when some node
    /// interrupted or failed, records what a resume needs and stops.
    async fn settle(
        &mut self,
        mut ends: Vec<Result<NodeEnd<S::Update>, GraphError>>,
        runs: &mut Vec<NodeRun<S::Update>>,
        resume: Option<ResumeData>,
    ) -> Result<Option<RunOutcome<S>>, GraphError> {
        let graph: &'a Arc<Graph<S>> = self.graph;
        let fast = ends.len() == 1 && matches!(ends[0], Ok(NodeEnd::Done(_)));
        if fast {
            if let Some(Ok(NodeEnd::Done(run))) = ends.pop() {
                runs.push(run);
            }
            return Ok(None);
        }
        let name_of = |end: &Result<NodeEnd<S::Update>, GraphError>| -> Arc<str> {
            match end {
                Ok(NodeEnd::Done(run)) => graph.nodes[run.node].name.clone(),
                Ok(NodeEnd::Interrupted { node, .. }) => graph.nodes[*node].name.clone(),
                Err(GraphError::Node { node, .. }) => Arc::from(node.as_str()),
                Err(_) => Arc::from(""),
            }
        };
        ends.sort_by_key(|end| name_of(end));

        let mut interrupts = Vec::new();
        let mut calls = Vec::new();
        let mut error = None;
        for end in ends {
            match end {
                Ok(NodeEnd::Done(run)) => runs.push(run),
                Ok(NodeEnd::Interrupted {
                    node,
                    payload,
                    call,
                }) => {
                    let name = &*graph.nodes[node].name;
                    // Asked again (a partial resume): the id it had.
                    let id = resume
                        .as_ref()
                        .and_then(|r| r.known_id(name, call))
                        .unwrap_or_else(|| crate::interrupt::new_id(self.step, name, call));
                    interrupts.push(Interrupt {
                        id,
                        node: name.to_string(),
                        kind: InterruptKind::Dynamic,
                        payload,
                    });
                    calls.push(call);
                }
                Err(e) => {
                    if error.is_none() {
                        error = Some(e);
                    }
                }
            }
        }
        if interrupts.is_empty() && error.is_none() {
            return Ok(None);
        }
        // The superstep did not complete: nothing of it is merged. Finished
        // siblings' updates are kept as pending writes, so a resume does not
        // run them again; interrupts are recorded for the resume.
        if let Some(persister) = &mut self.persister {
            let checkpoint = persister.last_id.unwrap_or_default();
            let thread = persister.shared.thread_id.to_string();
            let mut writes = Vec::new();
            let reused = resume.as_ref().map(|r| &r.updates);
            for run in runs.iter() {
                let name = graph.nodes[run.node].name.to_string();
                if reused.is_some_and(|u| u.contains_key(&name)) {
                    continue;
                }
                writes.push(PendingWrite {
                    thread_id: thread.clone(),
                    checkpoint,
                    node: name,
                    kind: WriteKind::Update,
                    key: String::new(),
                    value: encode_json(&StoredCommand::of(&run.command))?,
                });
            }
            for (interrupt, call) in interrupts.iter().zip(&calls) {
                writes.push(PendingWrite {
                    thread_id: thread.clone(),
                    checkpoint,
                    node: interrupt.node.clone(),
                    kind: WriteKind::Interrupt,
                    key: call.to_string(),
                    value: encode_json(interrupt)?,
                });
            }
            persister.flush_with(writes).await?;
        }
        if let Some(error) = error {
            return Err(error);
        }
        let Some(persister) = &self.persister else {
            return Err(GraphError::NoCheckpointer {
                what: "an interrupt".to_string(),
            });
        };
        Ok(Some(RunOutcome::Interrupted {
            state: self.state_clone(),
            interrupts,
            checkpoint_id: persister.last_id.unwrap_or_default(),
        }))
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
                push_delta(&mut delta, &graph.nodes[run.node].name, &run.command.update)?;
            }
        }
        let target = Arc::make_mut(&mut self.state);
        let mut gotos = Vec::with_capacity(runs.len());
        for run in runs.iter_mut() {
            let update = std::mem::take(&mut run.command.update);
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| target.apply(update)))
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
            let ran: Vec<usize> = runs.iter().map(|r| r.node).collect();
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

/// Two nodes of one superstep writing the same replace-field is an error.
pub(crate) fn check_conflicts<S: State>(
    graph: &Graph<S>,
    runs: &[NodeRun<S::Update>],
    step: u64,
) -> Result<(), GraphError> {
    let written: Vec<crate::FieldSet> = runs
        .iter()
        .map(|r| S::written(&r.command.update).intersection(graph.replace_fields))
        .collect();
    for (i, a) in written.iter().enumerate() {
        for (j, b) in written.iter().enumerate().skip(i + 1) {
            if let Some(field) = a.intersection(*b).indices().next() {
                return Err(GraphError::Conflict {
                    field: S::FIELDS.get(field).copied().unwrap_or("?"),
                    first: graph.nodes[runs[i].node].name.to_string(),
                    second: graph.nodes[runs[j].node].name.to_string(),
                    step,
                });
            }
        }
    }
    Ok(())
}
