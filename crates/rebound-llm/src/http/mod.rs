//! HTTP plumbing shared by the hosted providers: one `reqwest` client per
//! provider and its two entry points, [`HttpClient::post_json`] and
//! [`HttpClient::post_sse`].
//!
//! - [`options`]: [`HttpOptions`], where a provider is and how patiently it
//!   is called;
//! - [`retry`]: which failures are retried, backoff, `Retry-After`;
//! - [`status`]: HTTP statuses, error bodies and error events as
//!   [`LlmError`]s;
//! - [`sse`]: Server-Sent Events with a stall timeout, decoded into
//!   [`StreamDelta`](crate::StreamDelta)s.

mod options;
mod retry;
mod sse;
mod status;

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::{ErrorSource, LlmError};
pub use options::HttpOptions;
use retry::{retry_after, Failure};
pub(crate) use sse::{delta_stream, SseDecoder, SseEvents};

/// One provider's HTTP client.
#[derive(Debug, Clone)]
pub(crate) struct HttpClient {
    client: reqwest::Client,
    options: HttpOptions,
    provider: String,
}

impl HttpClient {
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

    /// Whether failed attempts are retried (a transient failure that comes
    /// out has been retried already).
    pub(crate) fn retries(&self) -> bool {
        self.options.max_retries > 0
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
                    .map_err(|e| Failure::from(self.transport_error(e)))?;
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
        Ok(SseEvents::new(response, self.clone()))
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
            .map_err(|e| Failure::from(self.transport_error(e)))?;
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

    /// A [`LlmError::MalformedResponse`].
    pub(crate) fn malformed(&self, message: impl Into<String>) -> LlmError {
        LlmError::MalformedResponse {
            provider: self.provider.clone(),
            message: self.scrub(message.into()),
        }
    }

    /// A [`LlmError::Timeout`] after `timeout`.
    fn timeout(&self, timeout: Duration) -> LlmError {
        LlmError::Timeout {
            provider: self.provider.clone(),
            timeout,
        }
    }

    /// The error for a failure of `reqwest`: a timeout, an undecodable body,
    /// or else a [`LlmError::Transport`] that keeps `error` as its source.
    fn transport_error(&self, error: reqwest::Error) -> LlmError {
        if error.is_timeout() {
            return self.timeout(self.options.timeout);
        }
        if error.is_decode() {
            return self.malformed(error_chain(&error));
        }
        LlmError::Transport {
            provider: self.provider.clone(),
            message: self.scrub(error_chain(&error)),
            source: ErrorSource::new(error),
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

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    /// The address of a port nothing listens on.
    fn closed_port() -> std::net::SocketAddr {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        addr
    }

    #[tokio::test]
    async fn a_refused_connection_keeps_reqwest_s_error_as_its_source() {
        let options = HttpOptions::new(format!("http://{}", closed_port())).max_retries(0);
        let client = HttpClient::new("test", options).unwrap();
        let error = client
            .post_json("/v1/chat", &HeaderMap::new(), &serde_json::json!({}))
            .await
            .unwrap_err();
        let LlmError::Transport { ref message, .. } = error else {
            panic!("not a transport error: {error:?}");
        };
        let source = error.source().expect("the transport error has a source");
        let reqwest_error = source
            .downcast_ref::<reqwest::Error>()
            .expect("the source is reqwest's error");
        assert!(reqwest_error.is_connect(), "{reqwest_error:?}");
        assert_eq!(message, &error_chain(source));
        assert_eq!(
            error.to_string(),
            format!("test: transport error: {message}")
        );
    }

    #[test]
    fn temperatures_are_written_as_their_shortest_decimal() {
        assert_eq!(temperature_json(0.7), serde_json::json!(0.7));
        assert_eq!(temperature_json(f32::NAN), serde_json::Value::Null);
    }
}
