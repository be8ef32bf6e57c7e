//! rebound's model layer: the [`ChatModel`] trait, messages and tool
//! definitions, typed errors, structured output, model strings, and the
//! scripted model for tests. Providers (OpenAI-compatible, Anthropic, the
//! embedded local model) implement [`ChatModel`].
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

mod error;
mod message;
mod model;
mod request;
mod scripted;
mod spec;
mod structured;

pub use error::LlmError;
pub use message::{Message, Role, ToolCall, ToolDefinition};
pub use model::{ChatModel, DeltaStream};
pub use request::{ChatRequest, ChatResponse, FinishReason, ResponseSchema, StreamDelta, Usage};
pub use scripted::{ScriptedModel, Step};
pub use spec::{LocalModel, ModelSpec};
pub use structured::{chat_structured, extract_json, parse, Structured};
