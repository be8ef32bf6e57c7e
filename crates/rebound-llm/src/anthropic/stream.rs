//! Messages API streaming: `message_start`, `content_block_*`,
//! `message_delta`, `message_stop`, and `error` events.

use std::collections::HashMap;

use eventsource_stream::Event;
use serde_json::Value;

use super::wire::{stop_reason, usage};
use crate::http::{HttpClient, SseDecoder};
use crate::{FinishReason, LlmError, StreamDelta, Usage};

/// A tool-use block being streamed.
struct ToolBlock {
    /// Its position among the answer's tool calls.
    index: usize,
    /// Whether any argument text has been sent for it.
    sent_arguments: bool,
}

/// Reads the events of one streamed answer.
pub(super) struct Decoder {
    http: HttpClient,
    usage: Usage,
    finish_reason: FinishReason,
    /// Tool-use blocks by their content-block index.
    tools: HashMap<u64, ToolBlock>,
}

impl Decoder {
    pub(super) fn new(http: HttpClient) -> Self {
        Decoder {
            http,
            usage: Usage::default(),
            finish_reason: FinishReason::Stop,
            tools: HashMap::new(),
        }
    }
}

impl SseDecoder for Decoder {
    fn event(&mut self, event: &Event) -> Result<Vec<StreamDelta>, LlmError> {
        if event.data.trim().is_empty() {
            return Ok(Vec::new());
        }
        let data: Value = serde_json::from_str(&event.data)
            .map_err(|e| self.http.malformed(format!("an event is not JSON: {e}")))?;
        // The event name is repeated as the data's `type`.
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        let block_index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        match kind {
            "message_start" => {
                self.usage = usage(data.get("message").and_then(|m| m.get("usage")), self.usage);
                Ok(Vec::new())
            }
            "content_block_start" => {
                let block = data.get("content_block");
                match block.and_then(|b| b.get("type")).and_then(Value::as_str) {
                    Some("tool_use") => {
                        let index = self.tools.len();
                        self.tools.insert(
                            block_index,
                            ToolBlock {
                                index,
                                sent_arguments: false,
                            },
                        );
                        Ok(vec![StreamDelta::ToolCall {
                            index,
                            id: text(block.and_then(|b| b.get("id"))),
                            name: text(block.and_then(|b| b.get("name"))),
                            arguments: String::new(),
                        }])
                    }
                    Some("text") => Ok(text(block.and_then(|b| b.get("text")))
                        .filter(|t| !t.is_empty())
                        .map(|text| StreamDelta::Text { text })
                        .into_iter()
                        .collect()),
                    _ => Ok(Vec::new()),
                }
            }
            "content_block_delta" => {
                let delta = data.get("delta");
                match delta.and_then(|d| d.get("type")).and_then(Value::as_str) {
                    Some("text_delta") => Ok(text(delta.and_then(|d| d.get("text")))
                        .filter(|t| !t.is_empty())
                        .map(|text| StreamDelta::Text { text })
                        .into_iter()
                        .collect()),
                    Some("input_json_delta") => {
                        let piece =
                            text(delta.and_then(|d| d.get("partial_json"))).unwrap_or_default();
                        let Some(tool) = self.tools.get_mut(&block_index) else {
                            return Err(self.http.malformed(format!(
                                "input_json_delta for block {block_index}, which is not a tool_use block"
                            )));
                        };
                        if piece.is_empty() {
                            return Ok(Vec::new());
                        }
                        tool.sent_arguments = true;
                        Ok(vec![StreamDelta::ToolCall {
                            index: tool.index,
                            id: None,
                            name: None,
                            arguments: piece,
                        }])
                    }
                    _ => Ok(Vec::new()),
                }
            }
            "content_block_stop" => match self.tools.get_mut(&block_index) {
                // A call without arguments still gets a JSON object.
                Some(tool) if !tool.sent_arguments => {
                    tool.sent_arguments = true;
                    Ok(vec![StreamDelta::ToolCall {
                        index: tool.index,
                        id: None,
                        name: None,
                        arguments: "{}".to_string(),
                    }])
                }
                _ => Ok(Vec::new()),
            },
            "message_delta" => {
                self.usage = usage(data.get("usage"), self.usage);
                if let Some(reason) = data
                    .get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .and_then(Value::as_str)
                {
                    self.finish_reason = stop_reason(Some(reason));
                }
                Ok(Vec::new())
            }
            "message_stop" => Ok(vec![StreamDelta::Done {
                usage: self.usage,
                finish_reason: self.finish_reason,
            }]),
            "error" => {
                let error = data.get("error");
                Err(self.http.error_event(
                    error
                        .and_then(|e| e.get("type"))
                        .and_then(Value::as_str)
                        .unwrap_or("api_error"),
                    error
                        .and_then(|e| e.get("message"))
                        .and_then(Value::as_str)
                        .unwrap_or("the server reported an error in the stream"),
                ))
            }
            // `ping` and event types added later.
            _ => Ok(Vec::new()),
        }
    }

    fn end(&mut self) -> Result<Vec<StreamDelta>, LlmError> {
        Err(self.http.malformed("the stream ended before message_stop"))
    }
}
