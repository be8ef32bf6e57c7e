//! The state of reflect-and-commit (note 3).

use rebound_graph::State;
use rebound_llm::Message;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::checks::{Check, Evidence};
use crate::{ExecReport, PlanStep, StepFailure, StepRecord, StopReason};

/// The reflector's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The step did its part: commit it.
    Proceed,
    /// Run the step again.
    Refine,
    /// Undo the work since the last commit and plan again.
    Rollback,
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Decision::Proceed => "proceed",
            Decision::Refine => "refine",
            Decision::Rollback => "rollback",
        })
    }
}

/// The reflector's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Reflection {
    /// proceed, refine or rollback.
    pub decision: Decision,
    /// Why, in a sentence.
    pub reason: String,
}

/// The reflect-and-commit agent's state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
pub struct ReflectState {
    /// What the user asked for.
    pub goal: String,
    /// The conversation log.
    #[state(append)]
    pub messages: Vec<Message>,
    /// The current plan.
    pub plan: Vec<PlanStep>,
    /// The step being worked on.
    pub step_index: usize,
    /// Executions of the current step (the executor adds one; commit and
    /// rollback reset it).
    pub current_attempt: u32,
    /// Above this, the router forces a rollback.
    pub max_attempts: u32,
    /// Reflections so far; the run stops at `max_iters`.
    pub iters: u32,
    /// The limit of `iters`.
    pub max_iters: u32,
    /// The reflector's last answer.
    pub reflection: Option<Reflection>,
    /// The executor's output for the last execution.
    pub executor_output: Option<ExecReport>,
    /// The step that was rolled back, and why: the planner's repair context.
    pub last_error: Option<StepFailure>,
    /// Every execution, in order.
    #[state(append)]
    pub results: Vec<StepRecord>,
    /// The commit setup started from.
    pub base_commit: Option<String>,
    /// The last commit (of an accepted step, or the base).
    pub last_commit: Option<String>,
    /// Commits made, one per accepted step: `hash message`.
    #[state(append)]
    pub commits: Vec<String>,
    /// Rollbacks made.
    pub rollbacks: u32,
    /// Commands the user denied.
    pub denials: u32,
    /// The user approved every command for the rest of the run.
    pub approved_all: bool,
    /// Model tokens used.
    pub tokens: u64,
    /// Working time of the nodes, in milliseconds.
    pub work_ms: u64,
    /// Set when the run must stop (a budget, a denial, an error).
    pub stop: Option<StopReason>,
    /// The goal's evidence: the checks and what they last said.
    #[serde(default)]
    pub evidence: Evidence,
    /// The checks verified the goal after the step being committed: the
    /// commit ends the run (the plan's other steps are not needed).
    #[serde(default)]
    pub verified: bool,
}

impl ReflectState {
    /// The starting state for `goal`.
    pub fn new(goal: impl Into<String>, max_attempts: u32, max_iters: u32) -> Self {
        ReflectState {
            goal: goal.into(),
            max_attempts,
            max_iters,
            ..ReflectState::default()
        }
    }

    /// The same state with `checks` as the goal's evidence.
    pub fn with_checks(mut self, checks: Vec<Check>) -> Self {
        self.evidence = Evidence::for_goal(&self.goal, checks);
        self
    }
}

crate::node_steps::run_update!(ReflectStateUpdate);
