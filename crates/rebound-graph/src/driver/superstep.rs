//! Running one superstep's tasks — the nodes the edges scheduled, then the
//! tasks of the sends — concurrently, reusing what a resumed superstep
//! already has; then settling their ends in merge order, and recording what
//! a resume needs when one interrupted or failed.

use std::sync::Arc;
use std::time::Duration;

use super::{Driver, StoredCommand};
use crate::checkpoint::codec::{decode, encode_json};
use crate::checkpoint::{PendingWrite, WriteKind};
use crate::compile::Graph;
use crate::driver::pending::SUBGRAPH_INTERRUPTS;
use crate::driver::ResumeData;
use crate::execute::{run_node, NodeEnd, NodeRun, ScratchSeed};
use crate::send::{task_key, Task, TaskSend};
use crate::{GraphError, Interrupt, InterruptKind, RunOutcome, State};

/// A task's end, with the task's position in merge order (`None` for a
/// task the runtime lost, which sorts first).
type Ended<U> = (Option<usize>, Result<NodeEnd<U>, GraphError>);

impl<'a, S: State> Driver<'a, S> {
    /// The superstep's tasks in merge order: the scheduled nodes by name,
    /// then the sends in emission order.
    fn tasks(&self) -> Vec<Task> {
        let graph = self.graph;
        let mut tasks: Vec<Task> = Vec::with_capacity(self.next.len() + self.sends.len());
        tasks.extend(self.next.iter().map(|&node| Task { node, send: None }));
        if tasks.len() > 1 {
            tasks.sort_by(|a, b| graph.nodes[a.node].name.cmp(&graph.nodes[b.node].name));
        }
        tasks.extend(self.sends.iter().enumerate().map(|(index, sent)| Task {
            node: sent.node,
            send: Some(TaskSend {
                index,
                arg: Arc::clone(&sent.arg),
            }),
        }));
        tasks
    }

    /// Runs the superstep's tasks (reusing what a resumed superstep already
    /// has) into `runs`, in merge order. Returns an outcome when the
    /// superstep stopped at an interrupt.
    pub(super) async fn run_superstep(
        &mut self,
        runs: &mut Vec<NodeRun<S::Update>>,
    ) -> Result<Option<RunOutcome<S>>, GraphError> {
        // The common case: one node, no sends, nothing to reuse, nobody to cancel.
        if let ([only], [], None, None) = (
            &self.next[..],
            &self.sends[..],
            &self.resume,
            &self.config.cancellation,
        ) {
            let task = Task {
                node: *only,
                send: None,
            };
            let seed = self.seed_for(&task, None);
            let end = run_node(
                self.graph,
                task,
                Arc::clone(&self.state),
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
                other => self.settle(vec![(Some(0), other)], runs, None).await,
            };
        }
        let resume = self.resume.take();
        let tasks = self.tasks();
        let (mut ends, to_run) = self.reuse_stored(tasks, resume.as_ref())?;
        let step = self.step;
        // Cancelling stops the running tasks at their next await point and
        // returns here, so that the run can still commit what it buffered.
        let execution = self.execute(to_run, resume.as_ref());
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

    /// The seed of `task`'s scratch: where its journal goes, and (in a
    /// resumed superstep) what it recorded, was answered and was given for
    /// its subgraph; `None` without a checkpointer.
    fn seed_for(&self, task: &Task, resume: Option<&ResumeData>) -> Option<ScratchSeed> {
        let persister = self.persister.as_ref()?;
        let (recorded, resumed, answers) = match resume {
            Some(resume) => {
                let key = task_key(
                    &self.graph.nodes[task.node].name,
                    task.send.as_ref().map(|s| s.index),
                );
                (
                    resume.journal.get(&*key).map(|m| Arc::new(m.clone())),
                    resume.resume.get(&*key).map(|v| Arc::new(v.clone())),
                    resume.sub_answers_for(&key).map(Arc::new),
                )
            }
            None => (None, None, None),
        };
        Some(ScratchSeed {
            persist: Arc::clone(&persister.shared),
            checkpoint: persister.last_id?,
            recorded,
            resume: resumed,
            answers,
        })
    }

    /// The tasks of a resumed superstep that finished before (their stored
    /// updates, as ended tasks), and the others, to run, each with its
    /// position.
    #[allow(clippy::type_complexity)]
    fn reuse_stored(
        &self,
        tasks: Vec<Task>,
        resume: Option<&ResumeData>,
    ) -> Result<(Vec<Ended<S::Update>>, Vec<(usize, Task)>), GraphError> {
        let mut ends: Vec<Ended<S::Update>> = Vec::with_capacity(tasks.len());
        let mut to_run: Vec<(usize, Task)> = Vec::with_capacity(tasks.len());
        for (position, task) in tasks.into_iter().enumerate() {
            let stored = resume.and_then(|r| {
                let key = task_key(
                    &self.graph.nodes[task.node].name,
                    task.send.as_ref().map(|s| s.index),
                );
                r.updates.get(&*key)
            });
            let Some(bytes) = stored else {
                to_run.push((position, task));
                continue;
            };
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
            ends.push((
                Some(position),
                Ok(NodeEnd::Done(NodeRun {
                    node: task.node,
                    send: task.send.map(|s| s.index),
                    command: stored.into_command(),
                    duration: Duration::ZERO,
                })),
            ));
        }
        Ok((ends, to_run))
    }

    /// Runs `to_run`: one task in place, several on tasks of their own.
    /// When one fails, the others stop at their next await point (those
    /// that finished stay as pending writes).
    async fn execute(
        &self,
        mut to_run: Vec<(usize, Task)>,
        resume: Option<&ResumeData>,
    ) -> Vec<Ended<S::Update>> {
        let graph: &'a Arc<Graph<S>> = self.graph;
        let mut ends = Vec::with_capacity(to_run.len());
        if to_run.len() == 1 {
            if let Some((position, task)) = to_run.pop() {
                let seed = self.seed_for(&task, resume);
                let state = Arc::clone(&self.state);
                let end = run_node(
                    graph,
                    task,
                    state,
                    self.shared,
                    self.step,
                    self.timed,
                    seed.as_ref(),
                )
                .await;
                ends.push((Some(position), end));
            }
            return ends;
        }
        let mut running = tokio::task::JoinSet::new();
        for (position, task) in to_run {
            let graph = Arc::clone(graph);
            let state = Arc::clone(&self.state);
            let shared = Arc::clone(self.shared);
            let seed = self.seed_for(&task, resume);
            let (step, timed) = (self.step, self.timed);
            running.spawn(async move {
                let end = run_node(&graph, task, state, &shared, step, timed, seed.as_ref()).await;
                (Some(position), end)
            });
        }
        while let Some(joined) = running.join_next().await {
            let ended = match joined {
                Ok(ended) => ended,
                // A sibling stopped below, after another failed.
                Err(e) if e.is_cancelled() => continue,
                Err(e) => (
                    None,
                    Err(GraphError::TaskFailed {
                        message: e.to_string(),
                        source: Some(e),
                    }),
                ),
            };
            if ended.1.is_err() {
                // The superstep fails: its other tasks stop at their
                // next await point instead of running to the end;
                // those that finished stay as pending writes.
                running.abort_all();
            }
            ends.push(ended);
        }
        ends
    }

    /// Puts a superstep's task ends into `runs` in merge order; when some
    /// task interrupted or failed, records what a resume needs and stops.
    async fn settle(
        &mut self,
        mut ends: Vec<Ended<S::Update>>,
        runs: &mut Vec<NodeRun<S::Update>>,
        resume: Option<ResumeData>,
    ) -> Result<Option<RunOutcome<S>>, GraphError> {
        let graph: &'a Arc<Graph<S>> = self.graph;
        if let [(_, Ok(NodeEnd::Done(_)))] = &ends[..] {
            if let Some((_, Ok(NodeEnd::Done(run)))) = ends.pop() {
                runs.push(run);
            }
            return Ok(None);
        }
        ends.sort_unstable_by_key(|(position, _)| *position);
        let stopped = self.sort_ends(ends, runs, resume.as_ref());
        if stopped.interrupts.is_empty() && stopped.error.is_none() {
            return Ok(None);
        }
        // The superstep did not complete: nothing of it is merged. Finished
        // siblings' updates are kept as pending writes, so a resume does not
        // run them again; interrupts are recorded for the resume.
        if let Some(persister) = &mut self.persister {
            let checkpoint = persister.last_id.unwrap_or_default();
            let thread = persister.shared.thread_id.to_string();
            let reused = resume.as_ref().map(|r| &r.updates);
            let writes = stopped_writes(graph, runs, &stopped, reused, &thread, checkpoint)?;
            persister.flush_with(writes).await?;
        }
        let Stopped {
            interrupts, error, ..
        } = stopped;
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

    /// Puts the finished tasks' runs into `runs`, in the order of `ends`,
    /// and gathers what stopped the others: interrupts (with their ids,
    /// the ones they had when asked again) and the first error.
    fn sort_ends(
        &self,
        ends: Vec<Ended<S::Update>>,
        runs: &mut Vec<NodeRun<S::Update>>,
        resume: Option<&ResumeData>,
    ) -> Stopped {
        let graph = self.graph;
        let mut stopped = Stopped {
            interrupts: Vec::new(),
            calls: Vec::new(),
            error: None,
        };
        let interrupts = &mut stopped.interrupts;
        for (_, end) in ends {
            match end {
                Ok(NodeEnd::Done(run)) => runs.push(run),
                Ok(NodeEnd::Interrupted {
                    node,
                    send,
                    payload,
                    call,
                }) => {
                    let name = &*graph.nodes[node].name;
                    let key = task_key(name, send).into_owned();
                    // Asked again (a partial resume): the id it had.
                    let id = resume
                        .and_then(|r| r.known_id(&key, call))
                        .unwrap_or_else(|| crate::interrupt::new_id(self.step, &key, call));
                    stopped.calls.push((
                        key,
                        call.to_string(),
                        interrupts.len()..interrupts.len() + 1,
                    ));
                    interrupts.push(Interrupt {
                        id,
                        node: name.to_string(),
                        kind: InterruptKind::Dynamic,
                        payload,
                    });
                }
                Ok(NodeEnd::Subgraph {
                    node,
                    send,
                    interrupts: list,
                }) => {
                    let key = task_key(&graph.nodes[node].name, send).into_owned();
                    let range = interrupts.len()..interrupts.len() + list.len();
                    stopped
                        .calls
                        .push((key, SUBGRAPH_INTERRUPTS.to_string(), range));
                    interrupts.extend(list);
                }
                Err(e) => {
                    if stopped.error.is_none() {
                        stopped.error = Some(e);
                    }
                }
            }
        }
        stopped
    }
}

/// What stopped the tasks of a superstep that did not complete.
struct Stopped {
    /// The interrupts asked, in task order.
    interrupts: Vec<Interrupt>,
    /// What each stopped task records: its key, the write's key and the
    /// interrupts it covers (one call's, or a subgraph's list).
    calls: Vec<(String, String, std::ops::Range<usize>)>,
    /// The first error.
    error: Option<GraphError>,
}

/// The pending writes of a superstep that did not complete: the finished
/// tasks' updates (but those `reused` from a resumed superstep) and the
/// stopped tasks' interrupts.
fn stopped_writes<S: State>(
    graph: &Graph<S>,
    runs: &[NodeRun<S::Update>],
    stopped: &Stopped,
    reused: Option<&std::collections::HashMap<String, Vec<u8>>>,
    thread: &str,
    checkpoint: crate::checkpoint::CheckpointId,
) -> Result<Vec<PendingWrite>, GraphError> {
    let mut writes = Vec::new();
    for run in runs {
        let key = task_key(&graph.nodes[run.node].name, run.send);
        if reused.is_some_and(|u| u.contains_key(&*key)) {
            continue;
        }
        writes.push(PendingWrite {
            thread_id: thread.to_string(),
            checkpoint,
            node: key.into_owned(),
            kind: WriteKind::Update,
            key: String::new(),
            value: encode_json(&StoredCommand::of(&run.command))?,
        });
    }
    for (node, key, range) in &stopped.calls {
        let value = if key == SUBGRAPH_INTERRUPTS {
            encode_json(&stopped.interrupts.get(range.clone()))?
        } else {
            encode_json(&stopped.interrupts.get(range.start))?
        };
        writes.push(PendingWrite {
            thread_id: thread.to_string(),
            checkpoint,
            node: node.clone(),
            kind: WriteKind::Interrupt,
            key: key.clone(),
            value,
        });
    }
    Ok(writes)
}
