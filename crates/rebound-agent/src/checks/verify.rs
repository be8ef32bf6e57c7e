//! When the workflows run their checks, and what a failing check does to a
//! finish: shared by the nodes of `pev` and `reflect`.

use rebound_graph::{NodeContext, NodeError};

use super::{failures_text, run_checks, CheckResult, CheckRun, CheckWhen, Evidence};
use crate::events::{AgentEvent, Emit};
use crate::{AgentDeps, PlanStep, StepFailure};

/// What the planner is told a failed verification was: the step it
/// repairs when a finish is overruled.
pub const VERIFY_STEP: &str = "Verify the goal: every check must pass";

/// Runs the checks once before the first plan: `None` when there are none
/// or they already ran.
pub async fn at_start(
    ctx: &NodeContext,
    deps: &AgentDeps,
    evidence: &Evidence,
    approved_all: bool,
) -> Result<Option<CheckRun>, NodeError> {
    if evidence.checks.is_empty() || evidence.fingerprint.is_some() {
        return Ok(None);
    }
    run_checks(ctx, deps, &evidence.checks, CheckWhen::Start, approved_all)
        .await
        .map(Some)
}

/// Runs the checks when a file changed since they last ran: `None` when
/// there are none or nothing changed.
pub async fn after_change(
    ctx: &NodeContext,
    deps: &AgentDeps,
    evidence: &Evidence,
    approved_all: bool,
) -> Result<Option<CheckRun>, NodeError> {
    if evidence.checks.is_empty() {
        return Ok(None);
    }
    let now = super::fingerprint(deps.workspace.workspace());
    if evidence.fingerprint == Some(now) {
        return Ok(None);
    }
    run_checks(
        ctx,
        deps,
        &evidence.checks,
        CheckWhen::AfterChange,
        approved_all,
    )
    .await
    .map(Some)
}

/// Whether the checks prove the goal without asking a model: `fresh` (the
/// run just made) settles it ([`Evidence::settles`]); with no fresh run,
/// the evidence's last results do when they are current (an edit step
/// ran the checks on its change) ([`Evidence::settled`]).
pub fn settled(evidence: &Evidence, fresh: Option<&CheckRun>) -> bool {
    match fresh {
        Some(run) => evidence.settles(run),
        None => evidence.settled(),
    }
}

/// Verifies a finish: the checks' results from this node if they just ran
/// (`fresh`), else a new run. `None` when there is no check (the finish is
/// unverified).
pub async fn for_finish(
    ctx: &NodeContext,
    deps: &AgentDeps,
    evidence: &Evidence,
    approved_all: bool,
    fresh: Option<&CheckRun>,
) -> Result<Option<CheckRun>, NodeError> {
    if evidence.checks.is_empty() {
        return Ok(None);
    }
    if let Some(run) = fresh {
        return Ok(Some(run.clone()));
    }
    run_checks(ctx, deps, &evidence.checks, CheckWhen::Finish, approved_all)
        .await
        .map(Some)
}

/// A finish that the checks overruled.
#[derive(Debug, Clone)]
pub struct Overruled {
    /// The repair context the planner sees: the failing checks as a failed
    /// step.
    pub failure: StepFailure,
    /// The new verdict's reason: which checks fail, and what was claimed.
    pub reason: String,
}

/// Overrules a finish that `run` contradicts: emits the event and gives
/// the repair context and the reason of the verdict that replaces it.
pub fn overrule(ctx: &NodeContext, by: &str, reason: &str, run: &CheckRun) -> Overruled {
    let failing: Vec<CheckResult> = run.results.iter().filter(|r| !r.passed).cloned().collect();
    let headlines: Vec<String> = failing.iter().map(CheckResult::headline).collect();
    AgentEvent::FinishOverruled {
        by: by.to_string(),
        reason: reason.to_string(),
        failing: failing.clone(),
    }
    .emit(ctx);
    let failure = StepFailure {
        step: PlanStep {
            description: VERIFY_STEP.to_string(),
            command: failing.first().map(|r| r.command.clone()),
            ..PlanStep::default()
        },
        error: format!(
            "The {by} said the goal is done ({reason}), but a check fails:\n{}",
            failures_text(&run.results)
        ),
        plan: Vec::new(),
    };
    Overruled {
        failure,
        reason: format!(
            "finish overruled: {} (the {by} said: {reason})",
            headlines.join(", ")
        ),
    }
}

/// A check that can never pass because its program is not installed
/// (exit code 127, and the program is a name, not a path the agent might
/// create): the run stops on it instead of looping.
pub fn unrunnable(results: &[CheckResult]) -> Option<String> {
    results.iter().find_map(|result| {
        let program = super::goal::program(&result.command)?;
        (result.exit_code == Some(127)
            && !program.contains('/')
            && !super::detect::on_path(program))
        .then(|| {
            format!(
                "the check `{}` cannot run: `{program}` is not installed (exit code 127); \
                     install it or give another check with --check",
                result.command
            )
        })
    })
}
