//! `/threads`: thread records, state, history and updates.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use rebound_graph::checkpoint::{CheckpointId, CheckpointSource};
use rebound_graph::RunConfig;
use rebound_protocol::records::{ThreadRecord, ThreadStatus};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::ApiJson;
use crate::app::App;
use crate::assistant::StateView;
use crate::error::ApiError;
use crate::runs::parts::interrupts_json;
use crate::store::ThreadQuery;
use crate::time::{now_ms, rfc3339};

fn checkpoint_json(thread_id: &str, id: Option<CheckpointId>) -> Value {
    json!({
        "thread_id": thread_id,
        "checkpoint_ns": "",
        "checkpoint_id": id.map(|id| id.to_string()),
        "checkpoint_map": null,
    })
}

fn source_name(source: CheckpointSource) -> &'static str {
    match source {
        CheckpointSource::Input => "input",
        CheckpointSource::Loop => "loop",
        CheckpointSource::Update => "update",
        _ => "fork",
    }
}

/// A state in the Agent Server's `ThreadState` form.
pub(crate) fn state_json(thread_id: &str, snapshot: &StateView) -> Value {
    let meta = &snapshot.metadata;
    let mut next: Vec<String> = meta.next.clone();
    for send in &meta.sends {
        if !next.iter().any(|n| n == send.node()) {
            next.push(send.node().to_string());
        }
    }
    let tasks: Vec<Value> = next
        .iter()
        .map(|node| {
            let mine: Vec<_> = snapshot
                .interrupts
                .iter()
                .filter(|i| &i.node == node)
                .cloned()
                .collect();
            json!({
                "id": node, "name": node, "error": null,
                "interrupts": interrupts_json(&mine),
                "checkpoint": null, "state": null, "result": null,
            })
        })
        .collect();
    json!({
        "values": snapshot.values,
        "next": next,
        "checkpoint": checkpoint_json(thread_id, Some(snapshot.checkpoint_id)),
        "metadata": {
            "source": source_name(meta.source),
            "step": snapshot.step,
            "writes": null,
            "parents": {},
            "ran": meta.ran,
            "reasons": meta.reasons,
        },
        "created_at": rfc3339(snapshot.checkpoint_id.created_ms()),
        "parent_checkpoint": snapshot.parent_id.map(|p| checkpoint_json(thread_id, Some(p))),
        "tasks": tasks,
        "interrupts": interrupts_json(&snapshot.interrupts),
    })
}

/// The state of a thread that has no checkpoint.
fn empty_state(thread_id: &str) -> Value {
    json!({
        "values": {},
        "next": [],
        "checkpoint": checkpoint_json(thread_id, None),
        "metadata": {},
        "created_at": null,
        "parent_checkpoint": null,
        "tasks": [],
        "interrupts": [],
    })
}

/// The latest state of a thread, if its graph is known and it has one.
async fn latest(app: &App, record: &ThreadRecord) -> Result<Option<StateView>, ApiError> {
    let Some(assistant) = app.thread_graph(record) else {
        return Ok(None);
    };
    let config = RunConfig::new().with_thread_id(record.thread_id.as_str());
    match assistant.graph.get_state(&config).await {
        Ok(view) => Ok(Some(view)),
        Err(rebound_graph::GraphError::UnknownThread { .. }) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

/// The Agent Server's thread object, with its values and interrupts.
pub(crate) async fn thread_json(app: &App, record: &ThreadRecord) -> Result<Value, ApiError> {
    let view = latest(app, record).await?;
    let mut interrupts = Map::new();
    if let Some(view) = &view {
        for interrupt in &view.interrupts {
            let list = interrupts
                .entry(interrupt.node.clone())
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = list {
                list.push(json!({"value": interrupt.payload, "id": interrupt.id}));
            }
        }
    }
    Ok(json!({
        "thread_id": record.thread_id,
        "created_at": rfc3339(record.created_ms),
        "updated_at": rfc3339(record.updated_ms),
        "metadata": record.metadata,
        "status": record.status.as_str(),
        "values": view.map_or(Value::Null, |v| v.values),
        "interrupts": interrupts,
        "config": {},
        "error": null,
    }))
}

/// `POST /threads` body.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateBody {
    #[serde(default)]
    thread_id: Option<String>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
    #[serde(default)]
    if_exists: Option<IfExists>,
    #[serde(default)]
    supersteps: Option<Value>,
    #[serde(default)]
    graph_id: Option<String>,
    #[serde(default)]
    ttl: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum IfExists {
    Raise,
    DoNothing,
}

/// Checks a client-chosen id: printable, no slashes, at most 128 bytes.
pub(crate) fn check_id(what: &str, id: &str) -> Result<(), ApiError> {
    if id.is_empty() || id.len() > 128 || id.chars().any(|c| c.is_control() || c == '/') {
        return Err(ApiError::invalid(format!(
            "{what} must be 1 to 128 characters, without '/' or control characters"
        )));
    }
    Ok(())
}

/// `POST /threads`.
pub(crate) async fn create(
    State(app): State<Arc<App>>,
    ApiJson(body): ApiJson<CreateBody>,
) -> Result<Json<Value>, ApiError> {
    if body.supersteps.is_some() {
        return Err(ApiError::invalid(
            "supersteps is not supported: create the thread, then POST /threads/{thread_id}/state",
        ));
    }
    let _ = &body.ttl;
    let thread_id = body
        .thread_id
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    check_id("thread_id", &thread_id)?;
    let mut metadata = body.metadata.unwrap_or_default();
    if let Some(graph_id) = body.graph_id {
        app.assistant(&graph_id)?;
        metadata.insert("graph_id".to_string(), Value::String(graph_id));
    }
    let record = ThreadRecord::new(thread_id.as_str(), now_ms(), Value::Object(metadata));
    if !app.store.create_thread(&record).await? {
        if body.if_exists == Some(IfExists::DoNothing) {
            let existing = app.thread(&thread_id).await?;
            return Ok(Json(thread_json(&app, &existing).await?));
        }
        return Err(ApiError::conflict(format!(
            "thread {thread_id:?} already exists"
        )));
    }
    Ok(Json(thread_json(&app, &record).await?))
}

/// `GET /threads/{id}`.
pub(crate) async fn get(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let record = app.thread(&thread_id).await?;
    Ok(Json(thread_json(&app, &record).await?))
}

/// `POST /threads/{id}/copy`: a new thread with the same checkpoints
/// (history included) and metadata, and no runs.
pub(crate) async fn copy(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let source = app.thread(&thread_id).await?;
    let now = now_ms();
    let record = ThreadRecord::new(
        uuid::Uuid::new_v4().to_string(),
        now,
        source.metadata.clone(),
    )
    .with_status(source.status);
    app.store.copy_thread(&thread_id, &record).await?;
    Ok(Json(thread_json(&app, &record).await?))
}

/// `PATCH /threads/{id}` body.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PatchBody {
    #[serde(default)]
    metadata: Map<String, Value>,
    #[serde(default)]
    ttl: Option<Value>,
}

/// `PATCH /threads/{id}`: merges metadata.
pub(crate) async fn patch(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
    ApiJson(body): ApiJson<PatchBody>,
) -> Result<Json<Value>, ApiError> {
    let _ = &body.ttl;
    let mut record = app.thread(&thread_id).await?;
    if let Value::Object(metadata) = &mut record.metadata {
        metadata.extend(body.metadata);
    }
    record.updated_ms = now_ms();
    app.store.put_thread(&record).await?;
    Ok(Json(thread_json(&app, &record).await?))
}

/// `DELETE /threads/{id}`: `409` while a run of it is pending or running.
pub(crate) async fn delete(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
) -> Result<StatusCode, ApiError> {
    app.thread(&thread_id).await?;
    if !app.store.active_runs(&thread_id).await?.is_empty() {
        return Err(ApiError::conflict(format!(
            "thread {thread_id:?} has a pending or running run: cancel it first"
        )));
    }
    app.store.delete_thread(&thread_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /threads/search` body.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchBody {
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
    #[serde(default)]
    values: Option<Value>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    offset: Option<usize>,
    #[serde(default)]
    sort_by: Option<String>,
    #[serde(default)]
    sort_order: Option<String>,
    #[serde(default)]
    select: Option<Vec<String>>,
    #[serde(default)]
    ids: Option<Vec<String>>,
    #[serde(default)]
    extract: Option<Value>,
}

fn thread_query(body: &SearchBody, limit: usize) -> Result<ThreadQuery, ApiError> {
    if body.values.is_some() || body.extract.is_some() {
        return Err(ApiError::invalid(
            "searching threads by values (or extracting values) is not supported: search by metadata or status",
        ));
    }
    let _ = (&body.sort_by, &body.sort_order, &body.select);
    let status = body
        .status
        .as_deref()
        .map(|s| {
            s.parse::<ThreadStatus>()
                .map_err(|e| ApiError::invalid(format!("status: {e}")))
        })
        .transpose()?;
    Ok(ThreadQuery {
        metadata: body.metadata.clone().unwrap_or_default(),
        status,
        limit,
        offset: body.offset.unwrap_or(0),
    })
}

/// `POST /threads/search`.
pub(crate) async fn search(
    State(app): State<Arc<App>>,
    ApiJson(body): ApiJson<SearchBody>,
) -> Result<Json<Value>, ApiError> {
    let query = thread_query(&body, body.limit.unwrap_or(10).min(1000))?;
    let mut out = Vec::new();
    for record in app.store.search_threads(&query).await? {
        if body
            .ids
            .as_ref()
            .is_some_and(|ids| !ids.contains(&record.thread_id))
        {
            continue;
        }
        out.push(thread_json(&app, &record).await?);
    }
    Ok(Json(Value::Array(out)))
}

/// `POST /threads/count`.
pub(crate) async fn count(
    State(app): State<Arc<App>>,
    ApiJson(body): ApiJson<SearchBody>,
) -> Result<Json<usize>, ApiError> {
    let query = thread_query(&body, usize::MAX)?;
    Ok(Json(app.store.search_threads(&query).await?.len()))
}

/// The graph of a thread and a config for it, at `checkpoint`.
async fn thread_config(
    app: &App,
    thread_id: &str,
    checkpoint: Option<&str>,
) -> Result<(ThreadRecord, Option<RunConfig>), ApiError> {
    let record = app.thread(thread_id).await?;
    let mut config = RunConfig::new().with_thread_id(thread_id);
    if let Some(id) = checkpoint {
        let id: CheckpointId = id
            .parse()
            .map_err(|_| ApiError::not_found("checkpoint", id))?;
        config = config.with_checkpoint_id(id);
    }
    let known = app.thread_graph(&record).is_some();
    Ok((record, known.then_some(config)))
}

async fn state_of(
    app: &App,
    thread_id: &str,
    checkpoint: Option<&str>,
) -> Result<Json<Value>, ApiError> {
    let (record, config) = thread_config(app, thread_id, checkpoint).await?;
    let (Some(config), Some(assistant)) = (config, app.thread_graph(&record)) else {
        if let Some(id) = checkpoint {
            return Err(ApiError::not_found("checkpoint", id));
        }
        return Ok(Json(empty_state(thread_id)));
    };
    match assistant.graph.get_state(&config).await {
        Ok(view) => Ok(Json(state_json(thread_id, &view))),
        Err(rebound_graph::GraphError::UnknownThread { .. }) if checkpoint.is_none() => {
            Ok(Json(empty_state(thread_id)))
        }
        Err(error) => Err(error.into()),
    }
}

/// `GET /threads/{id}/state`.
pub(crate) async fn state(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    state_of(&app, &thread_id, None).await
}

/// `GET /threads/{id}/state/{checkpoint_id}`.
pub(crate) async fn state_at(
    State(app): State<Arc<App>>,
    Path((thread_id, checkpoint_id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    state_of(&app, &thread_id, Some(&checkpoint_id)).await
}

/// `POST /threads/{id}/state/checkpoint` body.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckpointBody {
    checkpoint: CheckpointRef,
    #[serde(default)]
    subgraphs: Option<bool>,
}

/// `{checkpoint_id, thread_id?, checkpoint_ns?, checkpoint_map?}`.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub(crate) struct CheckpointRef {
    #[serde(default)]
    checkpoint_id: Option<String>,
}

/// `POST /threads/{id}/state/checkpoint`.
pub(crate) async fn state_at_posted_checkpoint(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
    ApiJson(body): ApiJson<CheckpointBody>,
) -> Result<Json<Value>, ApiError> {
    let _ = body.subgraphs;
    state_of(&app, &thread_id, body.checkpoint.checkpoint_id.as_deref()).await
}

/// `POST /threads/{id}/state` body.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UpdateBody {
    values: Value,
    #[serde(default)]
    as_node: Option<String>,
    #[serde(default)]
    checkpoint: Option<CheckpointRef>,
    #[serde(default)]
    checkpoint_id: Option<String>,
}

/// `POST /threads/{id}/state`: writes values as a new checkpoint (`409`
/// while a run of the thread runs). At a `checkpoint_id` the thread has
/// moved on from, it is a fork that asks that checkpoint's questions again
/// rather than reusing the answers given there (the engine's
/// `update_state` rule).
pub(crate) async fn update_state(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
    ApiJson(body): ApiJson<UpdateBody>,
) -> Result<Json<Value>, ApiError> {
    let checkpoint = body.checkpoint_id.clone().or_else(|| {
        body.checkpoint
            .as_ref()
            .and_then(|c| c.checkpoint_id.clone())
    });
    let (record, config) = thread_config(&app, &thread_id, checkpoint.as_deref()).await?;
    let (Some(config), Some(assistant)) = (config, app.thread_graph(&record)) else {
        return Err(ApiError::invalid(format!(
            "thread {thread_id:?} has no graph yet: run it once, or create it with a graph_id"
        )));
    };
    if app
        .store
        .active_runs(&thread_id)
        .await?
        .iter()
        .any(|r| r.status == crate::store::RunStatus::Running)
    {
        return Err(ApiError::conflict(format!("thread {thread_id:?} is busy")));
    }
    let id = assistant
        .graph
        .update_state(&config, body.values, body.as_node.as_deref())
        .await?;
    Ok(Json(
        json!({ "checkpoint": checkpoint_json(&thread_id, Some(id)) }),
    ))
}

/// `POST /threads/{id}/history` body.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HistoryBody {
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    before: Option<Value>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
    #[serde(default)]
    checkpoint: Option<CheckpointRef>,
}

async fn history_of(
    app: &App,
    thread_id: &str,
    body: HistoryBody,
) -> Result<Json<Value>, ApiError> {
    let record = app.thread(thread_id).await?;
    let Some(assistant) = app.thread_graph(&record) else {
        return Ok(Json(json!([])));
    };
    let before = match &body.before {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id.clone()),
        Some(other) => other
            .get("checkpoint_id")
            .and_then(Value::as_str)
            .map(str::to_string),
    };
    let before = before
        .map(|id| {
            id.parse::<CheckpointId>()
                .map_err(|_| ApiError::invalid(format!("before: {id:?} is not a checkpoint id")))
        })
        .transpose()?;
    let mut config = RunConfig::new().with_thread_id(thread_id);
    if let Some(id) = body.checkpoint.and_then(|c| c.checkpoint_id) {
        let id = id
            .parse::<CheckpointId>()
            .map_err(|_| ApiError::not_found("checkpoint", &id))?;
        config = config.with_checkpoint_id(id);
    }
    let limit = body.limit.unwrap_or(10).min(1000);
    let views = match assistant.graph.history(&config, before, limit).await {
        Ok(views) => views,
        Err(rebound_graph::GraphError::UnknownThread { .. }) => Vec::new(),
        Err(error) => return Err(error.into()),
    };
    let filter = body.metadata.unwrap_or_default();
    let list: Vec<Value> = views
        .iter()
        .map(|view| state_json(thread_id, view))
        .filter(|state| {
            filter
                .iter()
                .all(|(k, v)| state["metadata"].get(k) == Some(v))
        })
        .collect();
    Ok(Json(Value::Array(list)))
}

/// `POST /threads/{id}/history`.
pub(crate) async fn history(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
    ApiJson(body): ApiJson<HistoryBody>,
) -> Result<Json<Value>, ApiError> {
    history_of(&app, &thread_id, body).await
}

/// `GET /threads/{id}/history`.
pub(crate) async fn history_get(
    State(app): State<Arc<App>>,
    Path(thread_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    history_of(&app, &thread_id, HistoryBody::default()).await
}
