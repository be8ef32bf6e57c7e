//! Watching an answer arrive: a call whose text pieces are handed to an
//! observer as the model generates them (a display shows the model
//! thinking), and which returns the whole answer like [`ChatModel::chat`].

use futures_util::StreamExt;

use crate::{ChatModel, ChatRequest, ChatResponse, LlmError, StreamDelta};

/// What is told each piece of text as it arrives.
pub type TextObserver<'a> = &'a (dyn Fn(&str) + Send + Sync);

/// Calls `model` once, handing every piece of the answer's text to
/// `on_text` as it arrives, and returns the whole answer. A model that
/// does not stream tokens ([`ChatModel::streams_tokens`]), or a request
/// that offers tools, is called whole (`on_text` then hears nothing).
pub async fn chat_observed(
    model: &dyn ChatModel,
    request: &ChatRequest,
    on_text: TextObserver<'_>,
) -> Result<ChatResponse, LlmError> {
    if !model.streams_tokens() || !request.tools.is_empty() {
        return model.chat(request).await;
    }
    let mut stream = model.chat_stream(request).await?;
    let mut response = ChatResponse::default();
    while let Some(delta) = stream.next().await {
        match delta? {
            StreamDelta::Text { text } => {
                on_text(&text);
                response.text.push_str(&text);
            }
            StreamDelta::ToolCall { name, .. } => {
                return Err(LlmError::MalformedResponse {
                    provider: model.name().to_string(),
                    message: format!(
                        "a tool call ({}) in an answer to a request that offers no tools",
                        name.unwrap_or_default()
                    ),
                });
            }
            StreamDelta::Done {
                usage,
                finish_reason,
            } => {
                response.usage = usage;
                response.finish_reason = finish_reason;
            }
        }
    }
    Ok(response)
}
