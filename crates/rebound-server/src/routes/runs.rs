//! Runs: create (background, streamed, waited for; on a thread or
//! stateless), read, join, cancel, delete; double-texting.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use rebound_graph::RunConfig;
use rebound_protocol::records::ThreadRecord;
use serde_json::{json, Value};

use super::sse::{last_event_id, response as sse_response};
use super::{query_pairs, ApiJson};
use crate::app::{App, CancelAction};
use crate::error::ApiError;
use crate::runs::{IfNotExists, OnCompletion, OnDisconnect, RunCreate, StreamMode};
use crate::store::{CancelKind, MultitaskStrategy, RunRecord, RunStatus};
use crate::time::{now_ms, rfc3339};

/// The Agent Server's run object.
pub(crate) fn run_json(run: &RunRecord) -> Value {
    json!({
        "run_id": run.run_id,
        "thread_id": run.thread_id,
        "assistant_id": run.assistant_id,
        "created_at": rfc3339(run.created_ms),
        "updated_at": rfc3339(run.updated_ms),
        "status": run.status.as_str(),
        "metadata": run.metadata,
        "multitask_strategy": run.multitask_strategy.as_str(),
        "kwargs": run.kwargs,
        "attempt": run.attempt,
    })
}

/// How a run was asked for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Background,
    Stream,
    Wait,
}

impl Kind {
    /// As the Agent Server: `values` unless the request names modes (a
    /// background run's stream can be joined); a waited-for run streams
    /// nothing unless asked.
    fn default_modes(self) -> &'static [StreamMode] {
        match self {
            Kind::Stream | Kind::Background => &[StreamMode::Values],
            Kind::Wait => &[],
        }
    }
}

/// Checks the request, applies the multitask strategy and queues the run.
async fn queue_run(
    app: &Arc<App>,
    thread_id: Option<String>,
    body: &RunCreate,
    kind: Kind,
) -> Result<RunRecord, ApiError> {
    let assistant = app.assistant(&body.assistant_id)?;
    let mut kwargs = body.kwargs(kind.default_modes())?;
    let graph_id = assistant.graph_id.clone();
    let assistant_id = assistant.assistant_id.clone();
    let thread_id = match thread_id {
        Some(thread_id) => {
            super::threads::check_id("thread_id", &thread_id)?;
            let record = match app.store.get_thread(&thread_id).await? {
                Some(record) => record,
                None if body.if_not_exists == Some(IfNotExists::Create) => {
                    let record = ThreadRecord::new(thread_id.as_str(), now_ms(), json!({}));
                    app.store.create_thread(&record).await?;
                    record
                }
                None => return Err(ApiError::not_found("thread", &thread_id)),
            };
            claim_thread(app, record, &graph_id, &assistant_id).await?;
            thread_id
        }
        None => {
            let thread_id = uuid::Uuid::new_v4().to_string();
            let metadata = json!({"graph_id": graph_id, "assistant_id": assistant_id});
            app.store
                .create_thread(&ThreadRecord::new(thread_id.as_str(), now_ms(), metadata))
                .await?;
            kwargs.delete_thread = body.on_completion.unwrap_or_default() == OnCompletion::Delete;
            thread_id
        }
    };
    let strategy = body.multitask_strategy.unwrap_or_default();
    let active = app.store.active_runs(&thread_id).await?;
    if let Some(input) = &kwargs.input {
        // Refused now (422) rather than failing later: a new thread's
        // first state, or an update of a thread's state.
        let config = RunConfig::new().with_thread_id(thread_id.as_str());
        let start = active.is_empty() && assistant.graph.head(&config).await?.is_none();
        assistant
            .graph
            .check_input(input, start)
            .map_err(|reason| ApiError::invalid(format!("input: {reason}")))?;
    }
    if !active.is_empty() {
        match strategy {
            MultitaskStrategy::Reject => {
                return Err(ApiError::conflict(format!(
                    "thread {thread_id:?} is busy: run {} is {}; use multitask_strategy enqueue, interrupt or rollback",
                    active[0].run_id,
                    active[0].status.as_str()
                )))
            }
            MultitaskStrategy::Enqueue => {}
            MultitaskStrategy::Interrupt | MultitaskStrategy::Rollback => {
                let action = if strategy == MultitaskStrategy::Rollback {
                    CancelAction::Rollback
                } else {
                    CancelAction::Interrupt
                };
                for run in &active {
                    cancel_run(app, run, action).await?;
                }
            }
        }
    } else if let Some(command) = &kwargs.command {
        if command.resume.is_some() && kwargs.checkpoint_id.is_none() {
            check_resumable(app, &thread_id, &graph_id).await?;
        }
    }
    let now = now_ms();
    let run = RunRecord {
        run_id: uuid::Uuid::now_v7().to_string(),
        thread_id,
        assistant_id,
        status: RunStatus::Pending,
        created_ms: now,
        updated_ms: now,
        attempt: 0,
        epoch: 0,
        multitask_strategy: strategy,
        metadata: Value::Object(body.metadata.clone().unwrap_or_default()),
        kwargs: serde_json::to_value(&kwargs)
            .map_err(|e| ApiError::internal(format!("the run cannot be stored: {e}")))?,
        base_checkpoint: None,
        error: None,
    };
    if app.store.lease_ttl().is_none() {
        // Its stream is live from here (this server runs it). On a shared
        // store any worker may take it, and a stream follows it in the
        // store until it runs here, if it does.
        app.hub.open(&run.run_id);
    }
    // Queued once committed (in a commit shared with other writes).
    app.writer
        .write(crate::store::Write::Enqueue(Box::new(run.clone())));
    if let Err(error) = app.writer.flush().await {
        app.hub.close(&run.run_id);
        return Err(error.into());
    }
    app.queue.notify_one();
    Ok(run)
}

/// Records the graph that runs the thread in its metadata, or refuses a
/// graph other than the one that ran it.
async fn claim_thread(
    app: &App,
    mut record: ThreadRecord,
    graph_id: &str,
    assistant_id: &str,
) -> Result<(), ApiError> {
    let known = app.thread_graph(&record).map(|a| a.graph_id.clone());
    match known {
        Some(known) if known != graph_id => Err(ApiError::conflict(format!(
            "thread {:?} belongs to graph {known:?}, not {graph_id:?}",
            record.thread_id
        ))),
        Some(_) => Ok(()),
        None => {
            if let Value::Object(metadata) = &mut record.metadata {
                metadata.insert("graph_id".into(), json!(graph_id));
                metadata.insert("assistant_id".into(), json!(assistant_id));
            }
            app.store.put_thread(&record).await?;
            Ok(())
        }
    }
}

/// A resume needs an interrupt waiting.
async fn check_resumable(app: &App, thread_id: &str, graph_id: &str) -> Result<(), ApiError> {
    let assistant = app.assistant(graph_id)?;
    let config = RunConfig::new().with_thread_id(thread_id);
    let waiting = match assistant.graph.get_state(&config).await {
        Ok(view) => !view.interrupts.is_empty(),
        Err(rebound_graph::GraphError::UnknownThread { .. }) => false,
        Err(error) => return Err(error.into()),
    };
    if waiting {
        Ok(())
    } else {
        Err(ApiError::conflict(format!(
            "nothing to resume on thread {thread_id:?}: no interrupt is waiting for a value"
        )))
    }
}

/// Cancels a run: a pending one ends at once (deleted for a rollback), a
/// running one is stopped by its worker, which then records it.
async fn cancel_run(app: &App, run: &RunRecord, action: CancelAction) -> Result<(), ApiError> {
    // A store of one server runs every run here: the handle is made now if
    // the run's worker has not made it yet, and the worker finds it.
    let shared = app.store.lease_ttl().is_some();
    let handle = if shared {
        app.local_cancel(&run.run_id)
    } else {
        Some(app.cancel_handle(&run.run_id))
    };
    if app.store.cancel_pending(&run.run_id).await? {
        if let Some(channel) = app.hub.get(&run.run_id) {
            channel.set_result(Value::Null);
        }
        app.end_run(&run.run_id);
        if action == CancelAction::Rollback {
            app.store.delete_run(&run.run_id).await?;
        }
        app.queue.notify_one();
        return Ok(());
    }
    if let Some(handle) = handle {
        handle.cancel(action);
    }
    if shared {
        // The run's worker may be another process: its next heartbeat
        // brings the cancel.
        let kind = if action == CancelAction::Rollback {
            CancelKind::Rollback
        } else {
            CancelKind::Interrupt
        };
        app.store.request_cancel(&run.run_id, kind).await?;
    }
    Ok(())
}

fn with_location(mut response: Response, location: &str) -> Response {
    if let Ok(value) = HeaderValue::from_str(location) {
        response
            .headers_mut()
            .insert(header::CONTENT_LOCATION, value);
    }
    response
}

/// `POST /threads/{id}/runs`: queue a background run.
pub(crate) async fn create(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
    ApiJson(body): ApiJson<RunCreate>,
) -> Result<Response, ApiError> {
    let run = queue_run(&app, Some(thread_id), &body, Kind::Background).await?;
    let location = format!("/threads/{}/runs/{}", run.thread_id, run.run_id);
    Ok(with_location(
        Json(run_json(&run)).into_response(),
        &location,
    ))
}

/// `POST /runs`: a background run on a new thread.
pub(crate) async fn stateless_create(
    State(app): State<Arc<App>>,
    ApiJson(body): ApiJson<RunCreate>,
) -> Result<Response, ApiError> {
    let run = queue_run(&app, None, &body, Kind::Background).await?;
    Ok(Json(run_json(&run)).into_response())
}

fn stream_response(app: Arc<App>, run: &RunRecord, body: &RunCreate, location: bool) -> Response {
    let cancel = body.on_disconnect == Some(OnDisconnect::Cancel);
    let location =
        location.then(|| format!("/threads/{}/runs/{}/stream", run.thread_id, run.run_id));
    let mut response = sse_response(app, &run.run_id, 0, None, cancel, location);
    if let Ok(value) =
        HeaderValue::from_str(&format!("/threads/{}/runs/{}", run.thread_id, run.run_id))
    {
        response
            .headers_mut()
            .insert(header::CONTENT_LOCATION, value);
    }
    response
}

/// `POST /threads/{id}/runs/stream`.
pub(crate) async fn create_stream(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
    ApiJson(body): ApiJson<RunCreate>,
) -> Result<Response, ApiError> {
    let run = queue_run(&app, Some(thread_id), &body, Kind::Stream).await?;
    Ok(stream_response(app, &run, &body, true))
}

/// `POST /runs/stream`: a stateless streamed run.
pub(crate) async fn stateless_stream(
    State(app): State<Arc<App>>,
    ApiJson(body): ApiJson<RunCreate>,
) -> Result<Response, ApiError> {
    let run = queue_run(&app, None, &body, Kind::Stream).await?;
    Ok(stream_response(app, &run, &body, false))
}

/// `503`: the server stops before the run ended.
fn stopping() -> ApiError {
    ApiError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        detail: "the server is stopping: the run goes on when it starts again (join it then)"
            .to_string(),
    }
}

/// Waits for a run to end; its final state (with `__interrupt__` or
/// `__error__` as the Agent Server adds them).
async fn wait_for(app: &App, run: &RunRecord) -> Result<Value, ApiError> {
    if let Some(channel) = app.hub.get(&run.run_id) {
        let mut progress = channel.subscribe();
        while !progress.borrow_and_update().1 {
            tokio::select! {
                changed = progress.changed() => if changed.is_err() {
                    break;
                },
                () = app.shutdown.cancelled() => return Err(stopping()),
            }
        }
        if let Some(result) = channel.result() {
            return Ok(result);
        }
    }
    loop {
        match app.store.get_run(&run.run_id).await? {
            Some(current) if !current.status.is_final() => {
                tokio::select! {
                    () = tokio::time::sleep(std::time::Duration::from_millis(50)) => {}
                    () = app.shutdown.cancelled() => return Err(stopping()),
                }
            }
            Some(ended) if ended.status == RunStatus::Error => {
                let message = ended.error.unwrap_or_else(|| "the run failed".to_string());
                return Ok(json!({"__error__": {"error": "RunError", "message": message}}));
            }
            Some(_) => break,
            None => return Ok(Value::Null),
        }
    }
    let record = app.store.get_thread(&run.thread_id).await?;
    match record {
        Some(record) => {
            let thread = super::threads::thread_json(app, &record).await?;
            let mut values = thread["values"].clone();
            let interrupts: Vec<Value> = thread["interrupts"]
                .as_object()
                .map(|m| {
                    m.values()
                        .flat_map(|v| v.as_array().cloned().unwrap_or_default())
                        .collect()
                })
                .unwrap_or_default();
            if let (Value::Object(map), false) = (&mut values, interrupts.is_empty()) {
                map.insert("__interrupt__".into(), Value::Array(interrupts));
            }
            Ok(values)
        }
        None => Ok(Value::Null),
    }
}

/// `POST /threads/{id}/runs/wait`.
pub(crate) async fn create_wait(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
    ApiJson(body): ApiJson<RunCreate>,
) -> Result<Response, ApiError> {
    let run = queue_run(&app, Some(thread_id), &body, Kind::Wait).await?;
    let location = format!("/threads/{}/runs/{}", run.thread_id, run.run_id);
    let values = wait_for(&app, &run).await?;
    Ok(with_location(Json(values).into_response(), &location))
}

/// `POST /runs/wait`: a stateless run, waited for.
pub(crate) async fn stateless_wait(
    State(app): State<Arc<App>>,
    ApiJson(body): ApiJson<RunCreate>,
) -> Result<Response, ApiError> {
    let run = queue_run(&app, None, &body, Kind::Wait).await?;
    Ok(Json(wait_for(&app, &run).await?).into_response())
}

/// A run of a thread, or `404`.
async fn run_of(app: &App, thread_id: &str, run_id: &str) -> Result<RunRecord, ApiError> {
    match app.store.get_run(run_id).await? {
        Some(run) if run.thread_id == thread_id => Ok(run),
        _ => Err(ApiError::not_found("run", run_id)),
    }
}

/// `GET /threads/{id}/runs`: `?limit=&offset=&status=`.
pub(crate) async fn list(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    app.thread(&thread_id).await?;
    let mut limit = 10;
    let mut offset = 0;
    let mut status = None;
    for (key, value) in query_pairs(query.as_deref()) {
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| ApiError::invalid(format!("{key}: {value:?} is not a number")))
        };
        match key.as_str() {
            "limit" => limit = number()?.min(1000),
            "offset" => offset = number()?,
            "status" => {
                status = Some(RunStatus::parse(&value).ok_or_else(|| {
                    ApiError::invalid(format!("status: {value:?} is not a run status"))
                })?)
            }
            _ => {}
        }
    }
    let runs = app
        .store
        .list_runs(&thread_id, status, limit, offset)
        .await?;
    Ok(Json(Value::Array(runs.iter().map(run_json).collect())))
}

/// `GET /threads/{id}/runs/{run_id}`.
pub(crate) async fn get(
    State(app): State<Arc<App>>,
    Path((thread_id, run_id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(run_json(&run_of(&app, &thread_id, &run_id).await?)))
}

/// `DELETE /threads/{id}/runs/{run_id}`: `409` while it runs.
pub(crate) async fn delete(
    State(app): State<Arc<App>>,
    Path((thread_id, run_id)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let run = run_of(&app, &thread_id, &run_id).await?;
    if !run.status.is_final() {
        return Err(ApiError::conflict(format!(
            "run {run_id:?} is {}: cancel it first",
            run.status.as_str()
        )));
    }
    app.store.delete_run(&run_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /threads/{id}/runs/{run_id}/join`: waits, then the final state.
pub(crate) async fn join(
    State(app): State<Arc<App>>,
    Path((thread_id, run_id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let run = run_of(&app, &thread_id, &run_id).await?;
    Ok(Json(wait_for(&app, &run).await?))
}

/// `GET /threads/{id}/runs/{run_id}/stream`: joins the run's stream;
/// `Last-Event-ID` resumes after that event; `?stream_mode=` filters;
/// `?cancel_on_disconnect=true` cancels the run if the client leaves.
pub(crate) async fn join_stream(
    State(app): State<Arc<App>>,
    Path((thread_id, run_id)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let run = run_of(&app, &thread_id, &run_id).await?;
    let mut modes = Vec::new();
    let mut cancel = false;
    for (key, value) in query_pairs(query.as_deref()) {
        match key.as_str() {
            // One name, a JSON list of names, or empty (every mode the
            // run streams), as the Agent Server reads it.
            "stream_mode" => match serde_json::from_str::<Vec<String>>(&value) {
                Ok(list) => modes.extend(list),
                Err(_) if value.is_empty() => {}
                Err(_) => modes.push(value),
            },
            "cancel_on_disconnect" => cancel = matches!(value.as_str(), "true" | "True" | "1"),
            _ => {}
        }
    }
    let location = format!("/threads/{thread_id}/runs/{run_id}/stream");
    Ok(sse_response(
        app,
        &run.run_id,
        last_event_id(&headers),
        (!modes.is_empty()).then_some(modes),
        cancel,
        Some(location),
    ))
}

/// `POST /threads/{id}/runs/{run_id}/cancel`: `?action=interrupt|rollback`
/// (`interrupt` by default), `?wait=1` to answer once it has stopped.
pub(crate) async fn cancel(
    State(app): State<Arc<App>>,
    Path((thread_id, run_id)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let run = run_of(&app, &thread_id, &run_id).await?;
    let mut action = CancelAction::Interrupt;
    let mut wait = false;
    for (key, value) in query_pairs(query.as_deref()) {
        match key.as_str() {
            "action" => {
                action = match value.as_str() {
                    "interrupt" => CancelAction::Interrupt,
                    "rollback" => CancelAction::Rollback,
                    other => {
                        return Err(ApiError::invalid(format!(
                            "action: {other:?} is not interrupt or rollback"
                        )))
                    }
                }
            }
            "wait" => wait = matches!(value.as_str(), "1" | "true" | "True"),
            _ => {}
        }
    }
    if run.status.is_final() {
        return Err(ApiError::conflict(format!(
            "run {run_id:?} has already ended ({})",
            run.status.as_str()
        )));
    }
    cancel_run(&app, &run, action).await?;
    if wait {
        wait_for(&app, &run).await?;
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    Ok(StatusCode::ACCEPTED.into_response())
}
