//! [`LlmError`]: why a model call failed, and [`ErrorSource`], the error
//! underneath a transport failure.

use std::error::Error;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

/// Why a model call failed.
///
/// New variants may be added, so a `match` on it needs a wildcard arm.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
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
        /// What failed: the source's message and its causes on one line,
        /// with the API key redacted.
        message: String,
        /// The error of the HTTP client underneath (for the hosted
        /// providers a `reqwest::Error`), which
        /// [`std::error::Error::source`] returns.
        #[source]
        source: ErrorSource,
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

/// The error underneath an [`LlmError`], shared so that the error stays
/// `Clone`. It dereferences to the error itself, so it can be downcast
/// (`source.downcast_ref::<reqwest::Error>()`).
///
/// Two sources are equal when their messages are: [`LlmError`]'s equality
/// compares what a user would see, not which allocation failed.
///
/// ```
/// use std::error::Error;
/// use rebound_llm::{ErrorSource, LlmError};
///
/// let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
/// let error = LlmError::Transport {
///     provider: "openai".into(),
///     message: "refused".into(),
///     source: ErrorSource::new(io),
/// };
/// let source = error.source().unwrap();
/// assert!(source.downcast_ref::<std::io::Error>().is_some());
/// ```
#[derive(Clone)]
pub struct ErrorSource(Arc<dyn Error + Send + Sync + 'static>);

impl ErrorSource {
    /// Wraps `error`.
    pub fn new(error: impl Error + Send + Sync + 'static) -> Self {
        ErrorSource(Arc::new(error))
    }
}

impl Deref for ErrorSource {
    type Target = dyn Error + Send + Sync + 'static;

    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl fmt::Debug for ErrorSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for ErrorSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl PartialEq for ErrorSource {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transport(source: ErrorSource) -> LlmError {
        LlmError::Transport {
            provider: "p".into(),
            message: "connection refused".into(),
            source,
        }
    }

    fn refused(text: &str) -> ErrorSource {
        ErrorSource::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            text.to_string(),
        ))
    }

    #[test]
    fn a_transport_error_keeps_its_source_and_its_message() {
        let error = transport(refused("connection refused"));
        assert_eq!(error.to_string(), "p: transport error: connection refused");
        let source = error.source().unwrap();
        let io = source.downcast_ref::<std::io::Error>().unwrap();
        assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
        assert!(error.clone().source().is_some());
        assert!(error.is_transient());
    }

    #[test]
    fn sources_are_equal_when_their_messages_are() {
        assert_eq!(
            transport(refused("connection refused")),
            transport(refused("connection refused"))
        );
        assert_ne!(
            transport(refused("connection refused")),
            transport(refused("connection reset"))
        );
    }
}
