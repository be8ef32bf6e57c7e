//! The superstep run loop of a [`CompiledGraph`]: run the scheduled nodes,
//! merge their updates at the barrier, route, repeat until nothing is left.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use tokio_util::sync::CancellationToken;

use crate::compile::{CompiledNode, Graph, Outgoing, Target};
use crate::event::{ChangedFields, RunStatus};
use crate::node::{NodeFn, RunShared};
use crate::{
    Command, Event, EventSink, GraphError, NodeContext, NodeError, Route, RunConfig, RunId,
    RunStream, State,
};

/// How many recently visited nodes a recursion-limit error lists.
const RECENT_NODES: usize = 10;

/// A validated graph, ready to run any number of times, concurrently.
/// Cloning it is cheap (the graph is shared).
pub struct CompiledGraph<S: State> {
    pub(crate) graph: Arc<Graph<S>>,
}

impl<S: State> Clone for CompiledGraph<S> {
    fn clone(&self) -> Self {
        CompiledGraph {
            graph: Arc::clone(&self.graph),
        }
    }
}

/// A finished node attempt: its output, the attempt number and its duration.
struct NodeRun<U> {
    node: usize,
    command: Command<U>,
    attempt: u32,
    duration: Duration,
}

impl<S: State> CompiledGraph<S> {
    pub(crate) fn from_graph(graph: Graph<S>) -> Self {
        CompiledGraph {
            graph: Arc::new(graph),
        }
    }

    /// The node names, in the order they were added.
    pub fn node_names(&self) -> impl Iterator<Item = &str> {
        self.graph.nodes.iter().map(|n| &*n.name)
    }

    /// Runs the graph from `input` to the end and returns the final state.
    /// Events go to the config's event sender, if it has one.
    pub async fn invoke(&self, input: S, config: RunConfig) -> Result<S, GraphError> {
        let shared = Arc::new(RunShared {
            run_id: RunId::new(),
            thread_id: config.thread_id.clone(),
            events: config
                .events
                .clone()
                .map(EventSink::new)
                .unwrap_or_default(),
            cancellation: config.cancellation.clone().unwrap_or_default(),
        });
        let started = Instant::now();
        shared.events.emit(|| Event::RunStarted {
            run_id: shared.run_id,
            thread_id: shared.thread_id.clone(),
        });
        let mut steps = 0;
        let result = match &config.cancellation {
            None => self.run_loop(input, &config, &shared, &mut steps).await,
            Some(token) => {
                let token = token.clone();
                let run = self.run_loop(input, &config, &shared, &mut steps);
                tokio::select! {
                    biased;
                    _ = token.cancelled() => Err(GraphError::Cancelled { step: 0 }),
                    result = run => result,
                }
            }
        };
        let result = match result {
            Err(GraphError::Cancelled { .. }) => Err(GraphError::Cancelled { step: steps }),
            other => other,
        };
        let status = match &result {
            Ok(_) => RunStatus::Completed,
            Err(GraphError::Cancelled { .. }) => RunStatus::Cancelled,
            Err(_) => RunStatus::Failed,
        };
        if let Err(error) = &result {
            shared.events.emit(|| error_event(error, steps));
        }
        shared.events.emit(|| Event::RunFinished {
            run_id: shared.run_id,
            status,
            steps,
            duration: started.elapsed(),
        });
        result
    }

    /// Runs the graph on a new task and returns its events as they happen;
    /// [`RunStream::result`] gives the final state. Dropping the stream
    /// before the end cancels the run.
    pub fn stream(&self, input: S, config: RunConfig) -> RunStream<S> {
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        let graph = self.clone();
        let handle =
            tokio::spawn(async move { graph.invoke(input, config.with_events(sender)).await });
        RunStream::new(receiver, handle)
    }

    async fn run_loop(
        &self,
        input: S,
        config: &RunConfig,
        shared: &Arc<RunShared>,
        steps: &mut u64,
    ) -> Result<S, GraphError> {
        let graph = &*self.graph;
        let mut state = Arc::new(input);
        let mut barriers = vec![0u64; graph.joins.len()];
        let mut next: Vec<usize> = Vec::with_capacity(4);
        let mut recent: VecDeque<usize> = VecDeque::with_capacity(RECENT_NODES);
        let mut step: u64 = 0;

        let start = graph.start_name.clone();
        route(
            graph,
            &start,
            &graph.entry,
            None,
            None,
            &state,
            step,
            shared,
            &mut barriers,
            &mut next,
        )?;

        while !next.is_empty() {
            *steps = step;
            if step >= config.recursion_limit {
                return Err(GraphError::RecursionLimit {
                    limit: config.recursion_limit,
                    recent: recent
                        .iter()
                        .map(|&i| graph.nodes[i].name.to_string())
                        .collect(),
                    pending: next
                        .iter()
                        .map(|&i| graph.nodes[i].name.to_string())
                        .collect(),
                });
            }
            if shared.cancellation.is_cancelled() {
                return Err(GraphError::Cancelled { step });
            }
            // A long run of sync nodes never awaits anything: give the
            // runtime its turn when the task's budget is spent.
            tokio::task::coop::consume_budget().await;

            if let [only] = next[..] {
                let run = run_node(graph, only, Arc::clone(&state), shared, step).await?;
                next.clear();
                let changed = Arc::make_mut(&mut state).apply(run.command.update);
                emit_finished(
                    graph,
                    shared,
                    run.node,
                    step,
                    run.attempt,
                    run.duration,
                    changed,
                );
                remember(&mut recent, run.node);
                let node = &graph.nodes[run.node];
                route(
                    graph,
                    &node.name,
                    &node.out,
                    Some(node),
                    run.command.goto,
                    &state,
                    step,
                    shared,
                    &mut barriers,
                    &mut next,
                )?;
            } else {
                let runs = self.run_parallel(&next, &state, shared, step).await?;
                next.clear();
                check_conflicts::<S>(graph, &runs, step)?;
                let mut gotos = Vec::with_capacity(runs.len());
                let target = Arc::make_mut(&mut state);
                for run in runs {
                    let changed = target.apply(run.command.update);
                    emit_finished(
                        graph,
                        shared,
                        run.node,
                        step,
                        run.attempt,
                        run.duration,
                        changed,
                    );
                    remember(&mut recent, run.node);
                    gotos.push((run.node, run.command.goto));
                }
                for (index, goto) in gotos {
                    let node = &graph.nodes[index];
                    route(
                        graph,
                        &node.name,
                        &node.out,
                        Some(node),
                        goto,
                        &state,
                        step,
                        shared,
                        &mut barriers,
                        &mut next,
                    )?;
                }
                next.sort_unstable();
                next.dedup();
            }
            step += 1;
        }
        *steps = step;
        Ok(Arc::try_unwrap(state).unwrap_or_else(|shared| (*shared).clone()))
    }

    /// Runs several nodes of one superstep concurrently, each on its own task,
    /// and returns their results sorted by node name (the merge order).
    async fn run_parallel(
        &self,
        nodes: &[usize],
        state: &Arc<S>,
        shared: &Arc<RunShared>,
        step: u64,
    ) -> Result<Vec<NodeRun<S::Update>>, GraphError> {
        let mut tasks = tokio::task::JoinSet::new();
        for &index in nodes {
            let graph = Arc::clone(&self.graph);
            let state = Arc::clone(state);
            let shared = Arc::clone(shared);
            tasks.spawn(async move { run_node(&graph, index, state, &shared, step).await });
        }
        let mut results = Vec::with_capacity(nodes.len());
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok(result) => results.push(result),
                Err(join_error) => {
                    return Err(GraphError::TaskFailed {
                        message: join_error.to_string(),
                    })
                }
            }
        }
        let graph = &*self.graph;
        let name_of = |r: &Result<NodeRun<S::Update>, GraphError>| match r {
            Ok(run) => Some(graph.nodes[run.node].name.clone()),
            Err(GraphError::Node { node, .. }) => Some(Arc::from(node.as_str())),
            Err(_) => None,
        };
        results.sort_by_key(|r| name_of(r));
        results.into_iter().collect()
    }
}

/// Keeps the last [`RECENT_NODES`] nodes that ran, for recursion errors.
fn remember(recent: &mut VecDeque<usize>, node: usize) {
    if recent.len() == RECENT_NODES {
        recent.pop_front();
    }
    recent.push_back(node);
}

fn error_event(error: &GraphError, step: u64) -> Event {
    let (node, kind) = match error {
        GraphError::Node { node, kind, .. } => (Some(Arc::from(node.as_str())), Some(*kind)),
        GraphError::UnknownRoute { node, .. } => (Some(Arc::from(node.as_str())), None),
        _ => (None, None),
    };
    Event::Error {
        node,
        step,
        kind,
        message: error.to_string(),
    }
}

fn emit_finished<S: State>(
    graph: &Graph<S>,
    shared: &RunShared,
    node: usize,
    step: u64,
    attempt: u32,
    duration: Duration,
    changed: crate::FieldSet,
) {
    shared.events.emit(|| Event::NodeFinished {
        node: graph.nodes[node].name.clone(),
        step,
        attempt,
        duration,
        changed: ChangedFields::new(changed, S::FIELDS),
    });
}

/// Two nodes of one superstep writing the same replace-field is an error.
fn check_conflicts<S: State>(
    graph: &Graph<S>,
    runs: &[NodeRun<S::Update>],
    step: u64,
) -> Result<(), GraphError> {
    let written: Vec<crate::FieldSet> = runs
        .iter()
        .map(|r| S::written(&r.command.update).intersection(graph.replace_fields))
        .collect();
    for (i, a) in written.iter().enumerate() {
        for (j, b) in written.iter().enumerate().skip(i + 1) {
            if let Some(field) = a.intersection(*b).indices().next() {
                return Err(GraphError::Conflict {
                    field: S::FIELDS.get(field).copied().unwrap_or("?"),
                    first: graph.nodes[runs[i].node].name.to_string(),
                    second: graph.nodes[runs[j].node].name.to_string(),
                    step,
                });
            }
        }
    }
    Ok(())
}

/// Schedules what follows `from`: its `goto` if it returned one, otherwise its
/// static edges, conditional edges and joins.
#[allow(clippy::too_many_arguments)]
fn route<S: State>(
    graph: &Graph<S>,
    from: &Arc<str>,
    out: &Outgoing<S>,
    node: Option<&CompiledNode<S>>,
    goto: Option<Route>,
    state: &S,
    step: u64,
    shared: &RunShared,
    barriers: &mut [u64],
    next: &mut Vec<usize>,
) -> Result<(), GraphError> {
    let events = shared.events.is_active();
    let mut chosen: Vec<Arc<str>> = Vec::new();
    let mut push = |target: Target, next: &mut Vec<usize>| {
        if let Target::Node(i) = target {
            next.push(i);
        }
        if events {
            chosen.push(graph.target_name(target).clone());
        }
    };

    let mut reason = None;
    if let Some(goto) = goto {
        let destinations = node.map(|n| n.destinations.as_slice()).unwrap_or(&[]);
        for key in goto.targets() {
            match destinations.iter().find(|(name, _)| &**name == key) {
                Some((_, target)) => push(*target, next),
                None => {
                    return Err(GraphError::UnknownRoute {
                        node: from.to_string(),
                        value: key.to_string(),
                        allowed: destinations.iter().map(|(n, _)| n.to_string()).collect(),
                    })
                }
            }
        }
        reason = goto.into_reason();
    } else {
        for target in &out.statics {
            push(*target, next);
        }
        for conditional in &out.conditionals {
            let answer = (conditional.router)(state);
            for key in answer.targets() {
                let found = conditional
                    .entries
                    .iter()
                    .find(|(k, _)| &**k == key)
                    .map(|(_, t)| *t)
                    .or(conditional.fallback);
                match found {
                    Some(target) => push(target, next),
                    None => {
                        return Err(GraphError::UnknownRoute {
                            node: from.to_string(),
                            value: key.to_string(),
                            allowed: conditional
                                .entries
                                .iter()
                                .map(|(k, _)| k.to_string())
                                .collect(),
                        })
                    }
                }
            }
            if let Some(r) = answer.into_reason() {
                reason = Some(r);
            }
        }
        for &(join, bit) in &out.joins {
            barriers[join] |= bit;
            if barriers[join] == graph.joins[join].full {
                barriers[join] = 0;
                push(graph.joins[join].target, next);
            }
        }
    }
    if events {
        shared.events.emit(|| Event::RouteChosen {
            from: from.clone(),
            to: chosen,
            step,
            reason,
        });
    }
    Ok(())
}

/// Runs one node with its retry policy and timeout.
async fn run_node<S: State>(
    graph: &Graph<S>,
    index: usize,
    state: Arc<S>,
    shared: &Arc<RunShared>,
    step: u64,
) -> Result<NodeRun<S::Update>, GraphError> {
    let node = &graph.nodes[index];
    let mut attempt = 1;
    loop {
        let ctx = NodeContext {
            shared: Arc::clone(shared),
            node: node.name.clone(),
            step,
            attempt,
        };
        shared.events.emit(|| Event::NodeStarted {
            node: node.name.clone(),
            step,
            attempt,
        });
        // Durations are only reported in events: no clock reads when nobody listens.
        let started = shared.events.is_active().then(Instant::now);
        let result = attempt_once(node, Arc::clone(&state), ctx).await;
        match result {
            Ok(command) => {
                return Ok(NodeRun {
                    node: index,
                    command,
                    attempt,
                    duration: started.map(|t| t.elapsed()).unwrap_or_default(),
                })
            }
            Err(error) => {
                if let Some(policy) = node
                    .retry
                    .as_ref()
                    .filter(|p| p.should_retry(attempt, &error))
                {
                    let delay = policy.backoff(attempt);
                    shared.events.emit(|| Event::Retry {
                        node: node.name.clone(),
                        step,
                        attempt,
                        delay,
                        error: error.to_string(),
                    });
                    sleep_unless_cancelled(delay, &shared.cancellation, step).await?;
                    attempt += 1;
                    continue;
                }
                let (kind, source) = error.into_parts();
                return Err(GraphError::Node {
                    node: node.name.to_string(),
                    step,
                    attempt,
                    kind,
                    source,
                });
            }
        }
    }
}

async fn sleep_unless_cancelled(
    delay: Duration,
    token: &CancellationToken,
    step: u64,
) -> Result<(), GraphError> {
    tokio::select! {
        _ = token.cancelled() => Err(GraphError::Cancelled { step }),
        _ = tokio::time::sleep(delay) => Ok(()),
    }
}

/// One attempt: panics are caught, async nodes are bounded by their timeout.
async fn attempt_once<S: State>(
    node: &CompiledNode<S>,
    state: Arc<S>,
    ctx: NodeContext,
) -> Result<Command<S::Update>, NodeError> {
    match &node.func {
        NodeFn::Sync(func) => std::panic::catch_unwind(AssertUnwindSafe(|| func(&state, &ctx)))
            .unwrap_or_else(|panic| Err(NodeError::panicked(panic_message(&*panic)))),
        NodeFn::Async(func) => {
            let fut = match std::panic::catch_unwind(AssertUnwindSafe(|| func(state, ctx))) {
                Ok(fut) => fut,
                Err(panic) => return Err(NodeError::panicked(panic_message(&*panic))),
            };
            let guarded = AssertUnwindSafe(fut).catch_unwind();
            let outcome = match node.timeout {
                None => guarded.await,
                Some(limit) => match tokio::time::timeout(limit, guarded).await {
                    Ok(outcome) => outcome,
                    Err(_) => return Err(NodeError::timed_out(limit)),
                },
            };
            outcome.unwrap_or_else(|panic| Err(NodeError::panicked(panic_message(&*panic))))
        }
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_string()
    }
}
