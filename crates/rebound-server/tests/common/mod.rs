//! Shared set-up of rebound-server's integration tests: the `approval` test
//! graph that the SDK compatibility test (and the others) serve.
#![allow(dead_code)]

use std::time::Duration;

use rebound_graph::{CompiledGraph, NodeError, State, StateGraph, END, START};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The state of the `approval` graph. Every field has a default, so a run's
/// input can be as small as `{"topic": "x"}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
#[serde(default)]
pub struct Demo {
    /// What is to be approved; the interrupt's question names it.
    pub topic: String,
    /// Skips the interrupt: `approve` approves on its own.
    pub auto_approve: bool,
    /// How long `plan` works, in milliseconds, so a run can be cancelled
    /// while it is busy.
    pub sleep_ms: u64,
    /// The nodes that ran, in order.
    #[state(append)]
    pub log: Vec<String>,
    /// The human's answer to the interrupt, once resumed.
    pub answer: Option<String>,
}

/// How often `plan` looks at its cancellation while it sleeps.
const CANCEL_POLL: Duration = Duration::from_millis(10);

/// START -> plan -> approve -> act -> END.
///
/// * `plan` logs "plan" after sleeping `sleep_ms`, in steps of 10 ms that
///   each check the run's cancellation.
/// * `approve` interrupts with `{"question": "approve <topic>?"}` unless
///   `auto_approve` is set, writes the answer it is resumed with to `answer`,
///   and logs "approve".
/// * `act` logs "act".
///
/// Compiled without a checkpointer: the server attaches its own.
#[allow(clippy::expect_used)] // a test helper: a graph that does not compile is a bug in this file
pub fn approval_graph() -> CompiledGraph<Demo> {
    let mut graph = StateGraph::<Demo>::new();
    graph
        .add_node("plan", |state, ctx| async move {
            let mut slept = Duration::ZERO;
            let wanted = Duration::from_millis(state.sleep_ms);
            while slept < wanted && !ctx.is_cancelled() {
                tokio::time::sleep(CANCEL_POLL).await;
                slept += CANCEL_POLL;
            }
            Ok::<_, NodeError>(DemoUpdate::default().log(vec!["plan".to_string()]))
        })
        .add_sync_node("approve", |state, ctx| {
            let mut update = DemoUpdate::default().log(vec!["approve".to_string()]);
            if !state.auto_approve {
                let answer: String =
                    ctx.interrupt(json!({"question": format!("approve {}?", state.topic)}))?;
                update = update.answer(Some(answer));
            }
            Ok(update)
        })
        .add_sync_node("act", |_, _| {
            Ok(DemoUpdate::default().log(vec!["act".to_string()]))
        })
        .add_edge(START, "plan")
        .add_edge("plan", "approve")
        .add_edge("approve", "act")
        .add_edge("act", END);
    graph.compile().expect("the approval graph compiles")
}
