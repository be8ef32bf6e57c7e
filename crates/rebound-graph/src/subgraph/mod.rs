//! Subgraphs: a compiled graph run as one node of another, over the same
//! state ([`StateGraph::add_subgraph`]), through a mapping in and out
//! ([`StateGraph::add_subgraph_mapped`]), or as the target of
//! [`crate::Send`]s whose payloads map into each child's input
//! ([`StateGraph::add_subgraph_sent`]).
//!
//! * **Namespace.** The child runs on the parent's checkpointer, on a
//!   thread of its own derived from the parent's:
//!   `{parent thread}\u{1f}{task}:{checkpoint}` ([`SUBGRAPH_SEPARATOR`],
//!   the ASCII unit separator, which no one types by accident), where
//!   `task` is the subgraph node's task key (`node`, or `node#k` for a
//!   [`crate::Send`]) and `checkpoint` the parent checkpoint its superstep
//!   started from. The name is journaled in the parent's pending writes
//!   when the node first runs, so the parent resuming the same superstep —
//!   also after an `update_state` or from a new branch head that carries
//!   those writes — finds the same child run and resumes it, while a new
//!   visit of the node (a later superstep, or a branch that re-runs the
//!   supersteps before it) starts a fresh one. A grandchild's thread
//!   extends its parent's name the same way. Checkpointers need no
//!   change; [`is_subgraph_thread`] tells child threads apart in a listing.
//! * **Interrupts** inside the child stop the parent's superstep too; the
//!   parent lists them with the child's id prefixed by `step:task/`
//!   (`1:review/0:ask:0`; nested: `1:outer/1:inner/0:ask:0`). Answering
//!   them by those ids (or a bare value when one waits) resumes the child
//!   from its own checkpoint with the answers: its finished nodes and
//!   journaled calls are not repeated.
//! * **Replays.** Replaying the parent from a checkpoint where the
//!   subgraph node is due (`Input::Resume` with that checkpoint's id) runs
//!   the superstep again, and its child afresh on a new thread named after
//!   the new branch's head: the old branch keeps its child thread and
//!   state. A journaled call inside the child thus runs once per branch,
//!   and never twice on one (resuming the new branch resumes its child).
//!   Answering a question inside the child again at its parent checkpoint
//!   after the thread moved on from it (`resume_with` and that
//!   checkpoint's id) continues on a new branch too: the child is forked
//!   from the checkpoint where it asked (with its journal: what it did
//!   before asking is not done again) onto a thread named after the new
//!   branch's head, and gets the new answer; the old branch keeps its
//!   child thread. The parent's record of the child names where it last
//!   stopped and which parent checkpoint saw it, so a child that ran on
//!   for another branch is told apart from one edited by hand (which a
//!   resume follows) or one that this checkpoint's own run left mid-way.
//! * **Settings and events.** The child takes the parent run's recursion
//!   limit, durability, cancellation and event stream, not its run-time
//!   interrupts: see [`StateGraph::add_subgraph`].
//! * **State.** [`crate::CompiledGraph::get_state_with_subgraphs`] shows
//!   each child's state while the parent waits inside it; a child's thread
//!   ([`SubgraphState::config`]) works with the child graph's
//!   `get_state`, `history` and `update_state` like any thread, and the
//!   parent's resume continues from the child's latest checkpoint.

mod erased;
mod fork;
mod inherit;
mod namespace;
mod run;
mod view;

use std::sync::Arc;

use crate::builder::NodeDef;
use crate::node::NodeFn;
use crate::{CompiledGraph, GraphError, State, StateGraph};

pub use erased::SubgraphState;
pub(crate) use erased::SubgraphView;
pub(crate) use namespace::records_child_run;

/// Separates a parent thread's id from the rest of a subgraph's thread id.
pub const SUBGRAPH_SEPARATOR: char = '\u{1f}';

/// Whether a thread id is a subgraph's (a child thread of another).
pub fn is_subgraph_thread(thread_id: &str) -> bool {
    thread_id.contains(SUBGRAPH_SEPARATOR)
}

/// The thread a subgraph's thread belongs to (`None` for a top-level one).
pub fn parent_thread(thread_id: &str) -> Option<&str> {
    thread_id
        .rsplit_once(SUBGRAPH_SEPARATOR)
        .map(|(parent, _)| parent)
}

/// Why a subgraph node failed: the source of the [`GraphError::Node`] that
/// names the node.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SubgraphError {
    /// The mapping from the parent's state to the child's input failed.
    #[error("subgraph node {node:?}: mapping the parent's state into the child's input failed: {message}")]
    Input {
        /// The subgraph node.
        node: String,
        /// What the mapping said.
        message: String,
    },
    /// The mapping from the child's final state to the parent's update failed.
    #[error("subgraph node {node:?}: mapping the child's result into the parent's update failed: {message}")]
    Output {
        /// The subgraph node.
        node: String,
        /// What the mapping said.
        message: String,
    },
    /// The child run failed.
    #[error("subgraph node {node:?}: the child run failed: {source}")]
    Child {
        /// The subgraph node.
        node: String,
        /// The child's error.
        #[source]
        source: Box<GraphError>,
    },
    /// The child stopped at an interrupt in a parent run without a
    /// checkpointer, which could never be resumed.
    #[error("subgraph node {node:?}: the child stopped at an interrupt, which needs a checkpointer and a thread id on the parent")]
    NotDurable {
        /// The subgraph node.
        node: String,
    },
}

/// Maps the parent's state, and the task's [`crate::Send`] payload if it
/// has one, into the child's input.
pub(crate) type InputMap<S, C> =
    dyn Fn(&S, Option<&serde_json::Value>) -> Result<C, String> + Send + Sync;
/// Maps the child's final state into the parent's update.
pub(crate) type OutputMap<S, C> =
    dyn Fn(&S, C) -> Result<<S as State>::Update, String> + Send + Sync;

impl<S: State> StateGraph<S> {
    /// Adds a compiled graph over the same state as a node: the child runs
    /// from the parent's state, and the parent's update is what the child
    /// changed ([`State::changes`]: items an append field gained are
    /// appended, other changed fields written or overwritten — nothing is
    /// appended twice). See [`crate::subgraph`] for checkpoints, interrupts
    /// and replays. The child runs on the parent's checkpointer (one it has
    /// of its own is not used), and takes from the parent's run:
    ///
    /// * its **recursion limit**, counted over the child's own supersteps:
    ///   a child that never ends stops with [`GraphError::RecursionLimit`]
    ///   naming the child's nodes (the source of the
    ///   [`SubgraphError::Child`] behind the parent's [`GraphError::Node`]);
    /// * its **durability** ([`crate::Durability`]);
    /// * its **cancellation** token;
    /// * its **event stream** and stream modes: the child's events reach the
    ///   parent's stream as [`crate::Event::Subgraph`], namespaced by this
    ///   node's task ([`crate::SubgraphTask`]), like LangGraph's
    ///   `subgraphs=True`.
    ///
    /// Not taken: the parent run's `interrupt_before` / `interrupt_after`
    /// ([`crate::RunConfig::with_interrupt_before`]) name the parent's nodes
    /// only (`"*"` too): the child stops where its own compiled
    /// interrupts say, and a child's node named through the parent
    /// (`"review/lint"`) is an unknown node of the parent. To stop inside
    /// a child, compile the child with [`StateGraph::interrupt_before`].
    ///
    /// ```
    /// use rebound_graph::{NodeError, RunConfig, State, StateGraph, END, START};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
    /// struct Doc {
    ///     #[state(append)]
    ///     log: Vec<String>,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut review = StateGraph::<Doc>::new();
    /// review
    ///     .add_sync_node("lint", |_, _| Ok(DocUpdate::default().log(vec!["linted".into()])))
    ///     .add_edge(START, "lint")
    ///     .add_edge("lint", END);
    /// let mut graph = StateGraph::<Doc>::new();
    /// graph
    ///     .add_sync_node("write", |_, _| Ok(DocUpdate::default().log(vec!["written".into()])))
    ///     .add_subgraph("review", review.compile()?)
    ///     .add_edge(START, "write")
    ///     .add_edge("write", "review")
    ///     .add_edge("review", END);
    /// let done = graph.compile()?.invoke(Doc::default(), RunConfig::new()).await?;
    /// assert_eq!(done.log, ["written", "linted"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn add_subgraph(&mut self, name: impl Into<String>, child: CompiledGraph<S>) -> &mut Self {
        self.push_subgraph(
            name.into(),
            run::Mapping {
                child,
                input: Box::new(|state: &S, _| Ok(state.clone())),
                output: Box::new(|before: &S, after: S| S::changes(before, &after)),
                from_start: true,
            },
        )
    }

    /// Adds a compiled graph over another state as a node: `input` makes
    /// the child's input from the parent's state, `output` the parent's
    /// update from the parent's state and the child's final state. A
    /// mapping that fails stops the run with a [`GraphError::Node`] naming
    /// the node, its source a [`SubgraphError`]; the superstep is not saved.
    /// The child takes the parent run's settings and event stream as with
    /// [`StateGraph::add_subgraph`].
    pub fn add_subgraph_mapped<C, I, O>(
        &mut self,
        name: impl Into<String>,
        child: CompiledGraph<C>,
        input: I,
        output: O,
    ) -> &mut Self
    where
        C: State,
        I: Fn(&S) -> Result<C, String> + Send + Sync + 'static,
        O: Fn(&S, C) -> Result<S::Update, String> + Send + Sync + 'static,
    {
        self.push_subgraph(
            name.into(),
            run::Mapping {
                child,
                input: Box::new(move |state: &S, _| input(state)),
                output: Box::new(output),
                from_start: false,
            },
        )
    }

    /// Adds a compiled graph over another state as a node that
    /// [`crate::Send`]s target (map-reduce over subgraphs): `input` makes
    /// each task's child input from the parent's state and that task's
    /// payload, decoded as `P` (what [`crate::NodeContext::send_arg`] gives a
    /// plain node); `output` the parent's update from the parent's state and
    /// the child's final state, as with [`StateGraph::add_subgraph_mapped`].
    /// Each task runs its own child on a thread of its own (task `node#k`),
    /// and the updates merge in the order the sends were emitted: give the
    /// parent's field an append rule.
    ///
    /// A task scheduled by an edge (no payload), or a payload that does not
    /// fit `P`, stops the run with a [`GraphError::Node`] whose source is a
    /// [`SubgraphError::Input`].
    ///
    /// ```
    /// use rebound_graph::{Route, RunConfig, Send, State, StateGraph, END, START};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
    /// struct Report {
    ///     #[state(append)]
    ///     summaries: Vec<String>,
    /// }
    /// #[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
    /// struct Doc {
    ///     name: String,
    ///     summary: String,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut summarize = StateGraph::<Doc>::new();
    /// summarize
    ///     .add_sync_node("read", |doc: &Doc, _| {
    ///         Ok(DocUpdate::default().summary(format!("{} read", doc.name)))
    ///     })
    ///     .add_edge(START, "read")
    ///     .add_edge("read", END);
    /// let mut graph = StateGraph::<Report>::new();
    /// graph
    ///     .add_subgraph_sent(
    ///         "summarize",
    ///         summarize.compile()?,
    ///         |_: &Report, name: String| Ok(Doc { name, ..Doc::default() }),
    ///         |_: &Report, doc: Doc| Ok(ReportUpdate::default().summaries(vec![doc.summary])),
    ///     )
    ///     .add_conditional_edges(
    ///         START,
    ///         |_: &Report| Route::sends(["a", "b"].map(|name| Send::new("summarize", name))),
    ///         ["summarize"],
    ///     )
    ///     .add_edge("summarize", END);
    /// let done = graph.compile()?.invoke(Report::default(), RunConfig::new()).await?;
    /// assert_eq!(done.summaries, ["a read", "b read"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn add_subgraph_sent<C, P, I, O>(
        &mut self,
        name: impl Into<String>,
        child: CompiledGraph<C>,
        input: I,
        output: O,
    ) -> &mut Self
    where
        C: State,
        P: serde::de::DeserializeOwned,
        I: Fn(&S, P) -> Result<C, String> + Send + Sync + 'static,
        O: Fn(&S, C) -> Result<S::Update, String> + Send + Sync + 'static,
    {
        self.push_subgraph(
            name.into(),
            run::Mapping {
                child,
                input: Box::new(move |state: &S, payload: Option<&serde_json::Value>| {
                    let payload = payload.ok_or_else(|| {
                        "no Send payload: this node takes its input from a Send's payload, \
                         and this task was scheduled by an edge"
                            .to_string()
                    })?;
                    let payload = P::deserialize(payload)
                        .map_err(|e| format!("the Send payload does not fit: {e}"))?;
                    input(state, payload)
                }),
                output: Box::new(output),
                from_start: false,
            },
        )
    }

    fn push_subgraph<C: State>(&mut self, name: String, mapping: run::Mapping<S, C>) -> &mut Self {
        let view: Arc<dyn SubgraphView> = Arc::new(mapping.child.clone());
        let mapping = Arc::new(mapping);
        let func = NodeFn::Async(Box::new(move |state, ctx| {
            Box::pin(run::run(Arc::clone(&mapping), state, ctx))
        }));
        self.nodes.push(NodeDef {
            name,
            func,
            subgraph: Some(view),
        });
        self
    }
}
