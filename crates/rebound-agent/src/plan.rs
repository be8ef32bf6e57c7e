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

/// The planner's answer when the run has no check yet: the plan, and a
/// command the planner proposes as the goal's evidence (adopted only if it
/// fails before any change: see [`crate::checks::agent`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = require_check)]
pub struct PlanWithCheck {
    /// One shell command that exits 0 only when the goal is reached. The
    /// schema requires it (so a grammar-constrained model writes it); an
    /// answer without it reads as none proposed.
    #[serde(default)]
    pub check: String,
    /// The steps, in order: 1 to 6.
    #[schemars(length(min = 1, max = 6))]
    pub steps: Vec<PlanStep>,
}

/// Marks `check` required in [`PlanWithCheck`]'s schema (serde's default
/// would make it optional, and a small model then leaves it out).
fn require_check(schema: &mut schemars::Schema) {
    if let Some(serde_json::Value::Array(required)) = schema.get_mut("required") {
        if !required.iter().any(|name| name == "check") {
            required.insert(0, "check".into());
        }
    }
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
