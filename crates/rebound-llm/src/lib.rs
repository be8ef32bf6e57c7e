//! rebound's model layer: the [`ChatModel`] trait, messages and tool
//! definitions, typed errors, structured output, model strings, and the
//! scripted model for tests. Providers implement [`ChatModel`]:
//! [`OpenAiModel`] (OpenAI-compatible Chat Completions, also Ollama's `/v1`),
//! [`AnthropicModel`] (the Messages API), [`ScriptedModel`] and, with the
//! `local` feature, `local::LocalModel` (a GGUF run through llama.cpp).
//! [`from_spec`] builds the one a model string names; [`HttpOptions`] sets
//! the URL, key, timeouts and retries of the hosted ones.
//!
//! [`chat_structured`] asks any of them for a value of a Rust type (the
//! crate's README has the same with a hosted model):
//!
//! ```
//! use rebound_llm::{chat_structured, ChatRequest, Message, ScriptedModel, Step};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! #[derive(Debug, Deserialize, JsonSchema)]
//! struct Plan {
//!     steps: Vec<String>,
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), rebound_llm::LlmError> {
//! let model = ScriptedModel::new([Step::text("```json\n{\"steps\": [\"pytest\"]}\n```")]);
//! let request = ChatRequest::new().message(Message::user("Plan the fix"));
//! let plan = chat_structured::<Plan>(&model, request).await?;
//! assert_eq!(plan.value.steps, ["pytest"]);
//! # Ok(())
//! # }
//! ```

mod anthropic;
mod catalog;
mod error;
mod http;
#[cfg(feature = "local")]
pub mod local;
mod message;
mod model;
mod observe;
mod openai;
mod providers;
mod request;
mod schema_order;
mod scripted;
mod spec;
mod structured;

pub use anthropic::AnthropicModel;
pub use catalog::{known_model, model_dir, model_dir_with, KnownModel, KNOWN_MODELS};
pub use error::{ErrorSource, LlmError};
pub use http::HttpOptions;
pub use message::{invalid_arguments, Message, Role, ToolCall, ToolDefinition, INVALID_ARGUMENTS};
pub use model::{ChatModel, DeltaStream};
pub use observe::{chat_observed, TextObserver};
pub use openai::OpenAiModel;
pub use providers::from_spec;
pub use request::{ChatRequest, ChatResponse, FinishReason, ResponseSchema, StreamDelta, Usage};
pub use schema_order::schema_text_in_required_order;
pub use scripted::{ScriptedModel, Step};
pub use spec::{LocalModel, ModelSpec};
pub use structured::{
    chat_structured, chat_structured_observed, chat_structured_with_schema, extract_json, parse,
    Structured,
};

/// The examples of the crate's README, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
