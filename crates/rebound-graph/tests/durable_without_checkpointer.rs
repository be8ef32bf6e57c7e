//! Durable-run features used without a checkpointer: resuming, static and
//! dynamic interrupts, `update_state` and journaled calls. These are about
//! the engine (what it refuses or does without a store), so they stay here;
//! the scenarios that run on a store are in `rebound-conformance`, which
//! runs them on every checkpointer.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rebound_graph::{
    GraphError, NodeContext, NodeError, NodeErrorKind, NodeOptions, RetryPolicy, RunConfig, State,
    StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Plan {
    #[state(append)]
    log: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Review {
    #[state(append)]
    log: Vec<String>,
    #[state(append)]
    answers: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Job {
    #[state(append)]
    results: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Trip {
    #[state(append)]
    log: Vec<String>,
    budget: u32,
}

fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
}

/// START -> work -> check -> END, each logging its name.
fn two_steps() -> StateGraph<Plan> {
    let mut graph = StateGraph::<Plan>::new();
    for name in ["work", "check"] {
        graph.add_sync_node(name, move |_, _| {
            Ok(PlanUpdate::default().log(vec![name.to_string()]))
        });
    }
    graph
        .add_edge(START, "work")
        .add_edge("work", "check")
        .add_edge("check", END);
    graph
}

#[tokio::test]
async fn resuming_without_a_checkpointer_is_an_error() {
    let graph = two_steps().compile().unwrap();
    let error = graph.resume(thread("t")).await.unwrap_err();
    assert!(
        matches!(&error, GraphError::NoCheckpointer { what } if what.contains("resum")),
        "{error:?}"
    );
    let error = graph
        .resume_with(json!("yes"), thread("t"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, GraphError::NoCheckpointer { .. }),
        "{error:?}"
    );
    let error = graph.get_state(&thread("t")).await.unwrap_err();
    assert!(
        matches!(error, GraphError::NoCheckpointer { .. }),
        "{error:?}"
    );
    // A thread id alone, without a checkpointer, runs as before.
    let done = graph.invoke(Plan::default(), thread("t")).await.unwrap();
    assert_eq!(done.log, ["work", "check"]);
}

type Calls = Arc<[AtomicUsize; 3]>;

fn calls() -> Calls {
    Arc::new([
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    ])
}

/// START -> a -> b -> c -> END; each node logs its name and counts its calls.
fn chain(calls: &Calls) -> StateGraph<Review> {
    let mut graph = StateGraph::<Review>::new();
    for (i, name) in ["a", "b", "c"].into_iter().enumerate() {
        let calls = Arc::clone(calls);
        graph.add_sync_node(name, move |_, _| {
            calls[i].fetch_add(1, Ordering::SeqCst);
            Ok(ReviewUpdate::default().log(vec![name.to_string()]))
        });
    }
    graph
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", "c")
        .add_edge("c", END);
    graph
}

#[tokio::test]
async fn a_static_interrupt_without_a_checkpointer_is_an_error() {
    let calls = calls();
    let mut graph = chain(&calls);
    graph.interrupt_before(["b"]);
    let graph = graph.compile().unwrap();
    let error = graph
        .run(Review::default(), RunConfig::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, GraphError::NoCheckpointer { .. }),
        "{error:?}"
    );
}

/// START -> ask -> END: ask asks `questions` questions and records the answers.
fn asking(questions: usize, calls: &Arc<AtomicUsize>) -> StateGraph<Review> {
    let calls = Arc::clone(calls);
    let mut graph = StateGraph::<Review>::new();
    graph
        .add_sync_node("ask", move |_, ctx| {
            calls.fetch_add(1, Ordering::SeqCst);
            let mut answers = Vec::new();
            for n in 0..questions {
                let answer: String = ctx.interrupt(json!({"question": format!("q{n}?")}))?;
                answers.push(answer);
            }
            Ok(ReviewUpdate::default().answers(answers))
        })
        .add_edge(START, "ask")
        .add_edge("ask", END);
    graph
}

#[tokio::test]
async fn an_interrupt_without_a_checkpointer_is_a_permanent_node_error() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut graph = asking(1, &calls);
    graph.configure_node("ask", NodeOptions::new().retry(RetryPolicy::new(3)));
    let graph = graph.compile().unwrap();
    match graph.run(Review::default(), RunConfig::new()).await {
        Err(GraphError::Node {
            node,
            attempt,
            kind,
            source,
            ..
        }) => {
            assert_eq!(node, "ask");
            assert_eq!(attempt, 1, "not retried");
            assert_eq!(kind, NodeErrorKind::Failed);
            assert!(source.to_string().contains("checkpointer"), "{source}");
        }
        other => panic!("expected a node error, got {other:?}"),
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

/// Appends `line` to the file at `path`.
async fn append_line(path: PathBuf, line: String) -> Result<usize, String> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| e.to_string())?;
    writeln!(file, "{line}").map_err(|e| e.to_string())?;
    Ok(line.len())
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn without_a_checkpointer_a_journaled_call_just_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.log");
    let node_path = path.clone();
    let mut graph = StateGraph::<Job>::new();
    graph
        .add_node("write", move |_, ctx: NodeContext| {
            let path = node_path.clone();
            async move {
                let bytes = ctx
                    .journal("append", append_line(path, "plain".to_string()))
                    .await?
                    .map_err(NodeError::msg)?;
                Ok::<_, NodeError>(JobUpdate::default().results(vec![format!("{bytes}")]))
            }
        })
        .add_edge(START, "write")
        .add_edge("write", END);
    let graph = graph.compile().unwrap();
    let first = graph
        .invoke(Job::default(), RunConfig::new())
        .await
        .unwrap();
    let second = graph.invoke(Job::default(), thread("t")).await.unwrap();
    assert_eq!(first.results, ["5"]);
    assert_eq!(second.results, ["5"]);
    assert_eq!(lines(&path), ["plain", "plain"]);
}

#[tokio::test]
async fn update_state_needs_a_checkpointer() {
    let mut graph = StateGraph::<Trip>::new();
    graph
        .add_sync_node("plan", |_, _| Ok(TripUpdate::default()))
        .add_edge(START, "plan")
        .add_edge("plan", END);
    let graph = graph.compile().unwrap();
    let error = graph
        .update_state(&thread("t"), TripUpdate::default(), None)
        .await
        .unwrap_err();
    assert!(
        matches!(error, GraphError::NoCheckpointer { .. }),
        "{error:?}"
    );
}
