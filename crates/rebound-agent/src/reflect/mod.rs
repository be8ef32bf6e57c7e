//! Reflect and commit (design note 3): each accepted step becomes a git
//! commit; a step that went wrong is refined or rolled back.
//!
//! ```text
//! START → setup → planner → executor → reflector ─proceed→ commit ─more steps→ executor
//!                    ↑                     │  └─refine→ executor          └─done→ END
//!                    └──── rollback ←──────┘ (rollback, or current_attempt > max_attempts)
//! ```
//!
//! The note's `rollback → planner` goes through a `rollback` node that
//! restores the last commit first (`git reset --hard` + `git clean`), so the
//! planner replans from a known tree.

mod nodes;
mod routing;
mod state;

use std::sync::Arc;

use rebound_graph::{CompileError, CompiledGraph, PathMap, StateGraph, END, START};

pub use nodes::{commit, executor, planner, reflector, rollback, setup};
pub use routing::{
    route_after_commit, route_after_executor, route_after_planner, route_after_reflector,
    route_after_setup,
};
pub use state::{Decision, ReflectState, ReflectStateUpdate, Reflection};

use crate::summary::Counters;
use crate::{RunSummary, StopReason};

/// The node names (the protocol's, which displays match against).
pub use rebound_protocol::nodes::reflect::{COMMIT, EXECUTOR, PLANNER, REFLECTOR, ROLLBACK, SETUP};

fn paths(targets: &[&str]) -> PathMap {
    targets
        .iter()
        .fold(PathMap::new(), |paths, target| {
            paths.route(*target, *target)
        })
        .route(END, END)
}

macro_rules! node {
    ($graph:ident, $deps:ident, $name:expr, $func:path) => {{
        let deps = $deps.clone();
        $graph.add_node($name, move |state, ctx| {
            let deps = deps.clone();
            async move { $func(&state, &ctx, &deps).await }
        });
    }};
}

/// The workflow's graph, without a checkpointer.
pub fn build(deps: Arc<crate::AgentDeps>) -> Result<CompiledGraph<ReflectState>, CompileError> {
    let mut graph = StateGraph::<ReflectState>::new();
    node!(graph, deps, SETUP, setup);
    node!(graph, deps, PLANNER, planner);
    node!(graph, deps, EXECUTOR, executor);
    node!(graph, deps, REFLECTOR, reflector);
    node!(graph, deps, COMMIT, commit);
    node!(graph, deps, ROLLBACK, rollback);
    graph.add_edge(START, SETUP);
    graph.add_conditional_edges(SETUP, route_after_setup, paths(&[PLANNER]));
    graph.add_conditional_edges(PLANNER, route_after_planner, paths(&[EXECUTOR]));
    graph.add_conditional_edges(EXECUTOR, route_after_executor, paths(&[REFLECTOR, PLANNER]));
    graph.add_conditional_edges(
        REFLECTOR,
        route_after_reflector,
        paths(&[COMMIT, EXECUTOR, ROLLBACK, PLANNER]),
    );
    graph.add_conditional_edges(COMMIT, route_after_commit, paths(&[EXECUTOR]));
    graph.add_edge(ROLLBACK, PLANNER);
    graph.compile()
}

/// Why a finished run stopped, read from its final state.
pub fn stop_reason(state: &ReflectState) -> StopReason {
    if let Some(stop) = &state.stop {
        return stop.clone();
    }
    if !state.plan.is_empty() && state.step_index >= state.plan.len() {
        return state.evidence.finish_reason();
    }
    if state.iters >= state.max_iters {
        return StopReason::MaxIterations {
            limit: state.max_iters,
        };
    }
    StopReason::Error {
        message: "the run ended before the plan was done".to_string(),
    }
}

/// The summary of a finished run.
pub fn summarize(state: &ReflectState) -> RunSummary {
    let stop_reason = stop_reason(state);
    let failed = crate::summary::failed_steps(&state.results);
    let summary = format!(
        "{}: {} with {} commits, {} rollbacks, {} executions ({} failed).",
        state.goal,
        stop_reason,
        state.commits.len(),
        state.rollbacks,
        state.results.len(),
        failed
    );
    RunSummary::new(
        stop_reason,
        &state.results,
        &state.evidence,
        Counters {
            repairs: state.rollbacks,
            iters: state.iters,
            tokens: state.tokens,
            work_ms: state.work_ms,
        },
        summary,
    )
}
