//! The [`ChatModel`] trait every provider implements.

use std::pin::Pin;

use async_trait::async_trait;
use futures_core::Stream;

use crate::{ChatRequest, ChatResponse, LlmError, StreamDelta};

/// A stream of answer pieces.
pub type DeltaStream = Pin<Box<dyn Stream<Item = Result<StreamDelta, LlmError>> + Send>>;

/// A chat model: hosted, local or scripted.
#[async_trait]
pub trait ChatModel: Send + Sync {
    /// A name for logs and events, e.g. `openai:gpt-4o-mini`.
    fn name(&self) -> &str;

    /// Whether the provider enforces `ChatRequest::response_schema` itself
    /// (JSON-schema mode or constrained decoding). When it does not, the
    /// schema is put in the prompt and the answer extracted tolerantly.
    fn enforces_schema(&self) -> bool {
        false
    }

    /// Whether [`ChatModel::chat_stream`] hands out the answer token by
    /// token as it is generated (not all at the end): then
    /// [`crate::chat_observed`] streams, so a display can show the model
    /// thinking.
    fn streams_tokens(&self) -> bool {
        false
    }

    /// Whether the provider retries transient failures itself (rate
    /// limits, overload, 5xx, timeouts: the HTTP providers, with backoff
    /// and `Retry-After`). Then a transient error that reaches a node has
    /// been retried already, and the node's retry policy must not retry it
    /// again (`rebound_agent::model_call::model_node_error`): one retry layer per call.
    fn retries_transient(&self) -> bool {
        false
    }

    /// One call, answered whole.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError>;

    /// One call, answered in pieces. The default answers whole, as one text
    /// piece per tool call and a final `Done`.
    async fn chat_stream(&self, request: &ChatRequest) -> Result<DeltaStream, LlmError> {
        Ok(whole_answer_stream(self.chat(request).await?))
    }
}

/// `response` as a stream: its text as one piece, one piece per tool call,
/// and `Done`.
pub(crate) fn whole_answer_stream(response: ChatResponse) -> DeltaStream {
    let mut pieces = Vec::with_capacity(2 + response.tool_calls.len());
    if !response.text.is_empty() {
        pieces.push(Ok(StreamDelta::Text {
            text: response.text,
        }));
    }
    for (index, call) in response.tool_calls.into_iter().enumerate() {
        pieces.push(Ok(StreamDelta::ToolCall {
            index,
            id: Some(call.id),
            name: Some(call.name),
            arguments: call.arguments.to_string(),
        }));
    }
    pieces.push(Ok(StreamDelta::Done {
        usage: response.usage,
        finish_reason: response.finish_reason,
    }));
    Box::pin(futures_util::stream::iter(pieces))
}
