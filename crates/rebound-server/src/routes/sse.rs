//! A run's stream as Server-Sent Events: every stored event after the
//! client's `Last-Event-ID`, then the live ones, each once, in order, each
//! with its seq as `id`.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};
use tokio::sync::watch;

use crate::app::App;
use crate::runs::hub::RunChannel;
use crate::store::StoredEvent;

/// How often a stream of a run that is live in another process (or not yet
/// taken by a worker here) looks at the store again.
const POLL: Duration = Duration::from_millis(100);

/// The seq after which a client wants events: its `Last-Event-ID`.
pub(crate) fn last_event_id(headers: &HeaderMap) -> u64 {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// Cancels the run when a client that asked for it disconnects before the
/// end.
struct DisconnectGuard {
    app: Arc<App>,
    run_id: String,
    armed: bool,
}

impl Drop for DisconnectGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if self.app.store.lease_ttl().is_none() {
            self.app.cancel_handle(&self.run_id).token.cancel();
            return;
        }
        // A shared store: the run may be another process's.
        if let Some(handle) = self.app.local_cancel(&self.run_id) {
            handle.token.cancel();
        }
        let store = Arc::clone(&self.app.store);
        let run_id = self.run_id.clone();
        tokio::spawn(async move {
            if let Err(error) = store
                .request_cancel(&run_id, crate::store::CancelKind::Interrupt)
                .await
            {
                tracing::warn!(%error, %run_id, "cancelling a run whose client left failed");
            }
        });
    }
}

struct Cursor {
    app: Arc<App>,
    run_id: String,
    after: u64,
    modes: Option<Vec<String>>,
    buffer: VecDeque<StoredEvent>,
    channel: Option<Arc<RunChannel>>,
    progress: Option<watch::Receiver<(u64, bool)>>,
    started: bool,
    done: bool,
    guard: Option<DisconnectGuard>,
    /// A shared store's notices: a run executing in another process is
    /// followed in the store, woken by its events' notices (the poll
    /// covers a missed one).
    notices: Option<tokio::sync::broadcast::Receiver<crate::store::StoreNotice>>,
}

impl Cursor {
    /// Waits up to [`POLL`] for news of the run from another process.
    async fn wait_for_news(&mut self) {
        let Some(notices) = &mut self.notices else {
            tokio::time::sleep(POLL).await;
            return;
        };
        let deadline = tokio::time::sleep(POLL);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                () = &mut deadline => return,
                notice = notices.recv() => match notice {
                    Ok(crate::store::StoreNotice::Events(run_id)) if run_id != self.run_id => {}
                    Ok(crate::store::StoreNotice::Runs) => {}
                    // Its events, a missed notice, or a lagging receiver.
                    _ => return,
                },
            }
        }
    }
}

impl Cursor {
    fn wanted(&self, event: &StoredEvent) -> bool {
        match &self.modes {
            None => true,
            // Named modes only (and how the run ended), as the Agent
            // Server filters a joined stream.
            Some(modes) => {
                matches!(event.event.as_str(), "error" | "end") || modes.contains(&event.event)
            }
        }
    }

    async fn next(&mut self) -> Option<StoredEvent> {
        loop {
            if let Some(event) = self.buffer.pop_front() {
                self.after = event.seq;
                if event.event == "end" {
                    self.done = true;
                }
                if self.wanted(&event) {
                    return Some(event);
                }
                continue;
            }
            if self.done {
                if let Some(guard) = &mut self.guard {
                    guard.armed = false;
                }
                return None;
            }
            if !self.started {
                self.started = true;
                // The live channel first: a run that ends between the two
                // reads has flushed its events to the store before closing it.
                self.channel = self.app.hub.get(&self.run_id);
                self.progress = self.channel.as_ref().map(|c| c.subscribe());
                match self.app.store.read_events(&self.run_id, self.after).await {
                    Ok(events) => self.buffer.extend(events),
                    Err(error) => {
                        tracing::error!(%error, "reading a run's events failed");
                        self.done = true;
                    }
                }
                continue;
            }
            match (&self.channel, &mut self.progress) {
                (Some(channel), Some(progress)) => {
                    let finished = progress.borrow_and_update().1;
                    let events = channel.after(self.after);
                    if !events.is_empty() {
                        self.buffer.extend(events);
                        continue;
                    }
                    if finished || channel.is_finished() {
                        self.done = true;
                        continue;
                    }
                    // A stopping server ends its streams (clients reconnect
                    // with Last-Event-ID once it is back).
                    tokio::select! {
                        changed = progress.changed() => if changed.is_err() {
                            self.done = true;
                        },
                        () = self.app.shutdown.cancelled() => self.done = true,
                    }
                }
                _ => {
                    // Not live here: ended (all stored), or queued elsewhere.
                    match self.app.store.get_run(&self.run_id).await {
                        Ok(Some(run)) if !run.status.is_final() => {
                            let shutdown = self.app.shutdown.clone();
                            tokio::select! {
                                () = self.wait_for_news() => self.started = false,
                                () = shutdown.cancelled() => self.done = true,
                            }
                        }
                        Ok(_) => {
                            match self.app.store.read_events(&self.run_id, self.after).await {
                                Ok(events) => self.buffer.extend(events),
                                Err(error) => {
                                    tracing::error!(%error, "reading a run's events failed")
                                }
                            }
                            self.done = true;
                        }
                        Err(error) => {
                            tracing::error!(%error, "reading a run failed");
                            self.done = true;
                        }
                    }
                }
            }
        }
    }
}

/// The SSE events of `run_id` after `after`, only `modes` (and metadata,
/// error, end) when given.
fn events(
    app: Arc<App>,
    run_id: &str,
    after: u64,
    modes: Option<Vec<String>>,
    cancel_on_disconnect: bool,
) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    let guard = cancel_on_disconnect.then(|| DisconnectGuard {
        app: Arc::clone(&app),
        run_id: run_id.to_string(),
        armed: true,
    });
    let cursor = Cursor {
        app,
        run_id: run_id.to_string(),
        after,
        modes,
        buffer: VecDeque::new(),
        channel: None,
        progress: None,
        started: false,
        done: false,
        guard,
        notices: None,
    };
    let mut cursor = cursor;
    cursor.notices = cursor.app.store.notices();
    stream::unfold(cursor, |mut cursor| async move {
        let event = cursor.next().await?;
        let sse = SseEvent::default()
            .event(event.event)
            .id(event.seq.to_string())
            .data(event.data);
        Some((Ok(sse), cursor))
    })
}

/// The SSE response for a run's stream; `location` is where a client
/// reconnects (sent as `Location`).
pub(crate) fn response(
    app: Arc<App>,
    run_id: &str,
    after: u64,
    modes: Option<Vec<String>>,
    cancel_on_disconnect: bool,
    location: Option<String>,
) -> Response {
    let stream = events(app, run_id, after, modes, cancel_on_disconnect);
    let mut response = Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response();
    if let Some(location) = location.and_then(|l| HeaderValue::from_str(&l).ok()) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
