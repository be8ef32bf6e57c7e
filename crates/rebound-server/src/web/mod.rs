//! The web view: one page, built into the binary (no build step), that
//! shows the threads, a thread's live run and its approvals, and the
//! history with fork. It calls the same API as any client.

use axum::http::header;
use axum::response::{Html, IntoResponse};

/// `GET /`: the page.
pub(crate) async fn index() -> Html<&'static str> {
    Html(include_str!("index.html"))
}

/// `GET /web/app.js`.
pub(crate) async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("app.js"),
    )
}
