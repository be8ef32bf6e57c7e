//! [`CompiledGraph`]: running a validated graph — `invoke`, `run`, `resume`,
//! `stream` — with its event bookkeeping and the one-run-per-thread lease.

use std::sync::Arc;
use std::time::Instant;

use crate::checkpoint::Checkpointer;
use crate::compile::Graph;
use crate::driver::Driver;
use crate::event::RunStatus;
use crate::node::RunShared;
use crate::persist::PersistShared;
use crate::{Event, EventSink, GraphError, Input, RunConfig, RunOutcome, RunStream, State};

/// A validated graph, ready to run any number of times, concurrently.
/// Cloning it is cheap (the graph is shared).
pub struct CompiledGraph<S: State> {
    pub(crate) graph: Arc<Graph<S>>,
    pub(crate) checkpointer: Option<Arc<dyn Checkpointer>>,
}

impl<S: State> crate::StateGraph<S> {
    /// Validates the graph and returns it ready to run.
    pub fn compile(self) -> Result<CompiledGraph<S>, crate::CompileError> {
        crate::compile::compile(self).map(CompiledGraph::from_graph)
    }
}

impl<S: State> Clone for CompiledGraph<S> {
    fn clone(&self) -> Self {
        CompiledGraph {
            graph: Arc::clone(&self.graph),
            checkpointer: self.checkpointer.clone(),
        }
    }
}

/// Releases a thread claimed for a run, even when the run's future is dropped.
struct Lease {
    saver: Arc<dyn Checkpointer>,
    thread_id: Arc<str>,
    released: bool,
}

impl Lease {
    async fn release(mut self) -> Result<(), GraphError> {
        self.released = true;
        self.saver.release(&self.thread_id).await?;
        Ok(())
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.released {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let saver = Arc::clone(&self.saver);
            let thread_id = Arc::clone(&self.thread_id);
            runtime.spawn(async move {
                let _ = saver.release(&thread_id).await;
            });
        }
    }
}

impl<S: State> CompiledGraph<S> {
    pub(crate) fn from_graph(graph: Graph<S>) -> Self {
        CompiledGraph {
            graph: Arc::new(graph),
            checkpointer: None,
        }
    }

    /// Makes every run durable: one checkpoint per superstep in `saver`,
    /// under the config's thread id (which then becomes required).
    #[must_use]
    pub fn with_checkpointer(mut self, saver: Arc<dyn Checkpointer>) -> Self {
        self.checkpointer = Some(saver);
        self
    }

    /// The checkpointer, if one is attached.
    pub fn checkpointer(&self) -> Option<&Arc<dyn Checkpointer>> {
        self.checkpointer.as_ref()
    }

    /// The node names, in the order they were added.
    pub fn node_names(&self) -> impl Iterator<Item = &str> {
        self.graph.nodes.iter().map(|n| &*n.name)
    }

    /// Runs the graph to the end and returns the final state. A run that
    /// stops at an interrupt is [`GraphError::Interrupted`]; use
    /// [`CompiledGraph::run`] for graphs that interrupt.
    pub async fn invoke(
        &self,
        input: impl Into<Input<S>>,
        config: RunConfig,
    ) -> Result<S, GraphError> {
        match self.run(input, config.clone()).await? {
            RunOutcome::Completed(state) => Ok(state),
            RunOutcome::Interrupted { interrupts, .. } => Err(GraphError::Interrupted {
                thread_id: config.thread_id.as_deref().unwrap_or_default().to_string(),
                nodes: interrupts.into_iter().map(|i| i.node).collect(),
            }),
        }
    }

    /// Runs the graph until it ends or stops at an interrupt.
    ///
    /// With a checkpointer, `Input::State` starts a fresh run on the thread
    /// (after its latest checkpoint, if any), and `Input::Resume` /
    /// `Input::ResumeWith` continue the thread from its latest checkpoint,
    /// or from the config's checkpoint id (a replay that forks).
    pub async fn run(
        &self,
        input: impl Into<Input<S>>,
        config: RunConfig,
    ) -> Result<RunOutcome<S>, GraphError> {
        let input = input.into();
        let shared = Arc::new(RunShared {
            run_id: config.run_id.unwrap_or_default(),
            thread_id: config.thread_id.clone(),
            events: config
                .events
                .clone()
                .map(|sender| EventSink::new(sender).within(config.namespace.clone()))
                .unwrap_or_default(),
            cancellation: config.cancellation.clone().unwrap_or_default(),
            names: self
                .graph
                .nodes
                .iter()
                .map(|n| Arc::from(&*n.name))
                .collect(),
            steps: Default::default(),
            recursion_limit: config.recursion_limit,
            durability: config.durability,
            effect_gate: config.effect_gate.clone(),
            modes: if config.events.is_some() {
                config.modes
            } else {
                crate::StreamModes::default()
            },
        });
        let started = Instant::now();
        shared.events.emit(|| Event::RunStarted {
            run_id: shared.run_id,
            thread_id: shared.thread_id.clone(),
        });
        // Cancellation is handled inside the run loop, which then commits what
        // it buffered and releases the thread.
        let result = self.run_leased(input, &config, &shared).await;
        let steps = shared.steps.load(std::sync::atomic::Ordering::Relaxed);
        let result = match result {
            Err(GraphError::Cancelled { .. }) => Err(GraphError::Cancelled { step: steps }),
            other => other,
        };
        let status = match &result {
            Ok(RunOutcome::Completed(_)) => RunStatus::Completed,
            Ok(RunOutcome::Interrupted { interrupts, .. }) => {
                for interrupt in interrupts {
                    shared.events.emit(|| Event::Interrupted {
                        node: Arc::from(interrupt.node.as_str()),
                        kind: interrupt.kind,
                        payload: interrupt.payload.clone(),
                    });
                }
                RunStatus::Interrupted
            }
            Err(GraphError::Cancelled { .. }) => RunStatus::Cancelled,
            Err(_) => RunStatus::Failed,
        };
        if let Err(error) = &result {
            shared.events.emit(|| error_event(error, steps));
        }
        shared.events.emit(|| Event::RunFinished {
            run_id: shared.run_id,
            status,
            steps,
            duration: started.elapsed(),
        });
        result
    }

    /// Continues the thread from its latest checkpoint (after a crash, or a
    /// static interrupt): `run(Input::Resume, config)`.
    pub async fn resume(&self, config: RunConfig) -> Result<RunOutcome<S>, GraphError> {
        self.run(Input::Resume, config).await
    }

    /// Continues after a dynamic interrupt; `value` becomes the return value
    /// of the node's `interrupt` call: `run(Input::ResumeWith(value), config)`.
    /// Refused ([`GraphError::AmbiguousResume`]) when several interrupts
    /// wait: answer them by id with [`CompiledGraph::resume_with_map`].
    pub async fn resume_with(
        &self,
        value: serde_json::Value,
        config: RunConfig,
    ) -> Result<RunOutcome<S>, GraphError> {
        self.run(Input::ResumeWith(value), config).await
    }

    /// Continues with a value for each of some waiting dynamic interrupts,
    /// by [`crate::Interrupt::id`]; those not answered keep waiting:
    /// `run(Input::ResumeMap(values), config)`. An id that is not waiting
    /// is [`GraphError::UnknownInterrupt`], and nothing is written.
    pub async fn resume_with_map(
        &self,
        values: std::collections::BTreeMap<String, serde_json::Value>,
        config: RunConfig,
    ) -> Result<RunOutcome<S>, GraphError> {
        self.run(Input::ResumeMap(values), config).await
    }

    /// Runs the graph on a new task and returns its events as they happen;
    /// [`RunStream::result`] or [`RunStream::outcome`] gives how it ended.
    /// Dropping the stream before the end cancels the run.
    ///
    /// ```
    /// use rebound_graph::{Event, RunConfig, State, StateGraph, END, START};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
    /// struct Doc {
    ///     #[state(append)]
    ///     lines: Vec<String>,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut graph = StateGraph::<Doc>::new();
    /// graph
    ///     .add_sync_node("draft", |_, _| Ok(DocUpdate::default().lines(vec!["draft".into()])))
    ///     .add_sync_node("polish", |_, _| Ok(DocUpdate::default().lines(vec!["polish".into()])))
    ///     .add_edge(START, "draft")
    ///     .add_edge("draft", "polish")
    ///     .add_edge("polish", END);
    /// let graph = graph.compile()?;
    ///
    /// let mut stream = graph.stream(Doc::default(), RunConfig::new());
    /// let mut finished = Vec::new();
    /// while let Some(event) = stream.next_event().await {
    ///     if let Event::NodeFinished { node, step, .. } = event {
    ///         finished.push((node.to_string(), step));
    ///     }
    /// }
    /// assert_eq!(finished, [("draft".to_string(), 0), ("polish".to_string(), 1)]);
    /// assert_eq!(stream.result().await?.lines, ["draft", "polish"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn stream(&self, input: impl Into<Input<S>>, config: RunConfig) -> RunStream<S> {
        let input = input.into();
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        let graph = self.clone();
        let thread_id = config.thread_id().map(str::to_string);
        let handle =
            tokio::spawn(async move { graph.run(input, config.with_events(sender)).await });
        RunStream::new(receiver, handle, thread_id)
    }

    /// The checkpointer and thread a persisted run uses, if any.
    pub(crate) fn persistence(
        &self,
        config: &RunConfig,
    ) -> Result<Option<Arc<PersistShared>>, GraphError> {
        let Some(saver) = &self.checkpointer else {
            return Ok(None);
        };
        let Some(thread_id) = config.thread_id.clone() else {
            return Err(GraphError::NoThreadId);
        };
        Ok(Some(Arc::new(PersistShared {
            saver: Arc::clone(saver),
            thread_id,
            buffer: std::sync::Mutex::new(Vec::new()),
        })))
    }

    async fn run_leased(
        &self,
        input: Input<S>,
        config: &RunConfig,
        shared: &Arc<RunShared>,
    ) -> Result<RunOutcome<S>, GraphError> {
        let persist = self.persistence(config)?;
        let lease = match &persist {
            Some(persist) => {
                persist.saver.acquire(&persist.thread_id).await?;
                Some(Lease {
                    saver: Arc::clone(&persist.saver),
                    thread_id: Arc::clone(&persist.thread_id),
                    released: false,
                })
            }
            None => None,
        };
        let result = self.drive(persist, input, config, shared).await;
        if let Some(lease) = lease {
            lease.release().await?;
        }
        result
    }

    async fn drive(
        &self,
        persist: Option<Arc<PersistShared>>,
        input: Input<S>,
        config: &RunConfig,
        shared: &Arc<RunShared>,
    ) -> Result<RunOutcome<S>, GraphError> {
        let mut driver = Driver::start(&self.graph, persist, input, config, shared).await?;
        let result = driver.drive().await;
        match result {
            Ok(Some(outcome)) => Ok(outcome),
            Ok(None) => Ok(RunOutcome::Completed(driver.into_state())),
            Err(error) => {
                // Keep the supersteps that completed (the failed one left
                // nothing but pending writes). A failure to flush here is
                // secondary: the original error is what the caller needs.
                let _ = driver.flush().await;
                Err(error)
            }
        }
    }
}

fn error_event(error: &GraphError, step: u64) -> Event {
    let (node, kind) = match error {
        GraphError::Node { node, kind, .. } => (Some(Arc::from(node.as_str())), Some(*kind)),
        GraphError::UnknownRoute { node, .. } => (Some(Arc::from(node.as_str())), None),
        GraphError::UnknownSendTarget { from, .. } => (Some(Arc::from(from.as_str())), None),
        _ => (None, None),
    };
    Event::Error {
        node,
        step,
        kind,
        message: error.to_string(),
    }
}
