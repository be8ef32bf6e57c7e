//! The typed event stream of a run. Everything a user sees of a run (progress
//! display, JSONL log) consumes these; the engine itself never prints.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};
use tokio::sync::mpsc::UnboundedSender;

use crate::{FieldSet, NodeErrorKind, RunId};

/// The names of the fields a node wrote, serialized as a list of names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangedFields {
    set: FieldSet,
    names: &'static [&'static str],
}

impl ChangedFields {
    pub(crate) fn new(set: FieldSet, names: &'static [&'static str]) -> Self {
        ChangedFields { set, names }
    }

    /// The field names, in declaration order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        self.set.names(self.names)
    }

    /// The fields as a bit set.
    pub fn set(&self) -> FieldSet {
        self.set
    }
}

impl Serialize for ChangedFields {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.set.len()))?;
        for name in self.names() {
            seq.serialize_element(name)?;
        }
        seq.end()
    }
}

/// How a run ended, as reported by [`Event::RunFinished`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// The run reached END with nothing left to do.
    Completed,
    /// The run stopped on an error.
    Failed,
    /// The run was cancelled.
    Cancelled,
    /// The run stopped at an interrupt and can be resumed.
    Interrupted,
}

fn micros<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(duration.as_micros()).unwrap_or(u64::MAX))
}

/// One level of a subgraph's namespace: the task of a parent run that
/// runs the child run an event comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct SubgraphTask {
    /// The parent's subgraph node.
    pub node: Arc<str>,
    /// Its task in the parent's superstep: the node's name, or `node#k` for
    /// the k-th [`crate::Send`] to it.
    pub task: Arc<str>,
    /// The parent's superstep the task runs in.
    pub step: u64,
}

impl SubgraphTask {
    /// The task `task` of node `node` in the parent's superstep `step`.
    pub fn new(node: impl Into<Arc<str>>, task: impl Into<Arc<str>>, step: u64) -> Self {
        SubgraphTask {
            node: node.into(),
            task: task.into(),
            step,
        }
    }
}

/// One thing that happened in a run. Serialized with an `"event"` tag, e.g.
/// `{"event":"node_finished","node":"planner",...}`; durations in microseconds.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The run started.
    RunStarted {
        /// The run's id.
        run_id: RunId,
        /// The thread the run belongs to, if any.
        thread_id: Option<Arc<str>>,
    },
    /// A node attempt started.
    NodeStarted {
        /// The node.
        node: Arc<str>,
        /// The superstep.
        step: u64,
        /// The attempt (1-based).
        attempt: u32,
    },
    /// A node finished, told as soon as it did. Its update is merged at the
    /// end of the superstep, in node-name order (then the tasks of sends in
    /// emission order), when the superstep completes (else it is kept as a
    /// pending write).
    NodeFinished {
        /// The node.
        node: Arc<str>,
        /// The superstep.
        step: u64,
        /// The attempt that succeeded.
        attempt: u32,
        /// How long the successful attempt took.
        #[serde(rename = "duration_us", serialize_with = "micros")]
        duration: Duration,
        /// The fields its update wrote.
        changed: ChangedFields,
    },
    /// Routing out of a node (or START) chose its next node(s); told once
    /// per task (a node sent many times routes once per send).
    RouteChosen {
        /// The node routed from.
        from: Arc<str>,
        /// The chosen targets (END included when chosen), then the node of
        /// each [`crate::Send`], once per send.
        to: Vec<Arc<str>>,
        /// The superstep of `from`.
        step: u64,
        /// The reason the router or command attached, if any.
        reason: Option<Cow<'static, str>>,
    },
    /// A node attempt failed and will be retried.
    Retry {
        /// The node.
        node: Arc<str>,
        /// The superstep.
        step: u64,
        /// The attempt that failed.
        attempt: u32,
        /// The wait before the next attempt.
        #[serde(rename = "delay_us", serialize_with = "micros")]
        delay: Duration,
        /// What went wrong.
        error: String,
    },
    /// A node failed for good, or the run hit an engine error.
    Error {
        /// The node, when the error belongs to one.
        node: Option<Arc<str>>,
        /// The superstep.
        step: u64,
        /// The kind of node failure, when it is one.
        kind: Option<NodeErrorKind>,
        /// The error message.
        message: String,
    },
    /// A custom event a node emitted through its context.
    Custom {
        /// The node.
        node: Arc<str>,
        /// The superstep.
        step: u64,
        /// The node's payload.
        payload: serde_json::Value,
    },
    /// The run stopped at an interrupt (one event per pending interrupt).
    Interrupted {
        /// The node.
        node: Arc<str>,
        /// Before, after, or dynamic.
        kind: crate::InterruptKind,
        /// The payload for the human.
        payload: serde_json::Value,
    },
    /// The whole state after the input and after each superstep (stream
    /// mode [`crate::StreamModes::values`]).
    Values {
        /// The supersteps run on the thread up to this state.
        step: u64,
        /// The state, as JSON.
        values: serde_json::Value,
    },
    /// A node's update, as it finishes (stream mode
    /// [`crate::StreamModes::updates`]).
    Updates {
        /// The node.
        node: Arc<str>,
        /// The superstep.
        step: u64,
        /// The fields it wrote, as JSON.
        update: serde_json::Value,
    },
    /// An event of a subgraph's child run, on its parent's stream
    /// (LangGraph's `subgraphs=True`). A run's own events are never
    /// wrapped, and a wrapped event is never itself a `Subgraph` one: a
    /// grandchild's events carry the whole path. [`Event::namespace`] and
    /// [`Event::inner`] read any event the same way.
    Subgraph {
        /// The subgraph tasks the child run is nested in, outermost first.
        namespace: Arc<[SubgraphTask]>,
        /// The child run's event.
        inner: Box<Event>,
    },
    /// The run ended.
    RunFinished {
        /// The run's id.
        run_id: RunId,
        /// How it ended.
        status: RunStatus,
        /// Supersteps executed.
        steps: u64,
        /// Wall time of the whole run.
        #[serde(rename = "duration_us", serialize_with = "micros")]
        duration: Duration,
    },
}

impl Event {
    /// The subgraph tasks the event's run is nested in, outermost first:
    /// empty for the run's own events.
    pub fn namespace(&self) -> &[SubgraphTask] {
        match self {
            Event::Subgraph { namespace, .. } => namespace,
            _ => &[],
        }
    }

    /// The event as the run it belongs to told it: a child run's event
    /// without its namespace, or this event itself.
    pub fn inner(&self) -> &Event {
        match self {
            Event::Subgraph { inner, .. } => inner,
            other => other,
        }
    }
}

/// Where a run's events go: nowhere, or an unbounded channel. Events are only
/// built when someone listens, so an unobserved run pays nothing for them.
#[derive(Debug, Clone, Default)]
pub struct EventSink {
    sender: Option<UnboundedSender<Event>>,
    /// The subgraph tasks the run is nested in (`None` for a top-level
    /// run, which allocates nothing for it): its events are sent as
    /// [`Event::Subgraph`] with this namespace.
    namespace: Option<Arc<[SubgraphTask]>>,
}

impl EventSink {
    /// A sink sending into `sender`.
    pub fn new(sender: UnboundedSender<Event>) -> Self {
        EventSink {
            sender: Some(sender),
            namespace: None,
        }
    }

    /// The same sink for a run nested in `namespace`.
    pub(crate) fn within(mut self, namespace: Option<Arc<[SubgraphTask]>>) -> Self {
        self.namespace = namespace;
        self
    }

    /// The channel, when someone listens.
    pub(crate) fn sender(&self) -> Option<&UnboundedSender<Event>> {
        self.sender.as_ref()
    }

    /// The namespace of a child run of `task`, one level below this sink's.
    pub(crate) fn child_namespace(&self, task: SubgraphTask) -> Arc<[SubgraphTask]> {
        self.namespace
            .iter()
            .flat_map(|outer| outer.iter().cloned())
            .chain(std::iter::once(task))
            .collect()
    }

    /// Whether anyone listens.
    pub fn is_active(&self) -> bool {
        self.sender.is_some()
    }

    /// Builds and sends an event when someone listens. A receiver that went
    /// away is not an error: the run goes on unobserved.
    #[inline]
    pub fn emit(&self, event: impl FnOnce() -> Event) {
        if let Some(sender) = &self.sender {
            let event = event();
            let event = match &self.namespace {
                None => event,
                Some(namespace) => Event::Subgraph {
                    namespace: Arc::clone(namespace),
                    inner: Box::new(event),
                },
            };
            let _ = sender.send(event);
        }
    }
}

impl std::fmt::Display for Event {
    /// One human-readable line per event, for plain (non-terminal) output.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::RunStarted { run_id, thread_id } => match thread_id {
                Some(thread) => write!(f, "run {run_id} started on thread {thread}"),
                None => write!(f, "run {run_id} started"),
            },
            Event::NodeStarted {
                node,
                step,
                attempt,
            } => {
                write!(f, "[{step}] {node} started")?;
                if *attempt > 1 {
                    write!(f, " (attempt {attempt})")?;
                }
                Ok(())
            }
            Event::NodeFinished {
                node,
                step,
                duration,
                changed,
                ..
            } => {
                let fields: Vec<&str> = changed.names().collect();
                write!(
                    f,
                    "[{step}] {node} finished in {duration:.1?}; wrote: {}",
                    fields.join(", ")
                )
            }
            Event::RouteChosen {
                from, to, reason, ..
            } => {
                let to: Vec<&str> = to.iter().map(|t| &**t).collect();
                write!(f, "route {from} -> {}", to.join(", "))?;
                if let Some(reason) = reason {
                    write!(f, " ({reason})")?;
                }
                Ok(())
            }
            Event::Retry {
                node,
                step,
                attempt,
                delay,
                error,
            } => {
                write!(
                    f,
                    "[{step}] {node} attempt {attempt} failed: {error}; retrying in {delay:.1?}"
                )
            }
            Event::Error {
                node,
                step,
                message,
                ..
            } => match node {
                Some(node) => write!(f, "[{step}] error in {node}: {message}"),
                None => write!(f, "[{step}] error: {message}"),
            },
            Event::Custom {
                node,
                step,
                payload,
            } => write!(f, "[{step}] {node}: {payload}"),
            Event::Interrupted {
                node,
                kind,
                payload,
            } => {
                write!(f, "interrupted {kind:?} {node}")?;
                if !payload.is_null() {
                    write!(f, ": {payload}")?;
                }
                Ok(())
            }
            Event::Subgraph { namespace, inner } => {
                let tasks: Vec<&str> = namespace.iter().map(|t| &*t.task).collect();
                write!(f, "{}: {inner}", tasks.join("/"))
            }
            Event::Values { step, .. } => write!(f, "[{step}] state"),
            Event::Updates { node, step, .. } => write!(f, "[{step}] {node} update"),
            Event::RunFinished {
                status,
                steps,
                duration,
                ..
            } => {
                let status = match status {
                    RunStatus::Completed => "completed",
                    RunStatus::Failed => "failed",
                    RunStatus::Cancelled => "cancelled",
                    RunStatus::Interrupted => "interrupted",
                };
                write!(f, "run {status} after {steps} supersteps in {duration:.1?}")
            }
        }
    }
}
