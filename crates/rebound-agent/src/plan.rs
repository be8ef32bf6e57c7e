//! Plans, steps, verdicts: what the planner, executor and reviewer exchange.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanStep {
    /// What the step does, in a sentence.
    pub description: String,
    /// The shell command that does the step, when one command does it.
    /// Such a step runs directly: no model call, and success means exit
    /// code 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// The planner's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanAnswer {
    /// The steps, in order: 1 to 6. (The bound is in the schema, so a
    /// grammar-constrained local model cannot run on past it.)
    #[schemars(length(min = 1, max = 6))]
    pub steps: Vec<PlanStep>,
}

/// Where the current plan stands (note 2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    /// No plan yet.
    #[default]
    None,
    /// Steps are running.
    Executing,
    /// A step failed: the planner makes a repair plan.
    Failed,
    /// The goal is done.
    Completed,
}

/// The reviewer's verdict (note 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The step did its part: go on with the plan.
    Continue,
    /// Try again: back to the planner.
    Retry,
    /// The plan is wrong: make a new one.
    Replan,
    /// The goal is reached.
    Finish,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Continue => "continue",
            Verdict::Retry => "retry",
            Verdict::Replan => "replan",
            Verdict::Finish => "finish",
        })
    }
}

/// The reviewer's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Review {
    /// continue, retry, replan or finish.
    pub verdict: Verdict,
    /// Why, in a sentence.
    pub reason: String,
    /// What to change, when the verdict is retry or replan.
    #[serde(default)]
    pub fix_suggestions: Vec<String>,
}

/// The executor's structured result for one step (`{success, output}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ExecReport {
    /// Whether the step is done.
    pub success: bool,
    /// What happened, briefly.
    pub output: String,
}

/// A step that failed: what repair mode gives the planner (`last_error`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepFailure {
    /// The failed step.
    pub step: PlanStep,
    /// The error: exit code and output, or the tool's message.
    pub error: String,
}

/// What one executed step produced, for the reviewer and the summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The step.
    pub step: PlanStep,
    /// Whether it succeeded.
    pub success: bool,
    /// Its output, shortened.
    pub output: String,
}
