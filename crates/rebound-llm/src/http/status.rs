//! Provider failures as [`LlmError`]s: an unsuccessful HTTP status with its
//! body, or an in-band error event of a stream.

use std::time::Duration;

use super::HttpClient;
use crate::LlmError;

impl HttpClient {
    /// The error for an unsuccessful HTTP `status` with its `body`.
    pub(super) fn status_error(
        &self,
        status: u16,
        retry_after: Option<Duration>,
        body: &str,
    ) -> LlmError {
        let (message, code) = error_message(body);
        let message = self.scrub(if message.is_empty() {
            format!("HTTP {status}")
        } else {
            message
        });
        let provider = self.provider.clone();
        match status {
            401 | 403 => LlmError::Authentication { provider },
            429 => LlmError::RateLimited {
                provider,
                retry_after,
            },
            500..=599 => LlmError::Server {
                provider,
                status,
                message,
            },
            _ if is_context_overflow(code.as_deref(), &message) => {
                LlmError::ContextTooLong { provider, message }
            }
            _ => LlmError::BadRequest { provider, message },
        }
    }

    /// The error for a provider's in-band error object (an SSE `error`
    /// event), classified by its type.
    pub(crate) fn error_event(&self, kind: &str, message: &str) -> LlmError {
        let provider = self.provider.clone();
        let message = self.scrub(message.to_string());
        match kind {
            "authentication_error" | "permission_error" => LlmError::Authentication { provider },
            "rate_limit_error" => LlmError::RateLimited {
                provider,
                retry_after: None,
            },
            "overloaded_error" => LlmError::Server {
                provider,
                status: 529,
                message,
            },
            _ if is_context_overflow(Some(kind), &message) => {
                LlmError::ContextTooLong { provider, message }
            }
            "invalid_request_error" | "not_found_error" | "request_too_large" => {
                LlmError::BadRequest { provider, message }
            }
            _ => LlmError::Server {
                provider,
                status: 500,
                message,
            },
        }
    }
}

/// The provider's message and error code from an error body: `error.message`
/// (OpenAI, Anthropic), `error` as a string (Ollama), `message` or `detail`;
/// otherwise the start of the body.
fn error_message(body: &str) -> (String, Option<String>) {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(body) else {
        return (body.trim().chars().take(500).collect(), None);
    };
    let text = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).map(str::to_string);
    let error = value.get("error");
    let code =
        text(error.and_then(|e| e.get("code"))).or_else(|| text(error.and_then(|e| e.get("type"))));
    let message = text(error.and_then(|e| e.get("message")))
        .or_else(|| text(error))
        .or_else(|| text(value.get("message")))
        .or_else(|| text(value.get("detail")))
        .unwrap_or_else(|| body.trim().chars().take(500).collect());
    (message, code)
}

/// Whether a provider's error says the prompt does not fit the context.
fn is_context_overflow(code: Option<&str>, message: &str) -> bool {
    if code == Some("context_length_exceeded") {
        return true;
    }
    let message = message.to_lowercase();
    [
        "context length",
        "context_length",
        "context window",
        "maximum context",
        "prompt is too long",
        "too many tokens",
        "exceeds the available context",
    ]
    .iter()
    .any(|needle| message.contains(needle))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HttpOptions;

    fn client() -> HttpClient {
        HttpClient::new(
            "test",
            HttpOptions::new("http://127.0.0.1:1").api_key("sk-abcdef"),
        )
        .unwrap()
    }

    #[test]
    fn statuses_map_to_typed_errors() {
        let c = client();
        assert!(matches!(
            c.status_error(401, None, "sk-abcdef"),
            LlmError::Authentication { .. }
        ));
        assert_eq!(
            c.status_error(
                400,
                None,
                r#"{"error":{"message":"bad sk-abcdef","code":null}}"#
            ),
            LlmError::BadRequest {
                provider: "test".into(),
                message: "bad <redacted>".into()
            }
        );
        assert!(matches!(
            c.status_error(
                400,
                None,
                r#"{"error":{"message":"x","code":"context_length_exceeded"}}"#
            ),
            LlmError::ContextTooLong { .. }
        ));
        assert_eq!(
            c.status_error(404, None, r#"{"error":"model 'q' not found"}"#),
            LlmError::BadRequest {
                provider: "test".into(),
                message: "model 'q' not found".into()
            }
        );
        assert!(matches!(
            c.status_error(503, None, ""),
            LlmError::Server { status: 503, .. }
        ));
    }

    #[test]
    fn error_events_map_to_typed_errors() {
        let c = client();
        assert_eq!(
            c.error_event("overloaded_error", "busy"),
            LlmError::Server {
                provider: "test".into(),
                status: 529,
                message: "busy".into()
            }
        );
        assert!(matches!(
            c.error_event("invalid_request_error", "prompt is too long: 9000 tokens"),
            LlmError::ContextTooLong { .. }
        ));
        assert_eq!(
            c.error_event("not_found_error", "no model sk-abcdef"),
            LlmError::BadRequest {
                provider: "test".into(),
                message: "no model <redacted>".into()
            }
        );
        assert!(matches!(
            c.error_event("something_new", "?"),
            LlmError::Server { status: 500, .. }
        ));
    }
}
