//! `run_tool_call` inside real graphs checkpointed to SQLite: asking
//! through an interrupt, approving, denying, approving all, refusing
//! forbidden commands, never running a call twice, and the typed events
//! of each.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use rebound_agent::tool_call::{run_tool_call, ToolCallOutcome};
use rebound_graph::{
    CompiledGraph, Event, NodeContext, NodeError, RunConfig, RunOutcome, State, StateGraph, END,
    START,
};
use rebound_sqlite::SqliteSaver;
use rebound_tools::approval::{ApprovalAnswer, ApprovalMode, ApprovalPolicy, ApprovalRequest};
use rebound_tools::{ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tempfile::TempDir;

// ---------------------------------------------------------------------------
// run_tool_call in real graphs.

/// A tool that "runs" a command by appending it to a log file, so that a
/// test can count real executions. The command `fail` fails.
struct Append {
    log: PathBuf,
}

#[derive(Deserialize, JsonSchema)]
struct AppendArgs {
    command: String,
}

#[async_trait]
impl TypedTool for Append {
    type Args = AppendArgs;
    const NAME: &'static str = "append";

    fn description(&self) -> &str {
        "appends the command to a log"
    }

    fn command_line(&self, args: &AppendArgs) -> Option<String> {
        Some(args.command.clone())
    }

    async fn run(&self, args: AppendArgs, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        if args.command == "fail" {
            return Err(ToolError::failed("it broke"));
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .map_err(|e| ToolError::io("opening the log", e))?;
        writeln!(file, "{}", args.command).map_err(|e| ToolError::io("writing the log", e))?;
        Ok(ToolOutput::ok(format!("ran {}", args.command)).with_details(json!({"exit_code": 0})))
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct Calls {
    #[state(append)]
    outcomes: Vec<ToolCallOutcome>,
}

/// A workspace with a log file, and a SQLite checkpoint database.
struct Fixture {
    _dir: TempDir,
    ws: PathBuf,
    log: PathBuf,
    db: PathBuf,
    /// How many times the node started.
    node_runs: Arc<AtomicUsize>,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap().join("ws");
        std::fs::create_dir(&ws).unwrap();
        Fixture {
            log: dir.path().join("executions.log"),
            db: dir.path().join("checkpoints.db"),
            ws,
            _dir: dir,
            node_runs: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The commands that really ran, in order.
    fn executions(&self) -> Vec<String> {
        lines(&self.log)
    }

    /// START -> work -> END, where `work` makes `calls` (tool name and
    /// arguments) in order through `run_tool_call`, switching to
    /// "approved all" once the user answered so (as the agent does). A new
    /// SQLite saver on the same file each time: resuming works across
    /// processes.
    fn graph(
        &self,
        policy: ApprovalPolicy,
        approved_all: bool,
        calls: Vec<(&str, Value)>,
    ) -> CompiledGraph<Calls> {
        let saver = SqliteSaver::open_default(&self.db).unwrap();
        self.state_graph(policy, approved_all, calls)
            .compile()
            .unwrap()
            .with_checkpointer(Arc::new(saver))
    }

    /// The graph of [`Fixture::graph`], not compiled.
    fn state_graph(
        &self,
        policy: ApprovalPolicy,
        approved_all: bool,
        calls: Vec<(&str, Value)>,
    ) -> StateGraph<Calls> {
        let mut registry = ToolRegistry::new();
        registry.register(Append {
            log: self.log.clone(),
        });
        let registry = Arc::new(registry);
        let policy = Arc::new(policy);
        let tools = ToolContext::new(&self.ws).unwrap();
        let calls: Arc<Vec<(String, Value)>> = Arc::new(
            calls
                .into_iter()
                .map(|(name, args)| (name.to_string(), args))
                .collect(),
        );
        let runs = Arc::clone(&self.node_runs);
        let mut graph = StateGraph::<Calls>::new();
        graph
            .add_node("work", move |_, ctx: NodeContext| {
                runs.fetch_add(1, Ordering::SeqCst);
                let (registry, policy, tools, calls) = (
                    Arc::clone(&registry),
                    Arc::clone(&policy),
                    tools.clone(),
                    Arc::clone(&calls),
                );
                async move {
                    let mut approved_all = approved_all;
                    let mut outcomes = Vec::new();
                    for (name, args) in calls.iter() {
                        let outcome = run_tool_call(
                            &ctx,
                            &registry,
                            &policy,
                            approved_all,
                            name,
                            args.clone(),
                            &tools,
                        )
                        .await?;
                        approved_all |= matches!(outcome.answer, Some(ApprovalAnswer::ApproveAll));
                        outcomes.push(outcome);
                    }
                    Ok::<_, NodeError>(CallsUpdate::default().outcomes(outcomes))
                }
            })
            .add_edge(START, "work")
            .add_edge("work", END);
        graph
    }
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn thread() -> RunConfig {
    RunConfig::new().with_thread_id("approvals")
}

fn append(command: &str) -> (&'static str, Value) {
    ("append", json!({ "command": command }))
}

fn on_risk() -> ApprovalPolicy {
    ApprovalPolicy::new(ApprovalMode::OnRisk)
}

/// The custom payloads of `events`, each checked to decode as one of
/// rebound's typed payloads, with a finished call's duration set to 0.
fn custom(events: &mut tokio::sync::mpsc::UnboundedReceiver<Event>) -> Vec<Value> {
    let mut payloads = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let Event::Custom { mut payload, .. } = event {
            let decoded = rebound_protocol::Payload::decode(&payload);
            assert!(
                !matches!(decoded, rebound_protocol::Payload::Other(_)),
                "not a typed payload: {payload}"
            );
            assert_eq!(
                decoded.to_value(),
                payload,
                "the typed form is the JSON form"
            );
            if let Some(duration) = payload.pointer_mut("/tool_call/duration_ms") {
                *duration = json!(0);
            }
            payloads.push(payload);
        }
    }
    payloads
}

/// A finished call's event, its duration 0 and its command's exit code 0.
fn finished(command: &str) -> Value {
    json!({"tool_call": {
        "phase": "finished", "name": "append", "command": command, "success": true,
        "duration_ms": 0,
        "outcome": {"exit_code": 0, "signal": null, "timed_out": false, "truncated": false, "log_path": null},
    }})
}

fn completed(outcome: RunOutcome<Calls>) -> Calls {
    match outcome {
        RunOutcome::Completed(state) => state,
        other => panic!("expected completion, got {other:?}"),
    }
}

#[tokio::test]
async fn a_risky_command_interrupts_and_runs_once_when_approved() {
    let fx = Fixture::new();
    let graph = fx.graph(on_risk(), false, vec![append("deploy --prod")]);

    let outcome = graph.run(Calls::default(), thread()).await.unwrap();
    let [interrupt] = outcome.interrupts() else {
        panic!("expected one interrupt, got {outcome:?}");
    };
    assert_eq!(interrupt.node, "work");
    assert_eq!(
        interrupt.payload,
        json!({
            "kind": "approval",
            "tool": "append",
            "command": "deploy --prod",
            "cwd": fx.ws,
            "reason": "`deploy --prod` is not on the allow list",
        })
    );
    assert_eq!(
        ApprovalRequest::from_payload(&interrupt.payload)
            .unwrap()
            .cwd,
        fx.ws
    );
    assert!(fx.executions().is_empty(), "nothing runs before the answer");

    // Another "process": a fresh graph and saver on the same database.
    drop(graph);
    let graph = fx.graph(on_risk(), false, vec![append("deploy --prod")]);
    let done = graph
        .resume_with(json!({"decision": "approve"}), thread())
        .await
        .unwrap();
    let state = completed(done);
    assert_eq!(fx.executions(), ["deploy --prod"], "exactly once");
    assert_eq!(
        state.outcomes,
        [ToolCallOutcome {
            output: ToolOutput::ok("ran deploy --prod").with_details(json!({"exit_code": 0})),
            answer: Some(ApprovalAnswer::Approve),
            denied: None,
            forbidden: None,
        }]
    );
    assert_eq!(fx.node_runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_call_made_before_an_interrupt_is_replayed_not_rerun() {
    let fx = Fixture::new();
    let calls = || vec![append("ls"), append("deploy"), append("git status")];
    let graph = fx.graph(on_risk(), false, calls());

    let outcome = graph.run(Calls::default(), thread()).await.unwrap();
    assert!(outcome.is_interrupted());
    assert_eq!(
        fx.executions(),
        ["ls"],
        "the allowed call ran, the risky one waits"
    );

    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
    let graph = fx.graph(on_risk(), false, calls());
    let done = graph
        .resume_with(json!({"decision": "approve"}), thread().with_events(sender))
        .await
        .unwrap();
    let state = completed(done);
    assert_eq!(
        fx.executions(),
        ["ls", "deploy", "git status"],
        "`ls` did not run again"
    );
    assert_eq!(fx.node_runs.load(Ordering::SeqCst), 2);
    let contents: Vec<&str> = state
        .outcomes
        .iter()
        .map(|o| o.output.content.as_str())
        .collect();
    assert_eq!(contents, ["ran ls", "ran deploy", "ran git status"]);

    assert_eq!(
        custom(&mut events),
        [
            json!({"tool_call": {"name": "append", "command": "ls", "phase": "replayed", "success": true}}),
            json!({"approval": {"phase": "answered", "tool": "append", "command": "deploy", "decision": "approve"}}),
            json!({"tool_call": {"name": "append", "command": "deploy", "phase": "started"}}),
            finished("deploy"),
            json!({"tool_call": {"name": "append", "command": "git status", "phase": "started"}}),
            finished("git status"),
        ]
    );
}

#[tokio::test]
async fn two_questions_in_one_node_are_asked_one_after_the_other() {
    let fx = Fixture::new();
    let calls = || vec![append("deploy a"), append("ls"), append("deploy b")];

    let graph = fx.graph(on_risk(), false, calls());
    let first = graph.run(Calls::default(), thread()).await.unwrap();
    assert_eq!(first.interrupts()[0].payload["command"], "deploy a");

    let graph = fx.graph(on_risk(), false, calls());
    let second = graph
        .resume_with(json!({"decision": "approve"}), thread())
        .await
        .unwrap();
    assert_eq!(second.interrupts()[0].payload["command"], "deploy b");
    assert_eq!(fx.executions(), ["deploy a", "ls"]);

    let graph = fx.graph(on_risk(), false, calls());
    let done = graph
        .resume_with(json!({"decision": "deny", "message": "not b"}), thread())
        .await
        .unwrap();
    let state = completed(done);
    assert_eq!(
        fx.executions(),
        ["deploy a", "ls"],
        "nothing ran twice; b never ran"
    );
    assert_eq!(state.outcomes[2].denied.as_deref(), Some("not b"));
    assert_eq!(fx.node_runs.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_denied_command_does_not_run_and_carries_the_message() {
    let fx = Fixture::new();
    let graph = fx.graph(on_risk(), false, vec![append("git push --force")]);
    let outcome = graph.run(Calls::default(), thread()).await.unwrap();
    assert_eq!(
        outcome.interrupts()[0].payload["reason"],
        "`git push` publishes commits to a remote (rule `git push`)"
    );

    let done = graph
        .resume_with(
            serde_json::to_value(ApprovalAnswer::deny("push to staging instead")).unwrap(),
            thread(),
        )
        .await
        .unwrap();
    let state = completed(done);
    assert!(fx.executions().is_empty());
    assert_eq!(
        state.outcomes,
        [ToolCallOutcome {
            output: ToolOutput::failure("denied by the user: push to staging instead")
                .with_details(json!({"error": "denied", "message": "push to staging instead"})),
            answer: Some(ApprovalAnswer::deny("push to staging instead")),
            denied: Some("push to staging instead".to_string()),
            forbidden: None,
        }]
    );
}

#[tokio::test]
async fn approved_all_skips_asking() {
    // Passed in: nothing asks, not even under `always`.
    let fx = Fixture::new();
    let graph = fx.graph(
        ApprovalPolicy::new(ApprovalMode::Always),
        true,
        vec![append("deploy"), append("git push")],
    );
    let state = completed(graph.run(Calls::default(), thread()).await.unwrap());
    assert_eq!(fx.executions(), ["deploy", "git push"]);
    assert!(state
        .outcomes
        .iter()
        .all(|o| o.answer.is_none() && o.output.success));

    // Answered: the next risky call of the node is not asked about.
    let fx = Fixture::new();
    let calls = || vec![append("deploy a"), append("deploy b"), append("rm -rf /")];
    let graph = fx.graph(on_risk(), false, calls());
    assert!(graph
        .run(Calls::default(), thread())
        .await
        .unwrap()
        .is_interrupted());
    let done = graph
        .resume_with(json!({"decision": "approve_all"}), thread())
        .await
        .unwrap();
    let state = completed(done);
    assert_eq!(
        fx.executions(),
        ["deploy a", "deploy b"],
        "approve-all never lifts a forbid"
    );
    assert_eq!(state.outcomes[0].answer, Some(ApprovalAnswer::ApproveAll));
    assert_eq!(state.outcomes[1].answer, None);
    assert!(state.outcomes[2].forbidden.is_some());
}

#[tokio::test]
async fn a_forbidden_command_never_runs_and_never_interrupts() {
    for mode in [
        ApprovalMode::Auto,
        ApprovalMode::OnRisk,
        ApprovalMode::Always,
    ] {
        let fx = Fixture::new();
        let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
        let graph = fx.graph(
            ApprovalPolicy::new(mode),
            true,
            vec![append("ls && rm -r -f /"), append("ls")],
        );
        let outcome = graph
            .run(Calls::default(), thread().with_events(sender))
            .await
            .unwrap();
        let state = completed(outcome);
        assert_eq!(fx.executions(), ["ls"], "{mode}");
        let reason = "`rm` would recursively delete `/`";
        assert_eq!(
            state.outcomes[0],
            ToolCallOutcome {
                output: ToolOutput::failure(format!("forbidden: {reason}"))
                    .with_details(json!({"error": "forbidden", "reason": reason})),
                answer: None,
                denied: None,
                forbidden: Some(reason.to_string()),
            },
            "{mode}"
        );
        assert!(state.outcomes[1].output.success);
        assert_eq!(
            custom(&mut events)[0],
            json!({"approval": {"phase": "forbidden", "tool": "append", "command": "ls && rm -r -f /", "reason": reason}})
        );
    }
}

#[tokio::test]
async fn unknown_tools_bad_arguments_and_tool_errors_are_failed_outputs() {
    let fx = Fixture::new();
    let graph = fx.graph(
        ApprovalPolicy::new(ApprovalMode::Auto),
        false,
        vec![
            ("no_such_tool", json!({"command": "ls"})),
            ("append", json!({"cmd": 1})),
            ("append", json!("not an object")),
            append("fail"),
            append("ls"),
        ],
    );
    let state = completed(graph.run(Calls::default(), thread()).await.unwrap());
    let outputs: Vec<(bool, &str)> = state
        .outcomes
        .iter()
        .map(|o| (o.output.success, o.output.content.as_str()))
        .collect();
    assert_eq!(outputs.len(), 5);
    assert!(!outputs[0].0);
    assert_eq!(
        outputs[0].1,
        "error: there is no tool named \"no_such_tool\"; the tools are: append"
    );
    assert!(!outputs[1].0);
    assert!(
        outputs[1]
            .1
            .starts_with("error: bad arguments for tool \"append\""),
        "{}",
        outputs[1].1
    );
    assert!(!outputs[2].0);
    assert_eq!(outputs[3], (false, "error: it broke"));
    assert_eq!(outputs[4], (true, "ran ls"));
    assert_eq!(fx.executions(), ["ls"]);
}

#[tokio::test]
async fn without_a_checkpointer_an_approval_is_a_node_error() {
    // `interrupt` needs a thread to resume; the call must not run anyway.
    let fx = Fixture::new();
    let graph = fx
        .state_graph(on_risk(), false, vec![append("deploy")])
        .compile()
        .unwrap();
    let error = graph.run(Calls::default(), RunConfig::new()).await;
    let error = error.unwrap_err().to_string();
    assert!(
        error.contains("needs a checkpointer and a thread id"),
        "{error}"
    );
    assert!(fx.executions().is_empty());
}
