//! Assistants: the graphs a server runs. [`ServedGraph`] is a compiled
//! graph with its state type erased to JSON, so that graphs of any state
//! type sit side by side in one server.

use std::sync::Arc;

use async_trait::async_trait;
use rebound_graph::checkpoint::{CheckpointId, Checkpointer};
use rebound_graph::{
    CheckpointInfo, CompiledGraph, GraphEdge, GraphError, Input, Interrupt, ResumeCommand,
    RunConfig, RunOutcome, State, StateSnapshot,
};
use serde_json::{json, Value};

use crate::error::ApiError;

/// What a run starts from, as the API gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum RunInput {
    /// The input of a thread that has no state: its first state (read by
    /// the graph's input function, if it has one).
    Start(Value),
    /// The input of a thread that has a state: an update merged into it
    /// through the fields' rules (as LangGraph does).
    Update(Value),
    /// Continue the thread from its latest checkpoint (a run resumed after
    /// a restart, or an input of `null`).
    Resume,
    /// `command: {resume, update, goto}`.
    Command(ResumeCommand),
}

/// How a run ended, its state as JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEnd {
    /// It ran to the end.
    Completed(Value),
    /// It stopped at interrupts.
    Interrupted(Value, Vec<Interrupt>),
}

/// A thread's state at one checkpoint, its values as JSON.
pub type StateView = StateSnapshot<Value>;

/// A compiled graph the server can run, its state type erased.
#[async_trait]
pub trait ServedGraph: Send + Sync + 'static {
    /// The node names, in the order they were added.
    fn node_names(&self) -> Vec<String>;
    /// The edges, for drawing.
    fn edges(&self) -> Vec<GraphEdge>;
    /// The graph as a Mermaid flowchart.
    fn mermaid(&self) -> String;
    /// The JSON schema of the state, if known.
    fn state_schema(&self) -> Option<Value>;
    /// Runs it on a thread.
    async fn run(&self, input: RunInput, config: RunConfig) -> Result<RunEnd, GraphError>;
    /// Whether a run could start from `input`: as a new thread's first
    /// state when `start`, else as an update of the state. Why not.
    fn check_input(&self, input: &Value, start: bool) -> Result<(), String>;
    /// The thread's latest checkpoint, without its state (cheap): `None`
    /// for a thread without one.
    async fn head(&self, config: &RunConfig) -> Result<Option<CheckpointInfo>, GraphError>;
    /// The state at a checkpoint (the latest without one).
    async fn get_state(&self, config: &RunConfig) -> Result<StateView, GraphError>;
    /// The thread's checkpoints, newest first.
    async fn history(
        &self,
        config: &RunConfig,
        before: Option<CheckpointId>,
        limit: usize,
    ) -> Result<Vec<StateView>, GraphError>;
    /// Writes `values` (JSON of the state's update type) as a new
    /// checkpoint, as if `as_node` had written them.
    async fn update_state(
        &self,
        config: &RunConfig,
        values: Value,
        as_node: Option<&str>,
    ) -> Result<CheckpointId, ApiError>;
}

/// Makes a thread's first state from a run's input (JSON).
pub type InputFn<S> = Arc<dyn Fn(Value) -> Result<S, String> + Send + Sync>;

/// A [`CompiledGraph`] served with its state as JSON.
pub(crate) struct GraphAssistant<S: State> {
    graph: CompiledGraph<S>,
    schema: Option<Value>,
    input: Option<InputFn<S>>,
}

impl<S: State> GraphAssistant<S> {
    pub(crate) fn new(
        graph: CompiledGraph<S>,
        saver: Arc<dyn Checkpointer>,
        schema: Option<Value>,
        input: Option<InputFn<S>>,
    ) -> Self {
        GraphAssistant {
            graph: graph.with_checkpointer(saver),
            schema,
            input,
        }
    }

    fn view(snapshot: StateSnapshot<S>) -> Result<StateView, GraphError> {
        snapshot.into_json()
    }
}

/// Reads JSON as `T`, naming the path of what does not fit.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            e.into_inner().to_string()
        } else {
            format!("at {path}: {}", e.into_inner())
        }
    })
}

#[async_trait]
impl<S: State> ServedGraph for GraphAssistant<S> {
    fn node_names(&self) -> Vec<String> {
        self.graph.node_names().map(str::to_string).collect()
    }

    fn edges(&self) -> Vec<GraphEdge> {
        self.graph.edges()
    }

    fn mermaid(&self) -> String {
        self.graph.to_mermaid()
    }

    fn state_schema(&self) -> Option<Value> {
        self.schema.clone()
    }

    async fn run(&self, input: RunInput, config: RunConfig) -> Result<RunEnd, GraphError> {
        let input = match input {
            RunInput::Resume => Input::Resume,
            RunInput::Command(command) => Input::Command(command),
            RunInput::Update(value) => Input::Update(value),
            RunInput::Start(value) => {
                let state = match &self.input {
                    Some(make) => make(value),
                    None => from_json::<S>(value),
                };
                Input::State(state.map_err(|reason| GraphError::BadInput {
                    reason: format!("the input is not a state of this graph: {reason}"),
                })?)
            }
        };
        let outcome = self.graph.run(input, config).await?;
        let state = serde_json::to_value(outcome.state()).map_err(GraphError::Encode)?;
        Ok(match outcome {
            RunOutcome::Completed(_) => RunEnd::Completed(state),
            RunOutcome::Interrupted { interrupts, .. } => RunEnd::Interrupted(state, interrupts),
        })
    }

    fn check_input(&self, input: &Value, start: bool) -> Result<(), String> {
        if !start {
            return from_json::<S::Update>(input.clone())
                .map(|_| ())
                .map_err(|reason| format!("not an update of this graph's state: {reason}"));
        }
        match &self.input {
            Some(make) => make(input.clone()).map(|_| ()),
            None => from_json::<S>(input.clone())
                .map(|_| ())
                .map_err(|reason| format!("not a state of this graph: {reason}")),
        }
    }

    async fn head(&self, config: &RunConfig) -> Result<Option<CheckpointInfo>, GraphError> {
        match self.graph.history(config, None, Some(1)).await {
            Ok(mut list) => Ok(list.pop()),
            Err(GraphError::UnknownThread { .. }) => Ok(None),
            Err(error) => Err(error),
        }
    }

    async fn get_state(&self, config: &RunConfig) -> Result<StateView, GraphError> {
        Self::view(self.graph.get_state(config).await?)
    }

    async fn history(
        &self,
        config: &RunConfig,
        before: Option<CheckpointId>,
        limit: usize,
    ) -> Result<Vec<StateView>, GraphError> {
        let infos = self.graph.history(config, before, Some(limit)).await?;
        let mut views = Vec::with_capacity(infos.len());
        for info in infos {
            let at = config.clone().with_checkpoint_id(info.checkpoint_id);
            views.push(Self::view(self.graph.get_state(&at).await?)?);
        }
        Ok(views)
    }

    async fn update_state(
        &self,
        config: &RunConfig,
        values: Value,
        as_node: Option<&str>,
    ) -> Result<CheckpointId, ApiError> {
        let update: S::Update = from_json(values).map_err(|reason| {
            ApiError::invalid(format!(
                "values is not an update of this graph's state: {reason}"
            ))
        })?;
        Ok(self.graph.update_state(config, update, as_node).await?)
    }
}

/// A graph's nodes and edges in the Agent Server's drawable form.
pub(crate) fn drawable(graph: &dyn ServedGraph) -> Value {
    let mut nodes =
        vec![json!({"id": rebound_graph::START, "type": "schema", "data": "__start__"})];
    for name in graph.node_names() {
        nodes.push(json!({"id": name, "type": "runnable", "data": {"id": ["rebound", "node", name], "name": name}}));
    }
    nodes.push(json!({"id": rebound_graph::END, "type": "schema", "data": "__end__"}));
    let edges: Vec<Value> = graph
        .edges()
        .into_iter()
        .map(|edge| {
            let mut value = json!({"source": edge.source, "target": edge.target, "conditional": edge.conditional});
            if let Some(label) = edge.label {
                value["data"] = json!(label);
            }
            value
        })
        .collect();
    json!({ "nodes": nodes, "edges": edges })
}
