//! The event writer: every run's stream events go to the store through one
//! task that writes whatever has arrived in one transaction (a group
//! commit), so storing events costs a few commits per second, not one per
//! event.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use crate::store::{Store, StoredEvent};

/// The most events written in one transaction.
const BATCH: usize = 2048;

enum Message {
    Event(String, StoredEvent),
    /// Answered once everything sent before it is written.
    Flush(oneshot::Sender<()>),
}

/// A handle to the writer task.
#[derive(Clone)]
pub(crate) struct EventWriter {
    sender: mpsc::UnboundedSender<Message>,
}

impl EventWriter {
    /// Starts the writer task on the current runtime.
    pub(crate) fn start(store: Arc<dyn Store>) -> Self {
        let (sender, receiver) = mpsc::unbounded_channel();
        tokio::spawn(write_loop(store, receiver));
        EventWriter { sender }
    }

    /// Queues `event` of `run_id` for writing.
    pub(crate) fn write(&self, run_id: &str, event: StoredEvent) {
        // The writer lives as long as the server; a send after it stopped
        // (shutdown) has nowhere to go.
        let _ = self.sender.send(Message::Event(run_id.to_string(), event));
    }

    /// Waits until every event queued so far is written.
    pub(crate) async fn flush(&self) {
        let (done, wait) = oneshot::channel();
        if self.sender.send(Message::Flush(done)).is_ok() {
            let _ = wait.await;
        }
    }
}

async fn write_loop(store: Arc<dyn Store>, mut receiver: mpsc::UnboundedReceiver<Message>) {
    let mut events = Vec::new();
    let mut flushes = Vec::new();
    while let Some(first) = receiver.recv().await {
        let mut next = Some(first);
        while let Some(message) = next.take() {
            match message {
                Message::Event(run_id, event) => events.push((run_id, event)),
                Message::Flush(done) => flushes.push(done),
            }
            if events.len() < BATCH {
                next = receiver.try_recv().ok();
            }
        }
        if let Err(error) = store.append_events(&events).await {
            tracing::error!(%error, count = events.len(), "storing run events failed");
        }
        events.clear();
        for done in flushes.drain(..) {
            let _ = done.send(());
        }
    }
}
