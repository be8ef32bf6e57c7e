//! Chat Completions streaming: `data:` chunks, ended by `[DONE]`.

use eventsource_stream::Event;
use serde_json::Value;

use super::wire::{finish_reason, usage};
use crate::http::{HttpClient, SseDecoder};
use crate::{FinishReason, LlmError, StreamDelta, Usage};

/// Reads the chunks of one streamed answer.
pub(super) struct Decoder {
    http: HttpClient,
    usage: Usage,
    finish_reason: Option<FinishReason>,
}

impl Decoder {
    pub(super) fn new(http: HttpClient) -> Self {
        Decoder {
            http,
            usage: Usage::default(),
            finish_reason: None,
        }
    }

    fn done(&self) -> StreamDelta {
        StreamDelta::Done {
            usage: self.usage,
            finish_reason: self.finish_reason.unwrap_or_default(),
        }
    }
}

impl SseDecoder for Decoder {
    fn event(&mut self, event: &Event) -> Result<Vec<StreamDelta>, LlmError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return Ok(vec![self.done()]);
        }
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            self.http
                .malformed(format!("a stream chunk is not JSON: {e}"))
        })?;
        if let Some(error) = chunk.get("error") {
            let kind = error.get("type").or_else(|| error.get("code"));
            let message = error.get("message").and_then(Value::as_str);
            return Err(self.http.error_event(
                kind.and_then(Value::as_str).unwrap_or("api_error"),
                message.unwrap_or("the server reported an error in the stream"),
            ));
        }
        if chunk.get("usage").is_some_and(|u| !u.is_null()) {
            self.usage = usage(chunk.get("usage"));
        }
        let mut deltas = Vec::new();
        let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else {
            return Ok(deltas);
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(finish_reason(Some(reason)));
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(deltas);
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            if !text.is_empty() {
                deltas.push(StreamDelta::Text {
                    text: text.to_string(),
                });
            }
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                let index = call
                    .get("index")
                    .and_then(Value::as_u64)
                    .map_or(position, |i| usize::try_from(i).unwrap_or(position));
                let function = call.get("function");
                let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
                let arguments = match function.and_then(|f| f.get("arguments")) {
                    Some(Value::String(piece)) => piece.clone(),
                    Some(Value::Null) | None => String::new(),
                    Some(object) => object.to_string(),
                };
                deltas.push(StreamDelta::ToolCall {
                    index,
                    id: text(call.get("id")),
                    name: text(function.and_then(|f| f.get("name"))),
                    arguments,
                });
            }
        }
        Ok(deltas)
    }

    fn end(&mut self) -> Result<Vec<StreamDelta>, LlmError> {
        // Some servers close without `[DONE]`; a finish reason is enough.
        if self.finish_reason.is_some() {
            Ok(vec![self.done()])
        } else {
            Err(self
                .http
                .malformed("the stream ended before the answer was complete"))
        }
    }
}
