//! Errors: [`ServerError`] for starting the server, [`ApiError`] for a
//! request (a status and a JSON body `{"detail": ...}`, as the Agent Server
//! answers).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use rebound_graph::GraphError;

use crate::store::StoreError;

/// Why the server could not be built or could not serve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The database could not be opened.
    #[error("cannot open the database {path}: {reason}")]
    Database {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The store failed while starting.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Two graphs were registered under one id, or an id is not usable.
    #[error("graph {id:?}: {reason}")]
    Graph {
        /// The graph id.
        id: String,
        /// What is wrong.
        reason: String,
    },
    /// The address is not on this machine's loopback and no token was set.
    #[error("refusing to serve on {addr} without a token: any address other than 127.0.0.1 / ::1 needs --token (or REBOUND_API_TOKEN), so that only clients that know it can start runs")]
    TokenRequired {
        /// The address asked for.
        addr: String,
    },
    /// The listener failed.
    #[error("serving failed: {0}")]
    Io(#[from] std::io::Error),
}

/// A request's failure: an HTTP status and a message for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The status.
    pub status: StatusCode,
    /// What went wrong, for the client.
    pub detail: String,
}

impl ApiError {
    /// `404`: no such `what` with this id.
    pub fn not_found(what: &str, id: &str) -> Self {
        ApiError {
            status: StatusCode::NOT_FOUND,
            detail: format!("{what} {id:?} not found"),
        }
    }

    /// `409`: the request conflicts with what is running.
    pub fn conflict(detail: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::CONFLICT,
            detail: detail.into(),
        }
    }

    /// `422`: the request is well-formed JSON but not a valid request.
    pub fn invalid(detail: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            detail: detail.into(),
        }
    }

    /// `500`: the server failed.
    pub fn internal(detail: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.status, self.detail)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "detail": self.detail });
        let mut response = (self.status, axum::Json(body)).into_response();
        if self.status == StatusCode::PAYLOAD_TOO_LARGE {
            // The body was not read to its end: the connection cannot carry
            // another request, and a client that reused it would fail on
            // the next request it sent (a broken pipe).
            response.headers_mut().insert(
                axum::http::header::CONNECTION,
                axum::http::HeaderValue::from_static("close"),
            );
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        tracing::error!(%error, "store failure");
        match error {
            // The server cannot take the request now; it can once the disk
            // has room: 503, as for any unavailable dependency.
            StoreError::WriteFailed(_) => ApiError {
                status: StatusCode::SERVICE_UNAVAILABLE,
                detail: error.to_string(),
            },
            _ => ApiError::internal(error.to_string()),
        }
    }
}

impl From<GraphError> for ApiError {
    fn from(error: GraphError) -> Self {
        let status = match &error {
            GraphError::UnknownThread { .. } | GraphError::UnknownCheckpoint { .. } => {
                StatusCode::NOT_FOUND
            }
            GraphError::UnknownNode { .. }
            | GraphError::UnknownInterrupt { .. }
            | GraphError::AmbiguousResume { .. }
            | GraphError::BadInput { .. }
            | GraphError::NothingToResume { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            GraphError::Checkpoint(rebound_graph::checkpoint::CheckpointError::ThreadBusy {
                ..
            }) => StatusCode::CONFLICT,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        ApiError {
            status,
            detail: error.to_string(),
        }
    }
}
