//! Map-reduce fan-out: a [`Send`] runs a node as a task of its own in the
//! next superstep, with a payload of its own (LangGraph's `Send`), and what
//! identifies such a task in pending writes, journals and interrupt ids.

use std::borrow::Cow;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A task for the next superstep: node `node` runs once more, with `arg` as
/// its payload (read it with [`crate::NodeContext::send_arg`]). A router or
/// a node's [`crate::Command`] returns sends in its [`crate::Route`]
/// ([`crate::Route::send`], [`crate::Route::sends`]); each send is a task of
/// its own, so one node may run many times in one superstep (map), and the
/// updates merge in the order the sends were emitted (reduce: give the
/// field an append rule).
///
/// The node must be a node of the graph, though not a declared target of
/// the router or the `goto` (declare it there anyway: the graph's
/// reachability check and its drawing see only declared targets). A send to
/// an unknown node or to END is a [`crate::GraphError::UnknownSendTarget`].
///
/// Importing this type shadows the `Send` marker trait in that module; the
/// constructors on [`crate::Route`] need no import.
///
/// ```
/// use rebound_graph::{Route, Send};
/// use serde_json::json;
/// let route = Route::sends(["a.txt", "b.txt"].map(|doc| Send::new("summarize", json!(doc))));
/// assert_eq!(route.send_items().len(), 2);
/// assert_eq!(route.send_items()[1].arg(), &json!("b.txt"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Send {
    node: Cow<'static, str>,
    arg: Arc<serde_json::Value>,
}

impl Send {
    /// A task of `node` with `arg` as its payload.
    pub fn new(node: impl Into<Cow<'static, str>>, arg: impl Into<serde_json::Value>) -> Self {
        Send {
            node: node.into(),
            arg: Arc::new(arg.into()),
        }
    }

    /// The node to run.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The payload.
    pub fn arg(&self) -> &serde_json::Value {
        &self.arg
    }

    pub(crate) fn arg_shared(&self) -> &Arc<serde_json::Value> {
        &self.arg
    }

    pub(crate) fn into_parts(self) -> (Cow<'static, str>, Arc<serde_json::Value>) {
        (self.node, self.arg)
    }

    pub(crate) fn from_shared(node: String, arg: Arc<serde_json::Value>) -> Self {
        Send {
            node: Cow::Owned(node),
            arg,
        }
    }
}

/// Stored as `[node, arg]`.
impl Serialize for Send {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        (&*self.node, &*self.arg).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Send {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (node, arg) = <(String, serde_json::Value)>::deserialize(deserializer)?;
        Ok(Send::from_shared(node, Arc::new(arg)))
    }
}

/// A send scheduled for the next superstep: the node's index and the payload.
#[derive(Debug, Clone)]
pub(crate) struct SentTask {
    pub(crate) node: usize,
    pub(crate) arg: Arc<serde_json::Value>,
}

/// What a task of a send carries: its index in the superstep's list of
/// sends (emission order) and its payload.
#[derive(Debug, Clone)]
pub(crate) struct TaskSend {
    pub(crate) index: usize,
    pub(crate) arg: Arc<serde_json::Value>,
}

/// One task of a superstep: a node scheduled by the edges (`send: None`),
/// or a send of it.
#[derive(Debug, Clone)]
pub(crate) struct Task {
    pub(crate) node: usize,
    pub(crate) send: Option<TaskSend>,
}

/// Separates a node's name from a send's index in a task key.
const SEPARATOR: char = '#';

/// The key under which a task's pending writes, journal entries, resume
/// values and interrupt ids are kept: the node's name for a task scheduled
/// by the edges (as before sends existed), `node#k` for the superstep's
/// k-th send.
pub(crate) fn task_key(node: &str, send: Option<usize>) -> Cow<'_, str> {
    match send {
        None => Cow::Borrowed(node),
        Some(index) => Cow::Owned(format!("{node}{SEPARATOR}{index}")),
    }
}

/// A task key's node name and send index ([`task_key`] reversed).
pub(crate) fn parse_task_key(key: &str) -> (&str, Option<usize>) {
    match key.rsplit_once(SEPARATOR) {
        Some((node, index)) => match index.parse() {
            Ok(index) => (node, Some(index)),
            Err(_) => (key, None),
        },
        None => (key, None),
    }
}

/// Whether a node name could be mistaken for a send's task key.
pub(crate) fn is_reserved_in_name(name: &str) -> bool {
    name.contains(SEPARATOR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_keys_round_trip() {
        assert_eq!(task_key("work", None), "work");
        assert_eq!(task_key("work", Some(12)), "work#12");
        assert_eq!(parse_task_key("work#12"), ("work", Some(12)));
        assert_eq!(parse_task_key("work"), ("work", None));
    }

    #[test]
    fn a_send_is_stored_as_a_pair() {
        let send = Send::new("work", serde_json::json!({"n": 1}));
        let bytes = serde_json::to_string(&send).unwrap();
        assert_eq!(bytes, r#"["work",{"n":1}]"#);
        assert_eq!(serde_json::from_str::<Send>(&bytes).unwrap(), send);
    }
}
