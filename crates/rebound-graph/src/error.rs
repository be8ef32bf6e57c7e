//! Typed errors: [`CompileError`] from validating a graph, [`GraphError`] from
//! running one, and [`NodeError`], what a node returns when it fails.

use std::fmt;
use std::time::Duration;

/// A boxed error, as nodes return them.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why a graph failed to compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// Two nodes were added under the same name.
    #[error("duplicate node name {name:?}: every node needs its own name")]
    DuplicateNode {
        /// The name used twice.
        name: String,
    },
    /// A node was given a reserved or empty name, or one with a `#` in it
    /// (which tells the tasks of a [`crate::Send`] apart: `node#k`).
    #[error("node name {name:?} is reserved or empty, or contains '#' (START and END are {start:?} and {end:?}; '#' tells a Send's tasks apart)", start = crate::START, end = crate::END)]
    ReservedName {
        /// The name that was refused.
        name: String,
    },
    /// An edge, path map or node option names a node that does not exist.
    #[error("{place} names unknown node {node:?}; known nodes: {known}", known = .known.join(", "))]
    UnknownNode {
        /// Where the name was found, e.g. `edge "a" -> "b"`.
        place: String,
        /// The unknown name.
        node: String,
        /// The nodes that do exist.
        known: Vec<String>,
    },
    /// A node's timeout of zero: every attempt would fail at once.
    #[error("node {node:?} has a timeout of zero: every attempt would time out at once; give a positive timeout or none")]
    ZeroTimeout {
        /// The node.
        node: String,
    },
    /// START was used as a target or END as a source.
    #[error("{place}: START can only be a source and END only a target")]
    MisplacedTerminal {
        /// The offending edge.
        place: String,
    },
    /// Nothing leaves START.
    #[error("the graph has no entry: add an edge from START to the first node")]
    NoEntry,
    /// A node has no outgoing edge and no declared `goto` destinations.
    #[error(
        "node {node:?} has no way out: add an edge from it (to END if the run should stop there)"
    )]
    NoWayOut {
        /// The dead-end node.
        node: String,
    },
    /// Nodes that no path from START reaches (an error, not a warning: such a
    /// node is almost always a missing edge).
    #[error("nodes unreachable from START: {}", .nodes.join(", "))]
    Unreachable {
        /// The unreachable nodes, in the order they were added.
        nodes: Vec<String>,
    },
    /// A conditional edge was declared with no possible targets.
    #[error("the conditional edge from {node:?} has an empty path map")]
    EmptyPathMap {
        /// The source of the conditional edge.
        node: String,
    },
    /// A join (an edge from several nodes into one) lists too many or no sources.
    #[error("the join into {target:?} must have between 1 and 64 source nodes, got {count}")]
    BadJoin {
        /// The join's target.
        target: String,
        /// How many sources it listed.
        count: usize,
    },
}

pub use rebound_protocol::NodeErrorKind;

/// The error a node returns. Any `std::error::Error` converts into it with `?`.
///
/// Errors are retryable by default (when the node has a retry policy); mark
/// one that must not be retried with [`NodeError::permanent`].
pub struct NodeError {
    kind: NodeErrorKind,
    retryable: bool,
    source: BoxError,
    /// What an interrupted node waits for.
    payload: Option<crate::interrupt::Waiting>,
}

impl NodeError {
    /// An error from a message.
    pub fn msg(message: impl fmt::Display) -> Self {
        NodeError {
            kind: NodeErrorKind::Failed,
            retryable: true,
            source: message.to_string().into(),
            payload: None,
        }
    }

    /// An error that no retry policy retries.
    pub fn permanent(mut self) -> Self {
        self.retryable = false;
        self
    }

    pub(crate) fn timed_out(timeout: Duration) -> Self {
        NodeError {
            kind: NodeErrorKind::TimedOut,
            retryable: true,
            source: format!("timed out after {timeout:?}").into(),
            payload: None,
        }
    }

    pub(crate) fn panicked(message: String) -> Self {
        NodeError {
            kind: NodeErrorKind::Panicked,
            retryable: false,
            source: format!("panicked: {message}").into(),
            payload: None,
        }
    }

    pub(crate) fn interrupt(payload: serde_json::Value, index: usize) -> Self {
        NodeError {
            kind: NodeErrorKind::Interrupted,
            retryable: false,
            source: "interrupted, waiting for a human: propagate this error with `?`".into(),
            payload: Some(crate::interrupt::Waiting::Call {
                payload,
                call: index,
            }),
        }
    }

    /// A subgraph node stopped at its child's interrupts (their ids already
    /// unique in the parent).
    pub(crate) fn subgraph_interrupts(interrupts: Vec<crate::Interrupt>) -> Self {
        NodeError {
            kind: NodeErrorKind::Interrupted,
            retryable: false,
            source: "a subgraph is interrupted, waiting for a human".into(),
            payload: Some(crate::interrupt::Waiting::Subgraph(interrupts)),
        }
    }

    /// What the node waits for, when this is an interrupt.
    pub(crate) fn take_interrupt(&mut self) -> Option<crate::interrupt::Waiting> {
        self.payload.take()
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> NodeErrorKind {
        self.kind
    }

    /// Whether a retry policy may retry it.
    pub fn is_retryable(&self) -> bool {
        self.retryable
    }

    /// The underlying error.
    pub fn source_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.source
    }

    pub(crate) fn into_parts(self) -> (NodeErrorKind, BoxError) {
        (self.kind, self.source)
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for NodeError {
    fn from(error: E) -> Self {
        NodeError {
            kind: NodeErrorKind::Failed,
            retryable: true,
            source: Box::new(error),
            payload: None,
        }
    }
}

impl fmt::Debug for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeError")
            .field("kind", &self.kind)
            .field("retryable", &self.retryable)
            .field("source", &self.source)
            .finish()
    }
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.source, f)
    }
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// A node failed (after its retries, if it has a retry policy).
    #[error("node {node:?} failed at step {step} (attempt {attempt}): {source}")]
    Node {
        /// The node's name.
        node: String,
        /// The superstep it ran in.
        step: u64,
        /// The attempt that failed last (1-based).
        attempt: u32,
        /// Failed, timed out or panicked.
        kind: NodeErrorKind,
        /// The node's error.
        #[source]
        source: BoxError,
    },
    /// Two tasks of one superstep wrote the same replace-field (a task of a
    /// [`crate::Send`] is named `node#k`, k its index among the sends).
    #[error("conflicting writes at step {step}: nodes {first:?} and {second:?} both wrote field {field:?}, which is replace-only; give it an append or merge rule, or let one node write it")]
    Conflict {
        /// The field written twice.
        field: &'static str,
        /// The first writer (in merge order: nodes by name, then sends).
        first: String,
        /// The second writer.
        second: String,
        /// The superstep.
        step: u64,
    },
    /// A router or a node's `goto` named a target outside its declared set.
    #[error("{node:?} routed to {value:?}, which is not one of its declared targets: {}", .allowed.join(", "))]
    UnknownRoute {
        /// The node whose router or goto answered.
        node: String,
        /// The answer.
        value: String,
        /// The targets it may choose.
        allowed: Vec<String>,
    },
    /// A router or a node's `goto` sent a task ([`crate::Send`]) to
    /// something that is not a node of the graph (END included).
    #[error("{from:?} sent a task to {node:?}, which is not a node of the graph; a Send must name one of its nodes: {}", .known.join(", "))]
    UnknownSendTarget {
        /// The node (or START) whose router or goto sent it.
        from: String,
        /// The name it was sent to.
        node: String,
        /// The graph's nodes.
        known: Vec<String>,
    },
    /// The run did more supersteps than its recursion limit while work remained.
    #[error("recursion limit of {limit} supersteps reached with nodes still to run ({}); last nodes visited: {}. If the graph is meant to run this long, raise it with RunConfig::with_recursion_limit; otherwise look for a loop that never reaches END", .pending.join(", "), .recent.join(" -> "))]
    RecursionLimit {
        /// The limit that was reached.
        limit: u64,
        /// The last nodes that ran, oldest first (at most 10).
        recent: Vec<String>,
        /// The nodes that were due to run next.
        pending: Vec<String>,
    },
    /// A task running a node ended abnormally (the runtime shut down or aborted it).
    #[error("a task of the run ended abnormally: {message}")]
    TaskFailed {
        /// What the runtime reported.
        message: String,
        /// The runtime's error, when there is one (it holds a panic's payload).
        #[source]
        source: Option<tokio::task::JoinError>,
    },
    /// Stored state, a delta or metadata no longer deserializes into the current type.
    #[error("thread {thread_id:?}, checkpoint {checkpoint}: the stored {what} does not deserialize at `{path}`: {source}. Nothing was overwritten")]
    BadStoredState {
        /// The thread.
        thread_id: String,
        /// The checkpoint whose data is bad.
        checkpoint: String,
        /// Which part: state, state delta, metadata, pending write.
        what: String,
        /// The path to the bad field, e.g. `plan[2]`.
        path: String,
        /// What serde reported.
        #[source]
        source: serde_json::Error,
    },
    /// A state or update could not be encoded for storage.
    #[error("could not encode the state for a checkpoint: {0}")]
    Encode(#[source] serde_json::Error),
    /// The checkpointer failed.
    #[error(transparent)]
    Checkpoint(#[from] crate::checkpoint::CheckpointError),
    /// The run needs a checkpointer (for a thread, an interrupt, a resume).
    #[error("{what} needs a checkpointer: attach one with CompiledGraph::with_checkpointer")]
    NoCheckpointer {
        /// What needed it.
        what: String,
    },
    /// The run has a checkpointer but its config names no thread.
    #[error("a graph with a checkpointer needs a thread id: RunConfig::with_thread_id")]
    NoThreadId,
    /// A resume found nothing to resume.
    #[error("nothing to resume on thread {thread_id:?}: {reason}")]
    NothingToResume {
        /// The thread.
        thread_id: String,
        /// Why: unknown thread, finished, no interrupt waiting for a value.
        reason: String,
    },
    /// A bare resume value while several interrupts wait: it would answer
    /// them all. Answer each by its id (`resume_with_map`).
    #[error(
        "{} interrupts wait on thread {thread_id:?} ({}): a single value would answer them all; \
         give one value per interrupt id with resume_with_map",
        waiting.len(),
        waiting.join(", ")
    )]
    AmbiguousResume {
        /// The thread.
        thread_id: String,
        /// The ids of the waiting interrupts.
        waiting: Vec<String>,
    },
    /// A resume command or an input update that cannot be applied.
    #[error("the input cannot be applied: {reason}")]
    BadInput {
        /// Why.
        reason: String,
    },
    /// A resume value for an interrupt id that is not waiting for one.
    #[error(
        "interrupt {id:?} is not waiting for a value on thread {thread_id:?}; waiting: {}",
        if waiting.is_empty() { "none".to_string() } else { waiting.join(", ") }
    )]
    UnknownInterrupt {
        /// The thread.
        thread_id: String,
        /// The id given.
        id: String,
        /// The ids of the interrupts that wait for a value.
        waiting: Vec<String>,
    },
    /// A thread with no checkpoint at all.
    #[error("unknown thread {thread_id:?}: it has no checkpoint")]
    UnknownThread {
        /// The thread.
        thread_id: String,
    },
    /// A checkpoint id that the thread does not have.
    #[error("thread {thread_id:?} has no checkpoint {checkpoint}")]
    UnknownCheckpoint {
        /// The thread.
        thread_id: String,
        /// The id asked for.
        checkpoint: String,
    },
    /// A node name given at run time (interrupt_before/after, update_state's
    /// as_node) that the graph does not have.
    #[error("{place}: unknown node {node:?}")]
    UnknownNode {
        /// Where it was given.
        place: String,
        /// The name.
        node: String,
    },
    /// `invoke` ended at an interrupt; use `run` to get its payload, and resume.
    #[error("the run on thread {thread_id:?} is interrupted at {}: use CompiledGraph::run to read the interrupt and resume to continue", .nodes.join(", "))]
    Interrupted {
        /// The thread.
        thread_id: String,
        /// The interrupted nodes.
        nodes: Vec<String>,
    },
    /// A router or a merge function panicked (the panic was caught).
    #[error("{place} panicked: {message}")]
    Panicked {
        /// Where: "the router of node \"x\"", "merging the update of node \"y\"".
        place: String,
        /// The panic message.
        message: String,
    },
    /// The run was cancelled through its cancellation token.
    #[error("run cancelled at step {step}")]
    Cancelled {
        /// The superstep that was running or about to run.
        step: u64,
    },
}
