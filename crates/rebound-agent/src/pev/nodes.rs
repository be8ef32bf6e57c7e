//! The nodes of plan → execute → review → advance.

use std::time::Instant;

use rebound_graph::{NodeContext, NodeError};
use rebound_llm::{ChatRequest, Message};

use super::state::{PevState, PevStateUpdate};
use crate::checks::verify;
use crate::checks::{CheckResult, CheckRun, Evidence};
use crate::events::{AgentEvent, Emit};
use crate::llm::{ask, shorten};
use crate::node_steps::{self, elapsed_ms, Plan, PlannerState};
use crate::planning::{plan_text, PlanContext};
use crate::prompts::{self, render};
use crate::{
    execute_step, AgentDeps, BudgetKind, ExecReport, PlanStatus, Review, StepFailure, StepKind,
    StepRecord, StopReason, Verdict,
};

/// Longest reviewer reason (and fix suggestion) kept, in characters: a
/// longer one is cut, with a marker, before it is shown or sent on.
pub const MAX_REASON_CHARS: usize = 1_000;

/// Most fix suggestions kept from one review.
const MAX_FIX_SUGGESTIONS: usize = 5;

/// What the pev planner is told: the failed step in repair mode, else the
/// reviewer's feedback when there is a verdict, and the last steps done.
pub fn plan_context(state: &PevState) -> PlanContext<'_> {
    let feedback = state.verdict.and(state.last_result.as_deref());
    let mut done: Vec<String> = state
        .results
        .iter()
        .filter(|record| record.success)
        .rev()
        .take(5)
        .map(|record| record.step.description.clone())
        .collect();
    done.reverse();
    PlanContext {
        failure: state.last_error.as_ref(),
        feedback: if state.last_error.is_some() {
            None
        } else {
            feedback
        },
        done,
        checks: &state.evidence.results,
        write_check: state.evidence.wants_proposal(),
        localized: None,
        failed_edits: crate::plan::failed_edits(&state.results),
        unchanged_edits: crate::plan::unchanged_edits(&state.results),
        progress: state.progress.clone(),
    }
}

/// `update` with what a run of the checks gave.
fn record_checks(update: PevStateUpdate, run: &CheckRun, state: &PevState) -> PevStateUpdate {
    node_steps::record_checks(update, run, &state.evidence, state.approved_all)
}

/// *planner*: makes the plan, or the repair plan when `last_error` is set
/// (and then clears it). Before the first plan the checks run; a run with
/// none asks the planner to propose one ([`crate::checks::proposal::consider`]).
pub async fn planner(
    state: &PevState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<PevStateUpdate, NodeError> {
    let planner = PlannerState {
        goal: &state.goal,
        evidence: &state.evidence,
        approved_all: state.approved_all,
        tokens: state.tokens,
        work_ms: state.work_ms,
        started: Instant::now(),
    };
    let started =
        match node_steps::checks_at_start(ctx, deps, &planner, PevStateUpdate::default()).await? {
            Ok(started) => started,
            Err(stop) => return Ok(stop),
        };
    let planner = PlannerState {
        evidence: &started.evidence,
        ..planner
    };
    let update = started.update;
    let mut context = plan_context(state);
    context.checks = &started.evidence.results;
    context.write_check = started.evidence.wants_proposal();
    // Whether the plans get anywhere: the workspace and the checks now,
    // against when the last plan was made.
    let mut progress = state.progress.at_planning(crate::progress::mark(
        crate::checks::fingerprint(deps.workspace.workspace()),
        context.checks,
    ));
    if progress.start.is_none() && crate::unchanged::asks_for_change(&state.goal) {
        // The workspace as the run found it, for a finish with nothing
        // done ([`crate::unchanged`]), for goals that ask for a change.
        progress.start = started.evidence.found;
    }
    if progress.exhausted() {
        return Ok(update
            .work_ms(planner.work_ms_now())
            .stop(Some(StopReason::NoProgress {
                plans: progress.stale,
            })));
    }
    context.progress = progress.clone();
    let Plan {
        steps,
        update,
        tokens,
        work_ms,
        by_harness,
    } = match node_steps::plan(ctx, deps, &planner, &context, update).await? {
        Ok(plan) => plan,
        Err(stop) => return Ok(stop),
    };
    let repair = state.last_error.is_some();
    let label = if repair { "repair plan" } else { "plan" };
    let text = plan_text(&steps);
    let stop = deps.config.budget.exhausted(tokens, work_ms);
    Ok(update
        .progress(progress.with_plan(&steps))
        .plan(steps)
        .harness_plan(by_harness)
        .plan_status(PlanStatus::Executing)
        .step_index(0)
        .verdict(None)
        .last_error(None)
        .repairs(state.repairs + u32::from(repair))
        .messages(vec![Message::assistant(format!(
            "[planner] {label}:\n{text}"
        ))])
        .stop(stop))
}

/// *executor*: runs the current step. A failure clears the plan and sets
/// `last_error` for repair mode.
pub async fn executor(
    state: &PevState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<PevStateUpdate, NodeError> {
    let started = Instant::now();
    let Some(step) = state.plan.get(state.step_index).cloned() else {
        let error = format!(
            "there is no step {} in a plan of {} steps",
            state.step_index + 1,
            state.plan.len()
        );
        return Ok(PevStateUpdate::default()
            .executor_output(Some(ExecReport {
                success: false,
                output: error.clone(),
            }))
            .plan(Vec::new())
            .step_index(0)
            .plan_status(PlanStatus::Failed)
            .last_result(Some(error)));
    };
    let repeats = step.command.is_some()
        && state
            .results
            .iter()
            .any(|record| record.step.command == step.command);
    let workspace = deps.workspace.workspace();
    let before = repeats.then(|| crate::checks::fingerprint(workspace));
    let mut outcome = execute_step(
        ctx,
        deps,
        &state.goal,
        state.step_index,
        &step,
        &state.evidence,
        state.approved_all,
    )
    .await?;
    if before.is_some_and(|before| before == crate::checks::fingerprint(workspace)) {
        let output = shorten(&outcome.output, 600);
        let same = state.results.iter().any(|record| {
            record.step.command == step.command && untimed(&record.output) == untimed(&output)
        });
        if same {
            outcome.success = false;
            outcome.output = format!(
                "no progress: this command ran before in this run with the same output, and \
                 changed nothing; do something else\n{}",
                outcome.output
            );
        }
    }
    let tokens = state.tokens + outcome.tokens;
    let work_ms = state.work_ms + elapsed_ms(started);
    let status = if outcome.success {
        "succeeded"
    } else {
        "failed"
    };
    let summary = format!(
        "step {} ({}) {status}:\n{}",
        state.step_index + 1,
        step.description,
        outcome.output
    );
    let mut update = PevStateUpdate::default()
        .executor_output(Some(ExecReport {
            success: outcome.success,
            output: outcome.output.clone(),
        }))
        .last_result(Some(summary.clone()))
        .results(vec![StepRecord {
            step: step.clone(),
            success: outcome.success,
            output: shorten(&outcome.output, 600),
            no_change: outcome.no_change,
        }])
        .messages(vec![Message::assistant(format!("[executor] {summary}"))])
        .tokens(tokens)
        .work_ms(work_ms)
        .approved_all(state.approved_all || outcome.approved_all);
    if let Some(run) = &outcome.checks {
        update = update.evidence(state.evidence.after(run));
    } else if state.evidence.flipped {
        // The flip belonged to an earlier step: this one ran no checks.
        update = update.evidence(Evidence {
            flipped: false,
            ..state.evidence.clone()
        });
    }
    let budget = &deps.config.budget;
    let mut stop = budget.exhausted(tokens, work_ms);
    if outcome.success {
        update = update.failed_attempts(0);
    } else {
        let failed_attempts = state.failed_attempts + 1;
        let denials = state.denials + u32::from(outcome.denied.is_some());
        AgentEvent::Repair {
            step: step.clone(),
            error: shorten(&outcome.output, 400),
        }
        .emit(ctx);
        stop = stop.or_else(|| budget.denied(denials, outcome.denied.as_deref()));
        if failed_attempts >= budget.max_attempts {
            stop = stop.or(Some(StopReason::Budget {
                budget: BudgetKind::Attempts,
                detail: format!(
                    "{failed_attempts} failed steps in a row, the limit is {}",
                    budget.max_attempts
                ),
            }));
        }
        update = update
            .last_error(Some(StepFailure {
                step,
                error: outcome.output,
                plan: state.plan.clone(),
            }))
            .plan(Vec::new())
            .step_index(0)
            .plan_status(PlanStatus::Failed)
            .failed_attempts(failed_attempts)
            .denials(denials);
    }
    Ok(update.stop(stop))
}

/// The reviewer's user message: the goal, the plan with progress marks, the
/// recent step results (not the transcript), and how the checks last ran.
pub fn reviewer_message(state: &PevState) -> String {
    review_prompt(state, &state.evidence.results, state.evidence.flipped)
}

/// [`reviewer_message`] with the checks' `results` (fresher than the
/// state's) and whether their last run `flipped` them to passing.
fn review_prompt(state: &PevState, results: &[CheckResult], flipped: bool) -> String {
    let left_out = ends_plan_early(state, results, flipped);
    let plan = state
        .plan
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let mark = match i.cmp(&state.step_index) {
                std::cmp::Ordering::Less => "[done]",
                std::cmp::Ordering::Equal => "[just ran]",
                std::cmp::Ordering::Greater if left_out => "[left out: every check passes]",
                std::cmp::Ordering::Greater => "[to do]",
            };
            format!("{}. {mark} {}", i + 1, step.description)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let steps = state
        .results
        .iter()
        .rev()
        .take(5)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|record| {
            format!(
                "- {} ({}): {}",
                record.step.description,
                if record.success { "ok" } else { "failed" },
                shorten(&record.output, 500)
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let checks = if results.is_empty() {
        String::new()
    } else {
        let lines: Vec<String> = results
            .iter()
            .map(|r| format!("- {}", r.headline()))
            .collect();
        format!("\nChecks:\n{}\n", lines.join("\n"))
    };
    let last = if plan_done(state, results, flipped) {
        prompts::REVIEWER_LAST_STEP
    } else {
        ""
    };
    render(
        prompts::REVIEWER_USER,
        &[
            ("goal", &state.goal),
            ("plan", &plan),
            ("results", &steps),
            ("checks", &checks),
            ("last", last),
        ],
    )
}

/// *reviewer*: judges progress. With checks: after a step that changed
/// files they run, and when they tell done from not done (one failed
/// before the first plan) and all pass, the verdict is `finish` without a
/// model call; a `finish` from the model is verified by them, and
/// overruled (a replan in repair mode, with the checks' output) when one
/// fails. An unusable answer becomes `continue` (the step succeeded, or
/// the reviewer would not run).
pub async fn reviewer(
    state: &PevState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<PevStateUpdate, NodeError> {
    let started = Instant::now();
    let mut update = PevStateUpdate::default();
    // Every exit of the reviewer: a finish with nothing done may be
    // refused first ([`refuse_unchanged_finish`]).
    let concluded = async |update, review, used| {
        let (update, review) = refuse_unchanged_finish(update, state, deps, review).await;
        conclude(update, state, ctx, deps, review, used, started)
    };
    let fresh = verify::after_change(ctx, deps, &state.evidence, state.approved_all).await?;
    if let Some(run) = &fresh {
        update = record_checks(update, run, state);
    }
    let results = fresh
        .as_ref()
        .map_or(&state.evidence.results[..], |r| &r.results[..]);
    // Whether the checks' last run (this node's, recorded above, or the
    // executor's) made them all pass.
    let flipped = update.evidence.as_ref().unwrap_or(&state.evidence).flipped;
    // A harness plan is a recipe whose steps are all needed (install a
    // package, then declare it): the checks settle the goal at its end,
    // not half way (found on dev: the install made the goal's quoted
    // command pass, the declaration the goal also asked for never ran,
    // and the finish was verified: a false success).
    let harness_steps_left = state.harness_plan && steps_left(state);
    if !harness_steps_left && verify::settled(&state.evidence, fresh.as_ref()) {
        let passed: Vec<String> = results.iter().map(|r| r.headline()).collect();
        let review = Review {
            verdict: Verdict::Finish,
            reason: format!(
                "every check passes after the change ({}), and one failed before the first plan",
                passed.join(", ")
            ),
            fix_suggestions: Vec::new(),
        };
        return Ok(concluded(update, review, 0).await);
    }
    if let Some(review) = judged_by_harness(state, results, flipped) {
        return Ok(concluded(update, review, 0).await);
    }
    let passing_end = plan_done(state, results, flipped) && crate::checks::all_passed(results);
    if passing_end && state.evidence.passing_reviews > 0 {
        // A plan before this one ended with every check passing too, and
        // its review asked for more: another plan would spend the run's
        // time on a goal its checks cannot tell apart. The finish is
        // unverified (the checks are weak), never a claim.
        let review = Review {
            verdict: Verdict::Finish,
            reason: format!(
                "every check passes again at the end of a plan ({}), and none can prove the goal: finishing rather than planning again",
                results.iter().map(|r| r.headline()).collect::<Vec<_>>().join(", ")
            ),
            fix_suggestions: Vec::new(),
        };
        return Ok(concluded(update, review, 0).await);
    }
    let request = ChatRequest::new()
        .system(prompts::REVIEWER)
        .max_tokens(deps.config.max_answer_tokens)
        .message(Message::user(review_prompt(state, results, flipped)));
    let answer = ask::<Review>(ctx, "reviewer", deps.model.as_ref(), request).await?;
    let mut review = answer.value.unwrap_or_else(|error| Review {
        verdict: Verdict::Continue,
        reason: format!(
            "the reviewer's answer was unusable ({error}); the step succeeded, so going on"
        ),
        fix_suggestions: Vec::new(),
    });
    if review.verdict == Verdict::Continue
        && plan_done(state, results, flipped)
        && crate::checks::all_passed(results)
    {
        // `continue` with no step left would only make a new plan, while
        // every check passes: it is read as a finish, which the checks
        // then verify (or leave unverified) like any other.
        review =
            Review {
                verdict: Verdict::Finish,
                reason: format!(
                "the plan is done and every check passes ({}); the reviewer asked for nothing more",
                results.iter().map(|r| r.headline()).collect::<Vec<_>>().join(", ")
            ),
                fix_suggestions: review.fix_suggestions,
            };
    }
    if passing_end && review.verdict != Verdict::Finish {
        let mut evidence = update
            .evidence
            .clone()
            .unwrap_or_else(|| state.evidence.clone());
        evidence.passing_reviews += 1;
        update = update.evidence(evidence);
    }
    if review.verdict == Verdict::Finish {
        if let Some(run) = verify::for_finish(
            ctx,
            deps,
            &state.evidence,
            state.approved_all,
            fresh.as_ref(),
        )
        .await?
        {
            update = record_checks(update, &run, state);
            if !run.passed() {
                AgentEvent::Review(review.clone()).emit(ctx);
                let overruled = verify::overrule(ctx, "reviewer", &review.reason, &run);
                review = Review {
                    verdict: Verdict::Replan,
                    reason: overruled.reason,
                    fix_suggestions: review.fix_suggestions,
                };
                update = update.last_error(Some(overruled.failure));
            }
        }
    }
    Ok(concluded(update, review, answer.tokens).await)
}

/// Whether the plan has nothing left to do after the step that just ran:
/// it was the last; or every check passes (`results`) and the steps left
/// only observe (they read; the checks have judged already, and running
/// them would spend the run's time on a goal that is reached); or the
/// plan ends early ([`ends_plan_early`]).
fn plan_done(state: &PevState, results: &[CheckResult], flipped: bool) -> bool {
    let left = state.plan.get(state.step_index + 1..).unwrap_or_default();
    left.is_empty()
        || (crate::checks::all_passed(results)
            && left.iter().all(|step| step.kind == StepKind::Observe))
        || ends_plan_early(state, results, flipped)
}

/// Whether the model's plan ends at the step that just ran, with steps
/// left: that step made every check pass that failed before it
/// (`flipped`). The steps left were planned before the checks passed;
/// the checks, passing already, cannot judge them, so they could only
/// undo the work unseen (found on dev: a script fixed by its first edit,
/// rewritten whole by a later step of the same plan that dropped a
/// filter no check looked at) or spend the run's time. The review that
/// follows decides between a finish and a new plan. A harness plan is a
/// recipe whose steps are all needed (a branch made, then a commit taken
/// off the current one): it runs to its end.
fn ends_plan_early(state: &PevState, results: &[CheckResult], flipped: bool) -> bool {
    flipped && !state.harness_plan && crate::checks::all_passed(results) && steps_left(state)
}

/// Whether the plan has steps after the one that just ran.
fn steps_left(state: &PevState) -> bool {
    state.step_index + 1 < state.plan.len()
}

/// The verdict on a step that needs no model to judge it: while steps of
/// the plan remain, `continue` after any step that succeeded (the model
/// reviews a plan when it is done); when the plan is
/// done and a check (`results`) fails, `replan` (whatever the model said,
/// the planner would be next: a finish is overruled, a continue ends the
/// plan). `None` otherwise.
fn judged_by_harness(state: &PevState, results: &[CheckResult], flipped: bool) -> Option<Review> {
    let step = state.plan.get(state.step_index)?;
    let verdict = |verdict, reason: String| {
        Some(Review {
            verdict,
            reason,
            fix_suggestions: Vec::new(),
        })
    };
    if plan_done(state, results, flipped) {
        if crate::checks::passed_but_sandboxed(results) {
            let stopped: Vec<String> = results
                .iter()
                .filter(|r| crate::checks::stopped_by_sandbox(r))
                .map(CheckResult::headline)
                .collect();
            return verdict(
                Verdict::Finish,
                format!(
                    "the plan is done and every check passes but {}, which the sandbox stops (it writes outside the workspace): finishing unverified rather than planning for a check that cannot pass here",
                    stopped.join(", ")
                ),
            );
        }
        let failing: Vec<String> = results
            .iter()
            .filter(|r| !r.passed)
            .map(CheckResult::headline)
            .collect();
        if failing.is_empty() {
            return None;
        }
        return verdict(
            Verdict::Replan,
            format!(
                "the plan is done and the checks still fail: {}",
                failing.join(", ")
            ),
        );
    }
    let reason = match step.kind {
        StepKind::Observe => "an observe step only reads; going on with the plan",
        StepKind::Edit | StepKind::Create if !results.is_empty() => {
            "the checks judged the edit and it was kept; going on with the plan"
        }
        // A step that succeeded with steps left: the model is asked when
        // the plan is done, not after each step (measured on dev: a
        // mid-plan review said `continue` nearly every time, at 6-9 s a
        // call on the local model).
        StepKind::Edit | StepKind::Create | StepKind::Run | StepKind::Script => {
            "the step succeeded; the plan is judged when it is done: going on with it"
        }
    };
    verdict(Verdict::Continue, reason.to_string())
}

/// The reviewer's update for `review`: the verdict, the feedback the
/// planner sees, the counters.
fn conclude(
    update: PevStateUpdate,
    state: &PevState,
    ctx: &NodeContext,
    deps: &AgentDeps,
    review: Review,
    used: u64,
    started: Instant,
) -> PevStateUpdate {
    let review = Review {
        reason: shorten(&review.reason, MAX_REASON_CHARS),
        fix_suggestions: review
            .fix_suggestions
            .iter()
            .take(MAX_FIX_SUGGESTIONS)
            .map(|fix| shorten(fix, MAX_REASON_CHARS))
            .collect(),
        ..review
    };
    AgentEvent::Review(review.clone()).emit(ctx);
    let mut feedback = format!("{}: {}", review.verdict, review.reason);
    if !review.fix_suggestions.is_empty() {
        feedback.push_str(&format!(
            "\nFix suggestions: {}",
            review.fix_suggestions.join("; ")
        ));
    }
    let tokens = state.tokens + used;
    let work_ms = state.work_ms + elapsed_ms(started);
    update
        .verdict(Some(review.verdict))
        .last_result(Some(feedback.clone()))
        .messages(vec![Message::assistant(format!("[reviewer] {feedback}"))])
        .tokens(tokens)
        .work_ms(work_ms)
        .stop(deps.config.budget.exhausted(tokens, work_ms))
}

/// `update` and `review`, unless `review` is a finish of a goal that asks
/// for a change ([`crate::unchanged`]), the finish could only be
/// unverified, and the workspace is as the run found it: then, the first
/// time, a replan told that nothing has changed yet. The workspace is
/// read only for such a finish.
async fn refuse_unchanged_finish(
    update: PevStateUpdate,
    state: &PevState,
    deps: &AgentDeps,
    review: Review,
) -> (PevStateUpdate, Review) {
    let evidence = update.evidence.as_ref().unwrap_or(&state.evidence);
    if review.verdict != Verdict::Finish
        || !state.progress.refuses_unchanged_finish()
        || !crate::unchanged::asks_for_change(&state.goal)
        || evidence.finish_reason() != StopReason::FinishedUnverified
    {
        return (update, review);
    }
    let now = crate::unchanged::mark(deps.workspace.workspace()).await;
    if !state.progress.nothing_changed(now) {
        return (update, review);
    }
    let mut progress = state.progress.clone();
    progress.unchanged_finishes += 1;
    let failure = crate::unchanged::refusal(&review.reason);
    let review = Review {
        verdict: Verdict::Replan,
        reason: format!(
            "finish refused: nothing in the workspace has changed since the run started, and the goal asks for a change (the reviewer said: {})",
            review.reason
        ),
        fix_suggestions: review.fix_suggestions,
    };
    (update.progress(progress).last_error(Some(failure)), review)
}

/// *advance*: `iters += 1`; `finish` keeps everything; `retry` and `replan`
/// clear the plan and reset `step_index`; `continue` moves to the next
/// step, or clears the plan when it is done but not finished.
pub fn advance(state: &PevState) -> PevStateUpdate {
    let update = PevStateUpdate::default().iters(state.iters + 1);
    match state.verdict {
        Some(Verdict::Finish) => update.plan_status(PlanStatus::Completed),
        Some(Verdict::Retry) | Some(Verdict::Replan) => update.plan(Vec::new()).step_index(0),
        Some(Verdict::Continue) | None => {
            let next = state.step_index + 1;
            if next < state.plan.len() {
                update.step_index(next)
            } else {
                update.plan(Vec::new()).step_index(0)
            }
        }
    }
}

/// A step's output without how long its command took (`exit code 0
/// (success) after 0.1 s` → `exit code 0 (success)`), to tell whether a
/// command gave the same output again.
fn untimed(output: &str) -> String {
    output
        .lines()
        .map(|line| rebound_tools::shell::untimed_exit_line(line).unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::untimed;

    #[test]
    fn the_same_output_at_another_speed_is_the_same() {
        let fast = "exit code 0 (success) after 0.0 s\n$ ls\ncalc.py";
        let slow = "exit code 0 (success) after 0.1 s\n$ ls\ncalc.py";
        assert_eq!(untimed(fast), untimed(slow));
        assert_eq!(untimed(fast), "exit code 0 (success)\n$ ls\ncalc.py");
        assert_ne!(
            untimed(fast),
            untimed("exit code 1 (failure) after 0.0 s\n$ ls\ncalc.py")
        );
        let text = "a file that says ) after 3 s\nexit code 0";
        assert_eq!(untimed(text), text, "only the exit line is cut");
    }
}
