//! The HTTP API: the router, the JSON body extractor (422 naming the
//! field), bearer-token auth, and one module per resource.

mod assistants;
mod json;
pub(crate) mod runs;
mod sse;
mod system;
mod threads;

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use subtle::ConstantTimeEq;
use tower_http::catch_panic::CatchPanicLayer;

use crate::app::App;
use crate::error::ApiError;

pub(crate) use json::{query_pairs, ApiJson};

/// The largest request body accepted (larger ones get `413`).
pub(crate) const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// Every route of the API.
pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/info", get(system::info))
        .route("/openapi.json", get(system::openapi))
        .route("/docs", get(system::docs))
        .route("/assistants/search", post(assistants::search))
        .route("/assistants/count", post(assistants::count))
        .route("/assistants/{assistant_id}", get(assistants::get))
        .route("/assistants/{assistant_id}/graph", get(assistants::graph))
        .route(
            "/assistants/{assistant_id}/schemas",
            get(assistants::schemas),
        )
        .route("/threads", post(threads::create))
        .route("/threads/search", post(threads::search))
        .route("/threads/count", post(threads::count))
        .route(
            "/threads/{thread_id}",
            get(threads::get)
                .patch(threads::patch)
                .delete(threads::delete),
        )
        .route(
            "/threads/{thread_id}/state",
            get(threads::state).post(threads::update_state),
        )
        .route(
            "/threads/{thread_id}/state/checkpoint",
            post(threads::state_at_posted_checkpoint),
        )
        .route(
            "/threads/{thread_id}/state/{checkpoint_id}",
            get(threads::state_at),
        )
        .route("/threads/{thread_id}/copy", post(threads::copy))
        .route(
            "/threads/{thread_id}/history",
            post(threads::history).get(threads::history_get),
        )
        .route(
            "/threads/{thread_id}/runs",
            post(runs::create).get(runs::list),
        )
        .route(
            "/threads/{thread_id}/runs/stream",
            post(runs::create_stream),
        )
        .route("/threads/{thread_id}/runs/wait", post(runs::create_wait))
        .route(
            "/threads/{thread_id}/runs/{run_id}",
            get(runs::get).delete(runs::delete),
        )
        .route("/threads/{thread_id}/runs/{run_id}/join", get(runs::join))
        .route(
            "/threads/{thread_id}/runs/{run_id}/stream",
            get(runs::join_stream),
        )
        .route(
            "/threads/{thread_id}/runs/{run_id}/cancel",
            post(runs::cancel),
        )
        .route("/runs/stream", post(runs::stateless_stream))
        .route("/runs/wait", post(runs::stateless_wait))
        .route("/runs", post(runs::stateless_create))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(Arc::clone(&app), authorize))
        .route("/ok", get(system::ok))
        .route("/", get(crate::web::index))
        .route("/web/app.js", get(crate::web::script))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(CatchPanicLayer::custom(panic_response))
        .with_state(app)
}

/// A handler that panicked (a bug): `500` with a JSON body, never a
/// dropped connection; the panic is logged.
fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let message = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("unknown");
    tracing::error!(panic = message, "a request handler panicked");
    ApiError::internal("the server failed on this request (a bug: see its log)").into_response()
}

async fn not_found() -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        detail: "no such route".to_string(),
    }
}

/// Bearer auth, when the server has a token: compared in constant time.
async fn authorize(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    if let Some(token) = &app.token {
        // `Authorization: Bearer <token>` (the scheme in any case), or
        // `x-api-key: <token>` (what langgraph-sdk's `api_key=` sends).
        let headers = request.headers();
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        let api_key = headers.get("x-api-key").and_then(|v| v.to_str().ok());
        let given = bearer.or(api_key).unwrap_or("");
        let matches: bool = given.as_bytes().ct_eq(token.as_bytes()).into();
        if !matches {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                axum::Json(serde_json::json!({"detail": "missing or wrong bearer token"})),
            )
                .into_response();
        }
    }
    next.run(request).await
}
