//! [`OpenAiModel`]: OpenAI-compatible Chat Completions (OpenAI, vLLM,
//! llama.cpp's server, Ollama's `/v1`, LM Studio, OpenRouter).

mod stream;
mod wire;

use async_trait::async_trait;

use crate::http::{delta_stream, HttpClient, HttpOptions};
use crate::{ChatModel, ChatRequest, ChatResponse, DeltaStream, LlmError};

/// The default base URL of `from_env`.
const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Ollama's address when `OLLAMA_HOST` is not set.
const DEFAULT_OLLAMA_HOST: &str = "http://127.0.0.1:11434";

/// A model behind an OpenAI-compatible Chat Completions endpoint
/// (`POST {base}/chat/completions`).
///
/// ```
/// use rebound_llm::{ChatModel, HttpOptions, OpenAiModel};
/// let model = OpenAiModel::new("gpt-4o-mini", HttpOptions::new("http://127.0.0.1:8080/v1")).unwrap();
/// assert_eq!(model.name(), "openai:gpt-4o-mini");
/// assert!(model.enforces_schema());
/// ```
///
/// A call to a server on this machine (llama.cpp's `llama-server`, vLLM,
/// LM Studio), streamed:
///
/// ```no_run
/// use futures_util::StreamExt;
/// use rebound_llm::{ChatModel, ChatRequest, HttpOptions, Message, OpenAiModel, StreamDelta};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), rebound_llm::LlmError> {
/// let model = OpenAiModel::new("qwen2.5-coder", HttpOptions::new("http://127.0.0.1:8080/v1"))?;
/// let request = ChatRequest::new().message(Message::user("Say hi")).max_tokens(16);
/// let mut pieces = model.chat_stream(&request).await?;
/// while let Some(piece) = pieces.next().await {
///     if let StreamDelta::Text { text } = piece? {
///         print!("{text}");
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiModel {
    model: String,
    name: String,
    http: HttpClient,
    schema_mode: bool,
}

impl OpenAiModel {
    /// `model` at the server and with the key of `options`.
    pub fn new(model: impl Into<String>, options: HttpOptions) -> Result<Self, LlmError> {
        let model = model.into();
        Ok(OpenAiModel {
            name: format!("openai:{model}"),
            http: HttpClient::new("openai", options)?,
            model,
            schema_mode: true,
        })
    }

    /// `model` with the key from `OPENAI_API_KEY` and the base URL from
    /// `OPENAI_BASE_URL` (default: OpenAI's). The key may be missing only
    /// when `OPENAI_BASE_URL` names another server.
    pub fn from_env(model: impl Into<String>) -> Result<Self, LlmError> {
        Self::from_lookup(model, |name| std::env::var(name).ok())
    }

    /// `from_env` with the variables read through `lookup`.
    pub(crate) fn from_lookup(
        model: impl Into<String>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, LlmError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let base_url = get("OPENAI_BASE_URL");
        let key = get("OPENAI_API_KEY");
        if key.is_none() && base_url.is_none() {
            return Err(LlmError::Config(
                "openai: no API key: set OPENAI_API_KEY (or OPENAI_BASE_URL for a server that needs none)"
                    .to_string(),
            ));
        }
        let mut options =
            HttpOptions::new(base_url.unwrap_or_else(|| DEFAULT_BASE_URL.to_string()));
        options.api_key = key;
        Self::new(model, options)
    }

    /// `model` on the Ollama server of this machine (`OLLAMA_HOST`, default
    /// `http://127.0.0.1:11434`), through its OpenAI-compatible `/v1`; no key.
    pub fn ollama(model: impl Into<String>) -> Result<Self, LlmError> {
        Self::ollama_from_lookup(model, |name| std::env::var(name).ok())
    }

    /// `ollama` with the variables read through `lookup`.
    pub(crate) fn ollama_from_lookup(
        model: impl Into<String>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, LlmError> {
        let host = lookup("OLLAMA_HOST")
            .map(|h| h.trim().trim_end_matches('/').to_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| DEFAULT_OLLAMA_HOST.to_string());
        let host = if host.contains("://") {
            host
        } else {
            format!("http://{host}")
        };
        let model = model.into();
        let mut this = Self::new(model.clone(), HttpOptions::new(format!("{host}/v1")))?;
        this.name = format!("ollama:{model}");
        Ok(this)
    }

    /// Whether `response_schema` is sent as `response_format` (the default);
    /// turn it off for a server without JSON-schema mode, and the schema is
    /// put in the prompt instead.
    #[must_use]
    pub fn with_schema_mode(mut self, on: bool) -> Self {
        self.schema_mode = on;
        self
    }

    fn headers(&self) -> Result<reqwest::header::HeaderMap, LlmError> {
        match &self.http.options().api_key {
            Some(key) => self
                .http
                .headers(&[("authorization", &format!("Bearer {key}"))]),
            None => self.http.headers(&[]),
        }
    }
}

#[async_trait]
impl ChatModel for OpenAiModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn retries_transient(&self) -> bool {
        self.http.retries()
    }

    fn enforces_schema(&self) -> bool {
        self.schema_mode
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let body = wire::request_body(&self.model, request, false, self.schema_mode);
        let answer = self
            .http
            .post_json("/chat/completions", &self.headers()?, &body)
            .await?;
        wire::parse_response(&answer).map_err(|message| self.http.malformed(message))
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<DeltaStream, LlmError> {
        let body = wire::request_body(&self.model, request, true, self.schema_mode);
        let events = self
            .http
            .post_sse("/chat/completions", &self.headers()?, &body)
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

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn from_env_needs_a_key_for_the_default_server() {
        let error = OpenAiModel::from_lookup("m", env(&[])).unwrap_err();
        assert!(error.to_string().contains("OPENAI_API_KEY"), "{error}");
        let model = OpenAiModel::from_lookup("m", env(&[("OPENAI_API_KEY", "k")])).unwrap();
        assert_eq!(model.http.options().base_url, DEFAULT_BASE_URL);
        let local =
            OpenAiModel::from_lookup("m", env(&[("OPENAI_BASE_URL", "http://h:1/v1/")])).unwrap();
        assert_eq!(local.http.options().base_url, "http://h:1/v1");
        assert_eq!(local.http.options().api_key, None);
    }

    #[test]
    fn ollama_uses_ollama_host() {
        let default = OpenAiModel::ollama_from_lookup("q", env(&[])).unwrap();
        assert_eq!(default.http.options().base_url, "http://127.0.0.1:11434/v1");
        assert_eq!(default.name(), "ollama:q");
        let custom =
            OpenAiModel::ollama_from_lookup("q", env(&[("OLLAMA_HOST", "gpu-box:9999")])).unwrap();
        assert_eq!(custom.http.options().base_url, "http://gpu-box:9999/v1");
    }
}
