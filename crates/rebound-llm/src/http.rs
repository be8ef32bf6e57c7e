//! HTTP plumbing shared by the hosted providers: options, one `reqwest`
//! client, retries with exponential backoff and jitter, the mapping of HTTP
//! failures to [`LlmError`], and Server-Sent Events with a stall timeout.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures_core::Stream;
use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};

use crate::{DeltaStream, LlmError, StreamDelta};

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
    /// a longer one fails the call at once with [`LlmError::RateLimited`].
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

/// A failed attempt, with the delay the server asked for.
struct Failure {
    error: LlmError,
    retry_after: Option<Duration>,
}

impl From<LlmError> for Failure {
    fn from(error: LlmError) -> Self {
        Failure {
            error,
            retry_after: None,
        }
    }
}

/// One provider's HTTP client.
#[derive(Debug, Clone)]
pub(crate) struct HttpClient {
    client: reqwest::Client,
    options: HttpOptions,
    provider: String,
}

impl HttpClient {
    /// Whether failed attempts are retried (a transient failure that comes
    /// out has been retried already).
    pub(crate) fn retries(&self) -> bool {
        self.options.max_retries > 0
    }

    /// A client for `provider` (its name in errors).
    pub(crate) fn new(provider: &str, options: HttpOptions) -> Result<Self, LlmError> {
        let client = reqwest::Client::builder().build().map_err(|e| {
            LlmError::Config(format!("{provider}: cannot build the HTTP client: {e}"))
        })?;
        Ok(HttpClient {
            client,
            options,
            provider: provider.to_string(),
        })
    }

    /// The options.
    pub(crate) fn options(&self) -> &HttpOptions {
        &self.options
    }

    /// A header map from `(name, value)` pairs; values are marked sensitive
    /// so they never show in debug output.
    pub(crate) fn headers(&self, pairs: &[(&'static str, &str)]) -> Result<HeaderMap, LlmError> {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            let mut value = HeaderValue::from_str(value).map_err(|_| {
                LlmError::Config(format!(
                    "{}: the value of the {name} header has characters a header cannot carry",
                    self.provider
                ))
            })?;
            value.set_sensitive(true);
            headers.insert(HeaderName::from_static(name), value);
        }
        Ok(headers)
    }

    /// POSTs `body` to `{base}{path}` and reads a JSON answer, retrying
    /// transient failures.
    pub(crate) async fn post_json(
        &self,
        path: &str,
        headers: &HeaderMap,
        body: &serde_json::Value,
    ) -> Result<serde_json::Value, LlmError> {
        self.with_retries(|| async {
            let attempt = async {
                let response = self.send(path, headers, body).await?;
                let bytes = response
                    .bytes()
                    .await
                    .map_err(|e| Failure::from(self.transport_error(&e)))?;
                serde_json::from_slice(&bytes).map_err(|e| {
                    Failure::from(self.malformed(format!("the body is not JSON: {e}")))
                })
            };
            match tokio::time::timeout(self.options.timeout, attempt).await {
                Ok(result) => result,
                Err(_) => Err(self.timeout(self.options.timeout).into()),
            }
        })
        .await
    }

    /// POSTs `body` to `{base}{path}` and returns its Server-Sent Events,
    /// retrying transient failures until the answer's headers arrive.
    pub(crate) async fn post_sse(
        &self,
        path: &str,
        headers: &HeaderMap,
        body: &serde_json::Value,
    ) -> Result<SseEvents, LlmError> {
        let response = self
            .with_retries(|| async {
                match tokio::time::timeout(self.options.timeout, self.send(path, headers, body))
                    .await
                {
                    Ok(result) => result,
                    Err(_) => Err(self.timeout(self.options.timeout).into()),
                }
            })
            .await?;
        Ok(SseEvents {
            inner: Box::pin(response.bytes_stream().eventsource()),
            client: self.clone(),
        })
    }

    /// One attempt: the response if its status is a success.
    async fn send(
        &self,
        path: &str,
        headers: &HeaderMap,
        body: &serde_json::Value,
    ) -> Result<reqwest::Response, Failure> {
        let url = format!("{}{path}", self.options.base_url);
        let response = self
            .client
            .post(url)
            .headers(headers.clone())
            .json(body)
            .send()
            .await
            .map_err(|e| Failure::from(self.transport_error(&e)))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry_after(response.headers());
        let text = response.text().await.unwrap_or_default();
        Err(Failure {
            error: self.status_error(status.as_u16(), retry_after, &text),
            retry_after,
        })
    }

    /// Runs `attempt` until it succeeds, fails for good, or the retries are
    /// used up.
    async fn with_retries<T, F, Fut>(&self, mut attempt: F) -> Result<T, LlmError>
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
            let retryable = matches!(
                failure.error,
                LlmError::RateLimited { .. } | LlmError::Server { .. } | LlmError::Transport { .. }
            );
            if !retryable || retries >= self.options.max_retries {
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

    /// The error for an unsuccessful HTTP status.
    fn status_error(&self, status: u16, retry_after: Option<Duration>, body: &str) -> LlmError {
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

    /// A [`LlmError::MalformedResponse`].
    pub(crate) fn malformed(&self, message: impl Into<String>) -> LlmError {
        LlmError::MalformedResponse {
            provider: self.provider.clone(),
            message: self.scrub(message.into()),
        }
    }

    fn timeout(&self, timeout: Duration) -> LlmError {
        LlmError::Timeout {
            provider: self.provider.clone(),
            timeout,
        }
    }

    fn transport_error(&self, error: &reqwest::Error) -> LlmError {
        if error.is_timeout() {
            return self.timeout(self.options.timeout);
        }
        if error.is_decode() {
            return self.malformed(error_chain(error));
        }
        LlmError::Transport {
            provider: self.provider.clone(),
            message: self.scrub(error_chain(error)),
        }
    }

    /// `text` with the API key, should it appear, replaced.
    fn scrub(&self, text: String) -> String {
        match &self.options.api_key {
            Some(key) if key.len() >= 4 && text.contains(key.as_str()) => {
                text.replace(key.as_str(), "<redacted>")
            }
            _ => text,
        }
    }
}

/// A temperature as JSON, written as its shortest decimal (`0.7`, not the
/// `0.699999988…` that widening the `f32` would give).
pub(crate) fn temperature_json(temperature: f32) -> serde_json::Value {
    temperature
        .to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(serde_json::Value::Null, serde_json::Value::Number)
}

/// An error and its sources, on one line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The delay a `Retry-After` (seconds) or `retry-after-ms` header asks for.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
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
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
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

type RawEvents =
    Pin<Box<dyn Stream<Item = Result<Event, EventStreamError<reqwest::Error>>> + Send>>;

/// The Server-Sent Events of one answer.
pub(crate) struct SseEvents {
    inner: RawEvents,
    client: HttpClient,
}

impl SseEvents {
    /// The next event; a wait longer than the stall timeout is an error.
    async fn next(&mut self) -> Option<Result<Event, LlmError>> {
        let stall = self.client.options.stall_timeout;
        match tokio::time::timeout(stall, self.inner.next()).await {
            Err(_) => Some(Err(self.client.timeout(stall))),
            Ok(None) => None,
            Ok(Some(Ok(event))) => Some(Ok(event)),
            Ok(Some(Err(EventStreamError::Transport(e)))) => {
                Some(Err(self.client.transport_error(&e)))
            }
            Ok(Some(Err(e))) => Some(Err(self.client.malformed(format!("bad event stream: {e}")))),
        }
    }
}

/// Turns one provider's events into [`StreamDelta`]s.
pub(crate) trait SseDecoder: Send + 'static {
    /// The deltas of one event. A [`StreamDelta::Done`] ends the stream.
    fn event(&mut self, event: &Event) -> Result<Vec<StreamDelta>, LlmError>;

    /// The deltas (or the error) when the stream ends without a `Done`.
    fn end(&mut self) -> Result<Vec<StreamDelta>, LlmError>;
}

struct DecodeState<D> {
    events: SseEvents,
    decoder: D,
    queue: VecDeque<Result<StreamDelta, LlmError>>,
    finished: bool,
}

/// The deltas `decoder` reads from `events`; the stream ends after `Done`
/// or the first error.
pub(crate) fn delta_stream<D: SseDecoder>(events: SseEvents, decoder: D) -> DeltaStream {
    let state = DecodeState {
        events,
        decoder,
        queue: VecDeque::new(),
        finished: false,
    };
    Box::pin(futures_util::stream::unfold(
        state,
        |mut state| async move {
            loop {
                if let Some(item) = state.queue.pop_front() {
                    return Some((item, state));
                }
                if state.finished {
                    return None;
                }
                let decoded = match state.events.next().await {
                    Some(Ok(event)) => state.decoder.event(&event),
                    Some(Err(error)) => Err(error),
                    None => {
                        state.finished = true;
                        state.decoder.end()
                    }
                };
                match decoded {
                    Ok(deltas) => {
                        if deltas.iter().any(|d| matches!(d, StreamDelta::Done { .. })) {
                            state.finished = true;
                        }
                        state.queue.extend(deltas.into_iter().map(Ok));
                    }
                    Err(error) => {
                        state.finished = true;
                        state.queue.push_back(Err(error));
                    }
                }
            }
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let in_two_minutes = std::time::SystemTime::now() + Duration::from_secs(120);
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
