//! Calling a model from inside a graph node: through the node's journal, so
//! that a node re-run after an interrupt or a crash gets the recorded answer
//! instead of calling the model again, and with a usage event.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rebound_graph::{NodeContext, NodeError};
use rebound_llm::{
    chat_observed_until, ChatModel, ChatRequest, ChatResponse, LlmError, TextObserver, Usage,
};
use rebound_protocol::{ModelCall, ModelEvent};

use crate::events::{AgentEvent, Emit};

/// Calls `model` once per superstep of this node, durably.
///
/// The answer is journaled under `key` (only successes: a failed call runs
/// again when the node does). A call that really reached the model emits a
/// [`ModelEvent::ModelCall`] (`{"model_call": {model, input_tokens,
/// output_tokens, duration_ms}}`); a replayed one emits nothing. Transient errors (rate
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
/// `on_text` as it arrives ([`rebound_llm::chat_observed`]); a replayed answer is not
/// observed.
pub async fn chat_journaled_observed(
    ctx: &NodeContext,
    key: &str,
    model: &dyn ChatModel,
    request: &ChatRequest,
    on_text: TextObserver<'_>,
) -> Result<ChatResponse, NodeError> {
    chat_journaled_until(ctx, key, model, request, on_text, &|_| false).await
}

/// [`chat_journaled_observed`] whose answer is cut as soon as `enough`
/// says the text so far is enough ([`chat_observed_until`]); the cut answer
/// is what is journaled, so a replay gives the same text.
pub(crate) async fn chat_journaled_until(
    ctx: &NodeContext,
    key: &str,
    model: &dyn ChatModel,
    request: &ChatRequest,
    on_text: TextObserver<'_>,
    enough: &(dyn Fn(&str) -> bool + Send + Sync),
) -> Result<ChatResponse, NodeError> {
    let called = AtomicBool::new(false);
    let started = Instant::now();
    let response = ctx
        .try_journal(key, async {
            called.store(true, Ordering::Relaxed);
            chat_observed_until(model, request, on_text, enough)
                .await
                .map_err(|error| model_node_error(model, error))
        })
        .await?;
    if called.load(Ordering::Relaxed) {
        emit_model_call(ctx, model, response.usage, started);
    }
    Ok(response)
}

/// The sampling temperature of a best-of-n candidate after the greedy one.
pub(crate) const SAMPLE_TEMPERATURE: f32 = 0.8;

/// Candidate `number` of a best-of-n choice (an edit's replacement, a
/// script step's program): the greedy answer to `request` for 0, else a
/// sample at [`SAMPLE_TEMPERATURE`] seeded by [`candidate_seed`];
/// journaled under `key`, its text streamed as it arrives.
pub(crate) async fn sample_candidate(
    ctx: &NodeContext,
    deps: &crate::AgentDeps,
    key: &str,
    request: &ChatRequest,
    number: u32,
) -> Result<ChatResponse, NodeError> {
    sample_candidate_until(ctx, deps, key, request, number, &|_| false).await
}

/// [`sample_candidate`] whose answer is cut as soon as `enough` says the
/// text so far is enough ([`chat_journaled_until`]).
pub(crate) async fn sample_candidate_until(
    ctx: &NodeContext,
    deps: &crate::AgentDeps,
    key: &str,
    request: &ChatRequest,
    number: u32,
    enough: &(dyn Fn(&str) -> bool + Send + Sync),
) -> Result<ChatResponse, NodeError> {
    let mut request = request.clone();
    if number > 0 {
        request = request.temperature(SAMPLE_TEMPERATURE).seed(candidate_seed(
            deps.config.seed,
            ctx.step(),
            number,
        ));
    }
    let thinking = Thinking::new(ctx, key);
    let response = chat_journaled_until(
        ctx,
        key,
        deps.model.as_ref(),
        &redacted(request),
        &|text| thinking.push(text),
        enough,
    )
    .await?;
    thinking.flush();
    Ok(response)
}

/// The seed of sampled candidate `number` of a choice made at superstep
/// `step`: reproducible for a run's seed, and different for each attempt,
/// so a step tried again samples new candidates.
pub(crate) fn candidate_seed(seed: u64, step: u64, number: u32) -> u64 {
    seed.wrapping_add(step.wrapping_mul(0x9E37_79B9))
        .wrapping_add(u64::from(number))
}

/// Emits the [`ModelEvent::ModelCall`] of a call of `model` that really
/// happened, its duration measured from `started`.
pub fn emit_model_call(ctx: &NodeContext, model: &dyn ChatModel, usage: Usage, started: Instant) {
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    ModelEvent::ModelCall(ModelCall {
        model: model.name().to_string(),
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        duration_ms,
    })
    .emit(ctx);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_by_attempt_and_candidate() {
        assert_eq!(candidate_seed(7, 3, 1), candidate_seed(7, 3, 1));
        assert_ne!(candidate_seed(7, 3, 1), candidate_seed(7, 5, 1));
        assert_ne!(candidate_seed(7, 3, 1), candidate_seed(7, 3, 2));
        assert_ne!(candidate_seed(7, 3, 1), candidate_seed(8, 3, 1));
    }
}
