//! Seeing inside subgraphs: the state of each child run a parent's
//! checkpoint is waiting on ([`crate::CompiledGraph::get_state_with_subgraphs`]).

use std::sync::Arc;

use super::erased::{BoxFuture, ChildState, SubgraphState, SubgraphView};
use super::namespace::{Namespace, NAMESPACE_KEY};
use crate::checkpoint::codec::decode;
use crate::checkpoint::{CheckpointId, Checkpointer};
use crate::driver::ResumeData;
use crate::{CompiledGraph, GraphError, RunConfig, State, StateSnapshot};

impl<C: State> SubgraphView for CompiledGraph<C> {
    fn state<'a>(
        &'a self,
        saver: Arc<dyn Checkpointer>,
        thread: String,
    ) -> BoxFuture<'a, Result<ChildState, GraphError>> {
        Box::pin(async move {
            let child = self.clone().with_checkpointer(saver);
            let config = RunConfig::new().with_thread_id(thread);
            let (snapshot, subgraphs) = child.get_state_with_subgraphs(&config).await?;
            Ok((snapshot.into_json()?, subgraphs))
        })
    }
}

/// The child runs recorded at a checkpoint (`data`: its pending writes):
/// each subgraph task's key and namespace.
pub(crate) fn namespaces(
    data: &ResumeData,
    thread: &str,
    checkpoint: CheckpointId,
) -> Result<Vec<(String, Namespace)>, GraphError> {
    let mut out = Vec::new();
    for (task, entries) in &data.journal {
        if let Some(bytes) = entries.get(NAMESPACE_KEY) {
            let namespace: Namespace = decode(bytes, thread, checkpoint, "subgraph namespace")?;
            out.push((task.clone(), namespace));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

impl<S: State> CompiledGraph<S> {
    /// [`CompiledGraph::get_state`], and the state of each child run its
    /// checkpoint's superstep has started in a subgraph node (LangGraph's
    /// `get_state(config, subgraphs=True)`): while the parent waits at an
    /// interrupt inside a subgraph, the child's values, `next` and
    /// interrupts, and the child's own subgraphs. Empty at a checkpoint
    /// where nothing is due.
    pub async fn get_state_with_subgraphs(
        &self,
        config: &RunConfig,
    ) -> Result<(StateSnapshot<S>, Vec<SubgraphState>), GraphError> {
        let snapshot = self.get_state(config).await?;
        if snapshot.metadata.is_finished() || self.graph.nodes.iter().all(|n| n.subgraph.is_none())
        {
            return Ok((snapshot, Vec::new()));
        }
        let (saver, thread) = self.saver_and_thread(config)?;
        let writes = saver
            .pending_writes(&thread, snapshot.checkpoint_id)
            .await?;
        let data = crate::driver::resume_data(writes)?;
        let mut subgraphs = Vec::new();
        for (task, namespace) in namespaces(&data, &thread, snapshot.checkpoint_id)? {
            let (name, _) = crate::send::parse_task_key(&task);
            let Some(view) = self
                .graph
                .index_of(name)
                .and_then(|i| self.graph.nodes[i].subgraph.as_ref())
            else {
                continue;
            };
            match view
                .state(Arc::clone(&saver), namespace.thread.clone())
                .await
            {
                Ok((child, nested)) => subgraphs.push(SubgraphState {
                    node: name.to_string(),
                    task,
                    thread_id: namespace.thread,
                    interrupt_prefix: namespace.prefix,
                    snapshot: child,
                    subgraphs: nested,
                }),
                // Named, but stopped before its first checkpoint.
                Err(GraphError::UnknownThread { .. }) => continue,
                Err(error) => return Err(error),
            }
        }
        Ok((snapshot, subgraphs))
    }
}
