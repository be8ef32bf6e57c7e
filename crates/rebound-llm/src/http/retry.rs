//! Retries: which failures are retried, the backoff between attempts
//! (exponential, capped, with jitter), and the delay a server asks for in
//! `Retry-After` (seconds or an HTTP date) or `retry-after-ms`.

use std::future::Future;
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, RETRY_AFTER};

use super::HttpClient;
use crate::LlmError;

/// A failed attempt, with the delay the server asked for.
pub(super) struct Failure {
    /// Why the attempt failed.
    pub(super) error: LlmError,
    /// The server's `Retry-After`, if it sent one.
    pub(super) retry_after: Option<Duration>,
}

impl From<LlmError> for Failure {
    fn from(error: LlmError) -> Self {
        Failure {
            error,
            retry_after: None,
        }
    }
}

/// Whether an attempt that failed with `error` is tried again: rate limits,
/// 5xx and connection failures; not timeouts, nor anything the request
/// itself caused.
fn is_retried(error: &LlmError) -> bool {
    matches!(
        error,
        LlmError::RateLimited { .. } | LlmError::Server { .. } | LlmError::Transport { .. }
    )
}

impl HttpClient {
    /// Runs `attempt` until it succeeds, fails for good, or the retries are
    /// used up. A `Retry-After` longer than the longest backoff fails the
    /// call at once.
    pub(super) async fn with_retries<T, F, Fut>(&self, mut attempt: F) -> Result<T, LlmError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let mut retries = 0;
        loop {
            let failure = match attempt().await {
                Ok(value) => return Ok(value),
                Err(failure) => failure,
            };
            if !is_retried(&failure.error) || retries >= self.options.max_retries {
                return Err(failure.error);
            }
            let delay = match failure.retry_after {
                Some(delay) if delay > self.options.max_backoff => return Err(failure.error),
                Some(delay) => delay,
                None => self.backoff(retries),
            };
            retries += 1;
            tokio::time::sleep(delay).await;
        }
    }

    /// The delay before retry number `retries + 1`: exponential, capped,
    /// with "equal jitter" (between half and all of it).
    fn backoff(&self, retries: u32) -> Duration {
        let exponential = self
            .options
            .initial_backoff
            .saturating_mul(2u32.saturating_pow(retries.min(16)));
        let capped = exponential.min(self.options.max_backoff);
        capped.mul_f64(0.5 + fastrand::f64() * 0.5)
    }
}

/// The delay a `Retry-After` (seconds or an HTTP date) or `retry-after-ms`
/// header asks for; `retry-after-ms` wins when both are there.
pub(super) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    let value = header(RETRY_AFTER.as_str())?.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    // An HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`): the time until then.
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;
    use crate::HttpOptions;

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let c = HttpClient::new(
            "t",
            HttpOptions::new("x").backoff(Duration::from_millis(100), Duration::from_millis(300)),
        )
        .unwrap();
        for _ in 0..20 {
            let first = c.backoff(0);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
            let third = c.backoff(5);
            assert!(third >= Duration::from_millis(150) && third <= Duration::from_millis(300));
        }
    }

    #[test]
    fn only_transient_failures_other_than_timeouts_are_retried() {
        let provider = || "p".to_string();
        assert!(is_retried(&LlmError::RateLimited {
            provider: provider(),
            retry_after: None
        }));
        assert!(is_retried(&LlmError::Server {
            provider: provider(),
            status: 502,
            message: String::new()
        }));
        assert!(!is_retried(&LlmError::Timeout {
            provider: provider(),
            timeout: Duration::from_secs(1)
        }));
        assert!(!is_retried(&LlmError::Authentication {
            provider: provider()
        }));
        assert!(!is_retried(&LlmError::BadRequest {
            provider: provider(),
            message: String::new()
        }));
    }

    #[test]
    fn retry_after_reads_seconds_and_milliseconds() {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(150)));
    }

    #[test]
    fn retry_after_reads_an_http_date() {
        let mut headers = HeaderMap::new();
        let in_two_minutes = SystemTime::now() + Duration::from_secs(120);
        let date = httpdate::fmt_http_date(in_two_minutes);
        headers.insert(RETRY_AFTER, HeaderValue::from_str(&date).unwrap());
        let wait = retry_after(&headers).unwrap();
        assert!(
            wait > Duration::from_secs(100) && wait <= Duration::from_secs(120),
            "{wait:?}"
        );
        headers.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&headers), Some(Duration::ZERO));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers), None);
    }
}
