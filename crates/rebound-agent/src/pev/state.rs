//! The state of plan → execute → review → advance (note 1), with repair
//! mode's fields (note 2) and the run's budget counters.

use rebound_graph::State;
use rebound_llm::Message;
use serde::{Deserialize, Serialize};

use crate::checks::{Check, Evidence};
use crate::{ExecReport, PlanStatus, PlanStep, StepFailure, StepRecord, StopReason, Verdict};

/// The plan-execute-review agent's state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
pub struct PevState {
    /// What the user asked for.
    pub goal: String,
    /// The conversation log: each node appends a line of what it did.
    #[state(append)]
    pub messages: Vec<Message>,
    /// The current plan; empty when there is none (the planner makes one).
    pub plan: Vec<PlanStep>,
    /// The harness made the current plan without the model: a recipe whose
    /// steps are all needed, run to its end even once every check passes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub harness_plan: bool,
    /// Where the plan stands (note 2).
    pub plan_status: PlanStatus,
    /// The step the executor runs next.
    pub step_index: usize,
    /// Review rounds so far (`advance` adds one).
    pub iters: u32,
    /// The run stops when `iters` reaches this.
    pub max_iters: u32,
    /// The reviewer's last verdict; cleared by a new plan.
    pub verdict: Option<Verdict>,
    /// The last result in words: the executor's outcome, then the reviewer's
    /// reason and fix suggestions (what the planner sees on a replan).
    pub last_result: Option<String>,
    /// The executor's structured output for the last step.
    pub executor_output: Option<ExecReport>,
    /// Repair mode: the failed step and its error, until the planner has
    /// made the repair plan.
    pub last_error: Option<StepFailure>,
    /// Every executed step, in order.
    #[state(append)]
    pub results: Vec<StepRecord>,
    /// Failed steps since the last success.
    pub failed_attempts: u32,
    /// Repair plans made.
    pub repairs: u32,
    /// Commands the user denied.
    pub denials: u32,
    /// The user approved every command for the rest of the run.
    pub approved_all: bool,
    /// Model tokens used.
    pub tokens: u64,
    /// Working time of the nodes, in milliseconds.
    pub work_ms: u64,
    /// Set by the node that decides the run must stop (a budget, a denial,
    /// an error); the routers then go to END.
    pub stop: Option<StopReason>,
    /// The goal's evidence: the checks and what they last said.
    #[serde(default)]
    pub evidence: Evidence,
    /// The plans made and whether they changed anything.
    #[serde(default)]
    pub progress: crate::progress::Progress,
}

impl PevState {
    /// The starting state for `goal`.
    pub fn new(goal: impl Into<String>, max_iters: u32) -> Self {
        PevState {
            goal: goal.into(),
            max_iters,
            ..PevState::default()
        }
    }

    /// The same state with `checks` as the goal's evidence.
    pub fn with_checks(mut self, checks: Vec<Check>) -> Self {
        self.evidence = Evidence::for_goal(&self.goal, checks);
        self
    }

    /// Whether a plan exists with a step left at `step_index`.
    pub fn has_pending_step(&self) -> bool {
        !self.plan.is_empty() && self.step_index < self.plan.len()
    }
}

crate::node_steps::run_update!(PevStateUpdate);
