//! Plans, steps, verdicts: what the planner, executor and reviewer exchange.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What kind of step a plan step is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// A command that must succeed (exit code 0); without a command, the
    /// executor model does the step with the tools.
    #[default]
    Run,
    /// A command run for its output: a non-zero exit is not a failure and
    /// does not trigger repair mode.
    Observe,
    /// A change to one file: the harness cuts the `target` span of `file`,
    /// the model writes only its replacement (the description is the
    /// instruction), and the checks decide what is kept
    /// ([`crate::edit`]).
    Edit,
}

impl std::fmt::Display for StepKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StepKind::Run => "run",
            StepKind::Observe => "observe",
            StepKind::Edit => "edit",
        })
    }
}

/// One step of a plan. Every string is bounded in the schema, so a
/// grammar-constrained local model cannot repeat itself to the token
/// limit inside one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = require_kind)]
pub struct PlanStep {
    /// run, observe or edit.
    #[serde(default, skip_serializing_if = "is_run")]
    pub kind: StepKind,
    /// What the step does, in a sentence; for an edit, what to change.
    #[schemars(length(max = 300))]
    pub description: String,
    /// The shell command that does the step, when one command does it.
    /// Such a step runs directly: no model call; for `run`, success means
    /// exit code 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 300))]
    pub command: Option<String>,
    /// The file an edit changes (relative to the project directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 200))]
    pub file: Option<String>,
    /// What part of the file an edit rewrites: a function or definition
    /// name, or a line range like `12-20`; empty for the whole file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 100))]
    pub target: Option<String>,
}

impl PlanStep {
    /// A `run` step of `command`.
    pub fn command(description: impl Into<String>, command: impl Into<String>) -> Self {
        PlanStep {
            description: description.into(),
            command: Some(command.into()),
            ..PlanStep::default()
        }
    }

    /// A step the executor model does with the tools.
    pub fn task(description: impl Into<String>) -> Self {
        PlanStep {
            description: description.into(),
            ..PlanStep::default()
        }
    }

    /// An `edit` step of `target` in `file`.
    pub fn edit(
        description: impl Into<String>,
        file: impl Into<String>,
        target: impl Into<String>,
    ) -> Self {
        PlanStep {
            kind: StepKind::Edit,
            description: description.into(),
            file: Some(file.into()),
            target: Some(target.into()),
            command: None,
        }
    }
}

impl PlanStep {
    /// What the step does, for a display: `$ cmd`, `$ cmd (observe)`,
    /// `edit calc.py (subtract)`; `None` for a step the executor model
    /// does.
    pub fn action(&self) -> Option<String> {
        match (self.kind, &self.command) {
            (StepKind::Edit, _) => Some(format!(
                "edit {}{}",
                self.file.as_deref().unwrap_or("?"),
                self.target
                    .as_deref()
                    .filter(|t| !t.trim().is_empty())
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default()
            )),
            (StepKind::Observe, Some(command)) => Some(format!("$ {command} (observe)")),
            (_, Some(command)) => Some(format!("$ {command}")),
            (_, None) => None,
        }
    }
}

/// Whether `kind` is the default, left out of the serialized step.
fn is_run(kind: &StepKind) -> bool {
    *kind == StepKind::Run
}

/// Marks `kind` required in [`PlanStep`]'s schema, so a grammar-constrained
/// model decides the kind of every step first.
fn require_kind(schema: &mut schemars::Schema) {
    require(schema, "kind");
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
    #[schemars(length(max = 400))]
    pub check: String,
    /// The steps, in order: 1 to 6.
    #[schemars(length(min = 1, max = 6))]
    pub steps: Vec<PlanStep>,
}

/// Marks `check` required in [`PlanWithCheck`]'s schema (serde's default
/// would make it optional, and a small model then leaves it out).
fn require_check(schema: &mut schemars::Schema) {
    require(schema, "check");
}

/// Puts `field` first in `schema`'s required properties.
fn require(schema: &mut schemars::Schema, field: &str) {
    match schema.get_mut("required") {
        Some(serde_json::Value::Array(required)) => {
            if !required.iter().any(|name| name == field) {
                required.insert(0, field.into());
            }
        }
        _ => {
            schema.insert("required".into(), serde_json::json!([field]));
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
    /// The plan the step was part of (a repair plan identical to it is
    /// refused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plan: Vec<PlanStep>,
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

/// The edit steps among `records` that failed, oldest first.
pub fn failed_edits(records: &[StepRecord]) -> Vec<PlanStep> {
    records
        .iter()
        .filter(|record| !record.success && record.step.kind == StepKind::Edit)
        .map(|record| record.step.clone())
        .collect()
}
