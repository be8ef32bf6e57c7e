//! Supervisor routing with a human in the loop (design note 4): an
//! education tutoring system.
//!
//! ```text
//! START → coordinator ─┬→ course_advisor   ─┐
//!             ↑        ├→ learning_planner ─┤  every node → route_next
//!             │        ├→ human_input      ─┤
//!             │        └→ END               │
//!             └─────────────────────────────┘
//! ```
//!
//! The `coordinator` reads the request and the conversation and picks the
//! `next_agent`, or completes the session; the `course_advisor` recommends
//! courses; the `learning_planner` makes a weekly plan and, when it needs
//! to know the student's hours, asks through [`request_human_input`], which
//! sends the run to `human_input`: an interrupt whose answer becomes a
//! message. After every node, [`route_next`] decides, in the note's
//! priority order (loop limit, completion, human input, a valid
//! `next_agent`, safe fallback to END), with `max_loop_count` from
//! [`crate::AgentConfig`]. Every decision is kept in the state
//! ([`TutorState::route_history`], [`TutorState::route_counts`]).
//!
//! The graph interrupts, so runs need a checkpointer and a thread id:
//!
//! ```no_run
//! # use std::sync::Arc;
//! # async fn demo(deps: Arc<rebound_agent::AgentDeps>) -> Result<(), Box<dyn std::error::Error>> {
//! use rebound_agent::supervisor::{self, HumanInputRequest};
//! use rebound_graph::{checkpoint::MemorySaver, RunConfig, RunOutcome};
//!
//! let graph = supervisor::build(deps)?.with_checkpointer(Arc::new(MemorySaver::new()));
//! let config = RunConfig::new().with_thread_id("session-1");
//! let mut outcome = graph
//!     .run(supervisor::initial_state("Which ML courses, and a weekly plan?"), config.clone())
//!     .await?;
//! while let RunOutcome::Interrupted { interrupts, .. } = &outcome {
//!     let question = interrupts.iter().find_map(HumanInputRequest::from_interrupt);
//!     println!("{}", question.map(|q| q.question).unwrap_or_default());
//!     outcome = graph.resume_with(serde_json::json!("6 hours a week"), config.clone()).await?;
//! }
//! println!("{:#?}", outcome.state().route_history);
//! # Ok(())
//! # }
//! ```

mod agents;
mod routing;
mod state;

use std::sync::Arc;
use std::time::Duration;

use rebound_graph::{CompileError, CompiledGraph, NodeOptions, RetryPolicy, StateGraph, START};

pub use agents::{
    context_message, coordinator, course_advisor, human_input, learning_planner, normalize_agent,
    CoordinatorAnswer, CourseAdvice, HumanInputRequest, LearningPlan, MAX_QUESTIONS, STUDENT,
};
pub use routing::{increment_loop_count, record_route, request_human_input, route_next};
pub use state::{RouteRecord, TutorState, TutorStateUpdate};

use crate::AgentDeps;

/// The node names (the protocol's, which displays match against).
pub use rebound_protocol::nodes::supervisor::{
    COORDINATOR, COURSE_ADVISOR, HUMAN_INPUT, LEARNING_PLANNER,
};
/// The names a `next_agent` may hold. `human_input` is not one of them: the
/// only way to the student is `requires_human_input`.
pub const AGENTS: [&str; 3] = [COORDINATOR, COURSE_ADVISOR, LEARNING_PLANNER];

/// The retry policy of the agents: transient model errors are retried
/// when the provider did not retry them itself (the HTTP providers do;
/// [`crate::model_call::model_node_error`]), and the model call is journaled,
/// so a successful answer is never asked twice.
fn model_retry() -> NodeOptions {
    NodeOptions::new().retry(
        RetryPolicy::new(3)
            .initial_backoff(Duration::from_millis(500))
            .max_backoff(Duration::from_secs(8)),
    )
}

/// The tutoring graph: START → coordinator, then every node →
/// [`route_next`] with `deps.config.max_loop_count`. Without a
/// checkpointer (add one with `with_checkpointer`), a run that reaches
/// `human_input` fails, since an interrupt needs a thread to resume.
pub fn build(deps: Arc<AgentDeps>) -> Result<CompiledGraph<TutorState>, CompileError> {
    let max_loop_count = deps.config.max_loop_count;
    let mut graph = StateGraph::<TutorState>::new();
    let coordinator_deps = deps.clone();
    graph.add_node(COORDINATOR, move |state, ctx| {
        let deps = coordinator_deps.clone();
        async move { coordinator(&state, &ctx, &deps).await }
    });
    let advisor_deps = deps.clone();
    graph.add_node(COURSE_ADVISOR, move |state, ctx| {
        let deps = advisor_deps.clone();
        async move { course_advisor(&state, &ctx, &deps).await }
    });
    let planner_deps = deps;
    graph.add_node(LEARNING_PLANNER, move |state, ctx| {
        let deps = planner_deps.clone();
        async move { learning_planner(&state, &ctx, &deps).await }
    });
    graph.add_sync_node(HUMAN_INPUT, move |state, ctx| {
        human_input(state, ctx, max_loop_count)
    });
    for agent in AGENTS {
        graph.configure_node(agent, model_retry());
    }
    graph.add_edge(START, COORDINATOR);
    for node in AGENTS.into_iter().chain([HUMAN_INPUT]) {
        graph.add_conditional_edges(
            node,
            move |state: &TutorState| route_next(state, max_loop_count),
            routing::paths(),
        );
    }
    graph.compile()
}

/// The state a session starts from: the request, also as the student's
/// first message.
pub fn initial_state(request: impl Into<String>) -> TutorState {
    let request = request.into();
    TutorState {
        messages: vec![format!("{STUDENT}: {request}")],
        request,
        ..TutorState::default()
    }
}
