//! Watching an answer arrive: a call whose text pieces are handed to an
//! observer as the model generates them (a display shows the model
//! thinking), and which returns the whole answer like [`ChatModel::chat`].

use futures_util::StreamExt;

use crate::{ChatModel, ChatRequest, ChatResponse, FinishReason, LlmError, StreamDelta};

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
    chat_observed_until(model, request, on_text, &|_| false).await
}

/// [`chat_observed`] that stops reading as soon as `enough` says the text
/// so far is enough (it is asked after each piece): the stream is dropped
/// (the local model stops generating, an HTTP stream is closed) and the
/// answer is the text so far, with [`FinishReason::Cut`] and, as no
/// provider counts an answer it did not finish, one output token counted
/// per piece received. A model that does not stream is called whole and
/// never cut.
pub async fn chat_observed_until(
    model: &dyn ChatModel,
    request: &ChatRequest,
    on_text: TextObserver<'_>,
    enough: &(dyn Fn(&str) -> bool + Send + Sync),
) -> Result<ChatResponse, LlmError> {
    if !model.streams_tokens() || !request.tools.is_empty() {
        return model.chat(request).await;
    }
    let mut stream = model.chat_stream(request).await?;
    let mut response = ChatResponse::default();
    let mut pieces: u64 = 0;
    while let Some(delta) = stream.next().await {
        match delta? {
            StreamDelta::Text { text } => {
                on_text(&text);
                response.text.push_str(&text);
                pieces += 1;
                if enough(&response.text) {
                    response.finish_reason = FinishReason::Cut;
                    response.usage.output_tokens = pieces;
                    return Ok(response);
                }
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::{DeltaStream, Message, Usage};

    /// A model that streams its answer in fixed pieces and counts how many
    /// the reader took.
    struct Pieces(
        &'static [&'static str],
        std::sync::Arc<std::sync::atomic::AtomicUsize>,
    );

    #[async_trait::async_trait]
    impl ChatModel for Pieces {
        fn name(&self) -> &str {
            "pieces"
        }
        fn streams_tokens(&self) -> bool {
            true
        }
        async fn chat(&self, _: &ChatRequest) -> Result<ChatResponse, LlmError> {
            unreachable!("a streaming model is read as a stream")
        }
        async fn chat_stream(&self, _: &ChatRequest) -> Result<DeltaStream, LlmError> {
            let taken = self.1.clone();
            let deltas = self
                .0
                .iter()
                .map(|text| StreamDelta::Text {
                    text: text.to_string(),
                })
                .chain([StreamDelta::Done {
                    usage: Usage {
                        input_tokens: 9,
                        output_tokens: self.0.len() as u64,
                    },
                    finish_reason: FinishReason::Stop,
                }])
                .map(move |delta| {
                    taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    Ok(delta)
                });
            Ok(Box::pin(futures_util::stream::iter(deltas)))
        }
    }

    #[tokio::test]
    async fn a_reader_with_enough_cuts_the_stream_and_reads_no_further() {
        let taken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let model = Pieces(&["Hel", "lo", " world", "!"], taken.clone());
        let request = ChatRequest::new().message(Message::user("hi"));
        let heard = std::sync::Mutex::new(String::new());
        let on_text = |text: &str| heard.lock().unwrap().push_str(text);
        let cut = chat_observed_until(&model, &request, &on_text, &|so_far| so_far.ends_with("lo"))
            .await
            .unwrap();
        assert_eq!(cut.text, "Hello");
        assert_eq!(*heard.lock().unwrap(), "Hello");
        assert_eq!(cut.finish_reason, FinishReason::Cut);
        assert_eq!(
            cut.usage,
            Usage {
                input_tokens: 0,
                output_tokens: 2
            }
        );
        assert_eq!(taken.load(std::sync::atomic::Ordering::Relaxed), 2);

        let whole = chat_observed(&model, &request, &|_| {}).await.unwrap();
        assert_eq!(whole.text, "Hello world!");
        assert_eq!(whole.finish_reason, FinishReason::Stop);
        assert_eq!(whole.usage.input_tokens, 9);
    }
}
