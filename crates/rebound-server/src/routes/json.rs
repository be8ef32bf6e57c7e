//! Reading requests: a JSON body whose errors name the field (`422`), and
//! query strings with repeated keys (`stream_mode=values&stream_mode=updates`).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A JSON request body; an empty body reads as `{}`.
pub(crate) struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                let status = rejection.status();
                ApiError {
                    status: if status == StatusCode::PAYLOAD_TOO_LARGE {
                        status
                    } else {
                        StatusCode::BAD_REQUEST
                    },
                    detail: format!(
                        "the request body cannot be read (the limit is {} bytes): {rejection}",
                        super::BODY_LIMIT
                    ),
                }
            })?;
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        let mut deserializer = serde_json::Deserializer::from_slice(text);
        let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let detail = if inner.is_syntax() || inner.is_eof() {
                format!("the request body is not valid JSON: {inner}")
            } else if path == "." {
                format!("invalid request body: {inner}")
            } else {
                format!("invalid request body at {path}: {inner}")
            };
            ApiError::invalid(detail)
        })?;
        deserializer
            .end()
            .map_err(|e| ApiError::invalid(format!("the request body is not valid JSON: {e}")))?;
        Ok(ApiJson(value))
    }
}

/// The pairs of a query string, decoded, in order (keys may repeat).
pub(crate) fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}
