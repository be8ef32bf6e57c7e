//! Plans, steps, verdicts: what the planner, executor and reviewer exchange.

use rebound_protocol::agent::require_first;
pub use rebound_protocol::agent::{PlanStep, Review, StepKind, Verdict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
/// fails before any change: see [`crate::checks::proposal`]).
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

/// Puts `output` first in [`ExecReport`]'s required properties.
fn output_first(schema: &mut schemars::Schema) {
    require_first(schema, "output");
}

/// Marks `check` required in [`PlanWithCheck`]'s schema (serde's default
/// would make it optional, and a small model then leaves it out).
fn require_check(schema: &mut schemars::Schema) {
    require_first(schema, "check");
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

/// The executor's structured result for one step (`{success, output}`;
/// a model writes what happened before whether it succeeded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = output_first)]
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
    /// An edit whose model found nothing to change ([`StepOutcome`]'s
    /// `no_change`).
    ///
    /// [`StepOutcome`]: crate::StepOutcome
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_change: bool,
}

/// The edit steps among `records` that failed, oldest first.
pub fn failed_edits(records: &[StepRecord]) -> Vec<PlanStep> {
    records
        .iter()
        .filter(|record| {
            !record.success && matches!(record.step.kind, StepKind::Edit | StepKind::Create)
        })
        .map(|record| record.step.clone())
        .collect()
}

/// The edit steps among `records` whose model found nothing to change,
/// oldest first, each place ([`edit_place`]) once.
pub fn unchanged_edits(records: &[StepRecord]) -> Vec<PlanStep> {
    let mut edits: Vec<PlanStep> = Vec::new();
    for record in records.iter().filter(|r| r.no_change) {
        let place = edit_place(&record.step);
        if !edits.iter().any(|e| edit_place(e) == place) {
            edits.push(record.step.clone());
        }
    }
    edits
}

/// Where an edit step edits, as written plans name it loosely: its file
/// without spaces around it or a leading `./`, and its target trimmed
/// (`""`: the whole file).
pub(crate) fn edit_place(step: &PlanStep) -> (Option<&str>, &str) {
    (
        step.file
            .as_deref()
            .map(|f| f.trim().trim_start_matches("./")),
        step.target.as_deref().unwrap_or_default().trim(),
    )
}

/// The plan as numbered lines, with commands.
pub(crate) fn plan_text(steps: &[PlanStep]) -> String {
    steps
        .iter()
        .enumerate()
        .map(|(i, step)| match (step.kind, &step.command) {
            (StepKind::Edit, _) => format!(
                "{}. edit {}{}: {}",
                i + 1,
                step.file.as_deref().unwrap_or("?"),
                step.target
                    .as_deref()
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default(),
                step.description
            ),
            (StepKind::Create, _) => format!(
                "{}. create {}: {}",
                i + 1,
                step.file.as_deref().unwrap_or("?"),
                step.description
            ),
            (kind, Some(command)) => {
                format!("{}. {kind}: {} (`{command}`)", i + 1, step.description)
            }
            (_, None) => format!("{}. {}", i + 1, step.description),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
