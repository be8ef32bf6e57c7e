//! The embedded local model: a GGUF file run in-process through llama.cpp
//! (crate `llama-cpp-2`, feature `local`).
//!
//! - The prompt is built with the GGUF's own chat template; tools are
//!   listed briefly in the system text and called Hermes-style
//!   (`<tool_call>{…}</tool_call>`).
//! - Decoding is greedy, so the same request gives the same answer, unless
//!   the request sets a `temperature` above 0: then tokens are sampled
//!   (top-40, softmax at that temperature) from a stream seeded by the
//!   request's `seed` (0 when unset), so a sampled answer is reproducible
//!   too.
//! - A greedy answer is drafted by prompt lookup
//!   ([`LocalModel::set_prompt_lookup`] turns it off): after each token,
//!   the tokens that followed its last few tokens earlier in the prompt or
//!   the answer are checked by the model in one batch, and kept up to the
//!   first one it would not write — the same answer in fewer decode steps
//!   when it copies its prompt. On a 2-core CPU a small batch costs nearly
//!   as much as its tokens one by one, so drafts are short and it wins
//!   little (generation 1.17–1.57x on an edit, 0.88–1.35x on a plan over
//!   four runs of `examples/local_bench.rs`).
//! - A `response_schema` is enforced with a llama.cpp JSON-schema grammar
//!   (each object's properties written in the order of its `required`
//!   list: [`crate::schema_text_in_required_order`]); a raw GBNF `grammar`
//!   likewise.
//!   Only the greedy token is checked against the grammar first; the whole
//!   vocabulary is filtered only when it is rejected.
//! - The model is loaded once per process and shared by every
//!   [`LocalModel`] for the same file; calls run one at a time on a
//!   blocking thread, and each keeps the KV cache of the prompt prefix it
//!   shares with the previous call — or with any recent call, whose
//!   prompt's state is saved in memory (bounded, least recently used out
//!   first), so alternating call kinds each find their own prefix.
//!
//! ```no_run
//! # async fn demo() -> Result<(), rebound_llm::LlmError> {
//! use rebound_llm::local::LocalModel;
//! use rebound_llm::{ChatModel, ChatRequest, Message};
//! let model = LocalModel::open_known("qwen2.5-coder-0.5b")?;
//! let answer = model.chat(&ChatRequest::new().message(Message::user("Say hi"))).await?;
//! println!("{}", answer.text);
//! # Ok(())
//! # }
//! ```

mod answer;
mod choice;
pub mod cpu;
mod disk_prefix;
mod draft;
mod engine;
mod prefix_store;
mod prompt;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::{
    ChatModel, ChatRequest, ChatResponse, DeltaStream, FinishReason, LlmError, StreamDelta, Usage,
};
use engine::{Engine, EngineError, GenerateInput};

/// The context window used unless [`LocalModel::open_with_context`] asks
/// for another, in tokens.
pub const DEFAULT_CONTEXT_TOKENS: u32 = 4096;

/// The path of the known model `name` in [`crate::model_dir`].
pub fn known_model_path(name: &str) -> Result<PathBuf, LlmError> {
    Ok(crate::model_dir().join(crate::known_model(name)?.file))
}

/// The threads a model computes with: `REBOUND_THREADS` when it is a
/// positive number, else the physical cores this process may use.
pub fn compute_threads() -> usize {
    usize::try_from(engine::compute_threads()).unwrap_or(1)
}

/// Where the system texts' prompt states of the model file `model` are
/// kept on disk (`None`: `REBOUND_PROMPT_STATES=off`).
pub fn prompt_state_dir(model: &Path) -> Option<PathBuf> {
    engine::default_state_dir(model)
}

/// Timings and token counts of one local generation.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LocalStats {
    /// Tokens in the whole prompt.
    pub prompt_tokens: usize,
    /// Prompt tokens not decoded again: found in the KV cache from the
    /// previous call, or restored from a recent prompt's saved state.
    pub reused_tokens: usize,
    /// Of `reused_tokens`, those restored from a saved prompt (0 when the
    /// live KV cache served the call).
    pub restored_tokens: usize,
    /// Of `restored_tokens`, those read from the prompt states on disk
    /// (the system text, stored by an earlier process).
    pub disk_tokens: usize,
    /// Time spent decoding the prompt tokens that were not reused.
    pub prompt_seconds: f64,
    /// Tokens generated.
    pub generated_tokens: usize,
    /// Time spent generating.
    pub generation_seconds: f64,
    /// Generated tokens for which the greedy token broke the response
    /// schema's grammar, so the whole vocabulary was filtered (the slow path).
    pub grammar_fallbacks: usize,
    /// Tokens drafted by prompt lookup and checked by the model.
    pub draft_tokens: usize,
    /// Drafted tokens the model kept (each one a decode step saved).
    pub accepted_draft_tokens: usize,
    /// Batches that checked a draft.
    pub verify_steps: usize,
}

/// A GGUF model run in-process through llama.cpp.
#[derive(Clone)]
pub struct LocalModel {
    name: String,
    engine: Arc<Mutex<Engine>>,
}

impl std::fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalModel")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl LocalModel {
    /// Opens the GGUF at `path` with a [`DEFAULT_CONTEXT_TOKENS`] window.
    /// The first open of a file in a process loads it (about a second; this
    /// blocks); later opens share it.
    pub fn open(path: impl AsRef<Path>) -> Result<LocalModel, LlmError> {
        LocalModel::open_with_context(path, DEFAULT_CONTEXT_TOKENS)
    }

    /// Opens a model `scripts/fetch-model` installs, by name (see
    /// [`crate::KNOWN_MODELS`]).
    pub fn open_known(name: &str) -> Result<LocalModel, LlmError> {
        LocalModel::open(known_model_path(name)?)
    }

    /// Opens the GGUF at `path` with a context window of `n_ctx` tokens
    /// (capped at the model's training context). A file already loaded in
    /// this process keeps the window it was first loaded with.
    pub fn open_with_context(path: impl AsRef<Path>, n_ctx: u32) -> Result<LocalModel, LlmError> {
        let path = path.as_ref();
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let name = format!("local:{file_name}");
        if !path.is_file() {
            return Err(LlmError::Config(format!(
                "{name}: the model file {} does not exist; run `scripts/fetch-model` \
                 (Qwen2.5-Coder 1.5B) or `scripts/fetch-model --small` (0.5B) to install it",
                path.display()
            )));
        }
        if let Some(message) = cpu::unusable(&cpu::missing()) {
            return Err(LlmError::Config(format!("{name}: {message}")));
        }
        let engine = engine::shared_engine(path, n_ctx)
            .map_err(|message| LlmError::Config(format!("{name}: {message}")))?;
        Ok(LocalModel { name, engine })
    }

    /// The context window, in tokens.
    pub fn context_tokens(&self) -> usize {
        lock(&self.engine).n_ctx()
    }

    /// Turns prompt-lookup drafting of greedy answers on or off (on by
    /// default): the answer is the same either way; drafting makes answers
    /// that copy their prompt (an edit of code it was shown) faster, by
    /// as much as a batch of tokens costs less than its tokens one by one.
    /// Every [`LocalModel`] of the same file shares the setting.
    pub fn set_prompt_lookup(&self, on: bool) {
        lock(&self.engine).prompt_lookup = on;
    }

    /// Forgets the KV cache and the saved prompt states, so the next call
    /// decodes its whole prompt (for measuring a cold call, or checking
    /// that cached and uncached calls answer alike). Every [`LocalModel`]
    /// of the same file shares them.
    pub fn forget_cache(&self) {
        lock(&self.engine).forget();
    }

    /// Keeps the KV states of system texts in `dir` across processes
    /// (`None`: in memory only). By default they are in `prompt-states/`
    /// beside the model file, or where `REBOUND_PROMPT_STATES` says (`off`:
    /// nowhere). Every [`LocalModel`] of the same file shares the setting.
    pub fn set_prompt_state_dir(&self, dir: Option<PathBuf>) {
        lock(&self.engine).set_state_dir(dir);
    }

    /// The generation input for `request`. The whole request is logged
    /// as one JSON line at trace level (`REBOUND_LOG=rebound_llm=trace`),
    /// so a real call can be kept and measured again (`local_bench`).
    fn input(&self, request: &ChatRequest) -> Result<GenerateInput, LlmError> {
        if tracing::enabled!(tracing::Level::TRACE) {
            if let Ok(json) = serde_json::to_string(request) {
                tracing::trace!(request = %json, "local model request");
            }
        }
        let grammar = match &request.response_schema {
            Some(schema) => Some(
                llama_cpp_2::json_schema_to_grammar(&crate::schema_text_in_required_order(
                    &schema.schema,
                ))
                .map_err(|e| LlmError::BadRequest {
                    provider: self.name.clone(),
                    message: format!(
                        "the response schema {:?} cannot be turned into a grammar: {e}",
                        schema.name
                    ),
                })?,
            ),
            None => request.grammar.clone(),
        };
        let sampling = request
            .temperature
            .filter(|t| *t > 0.0 && t.is_finite())
            .map(|temperature| engine::Sampling {
                temperature,
                seed: request.seed.unwrap_or(0),
            });
        Ok(GenerateInput {
            messages: prompt::template_messages(request),
            grammar,
            max_tokens: request.max_tokens,
            stop: request.stop.clone(),
            sampling,
        })
    }
}

/// Locks `engine`; after a panic in another call, its KV cache is forgotten.
fn lock(engine: &Mutex<Engine>) -> std::sync::MutexGuard<'_, Engine> {
    engine.lock().unwrap_or_else(|poisoned| {
        let mut guard = poisoned.into_inner();
        guard.reset();
        guard
    })
}

#[async_trait]
impl ChatModel for LocalModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn enforces_schema(&self) -> bool {
        true
    }

    fn streams_tokens(&self) -> bool {
        true
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        Ok(self.chat_with_stats(request).await?.0)
    }

    /// The answer's text piece by piece as it is generated, then `Done`. A
    /// request with tools is answered whole (its tool calls are read from
    /// the whole text).
    async fn chat_stream(&self, request: &ChatRequest) -> Result<DeltaStream, LlmError> {
        if !request.tools.is_empty() {
            return Ok(crate::model::whole_answer_stream(self.chat(request).await?));
        }
        let input = self.input(request)?;
        let engine = Arc::clone(&self.engine);
        let provider = self.name.clone();
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        tokio::task::spawn_blocking(move || {
            let pieces = sender.clone();
            // A reader that dropped the stream wants no more: the
            // generation ends there, and the engine is free for the next.
            let mut on_text = |text: &str| {
                pieces
                    .send(Ok(StreamDelta::Text {
                        text: text.to_string(),
                    }))
                    .is_ok()
            };
            let last = match lock(&engine).generate(&input, Some(&mut on_text)) {
                Ok(generation) => Ok(StreamDelta::Done {
                    usage: Usage {
                        input_tokens: generation.stats.prompt_tokens as u64,
                        output_tokens: generation.stats.generated_tokens as u64,
                    },
                    finish_reason: if generation.hit_limit {
                        FinishReason::Length
                    } else {
                        FinishReason::Stop
                    },
                }),
                Err(error) => Err(engine_error(&provider, error)),
            };
            let _ = sender.send(last);
        });
        Ok(Box::pin(futures_util::stream::unfold(
            receiver,
            |mut receiver| async move { receiver.recv().await.map(|item| (item, receiver)) },
        )))
    }
}

/// The provider error for an engine failure of `provider`.
fn engine_error(provider: &str, error: EngineError) -> LlmError {
    let provider = provider.to_string();
    match error {
        EngineError::ContextTooLong(message) => LlmError::ContextTooLong { provider, message },
        EngineError::BadRequest(message) => LlmError::BadRequest { provider, message },
        EngineError::Failed(message) => LlmError::Local { provider, message },
    }
}

impl LocalModel {
    /// [`ChatModel::chat`], also returning the call's token counts and
    /// timings (how much of the prompt came from the KV cache, prompt and
    /// generation time).
    pub async fn chat_with_stats(
        &self,
        request: &ChatRequest,
    ) -> Result<(ChatResponse, LocalStats), LlmError> {
        let input = self.input(request)?;
        let engine = Arc::clone(&self.engine);
        let provider = self.name.clone();
        let has_tools = !request.tools.is_empty();
        let generation = tokio::task::spawn_blocking(move || lock(&engine).generate(&input, None))
            .await
            .map_err(|e| LlmError::Local {
                provider: provider.clone(),
                message: format!("the inference thread failed: {e}"),
            })?
            .map_err(|e| engine_error(&provider, e))?;
        let usage = Usage {
            input_tokens: generation.stats.prompt_tokens as u64,
            output_tokens: generation.stats.generated_tokens as u64,
        };
        let (text, tool_calls) = if has_tools {
            prompt::split_tool_calls(&generation.text)
        } else {
            (generation.text, Vec::new())
        };
        let finish_reason = if generation.hit_limit {
            FinishReason::Length
        } else if !tool_calls.is_empty() {
            FinishReason::ToolCalls
        } else {
            FinishReason::Stop
        };
        let response = ChatResponse {
            text,
            tool_calls,
            usage,
            finish_reason,
        };
        Ok((response, generation.stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_list_the_known_ones() {
        let error = known_model_path("gpt-5").unwrap_err().to_string();
        assert!(error.contains("qwen2.5-coder-1.5b"), "{error}");
    }
}
