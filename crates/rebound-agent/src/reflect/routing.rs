//! The routers of note 3, as pure functions of the state.

use rebound_graph::Route;

use super::state::{Decision, ReflectState};
use super::{COMMIT, EXECUTOR, PLANNER, REFLECTOR, ROLLBACK};

/// After setup: a workspace that could not be set up ends the run;
/// otherwise the planner makes the first plan.
pub fn route_after_setup(state: &ReflectState) -> Route {
    match &state.stop {
        Some(stop) => Route::end().because(format!("stop: {stop}")),
        None => Route::to(PLANNER).because("the workspace is a clean git work tree: plan"),
    }
}

/// After the planner: a plan with a step at `step_index` → executor; a
/// stop or no plan → END.
pub fn route_after_planner(state: &ReflectState) -> Route {
    if let Some(stop) = &state.stop {
        return Route::end().because(format!("stop: {stop}"));
    }
    if state.step_index < state.plan.len() {
        Route::to(EXECUTOR).because(format!("a plan of {} steps", state.plan.len()))
    } else {
        Route::end().because("the planner made no plan")
    }
}

/// After the executor: the reflector judges; a plan index out of bounds
/// (nothing ran) goes to the planner.
pub fn route_after_executor(state: &ReflectState) -> Route {
    if let Some(stop) = &state.stop {
        return Route::end().because(format!("stop: {stop}"));
    }
    if state.step_index >= state.plan.len() {
        return Route::to(PLANNER).because(format!(
            "step index {} is out of the plan's {} steps: plan again",
            state.step_index,
            state.plan.len()
        ));
    }
    Route::to(REFLECTOR).because("reflect on the step")
}

/// After the reflector: guardrails first (a stop or `iters >= max_iters` →
/// END; `current_attempt > max_attempts` → a forced rollback), then
/// `proceed` → commit, `refine` → executor, `rollback` → rollback (which
/// restores the last commit and goes to the planner).
pub fn route_after_reflector(state: &ReflectState) -> Route {
    if let Some(stop) = &state.stop {
        return Route::end().because(format!("stop: {stop}"));
    }
    if state.iters >= state.max_iters {
        return Route::end().because(format!(
            "iters {} >= max_iters {}: stopping",
            state.iters, state.max_iters
        ));
    }
    if state.current_attempt > state.max_attempts {
        return Route::to(ROLLBACK).because(format!(
            "current_attempt {} > max_attempts {}: forced rollback",
            state.current_attempt, state.max_attempts
        ));
    }
    match state.reflection.as_ref().map(|r| r.decision) {
        Some(Decision::Proceed) => Route::to(COMMIT).because("proceed: commit the step"),
        Some(Decision::Refine) if state.step_index < state.plan.len() => {
            Route::to(EXECUTOR).because("refine: run the step again")
        }
        Some(Decision::Refine) => {
            Route::to(PLANNER).because("refine, but the plan index is out of bounds: plan again")
        }
        Some(Decision::Rollback) => Route::to(ROLLBACK).because("rollback: undo and replan"),
        None => Route::to(PLANNER).because("no reflection: plan again"),
    }
}

/// After commit: more steps → executor, otherwise END.
pub fn route_after_commit(state: &ReflectState) -> Route {
    if let Some(stop) = &state.stop {
        return Route::end().because(format!("stop: {stop}"));
    }
    if state.step_index < state.plan.len() {
        Route::to(EXECUTOR).because(format!(
            "step {} of {} is next",
            state.step_index + 1,
            state.plan.len()
        ))
    } else if state.verified {
        Route::end().because("the checks verify the goal: the run is done")
    } else {
        Route::end().because("every step is committed")
    }
}
