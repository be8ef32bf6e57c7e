//! What the parts of an edit step share: the call ([`EditCall`]), the job
//! made ready for the candidates ([`EditJob`]), what became of each
//! candidate ([`Tried`]), the outcome they add up to, and the harness's
//! one way to write a file.

use rebound_graph::{NodeContext, NodeError};
use serde::{Deserialize, Serialize};

use super::mutate::Mutant;
use super::EditSpan;
use crate::checks::{CheckResult, CheckRun, Evidence};
use crate::step::StepOutcome;
use crate::tool_call::run_tool_call;
use crate::{AgentDeps, PlanStep};

/// The tool the harness writes files with (journaled, confined to the
/// workspace).
const WRITE_TOOL: &str = "write_file";

/// What every part of an edit step works with: the node's context, the
/// agent's dependencies, the goal, the step and the checks' evidence.
#[derive(Clone, Copy)]
pub(super) struct EditCall<'a> {
    /// The node's context: journaled calls, events.
    pub(super) ctx: &'a NodeContext,
    /// The model, the tools, the approval policy, the settings.
    pub(super) deps: &'a AgentDeps,
    /// The run's goal.
    pub(super) goal: &'a str,
    /// The edit step.
    pub(super) step: &'a PlanStep,
    /// The checks, and how they last stood.
    pub(super) evidence: &'a Evidence,
}

/// An edit step ready for its candidates: the span cut, its file's
/// original text, and where the checks stand.
pub(super) struct EditJob {
    /// The step's label in journal keys and tool calls (`edit2`).
    pub(super) label: String,
    /// The workspace root.
    pub(super) workspace: std::path::PathBuf,
    /// The span to rewrite.
    pub(super) span: EditSpan,
    /// What was edited instead, when the target was not taken as written.
    pub(super) retargeted: Option<String>,
    /// The file's text before the edit (empty for a new file).
    pub(super) original: String,
    /// The checks' results before the edit; `None` when there is no check.
    pub(super) baseline: Option<Vec<CheckResult>>,
    /// Whether every command was approved for the run.
    pub(super) approved_all: bool,
    /// Whether a failing check points at the span's file (localization
    /// found a suspect in it): an unchanged answer is then a failure.
    pub(super) implicated: bool,
    /// Whether the span is the whole of a file the goal names: its
    /// one-token changes are tried before any model call.
    pub(super) named_whole: bool,
    /// The line of the span's file that localization suspects.
    pub(super) hint: Option<u32>,
    /// The flags a failing build's output says the span's file (a build
    /// file a failing check runs) lacks, and the objects it names that no
    /// source makes, as mutants of it: tried first.
    pub(super) flag_mutants: Vec<Mutant>,
    /// The span's file repaired so that it parses, when it does not and
    /// the line edits (or the JSON5 rewrite) can do it: tried first, as
    /// the parser, not the model, says what is wrong.
    pub(super) syntax_repair: Option<Mutant>,
    /// The rename the goal asks for ("rename calc_total to order_total"),
    /// made in the project's code: tried first among the mutants.
    pub(super) goal_rename: Option<super::rename::Rename>,
}

/// What became of one candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Tried {
    /// Which candidate: `candidate 1` is the greedy one.
    pub(super) name: String,
    /// What happened, in a line.
    pub(super) verdict: String,
    /// Whether the model gave the code back unchanged.
    #[serde(default)]
    pub(super) unchanged: bool,
}

/// Writes `content` to `file` through the write tool (journaled, confined
/// to the workspace): how the harness changes the workspace's files.
pub(crate) async fn write(
    ctx: &NodeContext,
    deps: &AgentDeps,
    tools: &rebound_tools::ToolContext,
    file: &str,
    content: &str,
) -> Result<(), NodeError> {
    let outcome = run_tool_call(
        ctx,
        &deps.tools,
        &deps.approval,
        true,
        WRITE_TOOL,
        serde_json::json!({ "path": file, "content": content }),
        tools,
    )
    .await?;
    if outcome.output.success {
        Ok(())
    } else {
        Err(NodeError::msg(format!(
            "the harness could not write {file}: {}",
            outcome.output.content
        ))
        .permanent())
    }
}

/// What each candidate did, a line each.
pub(super) fn lines(tried: &[Tried]) -> String {
    tried
        .iter()
        .map(|t| format!("- {}: {}", t.name, t.verdict))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The step outcome after the candidates in `tried`.
pub(super) fn outcome(
    success: bool,
    span: &EditSpan,
    tried: &[Tried],
    checks: Option<CheckRun>,
    tokens: u64,
    approved_all: bool,
    note: Option<&str>,
) -> StepOutcome {
    let head = if success {
        format!("edited {} of {}", span.label, span.file)
    } else {
        format!(
            "no candidate improved {} of {}; the file is unchanged",
            span.label, span.file
        )
    };
    let mut output = format!("{head}\n{}", lines(tried));
    if let Some(note) = note {
        output.push_str(&format!("\n{note}"));
    }
    StepOutcome {
        tokens,
        checks,
        ..StepOutcome::settled(success, output, approved_all)
    }
}
