//! `/ok`, `/info`, `/openapi.json` and `/docs`.

use std::sync::Arc;

use axum::extract::State;
use axum::response::Html;
use axum::Json;
use serde_json::{json, Value};

use crate::app::App;

/// The API's routes: (method, path, summary). The OpenAPI document and the
/// docs page are made from this list.
pub(crate) const ROUTES: &[(&str, &str, &str)] = &[
    ("get", "/ok", "Liveness: always 200, no auth"),
    ("get", "/info", "Server version and capabilities"),
    (
        "post",
        "/assistants/search",
        "List the assistants (the served graphs)",
    ),
    ("post", "/assistants/count", "Count the assistants"),
    ("get", "/assistants/{assistant_id}", "One assistant"),
    (
        "get",
        "/assistants/{assistant_id}/graph",
        "Its nodes and edges (?format=mermaid for Mermaid)",
    ),
    (
        "get",
        "/assistants/{assistant_id}/schemas",
        "Its state schema",
    ),
    ("post", "/threads", "Create a thread"),
    (
        "post",
        "/threads/search",
        "Search threads by metadata and status",
    ),
    ("post", "/threads/count", "Count threads"),
    (
        "get",
        "/threads/{thread_id}",
        "One thread, with its values and interrupts",
    ),
    (
        "patch",
        "/threads/{thread_id}",
        "Merge metadata into a thread",
    ),
    (
        "delete",
        "/threads/{thread_id}",
        "Delete a thread, its checkpoints and runs",
    ),
    (
        "get",
        "/threads/{thread_id}/state",
        "The thread's latest state",
    ),
    (
        "post",
        "/threads/{thread_id}/state",
        "Write values as a new checkpoint (update_state)",
    ),
    (
        "get",
        "/threads/{thread_id}/state/{checkpoint_id}",
        "The state at a checkpoint",
    ),
    (
        "post",
        "/threads/{thread_id}/state/checkpoint",
        "The state at a checkpoint given in the body",
    ),
    (
        "post",
        "/threads/{thread_id}/history",
        "The thread's checkpoints, newest first",
    ),
    (
        "post",
        "/threads/{thread_id}/runs",
        "Queue a background run",
    ),
    (
        "get",
        "/threads/{thread_id}/runs",
        "The thread's runs, newest first",
    ),
    (
        "post",
        "/threads/{thread_id}/runs/stream",
        "Queue a run and stream it (SSE)",
    ),
    (
        "post",
        "/threads/{thread_id}/runs/wait",
        "Queue a run and wait for its final state",
    ),
    ("get", "/threads/{thread_id}/runs/{run_id}", "One run"),
    (
        "delete",
        "/threads/{thread_id}/runs/{run_id}",
        "Delete an ended run",
    ),
    (
        "get",
        "/threads/{thread_id}/runs/{run_id}/join",
        "Wait for a run and return its final state",
    ),
    (
        "get",
        "/threads/{thread_id}/runs/{run_id}/stream",
        "Join a run's stream (Last-Event-ID resumes)",
    ),
    (
        "post",
        "/threads/{thread_id}/runs/{run_id}/cancel",
        "Cancel a run (?action=interrupt|rollback&wait=1)",
    ),
    ("post", "/runs", "A background run on a new thread"),
    ("post", "/runs/stream", "A stateless streamed run"),
    ("post", "/runs/wait", "A stateless run, waited for"),
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
    for (method, path, summary) in ROUTES {
        let entry = paths.entry(path.to_string()).or_insert_with(|| json!({}));
        let parameters: Vec<Value> = path
            .split('/')
            .filter_map(|part| part.strip_prefix('{')?.strip_suffix('}'))
            .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
            .collect();
        entry[*method] = json!({
            "summary": summary,
            "parameters": parameters,
            "responses": {
                "200": {"description": "OK"},
                "404": {"description": "Unknown id"},
                "409": {"description": "The thread is busy"},
                "422": {"description": "Invalid request: the detail names the field"},
            },
        });
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
    for (method, path, summary) in ROUTES {
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
