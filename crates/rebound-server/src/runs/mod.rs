//! Runs: the request that creates one, what is kept of it to run it later
//! ([`RunKwargs`]) and the stream modes ([`StreamMode`]); inside, the live
//! event fan-out (`hub`), the group-commit writer (`writer`) and the
//! workers (`worker`).

pub(crate) mod attempts;
pub(crate) mod claimed;
pub(crate) mod hub;
pub(crate) mod parts;
pub(crate) mod worker;
pub(crate) mod writer;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ApiError;
use crate::store::MultitaskStrategy;

/// When a run's checkpoints are committed: the Agent Server's `durability`.
///
/// Whatever the mode, a checkpoint is committed before a journaled call
/// (so a side effect is never repeated), at an interrupt, at an error and
/// at the end of the run; the modes differ in what a crash between those
/// points loses, and what the run then repeats.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RunDurability {
    /// Each superstep's checkpoint is committed before the next starts.
    Sync,
    /// Checkpoints are committed in batches while the run goes on (the
    /// Agent Server's default, as here): a crash repeats at most the last
    /// 100 ms of supersteps.
    #[default]
    Async,
    /// Checkpoints are committed only at the points above: a crash repeats
    /// the run from the last of them.
    Exit,
}

impl RunDurability {
    /// The engine's durability for it.
    pub fn engine(self) -> rebound_graph::Durability {
        match self {
            RunDurability::Sync => rebound_graph::Durability::Sync,
            RunDurability::Async => rebound_graph::Durability::batched(),
            RunDurability::Exit => rebound_graph::Durability::Batched {
                max_steps: usize::MAX,
                max_delay: std::time::Duration::MAX,
            },
        }
    }
}

/// A stream mode: which parts of a run a stream carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StreamMode {
    /// The whole state after each superstep.
    Values,
    /// Each node's update as it finishes.
    Updates,
    /// rebound's typed events (the `rebound_protocol::Event` JSON).
    Events,
    /// What nodes emit through their context.
    Custom,
}

impl StreamMode {
    /// Its name, also the SSE event name of its parts.
    pub fn as_str(self) -> &'static str {
        match self {
            StreamMode::Values => "values",
            StreamMode::Updates => "updates",
            StreamMode::Events => "events",
            StreamMode::Custom => "custom",
        }
    }

    fn parse(name: &str) -> Result<Self, ApiError> {
        Ok(match name {
            "values" => StreamMode::Values,
            "updates" => StreamMode::Updates,
            "events" => StreamMode::Events,
            "custom" => StreamMode::Custom,
            other => {
                return Err(ApiError::invalid(format!(
                    "stream_mode {other:?} is not supported: rebound streams values, updates, events and custom"
                )))
            }
        })
    }
}

/// One name or a list of names (`stream_mode`, `interrupt_before`...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub(crate) enum OneOrMany {
    /// `"values"`.
    One(String),
    /// `["values", "updates"]`.
    Many(Vec<String>),
}

impl OneOrMany {
    pub(crate) fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(name) => vec![name],
            OneOrMany::Many(names) => names,
        }
    }
}

/// A `goto` target: a node name, or a `Send` (not supported over the API).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub(crate) enum GotoBody {
    /// One node.
    One(String),
    /// Several nodes.
    Many(Vec<String>),
}

/// `command` of a run request: LangGraph's `Command(resume, update, goto)`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommandBody {
    /// The value for the waiting interrupt, or an object of values by
    /// interrupt id.
    #[serde(default)]
    pub resume: Option<Value>,
    /// Fields to write first (JSON of the state's update type).
    #[serde(default)]
    pub update: Option<Value>,
    /// The nodes to run next.
    #[serde(default)]
    pub goto: Option<GotoBody>,
}

/// `config` of a run request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct ConfigBody {
    /// `recursion_limit`: supersteps allowed.
    #[serde(default)]
    pub recursion_limit: Option<u64>,
    /// `configurable`: `checkpoint_id` is read; the rest is kept.
    #[serde(default)]
    pub configurable: Option<serde_json::Map<String, Value>>,
    /// Tags (kept, unused).
    #[serde(default)]
    pub tags: Option<Vec<String>>,
}

/// The body of `POST /threads/{id}/runs[/stream|/wait]` and `POST
/// /runs[/stream|/wait]`: the fields of the Agent Server's `RunCreate`.
/// Fields the SDK sends that rebound has no use for are accepted and
/// ignored; unknown fields are refused.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // the ignored fields are read only to be accepted
#[serde(deny_unknown_fields)]
pub(crate) struct RunCreate {
    pub assistant_id: String,
    #[serde(default)]
    pub input: Option<Value>,
    #[serde(default)]
    pub command: Option<CommandBody>,
    #[serde(default)]
    pub stream_mode: Option<OneOrMany>,
    #[serde(default)]
    pub stream_subgraphs: Option<bool>,
    #[serde(default)]
    pub stream_resumable: Option<bool>,
    #[serde(default)]
    pub config: Option<ConfigBody>,
    #[serde(default)]
    pub context: Option<Value>,
    #[serde(default)]
    pub metadata: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    pub interrupt_before: Option<OneOrMany>,
    #[serde(default)]
    pub interrupt_after: Option<OneOrMany>,
    #[serde(default)]
    pub webhook: Option<String>,
    #[serde(default)]
    pub checkpoint: Option<Value>,
    #[serde(default)]
    pub checkpoint_id: Option<String>,
    #[serde(default)]
    pub checkpoint_during: Option<bool>,
    #[serde(default)]
    pub multitask_strategy: Option<MultitaskStrategy>,
    #[serde(default)]
    pub if_not_exists: Option<IfNotExists>,
    #[serde(default)]
    pub on_completion: Option<OnCompletion>,
    #[serde(default)]
    pub on_disconnect: Option<OnDisconnect>,
    #[serde(default)]
    pub after_seconds: Option<f64>,
    #[serde(default)]
    pub durability: Option<RunDurability>,
    #[serde(default)]
    pub strict_resume: Option<bool>,
    #[serde(default)]
    pub langsmith_tracer: Option<Value>,
    #[serde(default)]
    pub feedback_keys: Option<Value>,
}

/// What to do when the run's thread does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum IfNotExists {
    /// Create it.
    Create,
    /// `404`.
    Reject,
}

/// What to do with a stateless run's thread once it ends.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OnCompletion {
    /// Delete it (the default for stateless runs).
    #[default]
    Delete,
    /// Keep it.
    Keep,
}

/// What to do when a streaming client disconnects.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OnDisconnect {
    /// Cancel the run.
    Cancel,
    /// Let it go on (the default).
    #[default]
    Continue,
}

/// What a queued run keeps of its request, to run it (again, after a
/// restart) without the client.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunKwargs {
    /// The input, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) input: Option<Value>,
    /// The command, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) command: Option<CommandBody>,
    /// The stream modes whose parts are kept and streamed.
    #[serde(default)]
    pub(crate) stream_mode: Vec<StreamMode>,
    /// Stop before these nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) interrupt_before: Vec<String>,
    /// Stop after these nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) interrupt_after: Vec<String>,
    /// Run from this checkpoint (time travel) instead of the latest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) checkpoint_id: Option<String>,
    /// The recursion limit, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) recursion_limit: Option<u64>,
    /// Delete the thread when the run ends (stateless runs).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) delete_thread: bool,
    /// When the run's checkpoints are committed.
    #[serde(default)]
    pub(crate) durability: RunDurability,
}

impl RunCreate {
    /// The kwargs to store, checked: `default_modes` when the request names
    /// none.
    pub(crate) fn kwargs(&self, default_modes: &[StreamMode]) -> Result<RunKwargs, ApiError> {
        if self.webhook.is_some() {
            return Err(ApiError::invalid(
                "webhook is not supported by rebound serve: poll GET /threads/{thread_id}/runs/{run_id} or join the run",
            ));
        }
        if self.after_seconds.is_some_and(|s| s > 0.0) {
            return Err(ApiError::invalid(
                "after_seconds is not supported by rebound serve",
            ));
        }
        if self.input.is_some() && self.command.is_some() {
            return Err(ApiError::invalid("give either input or command, not both"));
        }
        let stream_mode = match self.stream_mode.clone() {
            None => default_modes.to_vec(),
            Some(modes) => {
                let mut out = Vec::new();
                for name in modes.into_vec() {
                    let mode = StreamMode::parse(&name)?;
                    if !out.contains(&mode) {
                        out.push(mode);
                    }
                }
                out
            }
        };
        let configurable = self.config.as_ref().and_then(|c| c.configurable.as_ref());
        let checkpoint_id = self
            .checkpoint_id
            .clone()
            .or_else(|| {
                self.checkpoint
                    .as_ref()
                    .and_then(|c| c.get("checkpoint_id"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .or_else(|| {
                configurable
                    .and_then(|c| c.get("checkpoint_id"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            });
        Ok(RunKwargs {
            input: self.input.clone().filter(|v| !v.is_null()),
            command: self.command.clone(),
            stream_mode,
            interrupt_before: self
                .interrupt_before
                .clone()
                .map(OneOrMany::into_vec)
                .unwrap_or_default(),
            interrupt_after: self
                .interrupt_after
                .clone()
                .map(OneOrMany::into_vec)
                .unwrap_or_default(),
            checkpoint_id,
            recursion_limit: self.config.as_ref().and_then(|c| c.recursion_limit),
            delete_thread: false,
            durability: self.durability.unwrap_or_default(),
        })
    }
}
