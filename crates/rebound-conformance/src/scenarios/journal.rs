//! Journaled calls: a side effect made through `NodeContext::journal` is not
//! repeated when its node runs again for the same superstep (after an
//! interrupt, a failure, or a run that was dropped mid-node).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rebound_graph::checkpoint::{CheckpointError, WriteKind};
use rebound_graph::{
    CompiledGraph, GraphError, NodeContext, NodeError, NodeOptions, RetryPolicy, RunConfig,
    RunOutcome, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::backend::fresh;
use crate::Backend;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Job {
    #[state(append)]
    results: Vec<String>,
}

fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
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

/// START -> write -> END: write appends a line through the journal, then
/// asks for approval.
fn write_then_ask(path: &Path, calls: &Arc<AtomicUsize>) -> StateGraph<Job> {
    let path = path.to_path_buf();
    let calls = Arc::clone(calls);
    let mut graph = StateGraph::<Job>::new();
    graph
        .add_node("write", move |_, ctx: NodeContext| {
            let path = path.clone();
            calls.fetch_add(1, Ordering::SeqCst);
            async move {
                let written = ctx
                    .journal("append", append_line(path, "deployed v2".to_string()))
                    .await?
                    .map_err(NodeError::msg)?;
                let answer: String = ctx.interrupt(json!({"question": "keep it?"}))?;
                Ok::<_, NodeError>(
                    JobUpdate::default().results(vec![format!("{written} bytes, {answer}")]),
                )
            }
        })
        .add_edge(START, "write")
        .add_edge("write", END);
    graph
}

/// Scenario: a journaled file write is not repeated after an interrupt.
pub async fn a_journaled_file_write_is_not_repeated_after_an_interrupt(backend: &dyn Backend) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deploy.log");
    let calls = Arc::new(AtomicUsize::new(0));
    let saver = fresh(backend).await;
    let graph = write_then_ask(&path, &calls)
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());

    let outcome = graph.run(Job::default(), thread("t")).await.unwrap();
    assert!(outcome.is_interrupted());
    assert_eq!(lines(&path), ["deployed v2"]);

    // The result is stored as a pending write of the superstep's checkpoint.
    let checkpoint = graph.get_state(&thread("t")).await.unwrap().checkpoint_id;
    let journal: Vec<(String, String, Vec<u8>)> = saver
        .pending_writes("t", checkpoint)
        .await
        .unwrap()
        .into_iter()
        .filter(|w| w.kind == WriteKind::Journal)
        .map(|w| (w.node, w.key, w.value))
        .collect();
    assert_eq!(
        journal,
        [(
            "write".to_string(),
            "append".to_string(),
            br#"{"Ok":11}"#.to_vec()
        )]
    );

    let done = graph.resume_with(json!("yes"), thread("t")).await.unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(lines(&path), ["deployed v2"], "one line, not two");
    assert_eq!(calls.load(Ordering::SeqCst), 2, "the node itself ran twice");
    assert_eq!(done.results, ["11 bytes, yes"]);
}

/// Scenario: a journaled call is not repeated when the node failed after it.
pub async fn a_journaled_call_is_not_repeated_when_the_node_failed_after_it(backend: &dyn Backend) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.log");
    let calls = Arc::new(AtomicUsize::new(0));
    let node_path = path.clone();
    let node_calls = Arc::clone(&calls);
    let mut graph = StateGraph::<Job>::new();
    graph
        .add_node("write", move |_, ctx: NodeContext| {
            let path = node_path.clone();
            let first = node_calls.fetch_add(1, Ordering::SeqCst) == 0;
            async move {
                ctx.journal("append", append_line(path, "once".to_string()))
                    .await?
                    .map_err(NodeError::msg)?;
                if first {
                    return Err(NodeError::msg("crashed after the write"));
                }
                Ok(JobUpdate::default().results(vec!["written".to_string()]))
            }
        })
        .add_edge(START, "write")
        .add_edge("write", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);

    let error = graph.run(Job::default(), thread("t")).await.unwrap_err();
    assert!(matches!(error, GraphError::Node { .. }), "{error:?}");
    assert_eq!(lines(&path), ["once"]);
    let done = graph.resume(thread("t")).await.unwrap();
    assert_eq!(done.into_state().results, ["written"]);
    assert_eq!(lines(&path), ["once"]);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

/// Scenario: a journaled call survives a run dropped mid node.
pub async fn a_journaled_call_survives_a_run_dropped_mid_node(backend: &dyn Backend) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.log");
    let entered = Arc::new(tokio::sync::Notify::new());
    let calls = Arc::new(AtomicUsize::new(0));
    let (node_path, node_calls, node_entered) =
        (path.clone(), Arc::clone(&calls), Arc::clone(&entered));
    let mut graph = StateGraph::<Job>::new();
    graph
        .add_node("write", move |_, ctx: NodeContext| {
            let (path, entered) = (node_path.clone(), Arc::clone(&node_entered));
            let first = node_calls.fetch_add(1, Ordering::SeqCst) == 0;
            async move {
                let bytes = ctx
                    .journal("append", append_line(path, "once".to_string()))
                    .await?
                    .map_err(NodeError::msg)?;
                if first {
                    // The process "dies" here.
                    entered.notify_one();
                    std::future::pending::<()>().await;
                }
                Ok(JobUpdate::default().results(vec![format!("{bytes}")]))
            }
        })
        .add_edge(START, "write")
        .add_edge("write", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);

    let run = tokio::spawn({
        let graph = graph.clone();
        async move { graph.run(Job::default(), thread("t")).await }
    });
    entered.notified().await;
    run.abort();
    assert!(run.await.unwrap_err().is_cancelled());

    // The dropped run's claim on the thread is released in the background.
    let mut resumed = None;
    for _ in 0..100 {
        match graph.resume(thread("t")).await {
            Err(GraphError::Checkpoint(CheckpointError::ThreadBusy { .. })) => {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            other => {
                resumed = Some(other);
                break;
            }
        }
    }
    let done = resumed.expect("the thread was released").unwrap();
    assert_eq!(done.into_state().results, ["4"]);
    assert_eq!(lines(&path), ["once"]);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

/// START -> twice -> END: journals key "k" twice (each call returns the
/// running count of calls), then interrupts.
async fn same_key_twice(calls: &Arc<AtomicUsize>, backend: &dyn Backend) -> CompiledGraph<Job> {
    let calls = Arc::clone(calls);
    let mut graph = StateGraph::<Job>::new();
    graph
        .add_node("twice", move |_, ctx: NodeContext| {
            let calls = Arc::clone(&calls);
            async move {
                let first = ctx
                    .journal("k", async { calls.fetch_add(1, Ordering::SeqCst) + 1 })
                    .await?;
                let second = ctx
                    .journal("k", async { calls.fetch_add(1, Ordering::SeqCst) + 1 })
                    .await?;
                let answer: String = ctx.interrupt("go on?")?;
                Ok::<_, NodeError>(
                    JobUpdate::default().results(vec![format!("{first} {second} {answer}")]),
                )
            }
        })
        .add_edge(START, "twice")
        .add_edge("twice", END);
    graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await)
}

/// Scenario: the same key twice in one node is two entries both replayed.
pub async fn the_same_key_twice_in_one_node_is_two_entries_both_replayed(backend: &dyn Backend) {
    let calls = Arc::new(AtomicUsize::new(0));
    let graph = same_key_twice(&calls, backend).await;
    graph.run(Job::default(), thread("t")).await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 2, "both calls ran");

    let saver = graph.checkpointer().unwrap();
    let checkpoint = graph.get_state(&thread("t")).await.unwrap().checkpoint_id;
    let journal: Vec<(String, Vec<u8>)> = saver
        .pending_writes("t", checkpoint)
        .await
        .unwrap()
        .into_iter()
        .filter(|w| w.kind == WriteKind::Journal)
        .map(|w| (w.key, w.value))
        .collect();
    assert_eq!(
        journal,
        [
            ("k".to_string(), b"1".to_vec()),
            ("k#1".to_string(), b"2".to_vec())
        ]
    );

    let done = graph.resume_with(json!("yes"), thread("t")).await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 2, "both replayed, none ran");
    assert_eq!(done.into_state().results, ["1 2 yes"]);
}

/// Scenario: a retry within a run runs the call again and the latest result replays.
pub async fn a_retry_within_a_run_runs_the_call_again_and_the_latest_result_replays(
    backend: &dyn Backend,
) {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (node_calls, node_seen) = (Arc::clone(&calls), Arc::clone(&seen));
    let failed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut graph = StateGraph::<Job>::new();
    graph
        .add_node("flaky", move |_, ctx: NodeContext| {
            let (calls, seen) = (Arc::clone(&node_calls), Arc::clone(&node_seen));
            let failed = Arc::clone(&failed);
            async move {
                let value = ctx
                    .journal("fetch", async { calls.fetch_add(1, Ordering::SeqCst) + 1 })
                    .await?;
                seen.lock().unwrap().push((ctx.attempt(), value));
                if !failed.swap(true, Ordering::SeqCst) {
                    return Err(NodeError::msg("bad result, try again"));
                }
                let answer: String = ctx.interrupt("ok?")?;
                Ok(JobUpdate::default().results(vec![format!("{value} {answer}")]))
            }
        })
        .configure_node(
            "flaky",
            NodeOptions::new().retry(
                RetryPolicy::new(2)
                    .initial_backoff(Duration::from_millis(1))
                    .jitter(false),
            ),
        )
        .add_edge(START, "flaky")
        .add_edge("flaky", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);

    let outcome = graph.run(Job::default(), thread("t")).await.unwrap();
    assert!(outcome.is_interrupted());
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "attempt 2 ran the call again"
    );
    assert_eq!(*seen.lock().unwrap(), [(1, 1), (2, 2)]);

    // After the interrupt, the node runs again and replays attempt 2's result.
    let done = graph.resume_with(json!("yes"), thread("t")).await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(*seen.lock().unwrap(), [(1, 1), (2, 2), (1, 2)]);
    assert_eq!(done.into_state().results, ["2 yes"]);
}

/// Scenario: batched durability commits the checkpoint a journal entry belongs to.
pub async fn batched_durability_commits_the_checkpoint_a_journal_entry_belongs_to(
    backend: &dyn Backend,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deploy.log");
    let calls = Arc::new(AtomicUsize::new(0));
    let saver = fresh(backend).await;
    let graph = write_then_ask(&path, &calls)
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());
    let config = thread("t").with_durability(rebound_graph::Durability::batched());

    let outcome = graph.run(Job::default(), config.clone()).await.unwrap();
    let RunOutcome::Interrupted { checkpoint_id, .. } = outcome else {
        panic!("expected an interrupt, got {outcome:?}");
    };
    // The checkpoint the entry refers to is stored, with the entry.
    let stored = saver.get("t", Some(checkpoint_id)).await.unwrap();
    assert!(stored.is_some());
    let writes = saver.pending_writes("t", checkpoint_id).await.unwrap();
    assert!(writes.iter().any(|w| w.kind == WriteKind::Journal));

    let done = graph
        .resume_with(json!("yes"), config)
        .await
        .unwrap()
        .into_state();
    assert_eq!(done.results, ["11 bytes, yes"]);
    assert_eq!(lines(&path), ["deployed v2"]);
}

/// Scenario: a journaled call that failed is tried again on resume.
pub async fn a_journaled_call_that_failed_is_tried_again_on_resume(backend: &dyn Backend) {
    // The call fails the first time (a transient error, say a 503) and the
    // node propagates it. Retries within a run call again; a resume after
    // the failed run should too, or the thread can never get past the
    // failure. `try_journal` records only successes.
    let calls = Arc::new(AtomicUsize::new(0));
    let node_calls = Arc::clone(&calls);
    let mut graph = StateGraph::<Job>::new();
    graph
        .add_node("fetch", move |_, ctx: NodeContext| {
            let calls = Arc::clone(&node_calls);
            async move {
                let body: String = ctx
                    .try_journal("fetch", async {
                        if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                            Err(NodeError::msg("503 service unavailable"))
                        } else {
                            Ok("body".to_string())
                        }
                    })
                    .await?;
                Ok::<_, NodeError>(JobUpdate::default().results(vec![body]))
            }
        })
        .add_edge(START, "fetch")
        .add_edge("fetch", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);

    let error = graph.run(Job::default(), thread("t")).await.unwrap_err();
    assert!(error.to_string().contains("503"), "{error}");
    let done = graph.resume(thread("t")).await;
    assert_eq!(calls.load(Ordering::SeqCst), 2, "the failed call ran again");
    assert_eq!(done.unwrap().into_state().results, ["body"]);
}
