//! [`HttpOptions`]: where a hosted provider is, with which key, and how
//! patiently it is called.

use std::fmt;
use std::time::Duration;

/// How a provider is reached: where, with which key, and how patiently.
///
/// ```
/// use std::time::Duration;
/// use rebound_llm::HttpOptions;
/// let options = HttpOptions::new("http://127.0.0.1:8080/v1")
///     .api_key("sk-secret")
///     .timeout(Duration::from_secs(30))
///     .max_retries(1);
/// assert!(!format!("{options:?}").contains("sk-secret"));
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    /// The API's base URL, without a trailing slash (e.g. `…/v1` for
    /// OpenAI-compatible servers).
    pub base_url: String,
    /// The API key, if the server wants one. Never printed.
    pub api_key: Option<String>,
    /// The limit for one attempt: until the whole answer has arrived, or for
    /// a stream until its headers have. Default 120 s.
    pub timeout: Duration,
    /// For streams: the longest wait between two chunks. Default 60 s.
    pub stall_timeout: Duration,
    /// Retries after the first attempt on 429, 5xx and connection errors.
    /// Default 3.
    pub max_retries: u32,
    /// The first backoff delay; it doubles on each retry (with jitter).
    /// Default 500 ms.
    pub initial_backoff: Duration,
    /// The longest backoff delay, and the longest `Retry-After` waited for:
    /// a longer one fails the call at once with [`LlmError::RateLimited`](crate::LlmError::RateLimited).
    /// Default 30 s.
    pub max_backoff: Duration,
}

impl HttpOptions {
    /// Options for `base_url` with no key and the defaults.
    pub fn new(base_url: impl Into<String>) -> Self {
        HttpOptions {
            base_url: base_url.into().trim_end_matches('/').to_string(),
            api_key: None,
            timeout: Duration::from_secs(120),
            stall_timeout: Duration::from_secs(60),
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
        }
    }

    /// Sets the API key.
    #[must_use]
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Sets the per-attempt timeout.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the longest wait between two chunks of a stream.
    #[must_use]
    pub fn stall_timeout(mut self, timeout: Duration) -> Self {
        self.stall_timeout = timeout;
        self
    }

    /// Sets how many times a failed attempt is retried.
    #[must_use]
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// Sets the first and the longest backoff delay.
    #[must_use]
    pub fn backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_backoff = initial;
        self.max_backoff = max;
        self
    }
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpOptions")
            .field("base_url", &self.base_url)
            .field(
                "api_key",
                &self
                    .api_key
                    .as_ref()
                    .map(|_| "<redacted>")
                    .unwrap_or("<none>"),
            )
            .field("timeout", &self.timeout)
            .field("stall_timeout", &self.stall_timeout)
            .field("max_retries", &self.max_retries)
            .field("initial_backoff", &self.initial_backoff)
            .field("max_backoff", &self.max_backoff)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_trims_the_base_url_and_sets_the_defaults() {
        let options = HttpOptions::new("http://127.0.0.1:8080/v1//");
        assert_eq!(options.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(options.api_key, None);
        assert_eq!(options.timeout, Duration::from_secs(120));
        assert_eq!(options.stall_timeout, Duration::from_secs(60));
        assert_eq!(options.max_retries, 3);
        assert_eq!(options.initial_backoff, Duration::from_millis(500));
        assert_eq!(options.max_backoff, Duration::from_secs(30));
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let with_key = format!("{:?}", HttpOptions::new("x").api_key("sk-abcdef"));
        assert!(with_key.contains("<redacted>"), "{with_key}");
        assert!(!with_key.contains("sk-abcdef"), "{with_key}");
        let without = format!("{:?}", HttpOptions::new("x"));
        assert!(without.contains("<none>"), "{without}");
    }
}
