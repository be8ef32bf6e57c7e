//! Calling a model from inside a graph node: through the node's journal, so
//! that a node re-run after an interrupt or a crash gets the recorded answer
//! instead of calling the model again, and with a usage event.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rebound_graph::{NodeContext, NodeError};

use crate::{chat_observed, ChatModel, ChatRequest, ChatResponse, LlmError, TextObserver, Usage};

/// Calls `model` once per superstep of this node, durably.
///
/// The answer is journaled under `key` (only successes: a failed call runs
/// again when the node does). A call that really reached the model emits a
/// custom event `{"llm_call": {model, input_tokens, output_tokens,
/// latency_ms}}`; a replayed one emits nothing. Transient errors (rate
/// limits, 5xx, timeouts, transport) are retryable node errors unless the
/// provider retried them already ([`model_node_error`]); the others are
/// permanent.
pub async fn chat_journaled(
    ctx: &NodeContext,
    key: &str,
    model: &dyn ChatModel,
    request: &ChatRequest,
) -> Result<ChatResponse, NodeError> {
    chat_journaled_observed(ctx, key, model, request, &|_| {}).await
}

/// [`chat_journaled`], handing each piece of the answer's text to
/// `on_text` as it arrives ([`chat_observed`]); a replayed answer is not
/// observed.
pub async fn chat_journaled_observed(
    ctx: &NodeContext,
    key: &str,
    model: &dyn ChatModel,
    request: &ChatRequest,
    on_text: TextObserver<'_>,
) -> Result<ChatResponse, NodeError> {
    let called = AtomicBool::new(false);
    let started = Instant::now();
    let response = ctx
        .try_journal(key, async {
            called.store(true, Ordering::Relaxed);
            chat_observed(model, request, on_text)
                .await
                .map_err(|error| model_node_error(model, error))
        })
        .await?;
    if called.load(Ordering::Relaxed) {
        emit_llm_call(ctx, model, response.usage, started);
    }
    Ok(response)
}

/// Emits the custom event of a model call that really happened:
/// `{"llm_call": {model, input_tokens, output_tokens, latency_ms}}`, the
/// latency measured from `started`.
pub fn emit_llm_call(ctx: &NodeContext, model: &dyn ChatModel, usage: Usage, started: Instant) {
    let latency_ms = started.elapsed().as_secs_f64() * 1e3;
    ctx.emit(|| {
        serde_json::json!({
            "llm_call": {
                "model": model.name(),
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "latency_ms": latency_ms,
            }
        })
    });
}

/// A node error for a failed call of `model`: retryable only when the
/// failure is transient and `model` did not retry it already
/// ([`ChatModel::retries_transient`]), so a node's retry policy never
/// multiplies the provider's retries.
pub fn model_node_error(model: &dyn ChatModel, error: LlmError) -> NodeError {
    if model.retries_transient() {
        NodeError::from(error).permanent()
    } else {
        node_error(error)
    }
}

/// A node error for a failed model call: retryable when the failure is transient.
pub fn node_error(error: LlmError) -> NodeError {
    let transient = error.is_transient();
    let node_error = NodeError::from(error);
    if transient {
        node_error
    } else {
        node_error.permanent()
    }
}
