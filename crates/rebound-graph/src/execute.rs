//! Running one node: its attempts under the retry policy and timeout, with
//! panics caught.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use tokio_util::sync::CancellationToken;

use crate::compile::{CompiledNode, Graph};
use crate::interrupt::Waiting;
use crate::node::{NodeFn, RunShared};
use crate::scratch::NodeScratch;
use crate::send::Task;
use crate::{
    ChangedFields, Command, Event, GraphError, NodeContext, NodeError, NodeErrorKind, State,
};

/// A node attempt that finished: its output, attempt number and duration.
pub(crate) struct NodeRun<U> {
    pub(crate) node: usize,
    /// The index of the send it ran, for a task of a [`crate::Send`].
    pub(crate) send: Option<usize>,
    pub(crate) command: Command<U>,
    pub(crate) duration: Duration,
}

/// How a node's execution ended, when it did not fail.
pub(crate) enum NodeEnd<U> {
    Done(NodeRun<U>),
    Interrupted {
        node: usize,
        /// The index of the send it ran, for a task of a [`crate::Send`].
        send: Option<usize>,
        payload: serde_json::Value,
        /// The index of the `interrupt` call within the node.
        call: usize,
    },
    /// A subgraph node stopped at its child's interrupts.
    Subgraph {
        node: usize,
        /// The index of the send it ran, for a task of a [`crate::Send`].
        send: Option<usize>,
        /// The child's interrupts, ids made unique in the parent.
        interrupts: Vec<crate::Interrupt>,
    },
}

/// What a node needs to journal and interrupt in a persisted run (a fresh
/// [`NodeScratch`] is made from it for every attempt).
#[derive(Clone)]
pub(crate) struct ScratchSeed {
    pub(crate) persist: Arc<crate::persist::PersistShared>,
    pub(crate) checkpoint: crate::checkpoint::CheckpointId,
    pub(crate) recorded: Option<Arc<std::collections::HashMap<String, Vec<u8>>>>,
    pub(crate) resume: Option<Arc<Vec<serde_json::Value>>>,
    /// Answers to a subgraph's interrupts, by their ids in this graph.
    pub(crate) answers: Option<Arc<std::collections::BTreeMap<String, serde_json::Value>>>,
}

/// Runs one task (a node, or a send of it) with its retry policy and timeout.
pub(crate) async fn run_node<S: State>(
    graph: &Graph<S>,
    task: Task,
    state: Arc<S>,
    shared: &Arc<RunShared>,
    step: u64,
    timed: bool,
    seed: Option<&ScratchSeed>,
) -> Result<NodeEnd<S::Update>, GraphError> {
    let Task { node: index, send } = task;
    let node = &graph.nodes[index];
    let mut attempt = 1;
    loop {
        let scratch = seed.map(|seed| {
            Arc::new(NodeScratch::new(
                seed.persist.clone(),
                seed.checkpoint,
                seed.recorded.clone(),
                seed.resume.clone(),
                seed.answers.clone(),
            ))
        });
        let ctx = NodeContext {
            shared: Arc::clone(shared),
            node: index,
            step,
            attempt,
            scratch,
            send: send.clone(),
        };
        shared.events.emit(|| Event::NodeStarted {
            node: node.name.clone(),
            step,
            attempt,
        });
        // Durations are only reported to listeners and checkpoints: no clock
        // reads otherwise.
        let started = timed.then(Instant::now);
        match attempt_once(node, Arc::clone(&state), ctx).await {
            Ok(command) => {
                let duration = started.map(|t| t.elapsed()).unwrap_or_default();
                // Told as soon as the node is done, not at the superstep's
                // merge: a fast node's event does not wait for a slow one.
                if shared.modes.updates {
                    for update in command.all_updates() {
                        shared.events.emit(|| Event::Updates {
                            node: node.name.clone(),
                            step,
                            update: serde_json::to_value(update).unwrap_or(serde_json::Value::Null),
                        });
                    }
                }
                shared.events.emit(|| Event::NodeFinished {
                    node: node.name.clone(),
                    step,
                    attempt,
                    duration,
                    changed: ChangedFields::new(
                        command
                            .all_updates()
                            .fold(crate::FieldSet::EMPTY, |set, u| set.union(S::written(u))),
                        S::FIELDS,
                    ),
                });
                return Ok(NodeEnd::Done(NodeRun {
                    node: index,
                    send: send.map(|s| s.index),
                    command,
                    duration,
                }));
            }
            Err(error) => {
                if error.kind() == NodeErrorKind::Interrupted {
                    return Ok(interrupted(index, send.map(|s| s.index), error));
                }
                // The first policy that takes the error decides.
                if let Some(policy) = node
                    .retry
                    .iter()
                    .find(|p| p.matches(&error))
                    .filter(|p| p.should_retry(attempt, &error))
                {
                    let delay = policy.backoff(attempt);
                    shared.events.emit(|| Event::Retry {
                        node: node.name.clone(),
                        step,
                        attempt,
                        delay,
                        error: error.to_string(),
                    });
                    sleep_unless_cancelled(delay, &shared.cancellation, step).await?;
                    attempt += 1;
                    continue;
                }
                let (kind, source) = error.into_parts();
                return Err(GraphError::Node {
                    node: node.name.to_string(),
                    step,
                    attempt,
                    kind,
                    source,
                });
            }
        }
    }
}

/// How an interrupted task ended (kept out of the hot path of `run_node`).
#[cold]
#[inline(never)]
fn interrupted<U>(node: usize, send: Option<usize>, mut error: NodeError) -> NodeEnd<U> {
    match error.take_interrupt() {
        Some(Waiting::Subgraph(interrupts)) => NodeEnd::Subgraph {
            node,
            send,
            interrupts,
        },
        Some(Waiting::Call { payload, call }) => NodeEnd::Interrupted {
            node,
            send,
            payload,
            call,
        },
        None => NodeEnd::Interrupted {
            node,
            send,
            payload: serde_json::Value::Null,
            call: 0,
        },
    }
}

async fn sleep_unless_cancelled(
    delay: Duration,
    token: &CancellationToken,
    step: u64,
) -> Result<(), GraphError> {
    tokio::select! {
        _ = token.cancelled() => Err(GraphError::Cancelled { step }),
        _ = tokio::time::sleep(delay) => Ok(()),
    }
}

/// One attempt: panics are caught, async nodes are bounded by their timeout.
async fn attempt_once<S: State>(
    node: &CompiledNode<S>,
    state: Arc<S>,
    ctx: NodeContext,
) -> Result<Command<S::Update>, NodeError> {
    match &node.func {
        NodeFn::Sync(func) => std::panic::catch_unwind(AssertUnwindSafe(|| func(&state, &ctx)))
            .unwrap_or_else(|panic| Err(NodeError::panicked(panic_message(&*panic)))),
        NodeFn::Async(func) => {
            let fut = match std::panic::catch_unwind(AssertUnwindSafe(|| func(state, ctx))) {
                Ok(fut) => fut,
                Err(panic) => return Err(NodeError::panicked(panic_message(&*panic))),
            };
            let guarded = AssertUnwindSafe(fut).catch_unwind();
            let outcome = match node.timeout {
                None => guarded.await,
                Some(limit) => match tokio::time::timeout(limit, guarded).await {
                    Ok(outcome) => outcome,
                    Err(_) => return Err(NodeError::timed_out(limit)),
                },
            };
            outcome.unwrap_or_else(|panic| Err(NodeError::panicked(panic_message(&*panic))))
        }
    }
}

pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_string()
    }
}
