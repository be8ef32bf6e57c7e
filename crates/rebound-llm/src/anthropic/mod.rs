//! [`AnthropicModel`]: the Anthropic Messages API, with tool use.

mod stream;
mod wire;

use async_trait::async_trait;

use crate::http::{delta_stream, HttpClient, HttpOptions};
use crate::{ChatModel, ChatRequest, ChatResponse, DeltaStream, LlmError};

/// The default base URL of `from_env`.
const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The API version sent in `anthropic-version`.
const API_VERSION: &str = "2023-06-01";

/// A model behind the Anthropic Messages API (`POST {base}/v1/messages`).
///
/// The API has no JSON-schema mode, so [`ChatModel::enforces_schema`] is
/// false and structured output is asked for in the prompt.
///
/// ```
/// use rebound_llm::{AnthropicModel, ChatModel, HttpOptions};
/// let model = AnthropicModel::new("claude-sonnet-4", HttpOptions::new("http://127.0.0.1:8080")).unwrap();
/// assert_eq!(model.name(), "anthropic:claude-sonnet-4");
/// assert!(!model.enforces_schema());
/// ```
///
/// A call, with the key from `ANTHROPIC_API_KEY`:
///
/// ```no_run
/// use rebound_llm::{AnthropicModel, ChatModel, ChatRequest, Message};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), rebound_llm::LlmError> {
/// let model = AnthropicModel::from_env("claude-sonnet-4")?.with_default_max_tokens(1024);
/// let request = ChatRequest::new()
///     .system("Answer in one word.")
///     .message(Message::user("The capital of France?"));
/// let answer = model.chat(&request).await?;
/// println!("{} ({} tokens in)", answer.text, answer.usage.input_tokens);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct AnthropicModel {
    model: String,
    name: String,
    http: HttpClient,
    default_max_tokens: u32,
}

impl AnthropicModel {
    /// `model` at the server and with the key of `options`.
    pub fn new(model: impl Into<String>, options: HttpOptions) -> Result<Self, LlmError> {
        let model = model.into();
        Ok(AnthropicModel {
            name: format!("anthropic:{model}"),
            http: HttpClient::new("anthropic", options)?,
            model,
            default_max_tokens: 4096,
        })
    }

    /// `model` with the key from `ANTHROPIC_API_KEY` (required) and the base
    /// URL from `ANTHROPIC_BASE_URL` (default: Anthropic's).
    pub fn from_env(model: impl Into<String>) -> Result<Self, LlmError> {
        Self::from_lookup(model, |name| std::env::var(name).ok())
    }

    /// `from_env` with the variables read through `lookup`.
    pub(crate) fn from_lookup(
        model: impl Into<String>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, LlmError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let key = get("ANTHROPIC_API_KEY").ok_or_else(|| {
            LlmError::Config("anthropic: no API key: set ANTHROPIC_API_KEY".to_string())
        })?;
        let base_url = get("ANTHROPIC_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        Self::new(model, HttpOptions::new(base_url).api_key(key))
    }

    /// The `max_tokens` sent when the request sets none (the API requires
    /// one). Default 4096.
    #[must_use]
    pub fn with_default_max_tokens(mut self, tokens: u32) -> Self {
        self.default_max_tokens = tokens;
        self
    }

    fn headers(&self) -> Result<reqwest::header::HeaderMap, LlmError> {
        let key = self.http.options().api_key.as_deref();
        let mut pairs = vec![("anthropic-version", API_VERSION)];
        if let Some(key) = key {
            pairs.push(("x-api-key", key));
        }
        self.http.headers(&pairs)
    }
}

#[async_trait]
impl ChatModel for AnthropicModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn retries_transient(&self) -> bool {
        self.http.retries()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let body = wire::request_body(&self.model, request, self.default_max_tokens, false);
        let answer = self
            .http
            .post_json("/v1/messages", &self.headers()?, &body)
            .await?;
        wire::parse_response(&answer).map_err(|message| self.http.malformed(message))
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<DeltaStream, LlmError> {
        let body = wire::request_body(&self.model, request, self.default_max_tokens, true);
        let events = self
            .http
            .post_sse("/v1/messages", &self.headers()?, &body)
            .await?;
        Ok(delta_stream(
            events,
            stream::Decoder::new(self.http.clone()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_env_needs_a_key() {
        let error = AnthropicModel::from_lookup("m", |_| None).unwrap_err();
        assert!(error.to_string().contains("ANTHROPIC_API_KEY"), "{error}");
        let model = AnthropicModel::from_lookup("m", |name| {
            (name == "ANTHROPIC_API_KEY").then(|| "k".to_string())
        })
        .unwrap();
        assert_eq!(model.http.options().base_url, DEFAULT_BASE_URL);
    }
}
