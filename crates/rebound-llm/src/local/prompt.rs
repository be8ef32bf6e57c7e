//! Turning a [`ChatRequest`] into chat-template messages, and reading tool
//! calls back out of the model's text.
//!
//! Qwen2.5 (and other Hermes-style models) call tools by writing
//! `<tool_call>{"name": …, "arguments": {…}}</tool_call>`; the tool list is
//! rendered into the system text, briefly, because prompt processing
//! dominates a local model's latency.

use crate::{ChatRequest, Message, Role, ToolCall};

/// One message for the model's chat template: a role name and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TemplateMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub(crate) role: &'static str,
    /// The text.
    pub(crate) content: String,
}

/// The messages of `request`, system text (with the tools) first.
pub(crate) fn template_messages(request: &ChatRequest) -> Vec<TemplateMessage> {
    let mut out = Vec::with_capacity(request.messages.len() + 1);
    let mut system = request.system.clone().unwrap_or_default();
    if !request.tools.is_empty() {
        if !system.is_empty() {
            system.push_str("\n\n");
        }
        system.push_str(&tools_text(request));
    }
    if !system.is_empty() {
        out.push(TemplateMessage {
            role: "system",
            content: system,
        });
    }
    out.extend(request.messages.iter().map(template_message));
    out
}

/// The tool list, one line per tool, and how to call one.
fn tools_text(request: &ChatRequest) -> String {
    let mut text = String::from(
        "Tools you may call. To call one, answer with only \
         <tool_call>{\"name\": \"<tool>\", \"arguments\": {...}}</tool_call>\n",
    );
    for tool in &request.tools {
        let parameters = compact_parameters(&tool.parameters);
        text.push_str(&format!(
            "- {}: {} Arguments: {}\n",
            tool.name, tool.description, parameters
        ));
    }
    text.truncate(text.trim_end().len());
    text
}

/// A short rendering of an argument schema: its `properties` with their
/// types, or the whole schema when it has none.
fn compact_parameters(schema: &serde_json::Value) -> String {
    let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) else {
        return schema.to_string();
    };
    let fields: Vec<String> = properties
        .iter()
        .map(|(name, field)| {
            let kind = field
                .get("type")
                .map(|t| match t {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .unwrap_or_else(|| "any".to_string());
            format!("\"{name}\": {kind}")
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// One conversation message for the template.
fn template_message(message: &Message) -> TemplateMessage {
    match message.role {
        Role::User => TemplateMessage {
            role: "user",
            content: message.content.clone(),
        },
        Role::Assistant => {
            let mut content = message.content.clone();
            for call in &message.tool_calls {
                if !content.is_empty() {
                    content.push('\n');
                }
                let body = serde_json::json!({"name": call.name, "arguments": call.arguments});
                content.push_str(&format!("<tool_call>\n{body}\n</tool_call>"));
            }
            TemplateMessage {
                role: "assistant",
                content,
            }
        }
        Role::Tool => TemplateMessage {
            role: "tool",
            content: message.content.clone(),
        },
    }
}

/// Splits the model's text into prose and `<tool_call>` blocks. Blocks that
/// are not valid JSON with a `name` stay in the text.
pub(crate) fn split_tool_calls(text: &str) -> (String, Vec<ToolCall>) {
    const OPEN: &str = "<tool_call>";
    const CLOSE: &str = "</tool_call>";
    let mut prose = String::new();
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let after = &rest[start + OPEN.len()..];
        let (body, next) = match after.find(CLOSE) {
            Some(end) => (&after[..end], &after[end + CLOSE.len()..]),
            None => (after, ""),
        };
        match parse_call(body, calls.len()) {
            Some(call) => {
                prose.push_str(&rest[..start]);
                calls.push(call);
            }
            None => prose.push_str(&rest[..rest.len() - next.len()]),
        }
        rest = next;
    }
    prose.push_str(rest);
    (prose.trim().to_string(), calls)
}

/// A tool call from a block's JSON.
fn parse_call(body: &str, index: usize) -> Option<ToolCall> {
    let value: serde_json::Value = serde_json::from_str(body.trim()).ok()?;
    let name = value.get("name")?.as_str()?.to_string();
    let arguments = value
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({}));
    Some(ToolCall {
        id: format!("call_{index}"),
        name,
        arguments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolDefinition;

    #[test]
    fn system_and_tools_come_first_and_tool_calls_are_rendered() {
        let request = ChatRequest::new()
            .system("Be terse.")
            .tool(ToolDefinition {
                name: "shell".into(),
                description: "Runs a command.".into(),
                parameters: serde_json::json!({"type": "object", "properties": {"command": {"type": "string"}}}),
            })
            .message(Message::user("list files"))
            .message(Message::assistant_tool_calls(
                "",
                vec![ToolCall {
                    id: "c1".into(),
                    name: "shell".into(),
                    arguments: serde_json::json!({"command": "ls"}),
                }],
            ))
            .message(Message::tool_result("c1", "a.py"));
        let messages = template_messages(&request);
        assert_eq!(messages.len(), 4);
        assert_eq!(messages[0].role, "system");
        assert!(messages[0]
            .content
            .contains("- shell: Runs a command. Arguments: {\"command\": string}"));
        assert_eq!(
            messages[2].content,
            "<tool_call>\n{\"arguments\":{\"command\":\"ls\"},\"name\":\"shell\"}\n</tool_call>"
        );
        assert_eq!(messages[3].role, "tool");
    }

    #[test]
    fn tool_calls_are_read_back() {
        let (prose, calls) = split_tool_calls(
            "Let me look.\n<tool_call>\n{\"name\": \"shell\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>",
        );
        assert_eq!(prose, "Let me look.");
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "shell");
        assert_eq!(calls[0].arguments, serde_json::json!({"command": "ls"}));
        let (prose, calls) = split_tool_calls("<tool_call>not json</tool_call> ok");
        assert!(calls.is_empty());
        assert_eq!(prose, "<tool_call>not json</tool_call> ok");
    }
}
