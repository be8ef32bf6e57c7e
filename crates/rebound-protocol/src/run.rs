//! A run's events on the wire: what the engine tells of a run (started,
//! nodes, routes, retries, errors, interrupts, state, the end), with the
//! custom payloads of every layer inside [`Event::Custom`].
//!
//! The engine (`rebound-graph`) emits its own borrowed, allocation-light
//! `Event` while a run is going; it serializes to exactly this JSON form
//! and converts into this type, which owns its data and also
//! deserializes: it is what a log, a server's stream or a display reads.
//! [`Event::decode`] never fails: an event from a newer version that this
//! one does not know becomes [`Event::Unknown`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Payload;

/// How a run ended, as reported by [`Event::RunFinished`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
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

impl RunStatus {
    /// Its name: `completed`, `failed`, `cancelled` or `interrupted`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Interrupted => "interrupted",
        }
    }
}

/// Why a run stopped at an interrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum InterruptKind {
    /// A static `interrupt_before`: the node has not run yet.
    Before,
    /// A static `interrupt_after`: the node ran and its update is saved.
    After,
    /// The node asked a human from inside (`NodeContext::interrupt`); the
    /// value given to resume becomes that call's return value.
    Dynamic,
}

impl InterruptKind {
    /// Its name: `before`, `after` or `dynamic`.
    pub fn as_str(self) -> &'static str {
        match self {
            InterruptKind::Before => "before",
            InterruptKind::After => "after",
            InterruptKind::Dynamic => "dynamic",
        }
    }
}

/// What kind of failure a node error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NodeErrorKind {
    /// The node returned an error.
    Failed,
    /// The node did not finish within its timeout.
    TimedOut,
    /// The node panicked; the panic was caught.
    Panicked,
    /// The node called `NodeContext::interrupt` and waits for a human.
    Interrupted,
}

/// One level of a subgraph's namespace: the task of a parent run that
/// runs the child run an event comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SubgraphTask {
    /// The parent's subgraph node.
    pub node: String,
    /// Its task in the parent's superstep: the node's name, or `node#k` for
    /// the k-th send to it.
    pub task: String,
    /// The parent's superstep the task runs in.
    pub step: u64,
}

/// One thing that happened in a run. Serialized with an `"event"` tag, e.g.
/// `{"event":"node_finished","node":"planner",...}`; durations in
/// microseconds (`*_us`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// The run started.
    RunStarted {
        /// The run's id.
        run_id: String,
        /// The thread the run belongs to, if any.
        thread_id: Option<String>,
    },
    /// A node attempt started.
    NodeStarted {
        /// The node.
        node: String,
        /// The superstep.
        step: u64,
        /// The attempt (1-based).
        attempt: u32,
    },
    /// A node finished; its update is merged at the end of the superstep.
    NodeFinished {
        /// The node.
        node: String,
        /// The superstep.
        step: u64,
        /// The attempt that succeeded.
        attempt: u32,
        /// How long the successful attempt took, in microseconds.
        duration_us: u64,
        /// The fields its update wrote.
        changed: Vec<String>,
    },
    /// Routing out of a node (or START) chose its next node(s).
    RouteChosen {
        /// The node routed from.
        from: String,
        /// The chosen targets (`__end__` included when chosen), then the
        /// node of each send, once per send.
        to: Vec<String>,
        /// The superstep of `from`.
        step: u64,
        /// The reason the router or command attached, if any.
        reason: Option<String>,
    },
    /// A node attempt failed and will be retried.
    Retry {
        /// The node.
        node: String,
        /// The superstep.
        step: u64,
        /// The attempt that failed.
        attempt: u32,
        /// The wait before the next attempt, in microseconds.
        delay_us: u64,
        /// What went wrong.
        error: String,
    },
    /// A node failed for good, or the run hit an engine error.
    Error {
        /// The node, when the error belongs to one.
        node: Option<String>,
        /// The superstep.
        step: u64,
        /// The kind of node failure, when it is one.
        kind: Option<NodeErrorKind>,
        /// The error message.
        message: String,
    },
    /// A custom event a node emitted: one of rebound's own payloads
    /// (agent progress, model and tool calls, approvals) or the library
    /// user's ([`Payload::Other`]).
    Custom {
        /// The node.
        node: String,
        /// The superstep.
        step: u64,
        /// The payload.
        payload: Payload,
    },
    /// The run stopped at an interrupt (one event per pending interrupt).
    Interrupted {
        /// The node.
        node: String,
        /// Before, after, or dynamic.
        kind: InterruptKind,
        /// The payload for the human (for an approval: an
        /// [`crate::ApprovalRequest`]).
        payload: Value,
    },
    /// The whole state after the input and after each superstep.
    Values {
        /// The supersteps run on the thread up to this state.
        step: u64,
        /// The state, as JSON.
        values: Value,
    },
    /// A node's update, as it finishes.
    Updates {
        /// The node.
        node: String,
        /// The superstep.
        step: u64,
        /// The fields it wrote, as JSON.
        update: Value,
    },
    /// An event of a subgraph's child run, on its parent's stream.
    Subgraph {
        /// The subgraph tasks the child run is nested in, outermost first.
        namespace: Vec<SubgraphTask>,
        /// The child run's event.
        inner: Box<Event>,
    },
    /// The run ended.
    RunFinished {
        /// The run's id.
        run_id: String,
        /// How it ended.
        status: RunStatus,
        /// Supersteps executed.
        steps: u64,
        /// Wall time of the whole run, in microseconds.
        duration_us: u64,
    },
    /// An event this version cannot read: from a newer version (a new
    /// kind of event, or a known one with new required fields), or not an
    /// event at all. Only [`Event::decode`] makes it; it serializes back
    /// to the JSON it was read from.
    #[serde(skip_deserializing, untagged)]
    Unknown {
        /// The event's `"event"` tag, when it has one.
        #[serde(skip)]
        name: Option<String>,
        /// Why it could not be read.
        #[serde(skip)]
        error: String,
        /// The JSON as received.
        #[serde(flatten)]
        raw: serde_json::Map<String, Value>,
    },
}

impl Event {
    /// Reads an event from its JSON. Never fails: what is not a known
    /// event becomes [`Event::Unknown`], keeping the JSON.
    pub fn decode(value: Value) -> Event {
        match Event::deserialize(&value) {
            Ok(event) => event,
            Err(error) => {
                let name = value
                    .as_object()
                    .and_then(|object| object.get("event"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                // serde's own message names no variant here (the enum has
                // an untagged one), so say what is known.
                let error = match &name {
                    Some(name) => format!(
                        "the event {name:?} is not one this version reads, or its fields changed ({error})"
                    ),
                    None => format!("not an event: no \"event\" tag ({error})"),
                };
                let raw = match value {
                    Value::Object(object) => object,
                    other => {
                        let mut object = serde_json::Map::new();
                        object.insert("value".to_string(), other);
                        object
                    }
                };
                Event::Unknown { name, error, raw }
            }
        }
    }

    /// Reads an event from one line of JSON (a JSONL log, an SSE `data`
    /// field). Never fails: a line that is not JSON becomes
    /// [`Event::Unknown`] too.
    pub fn decode_str(line: &str) -> Event {
        match serde_json::from_str::<Value>(line) {
            Ok(value) => Event::decode(value),
            Err(error) => Event::Unknown {
                name: None,
                error: format!("not JSON: {error}"),
                raw: serde_json::Map::new(),
            },
        }
    }

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
            Event::Subgraph { inner, .. } => inner.inner(),
            other => other,
        }
    }
}
