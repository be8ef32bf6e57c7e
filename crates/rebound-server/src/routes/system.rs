//! `/ok`, `/info`, `/openapi.json` and `/docs`.

use std::sync::Arc;

use axum::extract::State;
use axum::response::Html;
use axum::Json;
use serde_json::{json, Value};

use crate::app::App;

/// A route: method, path, summary, and the JSON schema of its request body
/// (derived from the type the handler reads).
type Route = (
    &'static str,
    &'static str,
    &'static str,
    Option<fn() -> Value>,
);

/// The JSON schema of `T`.
fn schema<T: schemars::JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null)
}

/// The API's routes. The OpenAPI document and the docs page are made from
/// this list; `every_documented_route_is_served` (tests/api.rs) checks it against the router.
pub(crate) const ROUTES: &[Route] = &[
    ("get", "/ok", "Liveness: always 200, no auth", None),
    ("get", "/info", "Server version and capabilities", None),
    ("get", "/openapi.json", "This document", None),
    ("get", "/docs", "The routes as a page", None),
    (
        "get",
        "/",
        "The web view: threads, live runs, approvals, history",
        None,
    ),
    (
        "post",
        "/assistants/search",
        "List the assistants (the served graphs)",
        Some(schema::<super::assistants::SearchBody>),
    ),
    (
        "post",
        "/assistants/count",
        "Count the assistants",
        Some(schema::<super::assistants::SearchBody>),
    ),
    ("get", "/assistants/{assistant_id}", "One assistant", None),
    (
        "get",
        "/assistants/{assistant_id}/graph",
        "Its nodes and edges (?format=mermaid for Mermaid)",
        None,
    ),
    (
        "get",
        "/assistants/{assistant_id}/schemas",
        "Its state schema",
        None,
    ),
    (
        "post",
        "/threads",
        "Create a thread",
        Some(schema::<super::threads::CreateBody>),
    ),
    (
        "post",
        "/threads/search",
        "Search threads by metadata and status",
        Some(schema::<super::threads::SearchBody>),
    ),
    (
        "post",
        "/threads/count",
        "Count threads",
        Some(schema::<super::threads::SearchBody>),
    ),
    (
        "get",
        "/threads/{thread_id}",
        "One thread, with its values and interrupts",
        None,
    ),
    (
        "patch",
        "/threads/{thread_id}",
        "Merge metadata into a thread",
        Some(schema::<super::threads::PatchBody>),
    ),
    (
        "delete",
        "/threads/{thread_id}",
        "Delete a thread, its checkpoints and runs",
        None,
    ),
    (
        "get",
        "/threads/{thread_id}/state",
        "The thread's latest state",
        None,
    ),
    (
        "post",
        "/threads/{thread_id}/state",
        "Write values as a new checkpoint (update_state)",
        Some(schema::<super::threads::UpdateBody>),
    ),
    (
        "get",
        "/threads/{thread_id}/state/{checkpoint_id}",
        "The state at a checkpoint",
        None,
    ),
    (
        "post",
        "/threads/{thread_id}/state/checkpoint",
        "The state at a checkpoint given in the body",
        Some(schema::<super::threads::CheckpointBody>),
    ),
    (
        "post",
        "/threads/{thread_id}/history",
        "The thread's checkpoints, newest first",
        Some(schema::<super::threads::HistoryBody>),
    ),
    (
        "post",
        "/threads/{thread_id}/copy",
        "A new thread with the same checkpoints and metadata",
        None,
    ),
    (
        "post",
        "/threads/{thread_id}/runs",
        "Queue a background run",
        Some(schema::<crate::runs::RunCreate>),
    ),
    (
        "get",
        "/threads/{thread_id}/runs",
        "The thread's runs, newest first",
        None,
    ),
    (
        "post",
        "/threads/{thread_id}/runs/stream",
        "Queue a run and stream it (SSE)",
        Some(schema::<crate::runs::RunCreate>),
    ),
    (
        "post",
        "/threads/{thread_id}/runs/wait",
        "Queue a run and wait for its final state",
        Some(schema::<crate::runs::RunCreate>),
    ),
    ("get", "/threads/{thread_id}/runs/{run_id}", "One run", None),
    (
        "delete",
        "/threads/{thread_id}/runs/{run_id}",
        "Delete an ended run",
        None,
    ),
    (
        "get",
        "/threads/{thread_id}/runs/{run_id}/join",
        "Wait for a run and return its final state",
        None,
    ),
    (
        "get",
        "/threads/{thread_id}/runs/{run_id}/stream",
        "Join a run's stream (Last-Event-ID resumes)",
        None,
    ),
    (
        "post",
        "/threads/{thread_id}/runs/{run_id}/cancel",
        "Cancel a run (?action=interrupt|rollback&wait=1)",
        None,
    ),
    (
        "post",
        "/runs",
        "A background run on a new thread",
        Some(schema::<crate::runs::RunCreate>),
    ),
    (
        "post",
        "/runs/stream",
        "A stateless streamed run",
        Some(schema::<crate::runs::RunCreate>),
    ),
    (
        "post",
        "/runs/wait",
        "A stateless run, waited for",
        Some(schema::<crate::runs::RunCreate>),
    ),
];

/// `GET /ok`.
pub(crate) async fn ok() -> Json<Value> {
    Json(json!({ "ok": true }))
}

/// `GET /info`.
pub(crate) async fn info(State(app): State<Arc<App>>) -> Json<Value> {
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "server": "rebound",
        "protocol_version": rebound_protocol::PROTOCOL_VERSION,
        "graphs": app.assistants.keys().collect::<Vec<_>>(),
        "flags": { "assistants": true, "crons": false, "langsmith": false },
    }))
}

/// `GET /openapi.json`: made from [`ROUTES`].
pub(crate) async fn openapi() -> Json<Value> {
    let mut paths = serde_json::Map::new();
    for (method, path, summary, body) in ROUTES {
        let entry = paths.entry(path.to_string()).or_insert_with(|| json!({}));
        let parameters: Vec<Value> = path
            .split('/')
            .filter_map(|part| part.strip_prefix('{')?.strip_suffix('}'))
            .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
            .collect();
        let mut operation = json!({
            "summary": summary,
            "parameters": parameters,
            "responses": {
                "200": {"description": "OK"},
                "404": {"description": "Unknown id"},
                "409": {"description": "The thread is busy"},
                "422": {"description": "Invalid request: the detail names the field"},
            },
        });
        if let Some(body) = body {
            operation["requestBody"] = json!({
                "required": false,
                "content": {"application/json": {"schema": body()}},
            });
        }
        entry[*method] = operation;
    }
    Json(json!({
        "openapi": "3.1.0",
        "info": {"title": "rebound", "version": env!("CARGO_PKG_VERSION")},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "paths": paths,
    }))
}

/// `GET /docs`: the routes as a page.
pub(crate) async fn docs() -> Html<String> {
    let mut rows = String::new();
    for (method, path, summary, _) in ROUTES {
        rows.push_str(&format!(
            "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>\n",
            method.to_uppercase(),
            path,
            summary
        ));
    }
    Html(format!(
        "<!doctype html><meta charset=utf-8><title>rebound API</title>\
         <style>body{{font:14px system-ui;margin:2em}}td{{padding:2px 12px}}</style>\
         <h1>rebound API</h1><p>The machine-readable form: <a href=\"/openapi.json\">/openapi.json</a>.</p>\
         <table>{rows}</table>"
    ))
}
