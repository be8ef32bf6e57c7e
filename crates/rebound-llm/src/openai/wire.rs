//! The Chat Completions wire format: request bodies and answers.

use serde_json::{json, Map, Value};

use crate::http::temperature_json;
use crate::{ChatRequest, ChatResponse, FinishReason, Message, Role, ToolCall, Usage};

/// The body of a Chat Completions request.
pub(super) fn request_body(
    model: &str,
    request: &ChatRequest,
    stream: bool,
    schema_mode: bool,
) -> Value {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if let Some(system) = &request.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    messages.extend(request.messages.iter().map(message));
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    }
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let (Some(schema), true) = (&request.response_schema, schema_mode) {
        body.insert(
            "response_format".into(),
            json!({
                "type": "json_schema",
                "json_schema": {"name": schema.name, "schema": schema.schema, "strict": false}
            }),
        );
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), temperature_json(temperature));
    }
    if let Some(seed) = request.seed {
        body.insert("seed".into(), json!(seed));
    }
    if let Some(max_tokens) = request.max_tokens {
        body.insert("max_tokens".into(), json!(max_tokens));
    }
    if !request.stop.is_empty() {
        body.insert("stop".into(), json!(request.stop));
    }
    if stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(body)
}

/// One message on the wire.
fn message(message: &Message) -> Value {
    match message.role {
        Role::User => json!({"role": "user", "content": message.content}),
        Role::Assistant if message.tool_calls.is_empty() => {
            json!({"role": "assistant", "content": message.content})
        }
        Role::Assistant => {
            let calls: Vec<Value> = message
                .tool_calls
                .iter()
                .map(|call| {
                    json!({
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments.to_string()},
                    })
                })
                .collect();
            let content = if message.content.is_empty() {
                Value::Null
            } else {
                json!(message.content)
            };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        Role::Tool => json!({
            "role": "tool",
            "tool_call_id": message.tool_call_id.as_deref().unwrap_or_default(),
            "content": message.content,
        }),
    }
}

/// Reads a Chat Completions answer; the error says what was wrong.
pub(super) fn parse_response(answer: &Value) -> Result<ChatResponse, String> {
    let choice = answer
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or("the answer has no choices[0]")?;
    let message = choice.get("message").ok_or("choices[0] has no message")?;
    let text = match message.get("content") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => return Err(format!("message.content is not text: {other}")),
    };
    let mut tool_calls = Vec::new();
    if let Some(calls) = message.get("tool_calls").filter(|c| !c.is_null()) {
        let calls = calls.as_array().ok_or("message.tool_calls is not a list")?;
        for (index, call) in calls.iter().enumerate() {
            tool_calls.push(tool_call(index, call)?);
        }
    }
    Ok(ChatResponse {
        text,
        tool_calls,
        usage: usage(answer.get("usage")),
        finish_reason: finish_reason(choice.get("finish_reason").and_then(Value::as_str)),
    })
}

/// One tool call of an answer.
fn tool_call(index: usize, call: &Value) -> Result<ToolCall, String> {
    let function = call
        .get("function")
        .ok_or_else(|| format!("tool_calls[{index}] has no function"))?;
    let name = function
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("tool_calls[{index}] has no function name"))?;
    let id = call
        .get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("call_{index}"), str::to_string);
    let arguments = match function.get("arguments") {
        None | Some(Value::Null) => json!({}),
        // Arguments that are not JSON are the model's mistake, not the
        // server's: the call is kept, marked, and answered with a failed
        // tool output that says what is wrong (see `invalid_arguments`).
        Some(Value::String(text)) => parse_arguments(text)
            .unwrap_or_else(|e| crate::message::invalid_arguments(&e.to_string(), text)),
        // Some compatible servers send the object itself.
        Some(object) => object.clone(),
    };
    Ok(ToolCall {
        id,
        name: name.to_string(),
        arguments,
    })
}

/// A call's arguments from their JSON text (empty text: no arguments).
pub(super) fn parse_arguments(text: &str) -> Result<Value, serde_json::Error> {
    if text.trim().is_empty() {
        Ok(json!({}))
    } else {
        serde_json::from_str(text)
    }
}

/// `usage.prompt_tokens` / `usage.completion_tokens`.
pub(super) fn usage(usage: Option<&Value>) -> Usage {
    let count = |name| {
        usage
            .and_then(|u| u.get(name))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Usage {
        input_tokens: count("prompt_tokens"),
        output_tokens: count("completion_tokens"),
    }
}

/// A `finish_reason`.
pub(super) fn finish_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        None | Some("stop") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
        Some(_) => FinishReason::Other,
    }
}
