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

pub use rebound_protocol::RunStatus;

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
#[non_exhaustive]
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
    /// One human-readable line per event, for plain (non-terminal) output:
    /// the wire form's ([`rebound_protocol::Event`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        rebound_protocol::Event::from(self).fmt(f)
    }
}

fn micros_u64(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}

impl From<&SubgraphTask> for rebound_protocol::SubgraphTask {
    fn from(task: &SubgraphTask) -> Self {
        rebound_protocol::SubgraphTask {
            node: task.node.to_string(),
            task: task.task.to_string(),
            step: task.step,
        }
    }
}

impl From<&Event> for rebound_protocol::Event {
    /// The event in its owned wire form: the same JSON as the event's own
    /// serialization, with custom payloads read into their types
    /// ([`rebound_protocol::Payload::decode`]).
    fn from(event: &Event) -> Self {
        use rebound_protocol::Event as Wire;
        match event {
            Event::RunStarted { run_id, thread_id } => Wire::RunStarted {
                run_id: run_id.to_string(),
                thread_id: thread_id.as_deref().map(str::to_string),
            },
            Event::NodeStarted {
                node,
                step,
                attempt,
            } => Wire::NodeStarted {
                node: node.to_string(),
                step: *step,
                attempt: *attempt,
            },
            Event::NodeFinished {
                node,
                step,
                attempt,
                duration,
                changed,
            } => Wire::NodeFinished {
                node: node.to_string(),
                step: *step,
                attempt: *attempt,
                duration_us: micros_u64(*duration),
                changed: changed.names().map(str::to_string).collect(),
            },
            Event::RouteChosen {
                from,
                to,
                step,
                reason,
            } => Wire::RouteChosen {
                from: from.to_string(),
                to: to.iter().map(|node| node.to_string()).collect(),
                step: *step,
                reason: reason.as_deref().map(str::to_string),
            },
            Event::Retry {
                node,
                step,
                attempt,
                delay,
                error,
            } => Wire::Retry {
                node: node.to_string(),
                step: *step,
                attempt: *attempt,
                delay_us: micros_u64(*delay),
                error: error.clone(),
            },
            Event::Error {
                node,
                step,
                kind,
                message,
            } => Wire::Error {
                node: node.as_deref().map(str::to_string),
                step: *step,
                kind: *kind,
                message: message.clone(),
            },
            Event::Custom {
                node,
                step,
                payload,
            } => Wire::Custom {
                node: node.to_string(),
                step: *step,
                payload: rebound_protocol::Payload::decode(payload),
            },
            Event::Interrupted {
                node,
                kind,
                payload,
            } => Wire::Interrupted {
                node: node.to_string(),
                kind: *kind,
                payload: payload.clone(),
            },
            Event::Values { step, values } => Wire::Values {
                step: *step,
                values: values.clone(),
            },
            Event::Updates { node, step, update } => Wire::Updates {
                node: node.to_string(),
                step: *step,
                update: update.clone(),
            },
            Event::Subgraph { namespace, inner } => Wire::Subgraph {
                namespace: namespace.iter().map(Into::into).collect(),
                inner: Box::new(inner.as_ref().into()),
            },
            Event::RunFinished {
                run_id,
                status,
                steps,
                duration,
            } => Wire::RunFinished {
                run_id: run_id.to_string(),
                status: *status,
                steps: *steps,
                duration_us: micros_u64(*duration),
            },
        }
    }
}
