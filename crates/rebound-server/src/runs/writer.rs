//! The store writer: the writes of every run that can wait for a shared
//! commit (stream events, a run's and its thread's status at its end, new
//! runs) go to the store through one task that applies whatever has
//! arrived in one transaction (a group commit). Under load many runs share
//! each commit; alone, a write costs one commit as before.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use crate::store::{Store, StoreError, Write};

/// The most writes applied in one transaction.
const BATCH: usize = 4096;

enum Message {
    Write(Write),
    /// Answered once everything sent before it is committed (or failed).
    Flush(oneshot::Sender<Result<(), StoreError>>),
}

/// A handle to the writer task.
#[derive(Clone)]
pub(crate) struct StoreWriter {
    sender: mpsc::UnboundedSender<Message>,
}

impl StoreWriter {
    /// Starts the writer task on the current runtime.
    pub(crate) fn start(store: Arc<dyn Store>) -> Self {
        let (sender, receiver) = mpsc::unbounded_channel();
        tokio::spawn(write_loop(store, receiver));
        StoreWriter { sender }
    }

    /// Queues a write.
    pub(crate) fn write(&self, write: Write) {
        // The writer lives as long as the server; a send after it stopped
        // (shutdown) has nowhere to go.
        let _ = self.sender.send(Message::Write(write));
    }

    /// Waits until every write queued so far is committed: an error if the
    /// transaction holding any of them failed.
    pub(crate) async fn flush(&self) -> Result<(), StoreError> {
        let (done, wait) = oneshot::channel();
        self.sender
            .send(Message::Flush(done))
            .map_err(|_| StoreError::Database("the store writer has stopped".to_string()))?;
        match wait.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(StoreError::Database(
                "the store writer stopped before committing".to_string(),
            )),
        }
    }
}

async fn write_loop(store: Arc<dyn Store>, mut receiver: mpsc::UnboundedReceiver<Message>) {
    let mut writes = Vec::new();
    let mut flushes = Vec::new();
    while let Some(first) = receiver.recv().await {
        let mut next = Some(first);
        while let Some(message) = next.take() {
            match message {
                Message::Write(write) => writes.push(write),
                Message::Flush(done) => flushes.push(done),
            }
            if writes.len() < BATCH {
                next = receiver.try_recv().ok();
            }
        }
        let result = store.apply(&writes).await.map_err(|error| {
            tracing::error!(%error, count = writes.len(), "a group of store writes failed");
            error
        });
        writes.clear();
        for done in flushes.drain(..) {
            let _ = done.send(result.clone());
        }
    }
}
