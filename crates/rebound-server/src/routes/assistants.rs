//! `/assistants`: the served graphs, one assistant each.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{query_pairs, ApiJson};
use crate::app::{App, Assistant};
use crate::assistant::drawable;
use crate::error::ApiError;
use crate::time::rfc3339;

/// The Agent Server's assistant object.
pub(crate) fn assistant_json(assistant: &Assistant) -> Value {
    let at = rfc3339(assistant.created_ms);
    json!({
        "assistant_id": assistant.assistant_id,
        "graph_id": assistant.graph_id,
        "name": assistant.graph_id,
        "description": null,
        "config": {},
        "context": {},
        "metadata": {"created_by": "system"},
        "version": 1,
        "created_at": at,
        "updated_at": at,
    })
}

/// `POST /assistants/search` body.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchBody {
    #[serde(default)]
    metadata: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    graph_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
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
}

fn matching<'a>(app: &'a App, body: &SearchBody) -> Vec<&'a Assistant> {
    app.assistants
        .values()
        .filter(|a| body.graph_id.as_ref().is_none_or(|g| *g == a.graph_id))
        .filter(|a| {
            body.name
                .as_ref()
                .is_none_or(|n| a.graph_id.contains(n.as_str()))
        })
        .filter(|_| {
            body.metadata
                .as_ref()
                .is_none_or(|m| m.iter().all(|(k, v)| k == "created_by" && v == "system"))
        })
        .collect()
}

/// `POST /assistants/search`.
pub(crate) async fn search(
    State(app): State<Arc<App>>,
    ApiJson(body): ApiJson<SearchBody>,
) -> Json<Value> {
    let _ = (&body.sort_by, &body.sort_order, &body.select);
    let list: Vec<Value> = matching(&app, &body)
        .into_iter()
        .skip(body.offset.unwrap_or(0))
        .take(body.limit.unwrap_or(10))
        .map(assistant_json)
        .collect();
    Json(Value::Array(list))
}

/// `POST /assistants/count`.
pub(crate) async fn count(
    State(app): State<Arc<App>>,
    ApiJson(body): ApiJson<SearchBody>,
) -> Json<usize> {
    Json(matching(&app, &body).len())
}

/// `GET /assistants/{id}`.
pub(crate) async fn get(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(assistant_json(app.assistant(&id)?)))
}

/// `GET /assistants/{id}/graph`: nodes and edges; `?format=mermaid` for a
/// Mermaid flowchart (`{"mermaid": "..."}`).
pub(crate) async fn graph(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let assistant = app.assistant(&id)?;
    let mermaid = query_pairs(query.as_deref())
        .iter()
        .any(|(k, v)| k == "format" && v == "mermaid");
    if mermaid {
        return Ok(Json(json!({ "mermaid": assistant.graph.mermaid() })));
    }
    Ok(Json(drawable(assistant.graph.as_ref())))
}

/// `GET /assistants/{id}/schemas`.
pub(crate) async fn schemas(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let assistant = app.assistant(&id)?;
    let state = assistant.graph.state_schema();
    Ok(Json(json!({
        "graph_id": assistant.graph_id,
        "input_schema": state,
        "output_schema": state,
        "state_schema": state,
        "config_schema": null,
        "context_schema": null,
    })))
}
