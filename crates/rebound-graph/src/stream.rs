//! [`RunStream`]: the events of a run started with
//! [`crate::CompiledGraph::stream`], then its result.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;

use crate::{Event, GraphError, RunOutcome, State};

/// A running graph's events, in order, as a [`Stream`]; the stream ends when
/// the run does. Then [`RunStream::result`] gives the final state or error.
/// Dropping it before the run ends aborts the run.
pub struct RunStream<S: State> {
    receiver: UnboundedReceiver<Event>,
    handle: Option<JoinHandle<Result<RunOutcome<S>, GraphError>>>,
    thread_id: Option<String>,
}

impl<S: State> RunStream<S> {
    pub(crate) fn new(
        receiver: UnboundedReceiver<Event>,
        handle: JoinHandle<Result<RunOutcome<S>, GraphError>>,
        thread_id: Option<String>,
    ) -> Self {
        RunStream {
            receiver,
            handle: Some(handle),
            thread_id,
        }
    }

    /// The next event, or `None` once the run has ended.
    pub async fn next_event(&mut self) -> Option<Event> {
        self.receiver.recv().await
    }

    /// Waits for the run to end (events not yet read are dropped) and returns
    /// its final state; an interrupted run is [`GraphError::Interrupted`].
    pub async fn result(self) -> Result<S, GraphError> {
        let thread_id = self.thread_id.clone().unwrap_or_default();
        match self.outcome().await? {
            RunOutcome::Completed(state) => Ok(state),
            RunOutcome::Interrupted { interrupts, .. } => Err(GraphError::Interrupted {
                thread_id,
                nodes: interrupts.into_iter().map(|i| i.node).collect(),
            }),
        }
    }

    /// Waits for the run to end (events not yet read are dropped) and
    /// returns how it ended.
    pub async fn outcome(mut self) -> Result<RunOutcome<S>, GraphError> {
        let Some(handle) = self.handle.take() else {
            return Err(GraphError::TaskFailed {
                message: "the run's result was already taken".to_string(),
                source: None,
            });
        };
        // Abandoning this future (a timeout around it, say) aborts the run,
        // as dropping the stream does; aborting a finished task does nothing.
        let mut guard = AbortOnDrop(handle);
        match (&mut guard.0).await {
            Ok(result) => result,
            Err(join_error) => Err(GraphError::TaskFailed {
                message: join_error.to_string(),
                source: Some(join_error),
            }),
        }
    }
}

impl<S: State> Stream for RunStream<S> {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        self.receiver.poll_recv(cx)
    }
}

impl<S: State> Drop for RunStream<S> {
    fn drop(&mut self) {
        if let Some(handle) = &self.handle {
            handle.abort();
        }
    }
}

struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
