//! What a subgraph node does when it runs: find (or name) its child's
//! thread, start, resume or read the child run, and hand back its result
//! or its interrupts.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::fork::child_run_for;
use super::inherit::child_config;
use super::namespace::{Namespace, NAMESPACE_KEY};
use super::{InputMap, OutputMap, SubgraphError, SUBGRAPH_SEPARATOR};
use crate::checkpoint::codec::{decode_meta, rebuild};
use crate::checkpoint::{Checkpointer, StoredCheckpoint};
use crate::scratch::NodeScratch;
use crate::{
    Command, CompiledGraph, GraphError, Input, Interrupt, NodeContext, NodeError, NodeResult,
    RunConfig, RunOutcome, State,
};

/// A subgraph node's child graph and mappings.
pub(crate) struct Mapping<S: State, C: State> {
    pub(crate) child: CompiledGraph<C>,
    pub(crate) input: Box<InputMap<S, C>>,
    pub(crate) output: Box<OutputMap<S, C>>,
    /// Whether `output` takes the state the child started from rather than
    /// the parent's current one (a same-state subgraph, whose update is
    /// what the child changed).
    pub(crate) from_start: bool,
}

fn child_error(node: &str, source: GraphError) -> NodeError {
    NodeError::from(SubgraphError::Child {
        node: node.to_string(),
        source: Box::new(source),
    })
}

/// Runs a subgraph node's task.
pub(crate) async fn run<S: State, C: State>(
    mapping: Arc<Mapping<S, C>>,
    state: Arc<S>,
    ctx: NodeContext,
) -> NodeResult<S> {
    let node = ctx.node().to_string();
    let input = (mapping.input)(&state, ctx.send_arg_value()).map_err(|message| {
        NodeError::from(SubgraphError::Input {
            node: node.clone(),
            message,
        })
        .permanent()
    })?;
    let Some(scratch) = ctx.scratch.clone() else {
        return run_in_memory(&mapping, &state, input, &ctx).await;
    };
    let namespace = child_namespace::<C>(&ctx, &scratch, &node).await?;
    let saver = Arc::clone(scratch.sink.saver());
    let child = mapping.child.clone().with_checkpointer(Arc::clone(&saver));
    let config = child_config(&ctx).with_thread_id(namespace.thread.as_str());
    let latest = saver
        .get(&namespace.thread, None)
        .await
        .map_err(|e| child_error(&node, e.into()))?;
    let (outcome, before) = match latest {
        None => (child.run(Input::State(input), config).await, None),
        Some(latest) => {
            let outcome =
                continue_child(&child, config, &latest, &scratch, &namespace.prefix, &node).await?;
            (outcome, Some(()))
        }
    };
    match outcome.map_err(|e| child_error(&node, e))? {
        RunOutcome::Interrupted {
            interrupts,
            checkpoint_id,
            ..
        } => {
            // Where it stopped, seen from here: the place a new answer to
            // this checkpoint's question resumes it from.
            let stopped = Namespace {
                stopped_at: Some(checkpoint_id),
                seen_from: Some(scratch.checkpoint),
                ..namespace.clone()
            };
            if stopped != namespace {
                ctx.rejournal(NAMESPACE_KEY, &stopped).await?;
            }
            Err(NodeError::subgraph_interrupts(surfaced(
                interrupts,
                &node,
                &namespace.prefix,
            )))
        }
        RunOutcome::Completed(done) => {
            let update = match before {
                // A child run started earlier: the parent's state may have
                // moved since (an update_state); a same-state child's
                // changes count from the state it started from.
                Some(()) if mapping.from_start => {
                    let started: S = first_state(&*saver, &namespace.thread)
                        .await
                        .map_err(|e| child_error(&node, e))?;
                    output(&mapping, &started, done, &node)?
                }
                _ => output(&mapping, &state, done, &node)?,
            };
            Ok(Command::from(update))
        }
    }
}

/// The child thread of the task, as journaled: made on the task's first
/// run, moved to a fork of the child when the parent's checkpoint is a
/// fork of the one the child ran under.
async fn child_namespace<C: State>(
    ctx: &NodeContext,
    scratch: &NodeScratch,
    node: &str,
) -> Result<Namespace, NodeError> {
    let fresh = Namespace {
        thread: format!(
            "{}{SUBGRAPH_SEPARATOR}{}:{}",
            scratch.sink.thread_id(),
            ctx.task_key(),
            scratch.checkpoint
        ),
        prefix: format!("{}:{}/", ctx.step(), ctx.task_key()),
        stopped_at: None,
        seen_from: None,
    };
    let recorded: Namespace = ctx.journal(NAMESPACE_KEY, async { fresh }).await?;
    let forked = child_run_for::<C>(
        &**scratch.sink.saver(),
        &recorded,
        scratch.checkpoint,
        scratch.sink.thread_id(),
        &ctx.task_key(),
    )
    .await
    .map_err(|e| child_error(node, e))?;
    match forked {
        Some(forked) => {
            ctx.rejournal(NAMESPACE_KEY, &forked).await?;
            Ok(forked)
        }
        None => Ok(recorded),
    }
}

/// Continues a child run that has a checkpoint (`latest`): a finished one
/// gives its final state; else it resumes with the answers given to its
/// questions (those it waits for now), if any.
async fn continue_child<C: State>(
    child: &CompiledGraph<C>,
    config: RunConfig,
    latest: &StoredCheckpoint,
    scratch: &NodeScratch,
    prefix: &str,
    node: &str,
) -> Result<Result<RunOutcome<C>, GraphError>, NodeError> {
    let meta = decode_meta(latest).map_err(|e| child_error(node, e))?;
    if meta.is_finished() {
        return Ok(child
            .get_state(&config)
            .await
            .map(|snapshot| RunOutcome::Completed(snapshot.values)));
    }
    let mut answers = answers_for(scratch, prefix);
    if !answers.is_empty() {
        // Only what the child waits for now: after time travel in the
        // child, its questions may not be asked yet.
        let waiting = child
            .get_state(&config)
            .await
            .map_err(|e| child_error(node, e))?
            .interrupts;
        answers.retain(|id, _| waiting.iter().any(|i| &i.id == id));
    }
    let input = if answers.is_empty() {
        Input::Resume
    } else {
        Input::ResumeMap(answers)
    };
    Ok(child.run(input, config).await)
}

fn output<S: State, C: State>(
    mapping: &Mapping<S, C>,
    parent: &S,
    done: C,
    node: &str,
) -> Result<S::Update, NodeError> {
    (mapping.output)(parent, done).map_err(|message| {
        NodeError::from(SubgraphError::Output {
            node: node.to_string(),
            message,
        })
        .permanent()
    })
}

/// The state a child thread started from: its first checkpoint's.
async fn first_state<T: State>(saver: &dyn Checkpointer, thread: &str) -> Result<T, GraphError> {
    let all = saver.list(thread, None, None).await?;
    let Some(first) = all.last() else {
        return Err(GraphError::UnknownThread {
            thread_id: thread.to_string(),
        });
    };
    let chain = saver.get_chain(thread, first.id).await?;
    rebuild(&chain)
}

/// The answers given in the parent to the child's waiting interrupts, by
/// the child's ids.
fn answers_for(scratch: &NodeScratch, prefix: &str) -> BTreeMap<String, serde_json::Value> {
    let Some(answers) = &scratch.answers else {
        return BTreeMap::new();
    };
    // The task's part of the prefix: the step before it may differ when the
    // parent resumes from a later head of the same superstep.
    let task_part = prefix.split_once(':').map_or(prefix, |(_, rest)| rest);
    answers
        .iter()
        .filter_map(|(id, value)| {
            let (_, rest) = id.split_once(':')?;
            let child_id = rest.strip_prefix(task_part)?;
            Some((child_id.to_string(), value.clone()))
        })
        .collect()
}

/// The child's interrupts as the parent lists them: ids prefixed, the
/// subgraph node as their node.
fn surfaced(interrupts: Vec<Interrupt>, node: &str, prefix: &str) -> Vec<Interrupt> {
    interrupts
        .into_iter()
        .map(|interrupt| Interrupt {
            id: format!("{prefix}{}", interrupt.id),
            node: node.to_string(),
            ..interrupt
        })
        .collect()
}

/// A parent run without a checkpointer runs its child without one too.
async fn run_in_memory<S: State, C: State>(
    mapping: &Mapping<S, C>,
    state: &S,
    input: C,
    ctx: &NodeContext,
) -> NodeResult<S> {
    let node = ctx.node();
    let child = CompiledGraph {
        graph: Arc::clone(&mapping.child.graph),
        checkpointer: None,
    };
    let config = child_config(ctx);
    match child
        .run(Input::State(input), config)
        .await
        .map_err(|e| child_error(node, e))?
    {
        RunOutcome::Completed(done) => Ok(Command::from(output(mapping, state, done, node)?)),
        RunOutcome::Interrupted { .. } => Err(NodeError::from(SubgraphError::NotDurable {
            node: node.to_string(),
        })
        .permanent()),
    }
}
