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

/// How many failed edits of one place (a file and a target) exhaust it:
/// the planner is told so, and its grammar no longer offers the target.
pub const EXHAUSTED_AFTER: usize = 2;

/// The places among `failed` (failed edit steps, oldest first,
/// [`failed_edits`]) edited without success at least [`EXHAUSTED_AFTER`]
/// times, each by its first step. Found on dev: a planner that named the
/// same target (a Go type, a line range of a shell script) in four plans
/// in a row, each with new words, while the cause was in another
/// function; every such plan spent its candidates on a span that could
/// not hold the fix.
pub fn exhausted_edits(failed: &[PlanStep]) -> Vec<PlanStep> {
    let edits: Vec<&PlanStep> = failed
        .iter()
        .filter(|step| step.kind == StepKind::Edit && edit_place(step).0.is_some())
        .collect();
    let mut exhausted: Vec<PlanStep> = Vec::new();
    for step in &edits {
        let place = edit_place(step);
        let times = edits.iter().filter(|s| edit_place(s) == place).count();
        if times >= EXHAUSTED_AFTER && !exhausted.iter().any(|e| edit_place(e) == place) {
            exhausted.push((*step).clone());
        }
    }
    exhausted
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn a_place_whose_edits_failed_twice_is_exhausted_whatever_their_words() {
        let fix = |words: &str, file: &str, target: &str| PlanStep::edit(words, file, target);
        let failed = vec![
            fix("Fix the prices", "main.go", "line"),
            fix("Fix money", "main.go", "money"),
            fix("Print two decimals", " ./main.go", " line "),
            fix("Fix the whole file", "main.go", ""),
            PlanStep {
                kind: StepKind::Create,
                description: "notes".into(),
                command: None,
                file: Some("main.go".into()),
                target: None,
            },
        ];
        assert_eq!(
            exhausted_edits(&failed),
            vec![fix("Fix the prices", "main.go", "line")],
            "the same file and target, written loosely, twice; one failure is not enough, and a create is no edit"
        );
        let mut again = failed.clone();
        again.push(fix("Rewrite it", "main.go", ""));
        assert_eq!(
            exhausted_edits(&again),
            vec![
                fix("Fix the prices", "main.go", "line"),
                fix("Fix the whole file", "main.go", "")
            ]
        );
        let no_file = PlanStep {
            file: None,
            ..fix("Fix it", "x", "")
        };
        assert!(exhausted_edits(&[no_file.clone(), no_file]).is_empty());
    }
}
