//! Plan → execute → review → advance, with self-correction (design notes 1
//! and 2).
//!
//! ```text
//! START → planner → executor ─(success)→ reviewer → advance ─→ executor | planner | END
//!            ↑          └─(failure: repair mode)─→ planner
//! ```
//!
//! [`route_after_executor`] and [`route_after_advance`] are the notes'
//! routers; [`route_after_planner`] and the `stop` field are this crate's
//! additions, so that budgets and unusable model answers end the run with a
//! typed [`crate::StopReason`] instead of looping.

mod nodes;
mod routing;
mod state;

use std::sync::Arc;
use std::time::Duration;

use rebound_graph::{CompileError, CompiledGraph, NodeOptions, RetryPolicy, StateGraph, START};

pub use nodes::{
    advance, executor, plan_context, planner, reviewer, reviewer_message, MAX_REASON_CHARS,
};
pub use routing::{route_after_advance, route_after_executor, route_after_planner};
pub use state::{PevState, PevStateUpdate};

use crate::summary::Counters;
use crate::{AgentDeps, RunSummary, StopReason, Verdict};

/// The node names (the protocol's, which displays match against).
pub use rebound_protocol::nodes::pev::{ADVANCE, EXECUTOR, PLANNER, REVIEWER};

/// The retry policy of the model-only nodes (planner, reviewer): transient
/// model errors are retried when the provider did not retry them itself
/// (the HTTP providers do; [`crate::model_call::model_node_error`]); the
/// executor is not retried as a node, since a retried attempt would run
/// its commands again.
fn model_retry() -> NodeOptions {
    NodeOptions::new().retry(
        RetryPolicy::new(3)
            .initial_backoff(Duration::from_millis(500))
            .max_backoff(Duration::from_secs(8)),
    )
}

/// The workflow's graph, without a checkpointer (add one with
/// `with_checkpointer` to make runs durable and approvals possible).
pub fn build(deps: Arc<AgentDeps>) -> Result<CompiledGraph<PevState>, CompileError> {
    let mut graph = StateGraph::<PevState>::new();
    let planner_deps = deps.clone();
    graph.add_node(PLANNER, move |state, ctx| {
        let deps = planner_deps.clone();
        async move { planner(&state, &ctx, &deps).await }
    });
    let executor_deps = deps.clone();
    graph.add_node(EXECUTOR, move |state, ctx| {
        let deps = executor_deps.clone();
        async move { executor(&state, &ctx, &deps).await }
    });
    let reviewer_deps = deps;
    graph.add_node(REVIEWER, move |state, ctx| {
        let deps = reviewer_deps.clone();
        async move { reviewer(&state, &ctx, &deps).await }
    });
    graph.add_sync_node(ADVANCE, |state, _ctx| Ok(advance(state)));
    graph.configure_node(PLANNER, model_retry());
    graph.configure_node(REVIEWER, model_retry());
    graph.add_edge(START, PLANNER);
    graph.add_conditional_edges(PLANNER, route_after_planner, routing::paths(&[EXECUTOR]));
    graph.add_conditional_edges(
        EXECUTOR,
        route_after_executor,
        routing::paths(&[PLANNER, REVIEWER]),
    );
    graph.add_edge(REVIEWER, ADVANCE);
    graph.add_conditional_edges(
        ADVANCE,
        route_after_advance,
        routing::paths(&[PLANNER, EXECUTOR]),
    );
    graph.compile()
}

/// Why a finished run stopped, read from its final state. A finish is
/// `Finished` only with every check passing, `FinishedUnverified` when the
/// run has no check.
pub fn stop_reason(state: &PevState) -> StopReason {
    if state.verdict == Some(Verdict::Finish) {
        return state.evidence.finish_reason();
    }
    if let Some(stop) = &state.stop {
        return stop.clone();
    }
    if state.iters >= state.max_iters {
        return StopReason::MaxIterations {
            limit: state.max_iters,
        };
    }
    StopReason::Error {
        message: "the run ended without a verdict".to_string(),
    }
}

/// The summary of a finished run.
pub fn summarize(state: &PevState) -> RunSummary {
    let stop_reason = stop_reason(state);
    let failed = crate::summary::failed_steps(&state.results);
    let last = state
        .last_result
        .as_deref()
        .map(|text| crate::llm::shorten(text, 300))
        .unwrap_or_default();
    let summary = format!(
        "{}: {} after {} steps ({} failed, {} repairs) in {} review rounds. {}",
        state.goal,
        stop_reason,
        state.results.len(),
        failed,
        state.repairs,
        state.iters,
        last
    );
    RunSummary::new(
        stop_reason,
        &state.results,
        &state.evidence,
        Counters {
            repairs: state.repairs,
            iters: state.iters,
            tokens: state.tokens,
            work_ms: state.work_ms,
        },
        summary,
    )
}
