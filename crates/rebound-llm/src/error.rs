//! [`LlmError`]: why a model call failed.

use std::time::Duration;

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// The provider refused the credentials (the key is never shown).
    #[error("{provider}: authentication failed (check the API key; it is not shown here)")]
    Authentication {
        /// The provider.
        provider: String,
    },
    /// Too many requests; retry after the given delay if the provider said.
    #[error("{provider}: rate limited{}", .retry_after.map(|d| format!(", retry after {d:?}")).unwrap_or_default())]
    RateLimited {
        /// The provider.
        provider: String,
        /// The provider's Retry-After.
        retry_after: Option<Duration>,
    },
    /// The prompt does not fit the model's context window.
    #[error("{provider}: the prompt does not fit the context window: {message}")]
    ContextTooLong {
        /// The provider.
        provider: String,
        /// What the provider said (token counts when known).
        message: String,
    },
    /// The provider rejected the request.
    #[error("{provider}: bad request: {message}")]
    BadRequest {
        /// The provider.
        provider: String,
        /// The provider's message.
        message: String,
    },
    /// The provider failed on its side (5xx).
    #[error("{provider}: server error {status}: {message}")]
    Server {
        /// The provider.
        provider: String,
        /// The HTTP status.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// No answer in time.
    #[error("{provider}: no answer within {timeout:?}")]
    Timeout {
        /// The provider.
        provider: String,
        /// The limit.
        timeout: Duration,
    },
    /// The connection failed.
    #[error("{provider}: transport error: {message}")]
    Transport {
        /// The provider.
        provider: String,
        /// What failed.
        message: String,
    },
    /// The answer could not be read.
    #[error("{provider}: malformed response: {message}")]
    MalformedResponse {
        /// The provider.
        provider: String,
        /// What was wrong.
        message: String,
    },
    /// A structured answer was still invalid after the repair attempt.
    #[error("the model's answer is not a valid {type_name} after {attempts} attempts: {error}")]
    StructuredOutput {
        /// The type asked for.
        type_name: String,
        /// Attempts made.
        attempts: u32,
        /// The last validation error (with the path to the bad field).
        error: String,
        /// The raw text of the last answer.
        raw: String,
    },
    /// A scripted model got a call its script did not expect, or ran out.
    #[error("scripted model: {0}")]
    Script(String),
    /// The model string or configuration is wrong.
    #[error("{0}")]
    Config(String),
    /// The embedded local model failed (loading, decoding); not transient.
    #[error("{provider}: {message}")]
    Local {
        /// The model (`local:<file>`).
        provider: String,
        /// What failed.
        message: String,
    },
    /// The call was cancelled.
    #[error("the model call was cancelled")]
    Cancelled,
}

impl LlmError {
    /// Whether retrying the same call may succeed (rate limits, 5xx,
    /// timeouts, transport failures).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Server { .. }
                | LlmError::Timeout { .. }
                | LlmError::Transport { .. }
        )
    }
}
