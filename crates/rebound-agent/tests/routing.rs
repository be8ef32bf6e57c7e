//! A test for every row of every routing table of design notes 1 and 3,
//! and for advance's counter rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rebound_agent::pev::{self, advance, route_after_advance, route_after_executor, PevState};
use rebound_agent::reflect::{
    self, route_after_commit, route_after_reflector, Decision, ReflectState, Reflection,
};
use rebound_agent::{BudgetKind, ExecReport, PlanStatus, PlanStep, StopReason, Verdict};
use rebound_graph::{Route, State, END};

fn steps(n: usize) -> Vec<PlanStep> {
    (0..n)
        .map(|i| PlanStep {
            description: format!("step {i}"),
            command: Some(format!("echo {i}")),
            ..PlanStep::default()
        })
        .collect()
}

fn target(route: &Route) -> String {
    route.targets().collect::<Vec<_>>().join(",")
}

fn pev_state() -> PevState {
    PevState {
        plan: steps(3),
        max_iters: 10,
        ..PevState::new("goal", 10)
    }
}

// --- route_after_executor (note 1) ---

#[test]
fn failed_step_goes_to_the_planner_skipping_the_reviewer() {
    let state = PevState {
        executor_output: Some(ExecReport {
            success: false,
            output: "exit 1".into(),
        }),
        ..pev_state()
    };
    let route = route_after_executor(&state);
    assert_eq!(target(&route), pev::PLANNER);
    assert!(route.reason().unwrap().contains("repair"));
}

#[test]
fn successful_step_goes_to_the_reviewer() {
    let state = PevState {
        executor_output: Some(ExecReport {
            success: true,
            output: "ok".into(),
        }),
        ..pev_state()
    };
    assert_eq!(target(&route_after_executor(&state)), pev::REVIEWER);
}

#[test]
fn executor_with_a_stop_ends_the_run() {
    let state = PevState {
        executor_output: Some(ExecReport {
            success: false,
            output: "exit 1".into(),
        }),
        stop: Some(StopReason::Budget {
            budget: BudgetKind::Attempts,
            detail: "4 failed".into(),
        }),
        ..pev_state()
    };
    assert_eq!(target(&route_after_executor(&state)), END);
}

// --- route_after_advance (note 1), in priority order ---

#[test]
fn finish_ends_even_with_steps_left_and_iters_left() {
    let state = PevState {
        verdict: Some(Verdict::Finish),
        step_index: 0,
        ..pev_state()
    };
    assert_eq!(target(&route_after_advance(&state)), END);
}

#[test]
fn max_iters_ends_before_retry_and_pending_steps() {
    for verdict in [Verdict::Retry, Verdict::Continue, Verdict::Replan] {
        let state = PevState {
            verdict: Some(verdict),
            iters: 10,
            ..pev_state()
        };
        let route = route_after_advance(&state);
        assert_eq!(target(&route), END, "{verdict}");
        assert!(route.reason().unwrap().contains("max_iters"));
    }
}

#[test]
fn retry_goes_to_the_planner_even_with_a_pending_step() {
    let state = PevState {
        verdict: Some(Verdict::Retry),
        step_index: 1,
        ..pev_state()
    };
    assert_eq!(target(&route_after_advance(&state)), pev::PLANNER);
}

#[test]
fn a_pending_step_goes_to_the_executor() {
    let state = PevState {
        verdict: Some(Verdict::Continue),
        step_index: 2,
        ..pev_state()
    };
    assert_eq!(target(&route_after_advance(&state)), pev::EXECUTOR);
}

#[test]
fn no_plan_or_plan_done_goes_to_the_planner() {
    let empty = PevState {
        verdict: Some(Verdict::Replan),
        plan: Vec::new(),
        ..pev_state()
    };
    assert_eq!(target(&route_after_advance(&empty)), pev::PLANNER);
    let done = PevState {
        verdict: Some(Verdict::Continue),
        step_index: 3,
        ..pev_state()
    };
    assert_eq!(target(&route_after_advance(&done)), pev::PLANNER);
}

#[test]
fn a_stop_ends_after_finish_and_max_iters() {
    let state = PevState {
        verdict: Some(Verdict::Retry),
        stop: Some(StopReason::Error {
            message: "x".into(),
        }),
        ..pev_state()
    };
    assert_eq!(target(&route_after_advance(&state)), END);
}

// --- route_after_planner (this crate's addition) ---

#[test]
fn planner_routes_to_executor_or_ends() {
    assert_eq!(
        target(&pev::route_after_planner(&pev_state())),
        pev::EXECUTOR
    );
    let empty = PevState {
        plan: Vec::new(),
        ..pev_state()
    };
    assert_eq!(target(&pev::route_after_planner(&empty)), END);
    let stopped = PevState {
        stop: Some(StopReason::Error {
            message: "bad plan".into(),
        }),
        ..pev_state()
    };
    assert_eq!(target(&pev::route_after_planner(&stopped)), END);
}

// --- advance's counter rules (note 1) ---

fn advanced(state: &PevState) -> PevState {
    let mut next = state.clone();
    next.apply(advance(state));
    next
}

#[test]
fn advance_counts_and_finish_keeps_everything() {
    let state = PevState {
        verdict: Some(Verdict::Finish),
        step_index: 1,
        iters: 2,
        plan_status: PlanStatus::Executing,
        ..pev_state()
    };
    let next = advanced(&state);
    assert_eq!(next.iters, 3);
    assert_eq!(next.plan, state.plan);
    assert_eq!(next.step_index, 1);
    assert_eq!(next.plan_status, PlanStatus::Completed);
}

#[test]
fn advance_retry_and_replan_clear_the_plan() {
    for verdict in [Verdict::Retry, Verdict::Replan] {
        let state = PevState {
            verdict: Some(verdict),
            step_index: 1,
            ..pev_state()
        };
        let next = advanced(&state);
        assert!(next.plan.is_empty(), "{verdict}");
        assert_eq!(next.step_index, 0);
        assert_eq!(next.iters, 1);
    }
}

#[test]
fn advance_continue_moves_on_or_clears_a_finished_plan() {
    let middle = PevState {
        verdict: Some(Verdict::Continue),
        step_index: 1,
        ..pev_state()
    };
    let next = advanced(&middle);
    assert_eq!(next.step_index, 2);
    assert_eq!(next.plan.len(), 3);
    let last = PevState {
        verdict: Some(Verdict::Continue),
        step_index: 2,
        ..pev_state()
    };
    let next = advanced(&last);
    assert!(next.plan.is_empty());
    assert_eq!(next.step_index, 0);
}

// --- reflect (note 3) ---

fn reflect_state(decision: Option<Decision>) -> ReflectState {
    ReflectState {
        plan: steps(2),
        reflection: decision.map(|decision| Reflection {
            decision,
            reason: "because".into(),
        }),
        current_attempt: 1,
        ..ReflectState::new("goal", 3, 20)
    }
}

#[test]
fn reflector_decisions_route_per_the_note() {
    assert_eq!(
        target(&route_after_reflector(&reflect_state(Some(
            Decision::Proceed
        )))),
        reflect::COMMIT
    );
    assert_eq!(
        target(&route_after_reflector(&reflect_state(Some(
            Decision::Refine
        )))),
        reflect::EXECUTOR
    );
    assert_eq!(
        target(&route_after_reflector(&reflect_state(Some(
            Decision::Rollback
        )))),
        reflect::ROLLBACK
    );
}

#[test]
fn too_many_attempts_force_a_rollback_whatever_the_decision() {
    for decision in [Decision::Proceed, Decision::Refine, Decision::Rollback] {
        let state = ReflectState {
            current_attempt: 4,
            ..reflect_state(Some(decision))
        };
        let route = route_after_reflector(&state);
        assert_eq!(target(&route), reflect::ROLLBACK, "{decision}");
        assert!(route.reason().unwrap().contains("forced"));
    }
    let at_limit = ReflectState {
        current_attempt: 3,
        ..reflect_state(Some(Decision::Refine))
    };
    assert_eq!(target(&route_after_reflector(&at_limit)), reflect::EXECUTOR);
}

#[test]
fn an_out_of_bounds_plan_index_never_crashes() {
    let refine = ReflectState {
        step_index: 7,
        ..reflect_state(Some(Decision::Refine))
    };
    assert_eq!(target(&route_after_reflector(&refine)), reflect::PLANNER);
    let after_exec = ReflectState {
        step_index: 7,
        ..reflect_state(None)
    };
    assert_eq!(
        target(&reflect::route_after_executor(&after_exec)),
        reflect::PLANNER
    );
    let commit = ReflectState {
        step_index: 9,
        ..reflect_state(None)
    };
    assert_eq!(target(&route_after_commit(&commit)), END);
}

#[test]
fn after_commit_more_steps_go_to_the_executor_else_end() {
    let more = ReflectState {
        step_index: 1,
        ..reflect_state(None)
    };
    assert_eq!(target(&route_after_commit(&more)), reflect::EXECUTOR);
    let done = ReflectState {
        step_index: 2,
        ..reflect_state(None)
    };
    assert_eq!(target(&route_after_commit(&done)), END);
}

#[test]
fn reflect_guardrails_end_the_run() {
    let max_iters = ReflectState {
        iters: 20,
        ..reflect_state(Some(Decision::Refine))
    };
    assert_eq!(target(&route_after_reflector(&max_iters)), END);
    let stopped = ReflectState {
        stop: Some(StopReason::Error {
            message: "x".into(),
        }),
        ..reflect_state(Some(Decision::Proceed))
    };
    assert_eq!(target(&route_after_reflector(&stopped)), END);
    assert_eq!(target(&reflect::route_after_setup(&stopped)), END);
    assert_eq!(
        target(&reflect::route_after_setup(&reflect_state(None))),
        reflect::PLANNER
    );
}
