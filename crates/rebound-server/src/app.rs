//! [`App`]: what every handler and worker of one server shares.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use rebound_protocol::records::ThreadRecord;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::assistant::ServedGraph;
use crate::error::ApiError;
use crate::runs::hub::Hub;
use crate::runs::writer::StoreWriter;
use crate::store::Store;

/// A registered graph and the assistant that serves it.
pub(crate) struct Assistant {
    /// The assistant's id: a UUID derived from the graph id (the same on
    /// every server, as LangGraph derives its default assistants' ids).
    pub assistant_id: String,
    /// The graph id it was registered under.
    pub graph_id: String,
    /// The graph.
    pub graph: Arc<dyn ServedGraph>,
    /// When the server registered it.
    pub created_ms: u64,
}

/// How a cancel asks a run to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CancelAction {
    /// Stop; keep what it did.
    Interrupt,
    /// Stop; undo what it did and delete the run.
    Rollback,
    /// The server stops: record nothing, the run stays `running` and goes
    /// on at the next start.
    Shutdown,
    /// The run's claim expired (a worker paused past its lease): record
    /// nothing, the run has been or will be given to another worker.
    LeaseLost,
}

/// A running (or about to run) run's cancellation.
#[derive(Clone)]
pub(crate) struct CancelHandle {
    pub token: CancellationToken,
    pub action: Arc<Mutex<CancelAction>>,
}

impl CancelHandle {
    /// Cancels the run, to be stopped as `action` says.
    pub(crate) fn cancel(&self, action: CancelAction) {
        *self.action.lock().unwrap_or_else(PoisonError::into_inner) = action;
        self.token.cancel();
    }

    /// How the run is to be stopped.
    pub(crate) fn action(&self) -> CancelAction {
        *self.action.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Shared by handlers and workers.
pub(crate) struct App {
    pub store: Arc<dyn Store>,
    pub assistants: BTreeMap<String, Assistant>,
    pub hub: Hub,
    pub writer: StoreWriter,
    /// Woken when a run is queued or ends (a queued run may be claimable).
    pub queue: Notify,
    /// Runs claimed and not yet taken by a worker.
    pub claimed: crate::runs::claimed::Claimed,
    /// The attempts of runs in flight in this process.
    pub attempts: crate::runs::attempts::Attempts,
    pub cancels: Mutex<HashMap<String, CancelHandle>>,
    pub token: Option<String>,
    /// Stops the workers.
    pub shutdown: CancellationToken,
    /// The server's claim on its SQLite file, released once it stopped.
    pub hold: Mutex<Option<rebound_sqlite::ThreadHold>>,
}

impl App {
    /// The assistant by assistant id or graph id.
    pub(crate) fn assistant(&self, id: &str) -> Result<&Assistant, ApiError> {
        self.assistants
            .get(id)
            .or_else(|| self.assistants.values().find(|a| a.assistant_id == id))
            .ok_or_else(|| ApiError::not_found("assistant", id))
    }

    /// The graph that runs `thread`: the one its metadata names.
    pub(crate) fn thread_graph(&self, thread: &ThreadRecord) -> Option<&Assistant> {
        let id = thread
            .metadata
            .get("graph_id")
            .or_else(|| thread.metadata.get("assistant_id"))
            .and_then(serde_json::Value::as_str)?;
        self.assistant(id).ok()
    }

    /// The cancellation of `run_id`, made if it has none. Made once the
    /// server is stopping (a run claimed while the running ones were being
    /// stopped), it is already cancelled for the shutdown: `shutdown` is
    /// cancelled before the stop looks at the handles, under the same lock.
    pub(crate) fn cancel_handle(&self, run_id: &str) -> CancelHandle {
        self.cancels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(run_id.to_string())
            .or_insert_with(|| {
                let token = CancellationToken::new();
                let action = if self.shutdown.is_cancelled() {
                    token.cancel();
                    CancelAction::Shutdown
                } else {
                    CancelAction::Interrupt
                };
                CancelHandle {
                    token,
                    action: Arc::new(Mutex::new(action)),
                }
            })
            .clone()
    }

    /// Releases the server's claim on its database (after its runs
    /// stopped): another server may open it.
    pub(crate) fn release_database(&self) {
        drop(
            self.hold
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
    }

    /// The cancellation of `run_id` if this server runs it (or is about to).
    pub(crate) fn local_cancel(&self, run_id: &str) -> Option<CancelHandle> {
        self.cancels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(run_id)
            .cloned()
    }

    /// Forgets `run_id`'s cancellation.
    pub(crate) fn forget_cancel(&self, run_id: &str) {
        self.cancels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(run_id);
    }

    /// A thread's record, or `404`.
    pub(crate) async fn thread(&self, thread_id: &str) -> Result<ThreadRecord, ApiError> {
        self.store
            .get_thread(thread_id)
            .await?
            .ok_or_else(|| ApiError::not_found("thread", thread_id))
    }

    /// Forgets a run that ended (or stopped): its live channel is
    /// finished (clients that caught up stop) and closed, its cancellation
    /// dropped.
    pub(crate) fn end_run(&self, run_id: &str) {
        if let Some(channel) = self.hub.get(run_id) {
            channel.finish();
        }
        self.hub.close(run_id);
        self.forget_cancel(run_id);
    }
}
