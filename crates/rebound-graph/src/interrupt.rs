//! Interrupts and outcomes: what a run that stops for a human returns, and
//! how the next call resumes it.

use serde::{Deserialize, Serialize};

use crate::checkpoint::CheckpointId;

pub use rebound_protocol::InterruptKind;

/// A new interrupt's id: `step:node:which`, where `which` is the index of
/// a dynamic interrupt's call within the node, or the static kind.
pub(crate) fn new_id(step: u64, node: &str, which: impl std::fmt::Display) -> String {
    format!("{step}:{node}:{which}")
}

/// What an interrupted node waits for.
#[derive(Debug)]
pub(crate) enum Waiting {
    /// One `interrupt` call: its payload and its index within the node.
    Call {
        /// The payload for the human.
        payload: serde_json::Value,
        /// The index of the call within the node.
        call: usize,
    },
    /// The interrupts of a subgraph the node runs, with ids made unique in
    /// the parent ([`crate::subgraph`]).
    Subgraph(Vec<Interrupt>),
}

/// One pending interrupt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interrupt {
    /// Its id, stable while it waits (through updates, forks and partial
    /// resumes): `step:node:call` for a dynamic one (the superstep, the
    /// node, the index of the `interrupt` call within the node; for a task
    /// of a [`crate::Send`], `step:node#k:call`, k the send's index among
    /// the superstep's sends),
    /// `step:node:before` or `step:node:after` for a static one. Answer it
    /// by id with `CompiledGraph::resume_with_map`.
    ///
    /// An interrupt inside a subgraph surfaces in the parent with the
    /// child's id prefixed by `step:task/` (the parent's superstep and the
    /// subgraph node's task key), once per level: `1:outer/1:inner/0:ask:0`.
    #[serde(default)]
    pub id: String,
    /// The node it belongs to (for a sent task, the node's name; the id
    /// tells the tasks apart).
    pub node: String,
    /// Its kind.
    pub kind: InterruptKind,
    /// The payload for the human (null for static interrupts).
    pub payload: serde_json::Value,
}

/// How a run ended, when it did not fail.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome<S> {
    /// The run reached END.
    Completed(S),
    /// The run stopped at one or more interrupts; its state is saved at
    /// `checkpoint_id` and `CompiledGraph::resume` continues it.
    Interrupted {
        /// The state at the interrupt.
        state: S,
        /// What is waiting.
        interrupts: Vec<Interrupt>,
        /// The checkpoint to resume from.
        checkpoint_id: CheckpointId,
    },
}

impl<S> RunOutcome<S> {
    /// The state, however the run ended.
    pub fn state(&self) -> &S {
        match self {
            RunOutcome::Completed(state) | RunOutcome::Interrupted { state, .. } => state,
        }
    }

    /// The state, however the run ended.
    pub fn into_state(self) -> S {
        match self {
            RunOutcome::Completed(state) | RunOutcome::Interrupted { state, .. } => state,
        }
    }

    /// The pending interrupts (empty when completed).
    pub fn interrupts(&self) -> &[Interrupt] {
        match self {
            RunOutcome::Completed(_) => &[],
            RunOutcome::Interrupted { interrupts, .. } => interrupts,
        }
    }

    /// Whether the run stopped at an interrupt.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, RunOutcome::Interrupted { .. })
    }
}

/// What a run starts from.
#[derive(Debug, Clone)]
pub enum Input<S> {
    /// A fresh run from START with this state. On a thread that already has
    /// checkpoints, the new run's checkpoints follow the latest one.
    State(S),
    /// Continue the thread from its latest checkpoint (or the config's
    /// checkpoint id: replay from there, forking), after an interrupt or a crash.
    /// A replay of a checkpoint the thread has moved on from asks its
    /// questions again: the answers given there stay on the old branch
    /// (see [`crate::CompiledGraph::update_state`] for what a fork takes).
    Resume,
    /// Continue after a dynamic interrupt: the value becomes the return value
    /// of the interrupted node's `NodeContext::interrupt` call. Refused
    /// when several interrupts wait ([`Input::ResumeMap`] answers each).
    ResumeWith(serde_json::Value),
    /// Continue with a value for each of some waiting dynamic interrupts,
    /// by [`Interrupt::id`]; those not answered keep waiting (their nodes
    /// ask again, repeating no journaled effect).
    ResumeMap(std::collections::BTreeMap<String, serde_json::Value>),
    /// A fresh run from START on a thread that has a state: the update (as
    /// JSON of the state's update type) is merged into the thread's latest
    /// state through the fields' rules, instead of replacing it as
    /// [`Input::State`] does.
    Update(serde_json::Value),
    /// Answers, a state update and a goto together, saved in one checkpoint
    /// (LangGraph's `Command(resume=..., update=..., goto=...)`). Without
    /// answers, at a checkpoint the thread has moved on from, it is a fork
    /// of the past as [`crate::CompiledGraph::update_state`] makes: the
    /// questions asked there are asked again.
    Command(ResumeCommand),
}

/// A resume that may also write to the state and choose the next nodes:
/// the update and the answers are saved with one new checkpoint, then the
/// run goes on from it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResumeCommand {
    /// A value for the one waiting interrupt.
    pub resume: Option<serde_json::Value>,
    /// Values by interrupt id (not with `resume`).
    pub resume_map: std::collections::BTreeMap<String, serde_json::Value>,
    /// Fields to write into the state first, as JSON of its update type
    /// (merged through the fields' rules).
    pub update: Option<serde_json::Value>,
    /// The nodes to run next instead of those due; nodes no longer due
    /// drop what they did so far.
    pub goto: Option<Vec<String>>,
}

impl<S> From<S> for Input<S> {
    fn from(state: S) -> Self {
        Input::State(state)
    }
}
