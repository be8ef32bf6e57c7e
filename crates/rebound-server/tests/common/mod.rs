//! Shared set-up of rebound-server's integration tests: the `approval` test
//! graph that the SDK compatibility test (and the others) serve, a server on
//! a free loopback port, and reading a JSON answer.
#![allow(dead_code)]
#![allow(clippy::unwrap_used)] // test helpers: a failure is the test's

use std::future::Future;
use std::time::Duration;

use rebound_server::Server;

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

/// The state of the `approval_request` graph: the shape of an agent's
/// state as far as the web view reads it (a goal, a plan).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
#[serde(default)]
pub struct ApprovalRequestState {
    /// What the run is for.
    pub goal: String,
    /// The plan: one step, `{"description", "command"}`.
    pub plan: Vec<serde_json::Value>,
    /// The answer the run was resumed with: `{"decision": "approve"}`...
    pub answer: Option<serde_json::Value>,
    /// The nodes that ran, in order.
    #[state(append)]
    pub log: Vec<String>,
}

/// START -> plan -> run_command -> (report | END) -> END: an agent that asks
/// before it runs a command, as rebound's shell approvals do.
///
/// * `plan` writes a one-step plan: `echo hi`.
/// * `run_command` interrupts with an approval request (`{"kind":
///   "approval", "tool": "shell", "command": "echo hi", "cwd": "/tmp",
///   "reason": "test"}`), records the answer in `answer`, and when it is not
///   a denial emits the tool events the shell would (`tool_call`,
///   `tool_output` "hi").
/// * the route out of `run_command` says why: approved goes to `report`,
///   denied ends.
///
/// Compiled without a checkpointer: the server attaches its own.
#[allow(clippy::expect_used)] // a test helper: a graph that does not compile is a bug in this file
pub fn approval_request_graph() -> CompiledGraph<ApprovalRequestState> {
    let mut graph = StateGraph::<ApprovalRequestState>::new();
    graph
        .add_sync_node("plan", |_, _| {
            Ok(ApprovalRequestStateUpdate::default()
                .plan(vec![json!({"description": "say hi", "command": "echo hi"})])
                .log(vec!["plan".to_string()]))
        })
        .add_sync_node("run_command", |_, ctx| {
            let answer: serde_json::Value = ctx.interrupt(json!({
                "kind": "approval",
                "tool": "shell",
                "command": "echo hi",
                "cwd": "/tmp",
                "reason": "test",
            }))?;
            if answer["decision"] != "deny" {
                ctx.emit(|| json!({"tool_call": {"phase": "started", "name": "shell", "command": "echo hi"}}));
                ctx.emit(|| json!({"tool_output": {"stream": "stdout", "line": "hi"}}));
                ctx.emit(|| json!({"tool_call": {"phase": "finished", "name": "shell", "command": "echo hi", "success": true, "duration_ms": 1}}));
            }
            Ok(ApprovalRequestStateUpdate::default()
                .answer(Some(answer))
                .log(vec!["run_command".to_string()]))
        })
        .add_sync_node("report", |_, _| {
            Ok(ApprovalRequestStateUpdate::default().log(vec!["report".to_string()]))
        })
        .add_edge(START, "plan")
        .add_edge("plan", "run_command")
        .add_conditional_edges(
            "run_command",
            |state: &ApprovalRequestState| {
                let denied = state
                    .answer
                    .as_ref()
                    .is_some_and(|answer| answer["decision"] == "deny");
                if denied {
                    rebound_graph::Route::to(END).because("the command was denied")
                } else {
                    rebound_graph::Route::to("report").because("the command was approved")
                }
            },
            ["report", END],
        )
        .add_edge("report", END);
    graph
        .compile()
        .expect("the approval request graph compiles")
}

/// Serves `server` on a free loopback port, on a task of its own; its base
/// URL (`http://127.0.0.1:<port>`).
pub async fn serve_on_loopback(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(server.serve(listener));
    base
}

/// Sends a request and reads its answer as JSON.
pub trait JsonAnswer {
    /// The answer's JSON (panics on a transport error or a body that is
    /// not JSON).
    fn json_answer(self) -> impl Future<Output = serde_json::Value> + Send;
}

impl JsonAnswer for reqwest::RequestBuilder {
    async fn json_answer(self) -> serde_json::Value {
        self.send().await.unwrap().json().await.unwrap()
    }
}

/// The ids of the threads `POST /threads/search` finds with `status`,
/// sorted (panics on an answer that is not a list).
pub async fn thread_ids_with_status(
    client: &reqwest::Client,
    base: &str,
    status: &str,
) -> Vec<String> {
    let found = client
        .post(format!("{base}/threads/search"))
        .json(&serde_json::json!({ "status": status }))
        .json_answer()
        .await;
    let mut ids: Vec<String> = found
        .as_array()
        .unwrap_or_else(|| panic!("{found}"))
        .iter()
        .map(|t| t["thread_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}
