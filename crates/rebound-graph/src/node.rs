//! Nodes: what a node receives ([`NodeContext`]), what it returns
//! ([`Command`]), and its per-node options ([`NodeOptions`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::{Event, EventSink, NodeError, RetryPolicy, Route, RunId, State};

/// What a node returns: its state update (or several, applied in order),
/// and optionally where to go next.
///
/// A plain update converts into a `Command` with no `goto`, so most nodes just
/// return their update. A `goto` replaces the node's outgoing edges for this
/// step; its targets must be among the node's declared destinations
/// ([`NodeOptions::destinations`]).
///
/// Several updates ([`Command::updates`], [`Command::then`]) are merged one
/// after the other, each through the fields' rules, as if written by
/// successive steps: e.g. overwrite a list, then append to it.
///
/// ```
/// use rebound_graph::{Command, State};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
/// struct Log {
///     #[state(append)]
///     lines: Vec<String>,
/// }
///
/// let command = Command::from(LogUpdate::default().overwrite_lines(vec![]))
///     .then(LogUpdate::default().lines(vec!["fresh start".into()]));
/// let mut log = Log { lines: vec!["old".into()] };
/// for update in command.into_updates() {
///     log.apply(update);
/// }
/// assert_eq!(log.lines, ["fresh start"]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Command<U> {
    /// The fields to write.
    pub update: U,
    /// Where to go next instead of following the node's edges.
    pub goto: Option<Route>,
    /// Further updates, merged after `update`, in order ([`Command::then`]).
    /// Behind one pointer: the command of a node with one update, moved
    /// around with every node's output, stays as small as it was.
    // A boxed Vec is one pointer where a Vec is three: what clippy flags
    // as an extra allocation is paid only by nodes with several updates.
    #[allow(clippy::box_collection)]
    pub(crate) more: Option<Box<Vec<U>>>,
}

impl<U: Default> Command<U> {
    /// A command going to `route` with an empty update.
    pub fn goto(route: impl Into<Route>) -> Self {
        Command {
            update: U::default(),
            goto: Some(route.into()),
            more: None,
        }
    }

    /// A command writing `updates` one after the other (none: an empty update).
    pub fn updates(updates: impl IntoIterator<Item = U>) -> Self {
        let mut updates = updates.into_iter();
        let update = updates.next().unwrap_or_default();
        let more: Vec<U> = updates.collect();
        Command {
            update,
            goto: None,
            more: (!more.is_empty()).then(|| Box::new(more)),
        }
    }

    /// Sets the (first) update.
    #[must_use]
    pub fn with_update(mut self, update: U) -> Self {
        self.update = update;
        self
    }

    /// Adds an update, merged after those already there.
    #[must_use]
    pub fn then(mut self, update: U) -> Self {
        self.more.get_or_insert_with(Default::default).push(update);
        self
    }

    /// The updates in the order they are merged, leaving an empty update
    /// and no further ones behind.
    pub(crate) fn take_updates(&mut self) -> impl Iterator<Item = U> {
        let first = std::mem::take(&mut self.update);
        std::iter::once(first).chain(self.more.take().map(|more| *more).unwrap_or_default())
    }
}

impl<U> Command<U> {
    /// The updates after the first, in the order they are merged.
    pub fn more(&self) -> &[U] {
        self.more.as_deref().map_or(&[], Vec::as_slice)
    }

    /// The updates in the order they are merged.
    pub fn all_updates(&self) -> impl Iterator<Item = &U> {
        std::iter::once(&self.update).chain(self.more())
    }

    /// The updates in the order they are merged, by value.
    pub fn into_updates(self) -> impl Iterator<Item = U> {
        std::iter::once(self.update).chain(self.more.map(|more| *more).unwrap_or_default())
    }
}

impl<U> From<U> for Command<U> {
    fn from(update: U) -> Self {
        Command {
            update,
            goto: None,
            more: None,
        }
    }
}

/// What a node's future resolves to.
pub type NodeResult<S> = Result<Command<<S as State>::Update>, NodeError>;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

type AsyncNodeFn<S> = dyn Fn(Arc<S>, NodeContext) -> BoxFuture<NodeResult<S>> + Send + Sync;
type SyncNodeFn<S> = dyn Fn(&S, &NodeContext) -> NodeResult<S> + Send + Sync;

/// A node function, stored.
pub(crate) enum NodeFn<S: State> {
    Async(Box<AsyncNodeFn<S>>),
    Sync(Box<SyncNodeFn<S>>),
}

/// Per-node settings.
///
/// ```
/// use rebound_graph::{NodeOptions, RetryPolicy, END};
/// use std::time::Duration;
/// let options = NodeOptions::new()
///     .retry(RetryPolicy::new(3))
///     .timeout(Duration::from_secs(30))
///     .destinations(["reviewer", END]);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Default)]
pub struct NodeOptions {
    pub(crate) retry: Vec<RetryPolicy>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) destinations: Option<Vec<String>>,
}

impl NodeOptions {
    /// No retry, no timeout, no `goto` destinations.
    pub fn new() -> Self {
        NodeOptions::default()
    }

    /// Retries failed attempts according to `policy`. Called again, adds
    /// another policy: for each failure the first policy whose predicate
    /// takes the error decides (its attempts and backoff), e.g. many quick
    /// retries for a rate limit and one slow one for anything else.
    #[must_use]
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry.push(policy);
        self
    }

    /// Fails an attempt that takes longer than `timeout` (async nodes only: a
    /// sync node cannot be interrupted).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The nodes (or END) this node may `goto` through a [`Command`].
    #[must_use]
    pub fn destinations<I, T>(mut self, targets: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.destinations = Some(targets.into_iter().map(Into::into).collect());
        self
    }
}

/// What every node of one run shares.
#[derive(Debug)]
pub(crate) struct RunShared {
    pub(crate) run_id: RunId,
    pub(crate) thread_id: Option<Arc<str>>,
    pub(crate) events: EventSink,
    pub(crate) cancellation: CancellationToken,
    /// The graph's node names, copied per run so that runs on different
    /// threads never share a reference count.
    pub(crate) names: Box<[Arc<str>]>,
    /// Supersteps completed by the run so far (read when it is cancelled).
    pub(crate) steps: std::sync::atomic::AtomicU64,
    /// What the stream carries besides events (only with a listener).
    pub(crate) modes: crate::StreamModes,
    /// The run's recursion limit (a subgraph's child run inherits it).
    pub(crate) recursion_limit: u64,
    /// The run's durability (a subgraph's child run inherits it).
    pub(crate) durability: crate::Durability,
    /// Checked before each journaled call executes (inherited too).
    pub(crate) effect_gate: Option<crate::EffectGate>,
}

/// A node's view of its run: ids, step, attempt, events and cancellation.
#[derive(Clone)]
pub struct NodeContext {
    pub(crate) shared: Arc<RunShared>,
    /// The node's index in the run's name table.
    pub(crate) node: usize,
    pub(crate) step: u64,
    pub(crate) attempt: u32,
    pub(crate) scratch: Option<Arc<crate::scratch::NodeScratch>>,
    /// The send this task runs, if a [`crate::Send`] scheduled it.
    pub(crate) send: Option<crate::send::TaskSend>,
}

impl std::fmt::Debug for NodeContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeContext")
            .field("run_id", &self.shared.run_id)
            .field("thread_id", &self.shared.thread_id)
            .field("node", &self.node())
            .field("step", &self.step)
            .field("attempt", &self.attempt)
            .field("send", &self.send.as_ref().map(|s| s.index))
            .finish_non_exhaustive()
    }
}

impl NodeContext {
    /// The run's id.
    pub fn run_id(&self) -> RunId {
        self.shared.run_id
    }

    /// The thread the run belongs to, if any.
    pub fn thread_id(&self) -> Option<&str> {
        self.shared.thread_id.as_deref()
    }

    /// This node's name.
    pub fn node(&self) -> &str {
        self.shared.names.get(self.node).map_or("", |n| n)
    }

    pub(crate) fn node_name(&self) -> Arc<str> {
        self.shared
            .names
            .get(self.node)
            .cloned()
            .unwrap_or_else(|| Arc::from(""))
    }

    /// The superstep this node runs in (0 for the first).
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The attempt (1-based; above 1 when retried).
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The run's event sink, to emit events of the node's own.
    pub fn events(&self) -> &EventSink {
        &self.shared.events
    }

    /// Emits a custom event carrying `payload`.
    pub fn emit(&self, payload: impl FnOnce() -> serde_json::Value) {
        self.shared.events.emit(|| Event::Custom {
            node: self.node_name(),
            step: self.step,
            payload: payload(),
        });
    }

    /// The run's cancellation token: long-running work should stop when it fires.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.shared.cancellation
    }

    /// Whether the run has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.shared.cancellation.is_cancelled()
    }
}

impl NodeContext {
    /// The payload of the [`crate::Send`] this task runs, decoded as `T`; `None`
    /// for a task the edges scheduled. A payload that does not fit `T` is
    /// a permanent node error.
    pub fn send_arg<T: serde::de::DeserializeOwned>(&self) -> Result<Option<T>, NodeError> {
        let Some(send) = &self.send else {
            return Ok(None);
        };
        T::deserialize(&*send.arg).map(Some).map_err(|e| {
            NodeError::msg(format!(
                "the payload sent to node {:?} (send {}) does not fit: {e}",
                self.node(),
                send.index
            ))
            .permanent()
        })
    }

    /// The payload of the [`crate::Send`] this task runs, as JSON; `None` for a
    /// task the edges scheduled.
    pub fn send_arg_value(&self) -> Option<&serde_json::Value> {
        self.send.as_ref().map(|send| &*send.arg)
    }

    /// The key of this task's pending writes: see `crate::send::task_key`.
    pub(crate) fn task_key(&self) -> std::borrow::Cow<'_, str> {
        crate::send::task_key(self.node(), self.send.as_ref().map(|s| s.index))
    }
}
