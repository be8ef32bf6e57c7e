//! The routers of note 1, as pure functions of the state.

use rebound_graph::{PathMap, Route, END};

use super::state::PevState;
use super::{EXECUTOR, PLANNER, REVIEWER};
use crate::Verdict;

/// After the executor: a failed step goes straight to the planner (repair
/// mode; the reviewer is skipped: no model call to interpret a failure);
/// otherwise to the reviewer. Beyond the note: a run whose `stop` is set
/// (a budget ran out, the user denied too often) ends.
pub fn route_after_executor(state: &PevState) -> Route {
    if let Some(stop) = &state.stop {
        return Route::end().because(format!("stop: {stop}"));
    }
    match &state.executor_output {
        Some(output) if output.success => {
            Route::to(REVIEWER).because("the step succeeded: review it")
        }
        _ => Route::to(PLANNER).because("the step failed: repair mode, back to the planner"),
    }
}

/// After advance, in the note's priority order: `finish` → END;
/// `iters >= max_iters` → END; `retry` → planner; a plan with a step left →
/// executor; otherwise → planner. Beyond the note, before `retry`: a run
/// whose `stop` is set ends.
pub fn route_after_advance(state: &PevState) -> Route {
    if state.verdict == Some(Verdict::Finish) {
        return Route::end().because("verdict finish: the goal is reached");
    }
    if state.iters >= state.max_iters {
        return Route::end().because(format!(
            "iters {} >= max_iters {}: stopping",
            state.iters, state.max_iters
        ));
    }
    if let Some(stop) = &state.stop {
        return Route::end().because(format!("stop: {stop}"));
    }
    if state.verdict == Some(Verdict::Retry) {
        return Route::to(PLANNER).because("verdict retry: back to the planner");
    }
    if state.has_pending_step() {
        return Route::to(EXECUTOR).because(format!(
            "step {} of {} is next",
            state.step_index + 1,
            state.plan.len()
        ));
    }
    Route::to(PLANNER).because(match state.verdict {
        Some(Verdict::Replan) => "verdict replan: a new plan",
        _ => "the plan is done but the goal is not: plan again to verify or extend",
    })
}

/// After the planner (beyond the note, which has a plain edge): a plan goes
/// to the executor; a planner that could not plan (its `stop` is set) ends
/// the run instead of looping.
pub fn route_after_planner(state: &PevState) -> Route {
    match &state.stop {
        Some(stop) => Route::end().because(format!("stop: {stop}")),
        None if state.has_pending_step() => {
            Route::to(EXECUTOR).because(format!("a plan of {} steps", state.plan.len()))
        }
        None => Route::end().because("the planner made no plan"),
    }
}

/// The targets a router of this graph may answer.
pub(super) fn paths(targets: &[&str]) -> PathMap {
    targets
        .iter()
        .fold(PathMap::new(), |paths, target| {
            paths.route(*target, *target)
        })
        .route(END, END)
}
