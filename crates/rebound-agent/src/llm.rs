//! Model calls from inside nodes: journaled (a node re-run gets the recorded
//! answer), counted (tokens), and with unusable answers kept as values so a
//! node can recover instead of failing the run.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rebound_graph::{NodeContext, NodeError};
use rebound_llm::{
    chat_structured_observed, chat_structured_with_schema, ChatModel, ChatRequest, LlmError,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::events::{AgentEvent, Emit};
use crate::model_call::{emit_model_call, model_node_error};

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

/// Characters of a model's text gathered before a [`AgentEvent::Thinking`]
/// event is emitted (a line end or [`THINKING_INTERVAL`] emits sooner).
const THINKING_CHARS: usize = 48;

/// The longest wait between two [`AgentEvent::Thinking`] events while text
/// arrives.
const THINKING_INTERVAL: Duration = Duration::from_millis(150);

/// Emits the text of a model call as it arrives, in batches, as
/// [`AgentEvent::Thinking`] events.
pub(crate) struct Thinking {
    ctx: NodeContext,
    call: String,
    pending: Mutex<(String, Instant)>,
}

impl Thinking {
    /// For the call `call` of the node `ctx`.
    pub(crate) fn new(ctx: &NodeContext, call: &str) -> Self {
        Thinking {
            ctx: ctx.clone(),
            call: call.to_string(),
            pending: Mutex::new((String::new(), Instant::now())),
        }
    }

    /// Takes a piece of text; emits what gathered when it is a line, long
    /// enough, or old enough.
    pub(crate) fn push(&self, text: &str) {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.0.push_str(text);
        if pending.0.contains('\n')
            || pending.0.len() >= THINKING_CHARS
            || pending.1.elapsed() >= THINKING_INTERVAL
        {
            let text = std::mem::take(&mut pending.0);
            pending.1 = Instant::now();
            drop(pending);
            self.emit(text);
        }
    }

    /// Emits what is left.
    pub(crate) fn flush(&self) {
        let text = std::mem::take(&mut self.pending.lock().unwrap_or_else(|p| p.into_inner()).0);
        if !text.is_empty() {
            self.emit(text);
        }
    }

    fn emit(&self, text: String) {
        AgentEvent::Thinking {
            call: self.call.clone(),
            text,
        }
        .emit(&self.ctx);
    }
}

/// `request` with the secrets of rebound's own environment masked in every
/// text it carries (system text, messages, tool results): whatever path a
/// secret took into a prompt (a file listing, a command's output), it does
/// not reach the model.
pub(crate) fn redacted(mut request: ChatRequest) -> ChatRequest {
    let redactor = rebound_tools::shell::Redactor::from_process();
    if redactor.is_empty() {
        return request;
    }
    if let Some(system) = &request.system {
        request.system = Some(redactor.redact(system).into_owned());
    }
    for message in &mut request.messages {
        if let std::borrow::Cow::Owned(masked) = redactor.redact(&message.content) {
            message.content = masked;
        }
    }
    request
}

/// Keeps the head and the tail of `text` within `max` characters, with a
/// marker for what was cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let head_len = max / 3;
    let tail_len = max - head_len;
    let head: String = text.chars().take(head_len).collect();
    let tail: String = text.chars().skip(count - tail_len).collect();
    format!(
        "{head}\n[... {} characters cut ...]\n{tail}",
        count - head_len - tail_len
    )
}

/// Roughly how many tokens `text` is for a Qwen-style tokenizer: each digit
/// is a token of its own, other text about three characters a token (measured
/// on planner prompts: 1,246 estimated for 1,206 counted by the model).
/// Used to budget prompts without the model's tokenizer at hand (an
/// estimate, on the high side for code and prose).
pub(crate) fn estimate_tokens(text: &str) -> usize {
    let digits = text.chars().filter(char::is_ascii_digit).count();
    let others = text.chars().count() - digits;
    digits + others.div_ceil(3)
}

#[cfg(test)]
mod tests {
    use super::{estimate_tokens, shorten};

    #[test]
    fn digits_count_as_a_token_each() {
        assert_eq!(estimate_tokens("abcdef"), 2);
        assert_eq!(estimate_tokens("2024-05-01"), 8 + 1);
        assert_eq!(estimate_tokens("x"), 1);
        assert_eq!(estimate_tokens(""), 0);
    }

    #[test]
    fn shorten_keeps_head_and_tail() {
        let text = format!("{}{}", "a".repeat(100), "b".repeat(100));
        let short = shorten(&text, 30);
        assert!(short.starts_with("aaaaaaaaaa"));
        assert!(short.ends_with(&"b".repeat(20)));
        assert!(short.contains("170 characters cut"));
        assert_eq!(shorten("short", 30), "short");
    }
}
