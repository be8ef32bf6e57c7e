//! The nodes of reflect-and-commit.

use std::time::Instant;

use rebound_graph::{NodeContext, NodeError};
use rebound_llm::{ChatRequest, Message};

use super::state::{Decision, ReflectState, ReflectStateUpdate, Reflection};
use crate::checks::verify;
use crate::checks::CheckRun;
use crate::events::{AgentEvent, Emit};
use crate::git;
use crate::llm::{ask, shorten};
use crate::node_steps::{self, elapsed_ms, Plan, PlannerState};
use crate::planning::{plan_text, PlanContext};
use crate::prompts::{self, render};
use crate::{execute_step, AgentDeps, ExecReport, StepFailure, StepRecord, StopReason};

/// `update` with what a run of the checks gave.
fn record_checks(
    update: ReflectStateUpdate,
    run: &CheckRun,
    state: &ReflectState,
) -> ReflectStateUpdate {
    node_steps::record_checks(update, run, &state.evidence, state.approved_all)
}

/// *setup*: makes sure the workspace is a git work tree with a commit
/// (initialising it if needed) and records the starting commit.
pub async fn setup(
    _state: &ReflectState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<ReflectStateUpdate, NodeError> {
    let dir = deps.workspace.workspace().to_path_buf();
    let result = ctx
        .journal("git:setup", async {
            git::setup(&dir).await.map_err(|e| e.to_string())
        })
        .await?;
    Ok(match result {
        Ok(setup) => {
            AgentEvent::Git {
                action: if setup.initialised { "init" } else { "start" }.to_string(),
                commit: setup.commit.clone(),
                message: "starting point".to_string(),
            }
            .emit(ctx);
            ReflectStateUpdate::default()
                .base_commit(Some(setup.commit.clone()))
                .last_commit(Some(setup.commit))
        }
        Err(message) => ReflectStateUpdate::default().stop(Some(StopReason::Error {
            message: format!("cannot set up the workspace: {message}"),
        })),
    })
}

/// *planner*: a plan for what is left; after a rollback it sees the
/// rolled-back step and why.
pub async fn planner(
    state: &ReflectState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<ReflectStateUpdate, NodeError> {
    let started = Instant::now();
    let done = state
        .commits
        .iter()
        .map(|line| {
            line.split_once(' ')
                .map_or(line.as_str(), |(_, m)| m)
                .to_string()
        })
        .collect();
    let planner = PlannerState {
        goal: &state.goal,
        evidence: &state.evidence,
        approved_all: state.approved_all,
        tokens: state.tokens,
        work_ms: state.work_ms,
        started,
    };
    let started =
        match node_steps::checks_at_start(ctx, deps, &planner, ReflectStateUpdate::default())
            .await?
        {
            Ok(started) => started,
            Err(stop) => return Ok(stop),
        };
    let planner = PlannerState {
        evidence: &started.evidence,
        ..planner
    };
    let update = started.update;
    let context = PlanContext {
        failure: state.last_error.as_ref(),
        feedback: None,
        done,
        checks: &started.evidence.results,
        write_check: started.evidence.wants_proposal(),
        localized: None,
        failed_edits: crate::plan::failed_edits(&state.results),
        unchanged_edits: crate::plan::unchanged_edits(&state.results),
        progress: Default::default(),
    };
    let Plan {
        steps,
        update,
        tokens,
        work_ms,
        ..
    } = match node_steps::plan(ctx, deps, &planner, &context, update).await? {
        Ok(plan) => plan,
        Err(stop) => return Ok(stop),
    };
    let text = plan_text(&steps);
    Ok(update
        .plan(steps)
        .step_index(0)
        .current_attempt(0)
        .reflection(None)
        .last_error(None)
        .verified(false)
        .messages(vec![Message::assistant(format!("[planner] plan:\n{text}"))])
        .stop(deps.config.budget.exhausted(tokens, work_ms)))
}

/// *executor*: runs the current step (one more attempt of it).
pub async fn executor(
    state: &ReflectState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<ReflectStateUpdate, NodeError> {
    let started = Instant::now();
    let Some(step) = state.plan.get(state.step_index).cloned() else {
        return Ok(ReflectStateUpdate::default());
    };
    let outcome = execute_step(
        ctx,
        deps,
        &state.goal,
        state.step_index,
        &step,
        &state.evidence,
        state.approved_all,
    )
    .await?;
    let tokens = state.tokens + outcome.tokens;
    let work_ms = state.work_ms + elapsed_ms(started);
    let mut update = ReflectStateUpdate::default();
    if let Some(run) = &outcome.checks {
        update = update.evidence(state.evidence.after(run));
    }
    let denials = state.denials + u32::from(outcome.denied.is_some());
    let budget = &deps.config.budget;
    let mut stop = budget.exhausted(tokens, work_ms);
    stop = stop.or_else(|| budget.denied(denials, outcome.denied.as_deref()));
    let status = if outcome.success {
        "succeeded"
    } else {
        "failed"
    };
    Ok(update
        .current_attempt(state.current_attempt + 1)
        .executor_output(Some(ExecReport {
            success: outcome.success,
            output: outcome.output.clone(),
        }))
        .results(vec![StepRecord {
            step: step.clone(),
            success: outcome.success,
            output: shorten(&outcome.output, 600),
            no_change: outcome.no_change,
        }])
        .messages(vec![Message::assistant(format!(
            "[executor] step {} ({}) {status}:\n{}",
            state.step_index + 1,
            step.description,
            outcome.output
        ))])
        .denials(denials)
        .approved_all(state.approved_all || outcome.approved_all)
        .tokens(tokens)
        .work_ms(work_ms)
        .stop(stop))
}

/// *reflector*: proceed, refine or rollback. A failed step is never
/// committed: a `proceed` for it becomes `refine`. With checks: after a
/// step that changed files they run, and when they tell done from not done
/// (one failed before the first plan) and all pass, the decision is
/// `proceed` without a model call and the commit ends the run; a `proceed`
/// on the plan's last step is a finish, verified by the checks, and
/// overruled (a rollback and a replan with the checks' output) when one
/// fails.
pub async fn reflector(
    state: &ReflectState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<ReflectStateUpdate, NodeError> {
    let started = Instant::now();
    let output = state.executor_output.clone().unwrap_or(ExecReport {
        success: false,
        output: "the step did not run".to_string(),
    });
    let step = state
        .plan
        .get(state.step_index)
        .map(|s| s.description.clone())
        .unwrap_or_default();
    let mut update = ReflectStateUpdate::default();
    let fresh = if output.success {
        verify::after_change(ctx, deps, &state.evidence, state.approved_all).await?
    } else {
        None
    };
    if let Some(run) = &fresh {
        update = record_checks(update, run, state);
    }
    let deterministic = output.success && verify::settled(&state.evidence, fresh.as_ref());
    let (mut reflection, used) = if deterministic {
        let passed: Vec<String> = fresh
            .as_ref()
            .map_or(&state.evidence.results[..], |run| &run.results[..])
            .iter()
            .map(|r| r.headline())
            .collect();
        let reason = format!(
            "every check passes after this step ({}), and one failed before the first plan: the goal is reached",
            passed.join(", ")
        );
        (
            Reflection {
                decision: Decision::Proceed,
                reason,
            },
            0,
        )
    } else {
        ask_reflector(state, ctx, deps, &output, &step).await?
    };
    if !output.success && reflection.decision == Decision::Proceed {
        reflection = Reflection {
            decision: Decision::Refine,
            reason: format!(
                "the step failed, so it is not committed ({})",
                reflection.reason
            ),
        };
    }
    let mut verified = deterministic;
    let mut overruled = None;
    let last_step = state.step_index + 1 >= state.plan.len();
    if !deterministic && reflection.decision == Decision::Proceed && last_step {
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
            if run.passed() {
                verified = true;
            } else {
                let verdict = verify::overrule(ctx, "reflector", &reflection.reason, &run);
                reflection = Reflection {
                    decision: Decision::Rollback,
                    reason: verdict.reason,
                };
                overruled = Some(verdict.failure);
            }
        }
    }
    AgentEvent::Review(crate::Review {
        verdict: match reflection.decision {
            Decision::Proceed => crate::Verdict::Continue,
            Decision::Refine => crate::Verdict::Retry,
            Decision::Rollback => crate::Verdict::Replan,
        },
        reason: format!("{}: {}", reflection.decision, reflection.reason),
        fix_suggestions: Vec::new(),
    })
    .emit(ctx);
    let tokens = state.tokens + used;
    let work_ms = state.work_ms + elapsed_ms(started);
    update = update
        .iters(state.iters + 1)
        .verified(verified)
        .messages(vec![Message::assistant(format!(
            "[reflector] {}: {}",
            reflection.decision, reflection.reason
        ))])
        .tokens(tokens)
        .work_ms(work_ms)
        .stop(deps.config.budget.exhausted(tokens, work_ms));
    if let Some(failure) = overruled {
        update = update.last_error(Some(failure));
    } else if reflection.decision != Decision::Proceed {
        update = update.last_error(Some(StepFailure {
            step: state
                .plan
                .get(state.step_index)
                .cloned()
                .unwrap_or_else(|| crate::PlanStep::task(step.clone())),
            error: format!("{}\n(reflector: {})", output.output, reflection.reason),
            plan: state.plan.clone(),
        }));
    }
    Ok(update.reflection(Some(reflection)))
}

/// Asks the model to reflect on the step that just ran; an unusable
/// answer goes by the step's result.
async fn ask_reflector(
    state: &ReflectState,
    ctx: &NodeContext,
    deps: &AgentDeps,
    output: &ExecReport,
    step: &str,
) -> Result<(Reflection, u64), NodeError> {
    let message = render(
        prompts::REFLECTOR_USER,
        &[
            ("goal", &state.goal),
            ("number", &(state.step_index + 1).to_string()),
            ("total", &state.plan.len().to_string()),
            ("step", step),
            ("attempt", &state.current_attempt.to_string()),
            (
                "status",
                if output.success {
                    "succeeded"
                } else {
                    "failed"
                },
            ),
            ("output", &output.output),
        ],
    );
    let request = ChatRequest::new()
        .system(prompts::REFLECTOR)
        .max_tokens(deps.config.max_answer_tokens)
        .message(Message::user(message));
    let answer = ask::<Reflection>(ctx, "reflector", deps.model.as_ref(), request).await?;
    let mut reflection = answer.value.unwrap_or_else(|error| Reflection {
        decision: if output.success {
            Decision::Proceed
        } else {
            Decision::Refine
        },
        reason: format!(
            "the reflector's answer was unusable ({error}); going by the step's result"
        ),
    });
    reflection.reason = shorten(&reflection.reason, crate::pev::MAX_REASON_CHARS);
    Ok((reflection, answer.tokens))
}

/// *commit*: one git commit for the accepted step, with its description as
/// the message; then the next step.
pub async fn commit(
    state: &ReflectState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<ReflectStateUpdate, NodeError> {
    let dir = deps.workspace.workspace().to_path_buf();
    let message = state
        .plan
        .get(state.step_index)
        .map(|s| s.description.clone())
        .unwrap_or_else(|| "rebound step".to_string());
    let result = ctx
        .journal("git:commit", async {
            git::commit_all(&dir, &message)
                .await
                .map_err(|e| e.to_string())
        })
        .await?;
    match result {
        Ok(hash) => {
            AgentEvent::Git {
                action: "commit".to_string(),
                commit: hash.clone(),
                message: message.clone(),
            }
            .emit(ctx);
            // Verified by the checks: the goal is reached, the plan's other
            // steps are not needed.
            let next = if state.verified {
                state.plan.len()
            } else {
                state.step_index + 1
            };
            Ok(ReflectStateUpdate::default()
                .commits(vec![format!("{hash} {message}")])
                .last_commit(Some(hash))
                .step_index(next)
                .current_attempt(0)
                .last_error(None))
        }
        Err(message) => Ok(ReflectStateUpdate::default().stop(Some(StopReason::Error {
            message: format!("cannot commit: {message}"),
        }))),
    }
}

/// *rollback*: restores the work tree to the last commit, clears the plan,
/// and hands the planner the rolled-back step.
pub async fn rollback(
    state: &ReflectState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<ReflectStateUpdate, NodeError> {
    let dir = deps.workspace.workspace().to_path_buf();
    let Some(commit) = state.last_commit.clone() else {
        return Ok(ReflectStateUpdate::default().stop(Some(StopReason::Error {
            message: "nothing to roll back to: setup recorded no commit".to_string(),
        })));
    };
    let result = ctx
        .journal("git:rollback", async {
            git::rollback(&dir, &commit)
                .await
                .map_err(|e| e.to_string())
        })
        .await?;
    if let Err(message) = result {
        return Ok(ReflectStateUpdate::default().stop(Some(StopReason::Error {
            message: format!("cannot roll back: {message}"),
        })));
    }
    AgentEvent::Git {
        action: "rollback".to_string(),
        commit: commit.clone(),
        message: format!("work tree restored to {commit}"),
    }
    .emit(ctx);
    let forced = state.current_attempt > state.max_attempts;
    let last_error = state.last_error.clone().map(|mut failure| {
        if forced {
            failure.error = format!(
                "{}\n(rolled back after {} attempts)",
                failure.error, state.current_attempt
            );
        }
        failure
    });
    Ok(ReflectStateUpdate::default()
        .plan(Vec::new())
        .step_index(0)
        .current_attempt(0)
        .rollbacks(state.rollbacks + 1)
        .last_error(last_error))
}
