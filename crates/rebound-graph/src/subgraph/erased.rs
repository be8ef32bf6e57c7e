//! A subgraph node's child graph with its state type erased
//! ([`SubgraphView`]), and what it shows of a child run
//! ([`SubgraphState`]): what the builder and the compiled graph hold of a
//! subgraph, without the run loop behind it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::checkpoint::Checkpointer;
use crate::{GraphError, RunConfig, StateSnapshot};

/// A child run of a subgraph node, as its parent's checkpoint sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct SubgraphState {
    /// The parent's node that runs it.
    pub node: String,
    /// Its task in the parent's superstep (`node`, or `node#k` for a send).
    pub task: String,
    /// The child's thread: use it ([`SubgraphState::config`]) with the
    /// child graph's `get_state`, `history` and `update_state`.
    pub thread_id: String,
    /// What its interrupts' ids are prefixed with in the parent.
    pub interrupt_prefix: String,
    /// The child's latest state (its values as JSON), `next` and interrupts.
    pub snapshot: StateSnapshot<serde_json::Value>,
    /// The child's own subgraphs, the same way.
    pub subgraphs: Vec<SubgraphState>,
}

impl SubgraphState {
    /// A config addressing the child's thread.
    pub fn config(&self) -> RunConfig {
        RunConfig::new().with_thread_id(self.thread_id.as_str())
    }
}

pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A child run's state as JSON, and its own subgraphs.
pub(crate) type ChildState = (StateSnapshot<serde_json::Value>, Vec<SubgraphState>);

/// A subgraph node's child graph, with its state type erased.
pub(crate) trait SubgraphView: Send + Sync {
    /// The child run on `thread`, and its own subgraphs.
    fn state<'a>(
        &'a self,
        saver: Arc<dyn Checkpointer>,
        thread: String,
    ) -> BoxFuture<'a, Result<ChildState, GraphError>>;
}
