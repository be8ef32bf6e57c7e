//! The loaded model: one llama.cpp model and context per GGUF file per
//! process, with the tokens its KV cache holds, so a call that extends the
//! previous conversation only decodes the new suffix, and the saved states
//! of recent prompts, so a call that begins like an earlier one (the
//! planner after an editor call) restores that prefix instead of decoding
//! it; and the states of fixed prompt prefixes (a call's system text) on
//! disk ([`DiskPrefixes`]), so a new process restores them too.
//!
//! Longer than 800 lines: the methods of one value over one llama.cpp
//! context (its KV cache, batch and sampler state are shared by every
//! step of a call); `generate_inner` keeps the decode loop whole, so that
//! the order of cache, draft and grammar steps reads in one place, with the
//! prompt's tokens, its prefix reuse and the draft's verification as
//! methods beside it.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::session::{LlamaStateSeqFlags, SeqState};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;

use super::answer::Answer;
use super::choice::{argmax, best_allowed_by, draw, top_k, SplitMix64, SAMPLING_TOP_K};
use super::disk_prefix::{DiskPrefixes, Unusable, MAX_DIR_BYTES};
use super::draft;
use super::prefix_store::{shared_prefix, PrefixStore};
use super::prompt::TemplateMessage;
use super::LocalStats;

/// Tokens decoded per llama.cpp batch while reading the prompt.
const PROMPT_BATCH: usize = 512;

/// The threads llama.cpp computes with: `REBOUND_THREADS` when it is a
/// positive number, else the physical cores this process may use. A
/// core's second hardware thread shares its vector units, which the
/// model's matrix products already keep busy, so counting it adds
/// contention, not speed.
pub(crate) fn compute_threads() -> i32 {
    let allowed = std::thread::available_parallelism().map_or(4, std::num::NonZeroUsize::get);
    let chosen = std::env::var("REBOUND_THREADS")
        .ok()
        .and_then(|value| value.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| num_cpus::get_physical().clamp(1, allowed));
    i32::try_from(chosen).unwrap_or(4)
}

/// The most bytes of saved prompt states kept per model (a 2,000-token
/// prompt of the 1.5B model is about 57 MB).
const SAVED_PROMPTS_BYTES: usize = 256 << 20;

/// A saved prompt is restored only when it spares at least this many
/// tokens more than the live KV cache does (restoring copies the state;
/// decoding a token costs far more, but not nothing is gained below this).
const MIN_RESTORE_GAIN: usize = 16;

/// Prompts shorter than this are not saved.
const MIN_SAVED_TOKENS: usize = 32;

/// Tokens generated when the request sets no `max_tokens` (less when the
/// context window has less room).
const DEFAULT_MAX_TOKENS: usize = 1024;

/// Why a generation failed.
#[derive(Debug)]
pub(crate) enum EngineError {
    /// The prompt plus `max_tokens` does not fit the context window.
    ContextTooLong(String),
    /// The request cannot be rendered (e.g. a NUL byte in a message).
    BadRequest(String),
    /// llama.cpp failed.
    Failed(String),
}

/// What one generation asks for.
pub(crate) struct GenerateInput {
    /// The conversation, system text first.
    pub(crate) messages: Vec<TemplateMessage>,
    /// A GBNF grammar the answer must follow.
    pub(crate) grammar: Option<String>,
    /// The most tokens to generate.
    pub(crate) max_tokens: Option<u32>,
    /// Texts that end generation (not included in the answer).
    pub(crate) stop: Vec<String>,
    /// Sampling instead of greedy decoding, when set.
    pub(crate) sampling: Option<Sampling>,
}

/// Seeded temperature sampling: the same seed and prompt give the same
/// answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Sampling {
    /// Above 0; higher spreads the choice over more tokens.
    pub(crate) temperature: f32,
    /// The random stream's seed.
    pub(crate) seed: u64,
}

/// What of a prompt was not decoded again ([`Engine::reuse_prefix`]).
struct Reuse {
    /// Tokens found in the KV cache, restored or read from disk.
    reused: usize,
    /// Of those, tokens restored from a saved prompt or from disk.
    restored: usize,
    /// Of those, tokens read from disk.
    from_disk: usize,
}

/// The generation loop's counts, for [`LocalStats`].
#[derive(Default)]
struct LoopCounts {
    grammar_fallbacks: usize,
    drafted: usize,
    accepted_drafts: usize,
    verify_steps: usize,
}

/// What one generation produced.
pub(crate) struct Generation {
    /// The generated text.
    pub(crate) text: String,
    /// Whether `max_tokens` ended it.
    pub(crate) hit_limit: bool,
    /// Token counts and timings.
    pub(crate) stats: LocalStats,
}

/// A model and its context, with the tokens the KV cache holds.
pub(crate) struct Engine {
    /// Loaded once per process and never freed (it is shared for the
    /// process's lifetime), so the context can borrow it for `'static`.
    model: &'static LlamaModel,
    context: LlamaContext<'static>,
    template: LlamaChatTemplate,
    /// The tokens at positions 0.. of the KV cache (sequence 0).
    cached: Vec<LlamaToken>,
    /// The states of recent prompts (host copies of sequence 0).
    saved: PrefixStore<SeqState, LlamaToken>,
    /// Whether greedy answers are drafted by prompt lookup ([`draft`]);
    /// on unless turned off ([`super::LocalModel::set_prompt_lookup`]).
    pub(crate) prompt_lookup: bool,
    /// The model file, for the identity of its states on disk.
    path: PathBuf,
    /// The states of system-text prefixes on disk (`None`: off).
    disk: Option<DiskPrefixes>,
}

/// The llama.cpp backend, initialised once per process.
fn backend() -> Result<&'static LlamaBackend, String> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            // llama.cpp logs go to `tracing` (silent without a subscriber)
            // instead of stderr.
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|e| format!("cannot start llama.cpp: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The shared engine for the GGUF at `path`, loading it on first use. The
/// context size of the first load wins.
pub(crate) fn shared_engine(path: &Path, n_ctx: u32) -> Result<Arc<Mutex<Engine>>, String> {
    static ENGINES: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<Engine>>>>> = OnceLock::new();
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut engines = ENGINES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(engine) = engines.get(&key) {
        return Ok(Arc::clone(engine));
    }
    let engine = Arc::new(Mutex::new(Engine::load(&key, n_ctx)?));
    engines.insert(key, Arc::clone(&engine));
    Ok(engine)
}

impl Engine {
    /// Loads the model and makes its context.
    fn load(path: &Path, n_ctx: u32) -> Result<Engine, String> {
        let backend = backend()?;
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|e| format!("cannot load the model {}: {e}", path.display()))?;
        let model: &'static LlamaModel = Box::leak(Box::new(model));
        let template = match model.chat_template(None) {
            Ok(template) => template,
            Err(_) => LlamaChatTemplate::new("chatml")
                .map_err(|e| format!("cannot make the chatml template: {e}"))?,
        };
        let threads = compute_threads();
        let n_ctx = n_ctx.min(model.n_ctx_train()).max(64);
        let batch = u32::try_from(PROMPT_BATCH).unwrap_or(512);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n_ctx))
            .with_n_batch(batch)
            .with_n_ubatch(batch)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        let context = model
            .new_context(backend, params)
            .map_err(|e| format!("cannot make a llama.cpp context: {e}"))?;
        let mut engine = Engine {
            model,
            context,
            template,
            cached: Vec::new(),
            saved: PrefixStore::new(SAVED_PROMPTS_BYTES),
            prompt_lookup: true,
            path: path.to_path_buf(),
            disk: None,
        };
        engine.set_state_dir(default_state_dir(path));
        Ok(engine)
    }

    /// Keeps the states of system-text prefixes in `dir` (`None`: not on
    /// disk at all).
    pub(crate) fn set_state_dir(&mut self, dir: Option<PathBuf>) {
        self.disk = dir.and_then(|dir| {
            let identity = DiskPrefixes::identity(&self.path, self.n_ctx(), PROMPT_BATCH);
            DiskPrefixes::open(dir, identity, MAX_DIR_BYTES)
        });
    }

    /// How many leading `tokens` are the system message's alone (as the
    /// template renders it with nothing after it), when the conversation
    /// begins with one and the whole prompt's tokens begin with its
    /// tokens; `None` otherwise.
    fn system_prefix(
        &self,
        messages: &[TemplateMessage],
        chat: &[LlamaChatMessage],
        tokens: &[LlamaToken],
    ) -> Option<usize> {
        if messages.first()?.role != "system" {
            return None;
        }
        let first = chat.first()?;
        let text = self
            .model
            .apply_chat_template(&self.template, std::slice::from_ref(first), false)
            .ok()?;
        let prefix = self.model.vocab().tokenize(text.as_bytes(), true, true);
        (prefix.len() < tokens.len() && tokens.starts_with(&prefix)).then_some(prefix.len())
    }

    /// Restores the state of `tokens` (the system prefix) from disk into
    /// an empty KV cache. `true` when it was restored; a stored state that
    /// is unusable, or that llama.cpp refuses, is reported, removed and
    /// left to be written again.
    fn restore_from_disk(&mut self, tokens: &[LlamaToken]) -> bool {
        let Some(disk) = &self.disk else {
            return false;
        };
        let ids = token_ids(tokens);
        let path = match disk.find(&ids) {
            Ok(Some(path)) => path,
            Ok(None) => return false,
            Err(Unusable(reason)) => {
                tracing::warn!("a stored prompt state was not used and is made again: {reason}");
                return false;
            }
        };
        self.context.clear_kv_cache();
        self.cached.clear();
        match self.context.state_seq_load_file(&path, 0, tokens.len()) {
            Ok((loaded, _)) if loaded == tokens => {
                self.cached = tokens.to_vec();
                true
            }
            outcome => {
                let reason = match outcome {
                    Ok(_) => "it holds other tokens".to_string(),
                    Err(error) => error.to_string(),
                };
                tracing::warn!(
                    "llama.cpp refused the stored prompt state {}: {reason}; it is made again",
                    path.display()
                );
                self.context.clear_kv_cache();
                disk.remove(&ids);
                false
            }
        }
    }

    /// Stores the state the KV cache holds now — exactly `tokens`, the
    /// system prefix — on disk. Called only after [`Engine::restore_from_disk`]
    /// found no usable state for it this call (a state another process
    /// stored meanwhile is replaced whole, by a rename). A failure only
    /// costs the next process the decoding.
    fn store_on_disk(&self, tokens: &[LlamaToken]) {
        let Some(disk) = &self.disk else { return };
        let ids = token_ids(tokens);
        let temp = disk.temp_path(&ids);
        let stored = self
            .context
            .state_seq_save_file(&temp, 0, tokens)
            .map_err(|e| e.to_string())
            .and_then(|_| disk.commit(&temp, &ids));
        if let Err(error) = stored {
            let _ = std::fs::remove_file(&temp);
            tracing::debug!("the prompt state was not stored: {error}");
        }
    }

    /// The context window, in tokens.
    pub(crate) fn n_ctx(&self) -> usize {
        self.context.n_ctx() as usize
    }

    /// Forgets the KV cache (after a failure, its contents are unknown).
    /// Saved prompt states are host copies and stay.
    pub(crate) fn reset(&mut self) {
        self.context.clear_kv_cache();
        self.cached.clear();
    }

    /// Forgets the KV cache and every saved prompt state.
    pub(crate) fn forget(&mut self) {
        self.reset();
        self.saved.clear();
    }

    /// Runs one generation; `on_text`, when given, is handed the text as
    /// it is generated (whole UTF-8 characters; text that may begin a stop
    /// sequence is held back until it is known not to) and answers whether
    /// it wants more: false ends the generation there.
    pub(crate) fn generate(
        &mut self,
        input: &GenerateInput,
        on_text: Option<&mut dyn FnMut(&str) -> bool>,
    ) -> Result<Generation, EngineError> {
        let result = self.generate_inner(input, on_text);
        if matches!(result, Err(EngineError::Failed(_))) {
            self.reset();
        }
        result
    }

    fn generate_inner(
        &mut self,
        input: &GenerateInput,
        on_text: Option<&mut dyn FnMut(&str) -> bool>,
    ) -> Result<Generation, EngineError> {
        let model = self.model;
        let vocab = model.vocab();
        let (chat, tokens) = self.prompt_tokens(input)?;
        let fixed = self
            .system_prefix(&input.messages, &chat, &tokens)
            .filter(|&n| n >= MIN_SAVED_TOKENS);
        let max_tokens = self.max_tokens(input, tokens.len())?;
        let reuse = self.reuse_prefix(&tokens, fixed);
        let reused = reuse.reused;

        let prompt_started = Instant::now();
        let mut batch = LlamaBatch::new(PROMPT_BATCH, 1);
        // A system text decoded here is stored on disk as soon as the KV
        // cache holds exactly it, for the next process.
        let mut start = reused;
        if let Some(n) = fixed.filter(|&n| reused < n && self.disk.is_some()) {
            self.decode(&mut batch, &tokens[reused..n])?;
            self.store_on_disk(&tokens[..n]);
            start = n;
        }
        let logits_index = self.decode(&mut batch, &tokens[start..])?;
        let prompt_seconds = prompt_started.elapsed().as_secs_f64();
        self.save_prompt(&tokens);

        let mut grammar = self.grammar(input)?;

        let generation_started = Instant::now();
        let mut rng = input
            .sampling
            .filter(|s| s.temperature > 0.0)
            .map(|s| (s.temperature, SplitMix64(s.seed)));
        // Drafts are checked greedily: with sampling, one token at a time.
        let drafting = rng.is_none() && self.prompt_lookup;
        let mut answer = Answer::new(max_tokens, &input.stop, on_text);
        let mut history = tokens.clone();
        let mut draft_length = draft::FIRST_DRAFT;
        let mut batch = LlamaBatch::new(draft::MAX_DRAFT + 1, 1);
        let mut counts = LoopCounts::default();
        let mut next = if max_tokens == 0 {
            answer.hit_limit = true;
            None
        } else {
            Some(self.choose(logits_index, grammar.as_mut(), rng.as_mut())?)
        };
        while let Some((token, fell_back)) = next.take() {
            counts.grammar_fallbacks += usize::from(fell_back);
            if vocab.is_eog(token) || !answer.push(&vocab.token_to_piece(token, false, None)) {
                break;
            }
            history.push(token);
            // The token, then a draft of the ones likely to follow, decoded
            // in one batch; the model's own choice at each position keeps
            // the draft's tokens up to the first it would not write.
            let room = (max_tokens - answer.generated)
                .min(self.n_ctx().saturating_sub(self.cached.len() + 1));
            let guess = if drafting {
                draft::lookup(&history, draft_length.min(room))
            } else {
                Vec::new()
            };
            let mut fed = Vec::with_capacity(guess.len() + 1);
            fed.push(token);
            fed.extend_from_slice(&guess);
            let base = self.cached.len();
            self.decode_every(&mut batch, &fed)?;
            let (kept, choice) =
                self.verify_draft(&guess, grammar.as_mut(), rng.as_mut(), &mut counts)?;
            next = Some(choice);
            if !guess.is_empty() {
                draft_length = draft::next_length(draft_length, guess.len(), kept);
            }
            if kept < guess.len() {
                // Forget the draft's rejected tokens.
                let from = base + 1 + kept;
                let start = u32::try_from(from).unwrap_or(u32::MAX);
                match self.context.clear_kv_cache_seq(Some(0), Some(start), None) {
                    Ok(true) => self.cached.truncate(from),
                    _ => return Err(EngineError::Failed("cannot drop a rejected draft".into())),
                }
            }
            for &token in &guess[..kept] {
                if vocab.is_eog(token) || !answer.push(&vocab.token_to_piece(token, false, None)) {
                    next = None;
                    break;
                }
                history.push(token);
            }
        }
        let hit_limit = answer.hit_limit;
        let generated = answer.generated;
        let text = answer.finish();
        let stats = LocalStats {
            prompt_tokens: tokens.len(),
            reused_tokens: reused,
            restored_tokens: reuse.restored,
            disk_tokens: reuse.from_disk,
            prompt_seconds,
            generated_tokens: generated,
            generation_seconds: generation_started.elapsed().as_secs_f64(),
            grammar_fallbacks: counts.grammar_fallbacks,
            draft_tokens: counts.drafted,
            accepted_draft_tokens: counts.accepted_drafts,
            verify_steps: counts.verify_steps,
        };
        tracing::debug!(?stats, "local model call");
        Ok(Generation {
            text,
            hit_limit,
            stats,
        })
    }

    /// The model's choice at each position after a token and its draft
    /// `guess` were decoded: how many of the guess it keeps (each the token
    /// it would write there), and its own next token after them.
    fn verify_draft(
        &self,
        guess: &[LlamaToken],
        mut grammar: Option<&mut LlamaSampler>,
        mut rng: Option<&mut (f32, SplitMix64)>,
        counts: &mut LoopCounts,
    ) -> Result<(usize, (LlamaToken, bool)), EngineError> {
        let mut kept = 0;
        let next = loop {
            let index = i32::try_from(kept).unwrap_or(i32::MAX);
            let choice = self.choose(index, grammar.as_deref_mut(), rng.as_deref_mut())?;
            if guess.get(kept) == Some(&choice.0) {
                counts.grammar_fallbacks += usize::from(choice.1);
                kept += 1;
            } else {
                break choice;
            }
        };
        if !guess.is_empty() {
            counts.verify_steps += 1;
            counts.drafted += guess.len();
            counts.accepted_drafts += kept;
        }
        Ok((kept, next))
    }

    /// The sampler of `input`'s grammar, if it has one.
    fn grammar(&self, input: &GenerateInput) -> Result<Option<LlamaSampler>, EngineError> {
        input
            .grammar
            .as_ref()
            .map(|gbnf| {
                LlamaSampler::grammar(self.model, gbnf, "root")
                    .map_err(|e| EngineError::BadRequest(format!("the grammar is invalid: {e}")))
            })
            .transpose()
    }

    /// The conversation of `input` as the model's chat messages, and its
    /// prompt's tokens (with the chat template applied).
    fn prompt_tokens(
        &self,
        input: &GenerateInput,
    ) -> Result<(Vec<LlamaChatMessage>, Vec<LlamaToken>), EngineError> {
        let chat = input
            .messages
            .iter()
            .map(|m| LlamaChatMessage::new(m.role.to_string(), m.content.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| EngineError::BadRequest(format!("a message cannot be sent: {e}")))?;
        let prompt = self
            .model
            .apply_chat_template(&self.template, &chat, true)
            .map_err(|e| EngineError::Failed(format!("the chat template failed: {e}")))?;
        let tokens = self.model.vocab().tokenize(prompt.as_bytes(), true, true);
        if tokens.is_empty() {
            return Err(EngineError::BadRequest("the prompt is empty".into()));
        }
        Ok((chat, tokens))
    }

    /// The most tokens the answer to a prompt of `prompt` tokens may have:
    /// `input.max_tokens`, which must fit the context with the prompt, or
    /// as many as fit (at most [`DEFAULT_MAX_TOKENS`]).
    fn max_tokens(&self, input: &GenerateInput, prompt: usize) -> Result<usize, EngineError> {
        let n_ctx = self.n_ctx();
        match input.max_tokens {
            Some(max) => {
                let max = max as usize;
                if prompt + max > n_ctx {
                    return Err(EngineError::ContextTooLong(format!(
                        "{prompt} prompt tokens + {max} max_tokens = {} > {n_ctx} tokens",
                        prompt + max
                    )));
                }
                Ok(max)
            }
            None if prompt >= n_ctx => Err(EngineError::ContextTooLong(format!(
                "{prompt} prompt tokens >= {n_ctx} tokens"
            ))),
            None => Ok(DEFAULT_MAX_TOKENS.min(n_ctx - prompt)),
        }
    }

    /// Keeps the prefix of `tokens` shared with the previous call in the KV
    /// cache, or restores a saved prompt that shares a longer one, or the
    /// system text (`fixed` tokens) from disk; drops the rest of the cache.
    /// At least one token is left to decode, so there are logits to sample
    /// from.
    fn reuse_prefix(&mut self, tokens: &[LlamaToken], fixed: Option<usize>) -> Reuse {
        let mut reused = shared_prefix(&self.cached, tokens).min(tokens.len() - 1);
        let mut restored = 0;
        if let Some(hit) = self.saved.best(tokens) {
            let shared = hit.shared.min(tokens.len() - 1);
            if shared >= reused + MIN_RESTORE_GAIN {
                self.context.clear_kv_cache();
                self.cached.clear();
                reused = 0;
                if self.context.state_seq_set(hit.state, 0).is_ok() {
                    self.cached = hit.tokens.to_vec();
                    reused = shared;
                    restored = shared;
                } else {
                    self.context.clear_kv_cache();
                }
            }
        }
        // The system text, from disk, when neither the KV cache nor a
        // saved prompt holds it.
        let mut from_disk = 0;
        if let Some(n) = fixed.filter(|&n| reused < n && self.disk.is_some()) {
            if self.restore_from_disk(&tokens[..n]) {
                reused = n;
                restored = n;
                from_disk = n;
            } else {
                // The KV cache may have been emptied for the attempt.
                reused = shared_prefix(&self.cached, tokens).min(reused);
                restored = restored.min(reused);
            }
        }
        if reused < self.cached.len() {
            let start = u32::try_from(reused).unwrap_or(u32::MAX);
            match self.context.clear_kv_cache_seq(Some(0), Some(start), None) {
                Ok(true) => self.cached.truncate(reused),
                _ => {
                    self.reset();
                    reused = 0;
                }
            }
        }
        Reuse {
            reused,
            restored,
            from_disk,
        }
    }

    /// Saves the state of the prompt the KV cache now holds (exactly
    /// `tokens`), unless a saved prompt already covers it. A state that
    /// cannot be read is not saved (the call goes on).
    fn save_prompt(&mut self, tokens: &[LlamaToken]) {
        if tokens.len() < MIN_SAVED_TOKENS || self.saved.covers(tokens) {
            return;
        }
        match self.context.state_seq_get(0, LlamaStateSeqFlags::empty()) {
            Ok(state) => {
                let bytes = state.byte_len();
                self.saved.save(tokens.to_vec(), state, bytes);
            }
            Err(error) => tracing::debug!("the prompt's state was not saved: {error}"),
        }
    }

    /// Decodes `tokens` (at most one batch) after the cached ones, with
    /// logits for each: batch index `i` holds those after `tokens[i]`.
    fn decode_every(
        &mut self,
        batch: &mut LlamaBatch<'_>,
        tokens: &[LlamaToken],
    ) -> Result<(), EngineError> {
        let failed =
            |e: &dyn std::fmt::Display| EngineError::Failed(format!("decoding failed: {e}"));
        batch.clear();
        for (i, &token) in tokens.iter().enumerate() {
            let position = i32::try_from(self.cached.len() + i).map_err(|e| failed(&e))?;
            batch
                .add(token, position, &[0], true)
                .map_err(|e| failed(&e))?;
        }
        self.context.decode(batch).map_err(|e| failed(&e))?;
        self.cached.extend_from_slice(tokens);
        Ok(())
    }

    /// Decodes `tokens` after the cached ones; returns the batch index of
    /// the last token, whose logits are then available.
    fn decode(
        &mut self,
        batch: &mut LlamaBatch<'_>,
        tokens: &[LlamaToken],
    ) -> Result<i32, EngineError> {
        let failed =
            |e: &dyn std::fmt::Display| EngineError::Failed(format!("decoding failed: {e}"));
        let mut last = 0;
        for chunk in tokens.chunks(PROMPT_BATCH) {
            batch.clear();
            for (i, &token) in chunk.iter().enumerate() {
                let position = i32::try_from(self.cached.len() + i).map_err(|e| failed(&e))?;
                batch
                    .add(token, position, &[0], i + 1 == chunk.len())
                    .map_err(|e| failed(&e))?;
            }
            self.context.decode(batch).map_err(|e| failed(&e))?;
            self.cached.extend_from_slice(chunk);
            last = i32::try_from(chunk.len()).map_err(|e| failed(&e))? - 1;
        }
        Ok(last)
    }

    /// The next token from the logits at `logits_index`: drawn from
    /// `rng` (a temperature and its random stream) when sampling
    /// ([`Engine::sample`]), else greedy ([`Engine::pick`]). Returns the
    /// token and whether the grammar's slow path was taken.
    fn choose(
        &self,
        logits_index: i32,
        grammar: Option<&mut LlamaSampler>,
        rng: Option<&mut (f32, SplitMix64)>,
    ) -> Result<(LlamaToken, bool), EngineError> {
        match rng {
            Some((temperature, random)) => self.sample(logits_index, grammar, *temperature, random),
            None => self.pick(logits_index, grammar),
        }
    }

    /// The next token: the most likely one, or, under a grammar, the most
    /// likely one the grammar allows. Only the greedy token is checked
    /// first; the whole vocabulary is filtered only when it is rejected.
    /// The grammar accepts the chosen token exactly once. Returns the token
    /// and whether the slow path was taken.
    fn pick(
        &self,
        logits_index: i32,
        grammar: Option<&mut LlamaSampler>,
    ) -> Result<(LlamaToken, bool), EngineError> {
        let logits = self.context.get_logits_ith(logits_index);
        let best = argmax(logits.iter().copied().enumerate())
            .ok_or_else(|| EngineError::Failed("the model returned no logits".into()))?;
        let Some(grammar) = grammar else {
            return Ok((token_at(best), false));
        };
        let mut candidate = LlamaTokenDataArray::new(
            vec![LlamaTokenData::new(token_at(best), logits[best], 0.0)],
            false,
        );
        grammar.apply(&mut candidate);
        let allowed = candidate
            .data
            .first()
            .is_some_and(|d| d.logit().is_finite());
        let token = if allowed {
            token_at(best)
        } else {
            token_at(best_allowed(grammar, logits)?)
        };
        grammar
            .try_accept(token)
            .map_err(|e| EngineError::Failed(format!("the grammar rejected its own token: {e}")))?;
        Ok((token, !allowed))
    }
}

impl Engine {
    /// The next token, sampled: among the [`SAMPLING_TOP_K`] most likely
    /// tokens the grammar allows (the whole vocabulary is filtered only
    /// when it allows none of them), with probabilities
    /// `softmax(logit / temperature)`, drawn from `random`. The grammar
    /// accepts the chosen token exactly once. Returns the token and whether
    /// the slow path was taken.
    fn sample(
        &self,
        logits_index: i32,
        grammar: Option<&mut LlamaSampler>,
        temperature: f32,
        random: &mut SplitMix64,
    ) -> Result<(LlamaToken, bool), EngineError> {
        let logits = self.context.get_logits_ith(logits_index);
        let mut top: Vec<(usize, f32)> = top_k(logits.iter().copied().enumerate(), SAMPLING_TOP_K);
        let mut fell_back = false;
        if let Some(grammar) = grammar {
            let allowed = allowed_by(grammar, &top);
            top = if allowed.is_empty() {
                fell_back = true;
                let all: Vec<(usize, f32)> = logits.iter().copied().enumerate().collect();
                top_k(allowed_by(grammar, &all).into_iter(), SAMPLING_TOP_K)
            } else {
                allowed
            };
            let token = token_at(draw(&top, temperature, random).ok_or_else(|| {
                EngineError::Failed("the response schema's grammar allows no next token".into())
            })?);
            grammar.try_accept(token).map_err(|e| {
                EngineError::Failed(format!("the grammar rejected its own token: {e}"))
            })?;
            return Ok((token, fell_back));
        }
        let index = draw(&top, temperature, random)
            .ok_or_else(|| EngineError::Failed("the model returned no logits".into()))?;
        Ok((token_at(index), fell_back))
    }
}

/// The index of the most likely token `grammar` allows (the first of equal
/// ones), as a filter of the whole vocabulary would find it; see
/// [`best_allowed_by`].
fn best_allowed(grammar: &mut LlamaSampler, logits: &[f32]) -> Result<usize, EngineError> {
    best_allowed_by(logits, |candidates| allowed_by(grammar, candidates)).ok_or_else(|| {
        EngineError::Failed("the response schema's grammar allows no next token".into())
    })
}

/// The entries of `candidates` that `grammar` allows, in their order.
fn allowed_by(grammar: &mut LlamaSampler, candidates: &[(usize, f32)]) -> Vec<(usize, f32)> {
    let mut array = LlamaTokenDataArray::new(
        candidates
            .iter()
            .map(|&(i, logit)| LlamaTokenData::new(token_at(i), logit, 0.0))
            .collect(),
        false,
    );
    grammar.apply(&mut array);
    array
        .data
        .iter()
        .filter(|d| d.logit().is_finite())
        .map(|d| (d.id().0 as usize, d.logit()))
        .collect()
}

/// The token with vocabulary index `index`.
fn token_at(index: usize) -> LlamaToken {
    LlamaToken(i32::try_from(index).unwrap_or(i32::MAX))
}

/// The ids of `tokens`.
fn token_ids(tokens: &[LlamaToken]) -> Vec<i32> {
    tokens.iter().map(|t| t.0).collect()
}

/// Where the states of a model's system prefixes are kept unless
/// `REBOUND_PROMPT_STATES` says otherwise: `prompt-states/` beside the
/// model file. `REBOUND_PROMPT_STATES=off` keeps none on disk; any other
/// value is the directory.
pub(crate) fn default_state_dir(model: &Path) -> Option<PathBuf> {
    match std::env::var_os("REBOUND_PROMPT_STATES") {
        Some(value) if value == "off" => None,
        Some(value) if !value.is_empty() => Some(PathBuf::from(value)),
        _ => model.parent().map(|dir| dir.join("prompt-states")),
    }
}
