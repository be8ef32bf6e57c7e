#![doc = include_str!("../README.md")]

mod anthropic;
mod catalog;
mod cut_json;
mod error;
mod http;
#[cfg(feature = "local")]
pub mod local;
mod local_runtime;
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
pub use local_runtime::{local_runtime, LocalRuntime};
pub use message::{invalid_arguments, Message, Role, ToolCall, ToolDefinition, INVALID_ARGUMENTS};
pub use model::{ChatModel, DeltaStream};
pub use observe::{chat_observed, chat_observed_until, TextObserver};
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

/// Whether this build has the embedded llama.cpp model (the `local`
/// feature): without it, `local:` model strings parse but cannot be
/// opened.
pub const EMBEDDED: bool = cfg!(feature = "local");
