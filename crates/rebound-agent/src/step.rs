//! What a step did ([`StepOutcome`]): shared by the executor, the editor
//! and the script step.

use rebound_tools::approval::ApprovalAnswer;
use serde::{Deserialize, Serialize};

use crate::checks::CheckRun;
use crate::llm::shorten;
use crate::tool_call::ToolCallOutcome;
use crate::AgentDeps;

/// What executing a step produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepOutcome {
    /// Whether the step succeeded: for a command, exit code 0; for a model
    /// step, the model's claim, unless a tool call failed last or a call was
    /// denied or forbidden (the model never overrides a failed tool).
    pub success: bool,
    /// What happened, for the planner and the reviewer (shortened).
    pub output: String,
    /// The user's message, when they denied a command of this step.
    pub denied: Option<String>,
    /// The rule's reason, when a command of this step is forbidden.
    pub forbidden: Option<String>,
    /// The user answered "approve all": no more questions this run.
    pub approved_all: bool,
    /// Model tokens used.
    pub tokens: u64,
    /// The checks' run that judged the step's change (an edit step's),
    /// when they ran: the state's evidence is brought up to date with it.
    #[serde(default)]
    pub checks: Option<CheckRun>,
    /// An edit step whose model found nothing to change in its span (and
    /// no failing check pointed at the file): the step succeeded without
    /// changing anything, and the planner is not offered that target
    /// again ([`crate::plan::unchanged_edits`]).
    #[serde(default)]
    pub no_change: bool,
}

impl StepOutcome {
    /// An outcome of `success` and `output` alone: no tokens, no checks'
    /// run, nothing denied or forbidden, a change made if it succeeded.
    /// What the harness gives a step it settles without a tool or a model
    /// call, and the base of the outcomes that add tokens or checks.
    pub(crate) fn settled(success: bool, output: String, approved_all: bool) -> Self {
        StepOutcome {
            success,
            output,
            denied: None,
            forbidden: None,
            approved_all,
            tokens: 0,
            checks: None,
            no_change: false,
        }
    }
}

/// Folds one tool call's outcome into a step outcome.
pub(crate) fn from_tool_outcome(
    outcome: &ToolCallOutcome,
    deps: &AgentDeps,
    tokens: u64,
) -> StepOutcome {
    let output = match (&outcome.denied, &outcome.forbidden) {
        (Some(message), _) => format!("the user denied the command: {message}"),
        (None, Some(reason)) => format!("the command is forbidden: {reason}"),
        (None, None) => outcome.output.content.clone(),
    };
    StepOutcome {
        success: outcome.output.success && outcome.denied.is_none() && outcome.forbidden.is_none(),
        output: shorten(&output, deps.config.prompt_output_chars),
        denied: outcome.denied.clone(),
        forbidden: outcome.forbidden.clone(),
        approved_all: matches!(outcome.answer, Some(ApprovalAnswer::ApproveAll)),
        tokens,
        checks: None,
        no_change: false,
    }
}
