//! Journaled calls and dynamic interrupts: what a node does through its
//! context so that a re-run (after an interrupt or a crash) does not repeat
//! its side effects.

use std::future::Future;
use std::sync::atomic::Ordering;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::checkpoint::{PendingWrite, WriteKind};
use crate::scratch::NodeScratch;
use crate::{NodeContext, NodeError};

impl NodeContext {
    /// Runs a side effect once per superstep, durably.
    ///
    /// The first time, `call` runs and its result is committed with the
    /// run's pending writes before this returns. When the node runs again
    /// for the same superstep (after an interrupt and resume, or a crash),
    /// the recorded result is returned and `call` is not run. A key used
    /// several times in one node is journaled once per use, in order.
    /// Without a checkpointer, `call` simply runs.
    ///
    /// Retries within one run do not replay: a retried attempt runs its calls
    /// afresh (a retry usually means a result was bad). A result is recorded
    /// whatever it is; for a call that can fail, use
    /// [`NodeContext::try_journal`], which records only successes.
    pub async fn journal<T, F>(&self, key: &str, call: F) -> Result<T, NodeError>
    where
        T: Serialize + DeserializeOwned,
        F: Future<Output = T>,
    {
        let Some(scratch) = &self.scratch else {
            return Ok(call.await);
        };
        let full_key = scratch.key_for(key);
        if let Some(bytes) = scratch.recorded.as_ref().and_then(|r| r.get(&full_key)) {
            return self.replay(&full_key, bytes);
        }
        self.pass_gate(&full_key).await?;
        let value = call.await;
        self.record(scratch, full_key, &value).await?;
        Ok(value)
    }

    /// [`NodeContext::try_journal`] whose call receives the effect's
    /// idempotency key: the same on every run of this superstep of this
    /// task, different for every other use (thread and namespace, the
    /// superstep's checkpoint, the task, the key and its use count). Hand
    /// it to an external service that deduplicates, so that an effect in
    /// flight when a worker died, run again by another, happens once.
    /// Without a checkpointer the key is made of the run id instead.
    pub async fn try_journal_keyed<T, E, F, Fut>(&self, key: &str, call: F) -> Result<T, NodeError>
    where
        T: Serialize + DeserializeOwned,
        E: Into<NodeError>,
        F: FnOnce(String) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let Some(scratch) = &self.scratch else {
            let effect = format!(
                "run:{}/{}/{}/{key}",
                self.run_id(),
                self.step(),
                self.task_key()
            );
            return call(effect).await.map_err(Into::into);
        };
        let full_key = scratch.key_for(key);
        if let Some(bytes) = scratch.recorded.as_ref().and_then(|r| r.get(&full_key)) {
            return self.replay(&full_key, bytes);
        }
        self.pass_gate(&full_key).await?;
        let effect = format!(
            "{}/{}/{}/{full_key}",
            scratch.sink.thread_id(),
            scratch.checkpoint,
            self.task_key()
        );
        let value = call(effect).await.map_err(Into::into)?;
        self.record(scratch, full_key, &value).await?;
        Ok(value)
    }

    /// The run's effect gate, if any, before the call `key` executes.
    async fn pass_gate(&self, key: &str) -> Result<(), NodeError> {
        let Some(gate) = &self.shared.effect_gate else {
            return Ok(());
        };
        gate.check().await.map_err(|reason| {
            NodeError::msg(format!(
                "the journaled call {key:?} of node {:?} was refused before it ran: {reason}",
                self.node()
            ))
            .permanent()
        })
    }

    /// Like [`NodeContext::journal`] for a call that can fail: only a
    /// success is recorded, so a call that failed runs again when the node
    /// does (after a resume, or a retry). The error becomes the node's error.
    pub async fn try_journal<T, E, F>(&self, key: &str, call: F) -> Result<T, NodeError>
    where
        T: Serialize + DeserializeOwned,
        E: Into<NodeError>,
        F: Future<Output = Result<T, E>>,
    {
        let Some(scratch) = &self.scratch else {
            return call.await.map_err(Into::into);
        };
        let full_key = scratch.key_for(key);
        if let Some(bytes) = scratch.recorded.as_ref().and_then(|r| r.get(&full_key)) {
            return self.replay(&full_key, bytes);
        }
        self.pass_gate(&full_key).await?;
        let value = call.await.map_err(Into::into)?;
        self.record(scratch, full_key, &value).await?;
        Ok(value)
    }

    /// Records `value` under `key` again, replacing what the first use of
    /// `key` recorded for later runs of this superstep (the engine's own
    /// records that change as a task goes on, such as a subgraph's child
    /// run). Without a checkpointer, nothing is recorded.
    pub(crate) async fn rejournal<T: Serialize>(
        &self,
        key: &str,
        value: &T,
    ) -> Result<(), NodeError> {
        match &self.scratch {
            Some(scratch) => self.record(scratch, key.to_string(), value).await,
            None => Ok(()),
        }
    }

    fn replay<T: DeserializeOwned>(&self, key: &str, bytes: &[u8]) -> Result<T, NodeError> {
        serde_json::from_slice(bytes).map_err(|e| {
            NodeError::msg(format!(
                "the journaled result {key:?} of node {:?} no longer deserializes: {e}",
                self.node()
            ))
            .permanent()
        })
    }

    async fn record<T: Serialize>(
        &self,
        scratch: &NodeScratch,
        key: String,
        value: &T,
    ) -> Result<(), NodeError> {
        let bytes = serde_json::to_vec(value)
            .map_err(|e| NodeError::msg(format!("cannot journal {key:?}: {e}")).permanent())?;
        scratch
            .sink
            .commit(vec![PendingWrite {
                thread_id: scratch.sink.thread_id().to_string(),
                checkpoint: scratch.checkpoint,
                node: self.task_key().into_owned(),
                kind: WriteKind::Journal,
                key,
                value: bytes,
            }])
            .await
            .map_err(NodeError::from)
    }

    /// Stops the run for a human. The first time, this returns an error that
    /// the node must propagate (`?`): the run ends as interrupted, carrying
    /// `payload`. When the run is resumed with a value, the node runs again
    /// and this call returns that value. A node may interrupt several times;
    /// each call is matched with the resume values in order.
    ///
    /// Needs a checkpointer and a thread id.
    ///
    /// ```
    /// use std::sync::Arc;
    ///
    /// use rebound_graph::checkpoint::MemorySaver;
    /// use rebound_graph::{RunConfig, RunOutcome, State, StateGraph, END, START};
    /// use serde::{Deserialize, Serialize};
    /// use serde_json::json;
    ///
    /// #[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
    /// struct Deploy {
    ///     approved_by: Option<String>,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut graph = StateGraph::<Deploy>::new();
    /// graph
    ///     .add_node("approve", |_, ctx| async move {
    ///         let who: String = ctx.interrupt(json!({"question": "deploy to production?"}))?;
    ///         Ok(DeployUpdate::default().approved_by(Some(who)))
    ///     })
    ///     .add_edge(START, "approve")
    ///     .add_edge("approve", END);
    /// let graph = graph.compile()?.with_checkpointer(Arc::new(MemorySaver::new()));
    /// let config = RunConfig::new().with_thread_id("deploy-1");
    ///
    /// // The first run stops at the question; its state is saved on the thread.
    /// let outcome = graph.run(Deploy::default(), config.clone()).await?;
    /// assert!(outcome.is_interrupted());
    /// assert_eq!(outcome.interrupts()[0].payload["question"], "deploy to production?");
    ///
    /// // Resuming reruns the node; this time `interrupt` returns the answer.
    /// let RunOutcome::Completed(done) = graph.resume_with(json!("alice"), config).await? else {
    ///     panic!("the run should have finished");
    /// };
    /// assert_eq!(done.approved_by.as_deref(), Some("alice"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn interrupt<T: DeserializeOwned>(&self, payload: impl Serialize) -> Result<T, NodeError> {
        let Some(scratch) = &self.scratch else {
            return Err(NodeError::msg(
                "NodeContext::interrupt needs a checkpointer and a thread id to resume from",
            )
            .permanent());
        };
        let index = scratch.interrupts_seen.fetch_add(1, Ordering::Relaxed);
        if let Some(value) = scratch.resume.as_ref().and_then(|r| r.get(index)) {
            return serde_json::from_value(value.clone()).map_err(|e| {
                NodeError::msg(format!(
                    "the value given to resume node {:?} does not fit: {e}",
                    self.node()
                ))
                .permanent()
            });
        }
        let payload = serde_json::to_value(payload).map_err(|e| {
            NodeError::msg(format!("the interrupt payload cannot be encoded: {e}")).permanent()
        })?;
        Err(NodeError::interrupt(payload, index))
    }
}
