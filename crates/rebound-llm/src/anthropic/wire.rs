//! The Messages API wire format: request bodies and answers.

use serde_json::{json, Map, Value};

use crate::http::temperature_json;
use crate::{ChatRequest, ChatResponse, FinishReason, Message, Role, ToolCall, Usage};

/// The body of a Messages request.
pub(super) fn request_body(
    model: &str,
    request: &ChatRequest,
    default_max_tokens: u32,
    stream: bool,
) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert(
        "max_tokens".into(),
        json!(request.max_tokens.unwrap_or(default_max_tokens)),
    );
    if let Some(system) = &request.system {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), messages(&request.messages));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": tool.parameters,
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), temperature_json(temperature));
    }
    if !request.stop.is_empty() {
        body.insert("stop_sequences".into(), json!(request.stop));
    }
    if stream {
        body.insert("stream".into(), json!(true));
    }
    Value::Object(body)
}

/// The conversation as content blocks. Tool results are user messages, and
/// consecutive messages of one role merge into one (the API wants the roles
/// to alternate).
fn messages(messages: &[Message]) -> Value {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in messages {
        let (role, blocks) = blocks(message);
        match out.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => out.push((role, blocks)),
        }
    }
    Value::Array(
        out.into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect(),
    )
}

/// One message's role on the wire and its content blocks.
fn blocks(message: &Message) -> (&'static str, Vec<Value>) {
    let text = || json!({"type": "text", "text": message.content});
    match message.role {
        Role::User => ("user", vec![text()]),
        Role::Assistant => {
            let mut blocks = Vec::with_capacity(1 + message.tool_calls.len());
            // The API rejects empty text blocks.
            if !message.content.is_empty() || message.tool_calls.is_empty() {
                blocks.push(text());
            }
            blocks.extend(message.tool_calls.iter().map(|call| {
                json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
            }));
            ("assistant", blocks)
        }
        Role::Tool => (
            "user",
            vec![json!({
                "type": "tool_result",
                "tool_use_id": message.tool_call_id.as_deref().unwrap_or_default(),
                "content": message.content,
            })],
        ),
    }
}

/// Reads a Messages answer; the error says what was wrong.
pub(super) fn parse_response(answer: &Value) -> Result<ChatResponse, String> {
    let content = answer
        .get("content")
        .and_then(Value::as_array)
        .ok_or("the answer has no content list")?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for (index, block) in content.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use") => {
                let field = |name| {
                    block
                        .get(name)
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .ok_or_else(|| format!("content[{index}] (tool_use) has no {name}"))
                };
                tool_calls.push(ToolCall {
                    id: field("id")?,
                    name: field("name")?,
                    arguments: block.get("input").cloned().unwrap_or_else(|| json!({})),
                });
            }
            // Thinking and other blocks carry nothing the caller asked for.
            _ => {}
        }
    }
    Ok(ChatResponse {
        text,
        tool_calls,
        usage: usage(answer.get("usage"), Usage::default()),
        finish_reason: stop_reason(answer.get("stop_reason").and_then(Value::as_str)),
    })
}

/// `usage.input_tokens` / `usage.output_tokens`, each kept from `previous`
/// when absent.
pub(super) fn usage(usage: Option<&Value>, previous: Usage) -> Usage {
    let count = |name| usage.and_then(|u| u.get(name)).and_then(Value::as_u64);
    Usage {
        input_tokens: count("input_tokens").unwrap_or(previous.input_tokens),
        output_tokens: count("output_tokens").unwrap_or(previous.output_tokens),
    }
}

/// A `stop_reason`.
pub(super) fn stop_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        None | Some("end_turn") => FinishReason::Stop,
        Some("max_tokens") => FinishReason::Length,
        Some("tool_use") => FinishReason::ToolCalls,
        Some(_) => FinishReason::Other,
    }
}
