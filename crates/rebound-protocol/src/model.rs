//! What a model call tells: which model, how many tokens, how long.

use serde::{Deserialize, Serialize};

/// An event of a model call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ModelEvent {
    /// A call that really reached the model finished (a call answered
    /// from a node's journal on a re-run tells nothing).
    ModelCall(ModelCall),
}

/// One finished model call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelCall {
    /// The model's name (`local:qwen2.5-coder-1.5b`, `gpt-4o-mini`).
    pub model: String,
    /// Tokens of the prompt.
    pub input_tokens: u64,
    /// Tokens of the answer.
    pub output_tokens: u64,
    /// From the request to the whole answer, in milliseconds (retries of
    /// the provider included).
    pub duration_ms: u64,
}
