//! The agent's own events: the custom payloads its nodes emit into the run's
//! event stream (`Event::Custom`), which a front end shows as progress.
//!
//! Each payload is a JSON object with one key: `{"plan": ...}`,
//! `{"step": ...}`, `{"review": ...}`, `{"repair": ...}`, `{"git": ...}`,
//! `{"checks": ...}`, `{"finish_overruled": ...}`, `{"agent": ...}`. Tool events (`tool_call`, `tool_output`, `approval`)
//! come from `rebound-tools`, and model calls (`llm_call`) from
//! `rebound-llm`.

use serde::{Deserialize, Serialize};

use crate::{PlanStep, Review};

/// An event of the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentEvent {
    /// The planner made a plan.
    Plan {
        /// Its steps.
        steps: Vec<PlanStep>,
        /// Whether it repairs a failed step.
        repair: bool,
        /// Tokens of the planner's prompt (0 when the answer was replayed
        /// from the journal of an older version).
        #[serde(default)]
        prompt_tokens: u64,
    },
    /// A step started or ended.
    Step {
        /// Its index in the plan.
        index: usize,
        /// The step.
        step: PlanStep,
        /// `started` or `finished`.
        phase: StepPhase,
        /// When finished: whether it succeeded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        success: Option<bool>,
        /// When finished: the tail of its output.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<String>,
    },
    /// The reviewer (or reflector) judged.
    Review(Review),
    /// A failed step goes back to the planner.
    Repair {
        /// The failed step.
        step: PlanStep,
        /// The error the planner will see.
        error: String,
    },
    /// A git operation of the reflect workflow.
    Git {
        /// `commit`, `rollback` or `init`.
        action: String,
        /// The commit it made or went back to.
        commit: String,
        /// The message or what happened.
        message: String,
    },
    /// The run's checks ran.
    Checks {
        /// Why they ran.
        when: crate::checks::CheckWhen,
        /// One result per check.
        results: Vec<crate::checks::CheckResult>,
    },
    /// The planner proposed a check for a run that had none: adopted when
    /// it fails before any change (it tells done from not done), refused
    /// otherwise.
    CheckProposed {
        /// The command.
        command: String,
        /// Whether it became the run's check.
        adopted: bool,
        /// Why (for a refusal: what is wrong with it).
        reason: String,
    },
    /// A `finish` was overruled: a check fails, so the run goes back to the
    /// planner in repair mode with the check's output.
    FinishOverruled {
        /// Who said finish (`reviewer`, `reflector`).
        by: String,
        /// Why it said so.
        reason: String,
        /// The failing checks.
        failing: Vec<crate::checks::CheckResult>,
    },
    /// A piece of the text a model is generating, as it arrives (from a
    /// model that streams tokens, such as the local one), so a display can
    /// show the model thinking. Pieces are batched (a line, or a few
    /// dozen characters); the whole answer is in the journal.
    Thinking {
        /// The call: `planner`, `reviewer`, `edit1:candidate`...
        call: String,
        /// The new text.
        text: String,
    },
    /// A supervisor agent spoke.
    Agent {
        /// Its name.
        name: String,
        /// What it said.
        message: String,
    },
}

/// The phase of a [`AgentEvent::Step`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepPhase {
    /// It started.
    Started,
    /// It ended.
    Finished,
}

impl AgentEvent {
    /// Emits the event from a node.
    pub fn emit(self, ctx: &rebound_graph::NodeContext) {
        ctx.emit(|| serde_json::to_value(&self).unwrap_or(serde_json::Value::Null));
    }

    /// Reads an agent event from a custom payload, if it is one.
    pub fn from_payload(payload: &serde_json::Value) -> Option<AgentEvent> {
        serde_json::from_value(payload.clone()).ok()
    }
}
