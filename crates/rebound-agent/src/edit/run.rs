//! Doing an edit step: the harness cuts the target span, one focused model
//! call writes its replacement (a fenced code block under a grammar of its
//! own), the harness splices it in, refuses a replacement that breaks the
//! file's syntax, runs the checks, and keeps the first candidate that
//! makes them pass. When the greedy candidate does not, up to
//! [`crate::AgentConfig::edit_candidates`] more are sampled (seeded, so a
//! run is reproducible); a candidate that leaves fewer failures and no new
//! ones is kept when none passes; otherwise the file is restored byte for
//! byte and the step fails with what each candidate did.

use rebound_graph::{NodeContext, NodeError};

use super::build_flags::build_mutants;
use super::candidates::try_candidates;
use super::check_syntax;
use super::file::file_named_in;
use super::forgive::resolve_forgiving;
use super::job::{EditCall, EditJob};
use super::mutate::Mutant;
use super::request::implication;
use super::syntax_repair::repair_syntax;
use crate::checks::{run_checks, CheckWhen, Evidence};
use crate::step::StepOutcome;
use crate::{AgentDeps, PlanStep};

/// Does `step` (an edit step, number `index` of its plan) for `goal`,
/// judged by `evidence`'s checks.
pub(crate) async fn run_edit_step(
    ctx: &NodeContext,
    deps: &AgentDeps,
    goal: &str,
    index: usize,
    step: &PlanStep,
    evidence: &Evidence,
    approved_all: bool,
) -> Result<StepOutcome, NodeError> {
    let call = EditCall {
        ctx,
        deps,
        goal,
        step,
        evidence,
    };
    let job = match prepare(&call, index, approved_all).await? {
        Ok(job) => job,
        Err(message) => return Ok(failed(message)),
    };
    let mut outcome = try_candidates(&call, &job).await?;
    if let Some(note) = &job.retargeted {
        outcome.output = format!("{note}\n{}", outcome.output);
    }
    Ok(outcome)
}

/// Gets `step` ready: where the checks stand (the evidence's last results
/// when nothing changed since, else a fresh run), the span (cut once and
/// journaled, so a node re-run after a crash splices against the same
/// original whatever the file holds now) and the original text. `Err`
/// with the reason when the step cannot be done.
async fn prepare(
    call: &EditCall<'_>,
    index: usize,
    approved_all: bool,
) -> Result<Result<EditJob, String>, NodeError> {
    let EditCall {
        ctx,
        deps,
        goal,
        step,
        evidence,
    } = *call;
    let workspace = deps.workspace.workspace().to_path_buf();
    // A plan that gave no file but whose step says which one: that one.
    let named = step
        .file
        .is_none()
        .then(|| file_named_in(&workspace, &step.description))
        .flatten();
    let Some(file) = step
        .file
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .or(named.as_deref())
    else {
        return Ok(Err(
            "an edit step needs a file: give \"file\" (and a \"target\")".to_string(),
        ));
    };
    let label = format!("edit{}", index + 1);
    let mut approved_all = approved_all;
    let baseline = if evidence.checks.is_empty() {
        None
    } else if evidence.fingerprint == Some(crate::checks::fingerprint(&workspace)) {
        Some(evidence.results.clone())
    } else {
        let run = run_checks(
            ctx,
            deps,
            &evidence.checks,
            CheckWhen::AfterChange,
            approved_all,
        )
        .await?;
        approved_all |= run.approved_all;
        Some(run.results)
    };
    let (hint, implicated) = baseline.as_deref().map_or((None, false), |results| {
        implication(&workspace, results, file)
    });
    let target = step.target.as_deref().unwrap_or_default();
    let span = ctx
        .journal(&format!("{label}:span"), async {
            resolve_forgiving(&workspace, file, target, hint).map_err(|e| e.to_string())
        })
        .await?;
    let (span, retargeted) = match span {
        Ok(resolved) => resolved,
        Err(message) => return Ok(Err(message)),
    };
    let original = ctx
        .journal(&format!("{label}:original"), async {
            if span.exists {
                std::fs::read_to_string(workspace.join(&span.file)).map_err(|e| e.to_string())
            } else {
                Ok(String::new())
            }
        })
        .await?;
    let original = match original {
        Ok(text) => text,
        Err(error) => return Ok(Err(format!("cannot read {}: {error}", span.file))),
    };
    let results = baseline.as_deref().unwrap_or(&[]);
    let mut flag_mutants = build_mutants(&workspace, &span.file, &original, results);
    flag_mutants.extend(super::build_objects::object_mutants(
        &workspace, &span.file, &original, results,
    ));
    flag_mutants.extend(super::build_headers::header_mutants(
        &workspace, &span.file, &original, results,
    ));
    // The changes the run made elsewhere, made again here (journaled: a
    // re-run tries the same ones); read only while a check fails, as
    // mutants are tried only then.
    if results.iter().any(|result| !result.passed) {
        let replays = ctx
            .journal(&format!("{label}:replays"), async {
                super::replay::work_tree_changes(&workspace).await
            })
            .await?;
        flag_mutants.extend(super::replay::replay_mutants(&original, &span, &replays));
    }
    let syntax_repair = matches!(
        check_syntax(&span.file, &original),
        super::Syntax::Invalid(_)
    )
    .then(|| repair_syntax(&span.file, &original))
    .flatten()
    .map(|repair| Mutant {
        text: repair.text,
        change: repair.change,
    });
    // The rename the goal asks for, read once (journaled: a re-run
    // tries the same one).
    let goal_rename = ctx
        .journal(&format!("{label}:goal-rename"), async {
            super::rename::goal_rename(&workspace, goal)
        })
        .await?;
    // The goal names the file and the whole of it is the span (the
    // harness's edit of the one source the goal names, when the checks'
    // output leads nowhere): the goal implicates it, and its one-token
    // changes go before the model's whole-file answer, the slowest there
    // is (found on dev: a goal difference's operands were the other way
    // round; the model's rewrites ran to the time limit).
    let named_whole = span.exists
        && span.is_whole_file(&original)
        && crate::checks::clauses::path_words(goal).any(|word| word == span.file);
    Ok(Ok(EditJob {
        implicated: implicated || named_whole,
        named_whole,
        hint,
        flag_mutants,
        syntax_repair,
        goal_rename,
        label,
        workspace,
        span,
        retargeted,
        original,
        baseline,
        approved_all,
    }))
}

/// A failed edit step that made no model call and changed nothing.
fn failed(message: String) -> StepOutcome {
    StepOutcome::settled(false, message, false)
}
