//! [`StateGraph`]: the builder that collects nodes and edges before
//! [`StateGraph::compile`] validates them.

use std::future::Future;
use std::sync::Arc;

use crate::node::NodeFn;
use crate::{Command, NodeContext, NodeError, NodeOptions, PathMap, Route, State};

/// A router: reads the state after the source node's superstep and answers
/// the next target(s).
pub(crate) type Router<S> = Arc<dyn Fn(&S) -> Route + Send + Sync>;

pub(crate) struct NodeDef<S: State> {
    pub(crate) name: String,
    pub(crate) func: NodeFn<S>,
    /// The child graph, for a subgraph node.
    pub(crate) subgraph: Option<Arc<dyn crate::subgraph::SubgraphView>>,
}

pub(crate) struct ConditionalDef<S: State> {
    pub(crate) source: String,
    pub(crate) router: Router<S>,
    pub(crate) paths: PathMap,
}

/// Builds a graph over the state `S`. Methods record and chain; every check
/// happens in [`StateGraph::compile`], which reports the first problem found.
///
/// ```
/// use rebound_graph::{NodeError, RunConfig, State, StateGraph, END, START};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
/// struct Counter {
///     count: u32,
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut graph = StateGraph::<Counter>::new();
/// graph
///     .add_sync_node("increment", |s, _ctx| Ok(CounterUpdate::default().count(s.count + 1)))
///     .add_edge(START, "increment")
///     .add_conditional_edges(
///         "increment",
///         |s: &Counter| if s.count < 3 { "increment" } else { END },
///         ["increment", END],
///     );
/// let graph = graph.compile()?;
/// let done = graph.invoke(Counter::default(), RunConfig::new()).await?;
/// assert_eq!(done.count, 3);
/// # Ok(())
/// # }
/// ```
pub struct StateGraph<S: State> {
    pub(crate) nodes: Vec<NodeDef<S>>,
    pub(crate) edges: Vec<(String, String)>,
    pub(crate) conditionals: Vec<ConditionalDef<S>>,
    pub(crate) joins: Vec<(Vec<String>, String)>,
    pub(crate) options: Vec<(String, NodeOptions)>,
    pub(crate) interrupt_before: Vec<String>,
    pub(crate) interrupt_after: Vec<String>,
}

impl<S: State> Default for StateGraph<S> {
    fn default() -> Self {
        StateGraph {
            nodes: Vec::new(),
            edges: Vec::new(),
            conditionals: Vec::new(),
            joins: Vec::new(),
            options: Vec::new(),
            interrupt_before: Vec::new(),
            interrupt_after: Vec::new(),
        }
    }
}

impl<S: State> StateGraph<S> {
    /// An empty graph.
    pub fn new() -> Self {
        StateGraph::default()
    }

    /// Adds an async node. It receives the state as it stood when its superstep
    /// began and its [`NodeContext`], and returns its update (or a [`Command`]).
    pub fn add_node<F, Fut, O>(&mut self, name: impl Into<String>, node: F) -> &mut Self
    where
        F: Fn(Arc<S>, NodeContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, NodeError>> + Send + 'static,
        O: Into<Command<S::Update>> + 'static,
    {
        let func = NodeFn::Async(Box::new(move |state, ctx| {
            let fut = node(state, ctx);
            Box::pin(async move { fut.await.map(Into::into) })
        }));
        self.nodes.push(NodeDef {
            name: name.into(),
            func,
            subgraph: None,
        });
        self
    }

    /// Adds a synchronous node, for quick pure logic (no I/O: it runs on the
    /// run's task and cannot be timed out).
    pub fn add_sync_node<F, O>(&mut self, name: impl Into<String>, node: F) -> &mut Self
    where
        F: Fn(&S, &NodeContext) -> Result<O, NodeError> + Send + Sync + 'static,
        O: Into<Command<S::Update>>,
    {
        let func = NodeFn::Sync(Box::new(move |state, ctx| node(state, ctx).map(Into::into)));
        self.nodes.push(NodeDef {
            name: name.into(),
            func,
            subgraph: None,
        });
        self
    }

    /// Sets a node's options: retry policy, timeout, `goto` destinations.
    /// Several calls for one node combine; a later setting wins.
    pub fn configure_node(&mut self, name: impl Into<String>, options: NodeOptions) -> &mut Self {
        self.options.push((name.into(), options));
        self
    }

    /// An edge: after `from` runs, `to` runs. `from` may be [`crate::START`], `to` may be
    /// [`crate::END`]. Several edges out of one node fan out in parallel.
    pub fn add_edge(&mut self, from: impl Into<String>, to: impl Into<String>) -> &mut Self {
        self.edges.push((from.into(), to.into()));
        self
    }

    /// A join: `to` runs once every node in `from` has finished since `to`
    /// last ran (they may finish in different supersteps).
    pub fn add_join<I, T>(&mut self, from: I, to: impl Into<String>) -> &mut Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.joins
            .push((from.into_iter().map(Into::into).collect(), to.into()));
        self
    }

    /// A conditional edge: after `from` runs, `router` reads the state and
    /// answers one or several keys of `paths` (see [`PathMap`]).
    pub fn add_conditional_edges<F, R>(
        &mut self,
        from: impl Into<String>,
        router: F,
        paths: impl Into<PathMap>,
    ) -> &mut Self
    where
        F: Fn(&S) -> R + Send + Sync + 'static,
        R: Into<Route>,
    {
        self.conditionals.push(ConditionalDef {
            source: from.into(),
            router: Arc::new(move |state| router(state).into()),
            paths: paths.into(),
        });
        self
    }

    /// Stops every run before these nodes run (a static interrupt; needs a
    /// checkpointer). Resuming runs them. [`crate::ALL_NODES`] (`"*"`)
    /// names every node.
    pub fn interrupt_before<I, T>(&mut self, nodes: I) -> &mut Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.interrupt_before
            .extend(nodes.into_iter().map(Into::into));
        self
    }

    /// Stops every run after these nodes ran and their superstep was saved.
    pub fn interrupt_after<I, T>(&mut self, nodes: I) -> &mut Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.interrupt_after
            .extend(nodes.into_iter().map(Into::into));
        self
    }
}
