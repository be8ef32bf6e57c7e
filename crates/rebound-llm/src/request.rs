//! [`ChatRequest`] and [`ChatResponse`]: one call to a model.

use serde::{Deserialize, Serialize};

use crate::{Message, ToolCall, ToolDefinition};

/// A JSON schema the answer must follow, with a name for providers that
/// want one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseSchema {
    /// A short name (letters, digits, `_`).
    pub name: String,
    /// The schema.
    pub schema: serde_json::Value,
}

/// One call to a model.
///
/// ```
/// use rebound_llm::{ChatRequest, Message};
/// let request = ChatRequest::new()
///     .system("You are terse.")
///     .message(Message::user("Say hi"))
///     .max_tokens(16);
/// assert_eq!(request.messages.len(), 1);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The system text.
    pub system: Option<String>,
    /// The conversation.
    pub messages: Vec<Message>,
    /// The tools the model may call.
    pub tools: Vec<ToolDefinition>,
    /// A schema the answer must follow.
    pub response_schema: Option<ResponseSchema>,
    /// Sampling temperature (None: the provider's default; the local model
    /// is greedy unless it is above 0).
    pub temperature: Option<f32>,
    /// The most tokens to generate.
    pub max_tokens: Option<u32>,
    /// Sequences that end generation.
    pub stop: Vec<String>,
    /// A seed for sampling, so a sampled answer can be reproduced (the
    /// local model and OpenAI-compatible servers honour it; the Anthropic
    /// API has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// A GBNF grammar the answer's text must follow (only the local model
    /// enforces it; hosted providers ignore it, so the caller must still
    /// check the answer). Ignored when `response_schema` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar: Option<String>,
}

impl ChatRequest {
    /// An empty request.
    pub fn new() -> Self {
        ChatRequest::default()
    }

    /// Sets the system text.
    #[must_use]
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.system = Some(text.into());
        self
    }

    /// Appends a message.
    #[must_use]
    pub fn message(mut self, message: Message) -> Self {
        self.messages.push(message);
        self
    }

    /// Offers a tool.
    #[must_use]
    pub fn tool(mut self, tool: ToolDefinition) -> Self {
        self.tools.push(tool);
        self
    }

    /// Asks for an answer following `schema`.
    #[must_use]
    pub fn response_schema(mut self, name: impl Into<String>, schema: serde_json::Value) -> Self {
        self.response_schema = Some(ResponseSchema {
            name: name.into(),
            schema,
        });
        self
    }

    /// Sets the temperature.
    #[must_use]
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets the sampling seed.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Asks for an answer following the GBNF `grammar` (local model only).
    #[must_use]
    pub fn grammar(mut self, grammar: impl Into<String>) -> Self {
        self.grammar = Some(grammar.into());
        self
    }

    /// Sets the most tokens to generate.
    #[must_use]
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = Some(tokens);
        self
    }

    /// Adds a stop sequence.
    #[must_use]
    pub fn stop(mut self, sequence: impl Into<String>) -> Self {
        self.stop.push(sequence.into());
        self
    }

    /// The text of the last user message, if any.
    pub fn last_user_text(&self) -> Option<&str> {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == crate::Role::User)
            .map(|m| m.content.as_str())
    }
}

/// Tokens a call used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// Why generation stopped.
///
/// New reasons may be added, so a `match` on it needs a wildcard arm.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FinishReason {
    /// The model finished its answer.
    #[default]
    Stop,
    /// It hit `max_tokens`.
    Length,
    /// It wants tools called.
    ToolCalls,
    /// A stop sequence or filter ended it (provider-specific).
    Other,
    /// The caller stopped reading the answer before the model ended it
    /// ([`crate::chat_observed_until`]): the text is what had arrived.
    Cut,
}

/// A model's answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The text.
    pub text: String,
    /// The tool calls.
    pub tool_calls: Vec<ToolCall>,
    /// Tokens used.
    pub usage: Usage,
    /// Why it stopped.
    pub finish_reason: FinishReason,
}

impl ChatResponse {
    /// A plain text answer.
    pub fn text(text: impl Into<String>) -> Self {
        ChatResponse {
            text: text.into(),
            ..ChatResponse::default()
        }
    }

    /// An answer calling tools.
    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        ChatResponse {
            tool_calls: calls,
            finish_reason: FinishReason::ToolCalls,
            ..ChatResponse::default()
        }
    }
}

/// A piece of a streamed answer.
///
/// New kinds of pieces may be added, so a `match` on it needs a wildcard
/// arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum StreamDelta {
    /// More text.
    Text {
        /// The new text.
        text: String,
    },
    /// A piece of a tool call: the first piece of a call carries its id and
    /// name; the arguments arrive as JSON text in pieces.
    ToolCall {
        /// Which call (its position in the answer).
        index: usize,
        /// The call's id, on its first piece.
        id: Option<String>,
        /// The tool's name, on its first piece.
        name: Option<String>,
        /// A piece of the arguments' JSON text.
        arguments: String,
    },
    /// The end: usage and finish reason.
    Done {
        /// Tokens used.
        usage: Usage,
        /// Why it stopped.
        finish_reason: FinishReason,
    },
}
