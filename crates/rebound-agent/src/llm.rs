//! Model calls from inside nodes: journaled (a node re-run gets the recorded
//! answer), counted (tokens), and with unusable answers kept as values so a
//! node can recover instead of failing the run.

use std::time::Instant;

use rebound_graph::{NodeContext, NodeError};
use rebound_llm::{
    chat_structured_observed, chat_structured_with_schema, ChatModel, ChatRequest, LlmError,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::model_call::{emit_model_call, model_node_error, redacted, Thinking};
pub(crate) use crate::text::{estimate_tokens, shorten};

/// A structured answer, or why the model's text was not one.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Answer<T> {
    /// The value, or the validation error with the raw text.
    pub(crate) value: Result<T, String>,
    /// Tokens used, input and output.
    pub(crate) tokens: u64,
    /// Of those, the prompt's.
    #[serde(default)]
    pub(crate) input_tokens: u64,
}

/// Asks `model` for a `T`, once per superstep of this node (journaled under
/// `key`). Transient failures are retryable node errors; an answer that is
/// not a valid `T` (after the one repair) comes back as `Err` inside the
/// [`Answer`], recorded like a success so a re-run sees the same thing.
pub(crate) async fn ask<T>(
    ctx: &NodeContext,
    key: &str,
    model: &dyn ChatModel,
    request: ChatRequest,
) -> Result<Answer<T>, NodeError>
where
    T: Serialize + DeserializeOwned + JsonSchema,
{
    ask_with_schema(ctx, key, model, request, None).await
}

/// [`ask`], with `schema` (when given) in place of `T`'s own: a narrower
/// one built for this call ([`chat_structured_with_schema`]).
pub(crate) async fn ask_with_schema<T>(
    ctx: &NodeContext,
    key: &str,
    model: &dyn ChatModel,
    request: ChatRequest,
    schema: Option<serde_json::Value>,
) -> Result<Answer<T>, NodeError>
where
    T: Serialize + DeserializeOwned + JsonSchema,
{
    let request = redacted(request);
    ctx.try_journal(key, async {
        let started = Instant::now();
        let thinking = Thinking::new(ctx, key);
        let on_text = |text: &str| thinking.push(text);
        let result = match schema {
            Some(schema) => {
                chat_structured_with_schema::<T>(model, request, schema, &on_text).await
            }
            None => chat_structured_observed::<T>(model, request, &on_text).await,
        };
        thinking.flush();
        let (value, usage) = match result {
            Ok(structured) => (Ok(structured.value), structured.usage),
            Err(LlmError::StructuredOutput {
                type_name,
                attempts,
                error,
                raw,
            }) => {
                let raw: String = raw.chars().take(300).collect();
                let message = format!(
                    "the model's answer is not a valid {type_name} after {attempts} attempts: {error} (answer: {raw:?})"
                );
                (Err(message), rebound_llm::Usage::default())
            }
            Err(other) => return Err(model_node_error(model, other)),
        };
        emit_model_call(ctx, model, usage, started);
        Ok::<_, NodeError>(Answer {
            value,
            tokens: usage.input_tokens + usage.output_tokens,
            input_tokens: usage.input_tokens,
        })
    })
    .await
}
