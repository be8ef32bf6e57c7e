//! What goes to and comes from a model: messages, tool calls, tool
//! definitions.

use serde::{Deserialize, Serialize};

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user (or the program speaking for them).
    User,
    /// The model.
    Assistant,
    /// The result of a tool call, answering the assistant's call.
    Tool,
}

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call; a tool result names it.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as JSON.
    pub arguments: serde_json::Value,
}

/// The key under which a call's arguments carry why they could not be read
/// (the provider sent text that is not JSON): such a call is answered with
/// a failed tool output naming the problem, never run.
pub const INVALID_ARGUMENTS: &str = "__rebound_invalid_arguments";

/// Characters of bad arguments quoted back to the model.
const QUOTED_ARGUMENT_CHARS: usize = 200;

/// The arguments of a call whose `text` did not parse (`error`): an object
/// with only [`INVALID_ARGUMENTS`], saying what was wrong and quoting the
/// start of the text.
pub fn invalid_arguments(error: &str, text: &str) -> serde_json::Value {
    let quoted: String = text.chars().take(QUOTED_ARGUMENT_CHARS).collect();
    let more = if text.chars().count() > QUOTED_ARGUMENT_CHARS {
        "…"
    } else {
        ""
    };
    serde_json::json!({
        INVALID_ARGUMENTS: format!(
            "the arguments are not valid JSON ({error}); they began: {quoted:?}{more}. Call the tool again with a JSON object."
        )
    })
}

impl ToolCall {
    /// Why the call's arguments could not be read, if they could not
    /// ([`invalid_arguments`]).
    pub fn arguments_error(&self) -> Option<&str> {
        self.arguments.get(INVALID_ARGUMENTS)?.as_str()
    }
}

/// One message of a conversation. (The system text is separate: see
/// `ChatRequest::system`.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// Its text (may be empty for an assistant message that only calls tools).
    pub content: String,
    /// The tool calls of an assistant message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    /// An assistant message that calls tools.
    pub fn assistant_tool_calls(content: impl Into<String>, calls: Vec<ToolCall>) -> Self {
        Message {
            tool_calls: calls,
            ..Message::assistant(content)
        }
    }

    /// The result of the tool call `call_id`.
    pub fn tool_result(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Message {
            role: Role::Tool,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: Some(call_id.into()),
        }
    }
}

pub use rebound_protocol::ToolDefinition;
