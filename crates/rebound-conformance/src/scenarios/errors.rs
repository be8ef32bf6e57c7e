//! Durable runs that cannot go ahead: no thread id, no checkpointer, nothing
//! to resume, an unknown checkpoint, stored data that no longer
//! deserializes, and a thread that another run holds.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rebound_graph::checkpoint::{
    CheckpointError, CheckpointId, CheckpointMetadata, CheckpointSource, Checkpointer, StateBlob,
    StoredCheckpoint,
};
use rebound_graph::{
    CompiledGraph, GraphError, Input, NodeContext, NodeError, RunConfig, RunOutcome, State,
    StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::backend::fresh;
use crate::Backend;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Step {
    title: String,
    done: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Plan {
    plan: Vec<Step>,
    #[state(append)]
    log: Vec<String>,
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

async fn durable(backend: &dyn Backend) -> (CompiledGraph<Plan>, Arc<dyn Checkpointer>) {
    let saver = fresh(backend).await;
    let graph = two_steps()
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());
    (graph, saver)
}

/// Scenario: a checkpointer without a thread id is an error.
pub async fn a_checkpointer_without_a_thread_id_is_an_error(backend: &dyn Backend) {
    let (graph, saver) = durable(backend).await;
    let error = graph
        .run(Plan::default(), RunConfig::new())
        .await
        .unwrap_err();
    assert!(matches!(error, GraphError::NoThreadId), "{error:?}");
    let error = graph.get_state(&RunConfig::new()).await.unwrap_err();
    assert!(matches!(error, GraphError::NoThreadId), "{error:?}");
    let error = graph
        .history(&RunConfig::new(), None, None)
        .await
        .unwrap_err();
    assert!(matches!(error, GraphError::NoThreadId), "{error:?}");
    assert!(saver.threads().await.unwrap().is_empty());
}

fn nothing_to_resume(error: GraphError) -> (String, String) {
    match error {
        GraphError::NothingToResume { thread_id, reason } => (thread_id, reason),
        other => panic!("expected NothingToResume, got {other:?}"),
    }
}

/// Scenario: resuming an unknown thread is nothing to resume.
pub async fn resuming_an_unknown_thread_is_nothing_to_resume(backend: &dyn Backend) {
    let (graph, saver) = durable(backend).await;
    let (thread_id, reason) = nothing_to_resume(graph.resume(thread("nobody")).await.unwrap_err());
    assert_eq!(thread_id, "nobody");
    assert!(reason.contains("unknown thread"), "{reason}");
    let (_, reason) = nothing_to_resume(
        graph
            .resume_with(json!(1), thread("nobody"))
            .await
            .unwrap_err(),
    );
    assert!(reason.contains("unknown thread"), "{reason}");
    // Not a fresh start: nothing was written.
    assert!(saver.threads().await.unwrap().is_empty());
}

/// Scenario: resuming a finished thread is nothing to resume.
pub async fn resuming_a_finished_thread_is_nothing_to_resume(backend: &dyn Backend) {
    let (graph, saver) = durable(backend).await;
    graph.invoke(Plan::default(), thread("t")).await.unwrap();
    let before = saver.list("t", None, None).await.unwrap();

    let error = graph.resume(thread("t")).await.unwrap_err();
    let message = error.to_string();
    let (thread_id, reason) = nothing_to_resume(error);
    assert_eq!(thread_id, "t");
    assert!(reason.contains("finished"), "{reason}");
    assert!(message.contains("\"t\""), "{message}");
    let (_, reason) = nothing_to_resume(
        graph
            .resume_with(json!("yes"), thread("t"))
            .await
            .unwrap_err(),
    );
    assert!(reason.contains("finished"), "{reason}");
    assert_eq!(saver.list("t", None, None).await.unwrap(), before);
}

/// Scenario: resume with a value when no dynamic interrupt waits is nothing to resume.
pub async fn resume_with_a_value_when_no_dynamic_interrupt_waits_is_nothing_to_resume(
    backend: &dyn Backend,
) {
    let saver = fresh(backend).await;
    let mut graph = two_steps();
    graph.interrupt_before(["check"]);
    let graph = graph.compile().unwrap().with_checkpointer(saver.clone());
    let outcome = graph.run(Plan::default(), thread("t")).await.unwrap();
    assert!(outcome.is_interrupted());
    let latest = graph.get_state(&thread("t")).await.unwrap().checkpoint_id;
    let writes_before = saver.pending_writes("t", latest).await.unwrap();

    // A static interrupt waits, but not for a value.
    let (thread_id, reason) = nothing_to_resume(
        graph
            .resume_with(json!("yes"), thread("t"))
            .await
            .unwrap_err(),
    );
    assert_eq!(thread_id, "t");
    assert!(reason.contains("no interrupt is waiting"), "{reason}");
    assert_eq!(
        saver.pending_writes("t", latest).await.unwrap(),
        writes_before
    );
    // The thread is still usable.
    let done = graph.resume(thread("t")).await.unwrap();
    assert_eq!(done.into_state().log, ["work", "check"]);
}

/// Scenario: a checkpoint id the thread lacks is unknown checkpoint.
pub async fn a_checkpoint_id_the_thread_lacks_is_unknown_checkpoint(backend: &dyn Backend) {
    let (graph, saver) = durable(backend).await;
    graph.invoke(Plan::default(), thread("t")).await.unwrap();
    graph
        .invoke(Plan::default(), thread("other"))
        .await
        .unwrap();
    let foreign = graph
        .get_state(&thread("other"))
        .await
        .unwrap()
        .checkpoint_id;
    let before = saver.list("t", None, None).await.unwrap();

    let config = thread("t").with_checkpoint_id(foreign);
    let check = |error: GraphError| match error {
        GraphError::UnknownCheckpoint {
            thread_id,
            checkpoint,
        } => {
            assert_eq!(thread_id, "t");
            assert_eq!(checkpoint, foreign.to_string());
        }
        other => panic!("expected UnknownCheckpoint, got {other:?}"),
    };
    check(graph.get_state(&config).await.unwrap_err());
    check(graph.resume(config.clone()).await.unwrap_err());
    check(
        graph
            .update_state(&config, PlanUpdate::default(), None)
            .await
            .unwrap_err(),
    );
    check(
        graph
            .run(Plan::default(), config.clone())
            .await
            .unwrap_err(),
    );
    assert_eq!(saver.list("t", None, None).await.unwrap(), before);
}

fn meta(next: &[&str]) -> Vec<u8> {
    serde_json::to_vec(&CheckpointMetadata {
        source: CheckpointSource::Loop,
        next: next.iter().map(|s| s.to_string()).collect(),
        ran: vec!["work".to_string()],
        ..CheckpointMetadata::default()
    })
    .unwrap()
}

fn stored(
    id: CheckpointId,
    parent: Option<CheckpointId>,
    step: u64,
    state: StateBlob,
    meta: Vec<u8>,
) -> StoredCheckpoint {
    StoredCheckpoint {
        thread_id: "t".to_string(),
        id,
        parent,
        step,
        state,
        meta,
    }
}

struct Bad {
    thread_id: String,
    checkpoint: String,
    what: String,
    path: String,
    message: String,
}

fn bad_stored(error: GraphError) -> Bad {
    let message = error.to_string();
    match error {
        GraphError::BadStoredState {
            thread_id,
            checkpoint,
            what,
            path,
            source: _,
        } => Bad {
            thread_id,
            checkpoint,
            what,
            path,
            message,
        },
        other => panic!("expected BadStoredState, got {other:?}"),
    }
}

/// Scenario: a snapshot with a wrongly typed nested field is bad stored state.
pub async fn a_snapshot_with_a_wrongly_typed_nested_field_is_bad_stored_state(
    backend: &dyn Backend,
) {
    let (graph, saver) = durable(backend).await;
    let id = CheckpointId::new();
    let snapshot = json!({
        "plan": [{"title": "a", "done": true}, {"title": "b", "done": "yes"}],
        "log": [],
    });
    let checkpoint = stored(
        id,
        None,
        1,
        StateBlob::Snapshot(serde_json::to_vec(&snapshot).unwrap()),
        meta(&["check"]),
    );
    saver
        .put(vec![checkpoint.clone()], Vec::new())
        .await
        .unwrap();

    let errors = [
        graph.get_state(&thread("t")).await.unwrap_err(),
        graph
            .get_state(&thread("t").with_checkpoint_id(id))
            .await
            .unwrap_err(),
        graph.resume(thread("t")).await.unwrap_err(),
        graph
            .resume_with(json!("yes"), thread("t"))
            .await
            .unwrap_err(),
        graph
            .update_state(
                &thread("t"),
                PlanUpdate::default().log(vec!["x".into()]),
                Some("work"),
            )
            .await
            .unwrap_err(),
    ];
    for error in errors {
        let bad = bad_stored(error);
        assert_eq!(bad.thread_id, "t");
        assert_eq!(bad.checkpoint, id.to_string());
        assert_eq!(bad.what, "state");
        assert_eq!(bad.path, "plan[1].done");
        assert!(bad.message.contains("plan[1].done"), "{}", bad.message);
        assert!(bad.message.contains(&id.to_string()), "{}", bad.message);
        assert!(bad.message.contains("\"t\""), "{}", bad.message);
    }
    // Nothing was overwritten, and no write was added.
    assert_eq!(saver.list("t", None, None).await.unwrap(), vec![checkpoint]);
    assert!(saver.pending_writes("t", id).await.unwrap().is_empty());
}

/// Scenario: a bad delta names the delta checkpoint and the field.
pub async fn a_bad_delta_names_the_delta_checkpoint_and_the_field(backend: &dyn Backend) {
    let (graph, saver) = durable(backend).await;
    let base = CheckpointId::new();
    let delta = CheckpointId::new();
    let good = json!({"plan": [{"title": "a", "done": false}], "log": ["work"]});
    let wrong =
        json!([["work", {"plan": [{"title": "a", "done": true}, {"title": 7, "done": true}]}]]);
    let checkpoints = vec![
        stored(
            base,
            None,
            1,
            StateBlob::Snapshot(serde_json::to_vec(&good).unwrap()),
            meta(&["work"]),
        ),
        stored(
            delta,
            Some(base),
            2,
            StateBlob::Delta(serde_json::to_vec(&wrong).unwrap()),
            meta(&["check"]),
        ),
    ];
    saver.put(checkpoints.clone(), Vec::new()).await.unwrap();

    let bad = bad_stored(graph.resume(thread("t")).await.unwrap_err());
    assert_eq!(bad.checkpoint, delta.to_string());
    assert_eq!(bad.what, "state delta");
    assert!(bad.path.ends_with("plan[1].title"), "{}", bad.path);
    // The base is still readable.
    let state = graph
        .get_state(&thread("t").with_checkpoint_id(base))
        .await
        .unwrap();
    assert_eq!(state.values.log, ["work"]);
    let mut expected = checkpoints;
    expected.reverse();
    assert_eq!(saver.list("t", None, None).await.unwrap(), expected);
}

/// Scenario: bad metadata is bad stored state.
pub async fn bad_metadata_is_bad_stored_state(backend: &dyn Backend) {
    let (graph, saver) = durable(backend).await;
    let id = CheckpointId::new();
    let state = json!({"plan": [], "log": []});
    saver
        .put(
            vec![stored(
                id,
                None,
                0,
                StateBlob::Snapshot(serde_json::to_vec(&state).unwrap()),
                br#"{"s":"l","n":"work"}"#.to_vec(),
            )],
            Vec::new(),
        )
        .await
        .unwrap();
    let bad = bad_stored(graph.resume(thread("t")).await.unwrap_err());
    assert_eq!(bad.checkpoint, id.to_string());
    assert_eq!(bad.what, "metadata");
    assert_eq!(bad.path, "n");
    let bad = bad_stored(graph.history(&thread("t"), None, None).await.unwrap_err());
    assert_eq!(bad.what, "metadata");
    assert_eq!(bad.path, "n");
}

/// START -> hold -> END; on thread "t", hold waits for `release` after
/// signalling `entered`.
async fn holding(
    entered: &Arc<tokio::sync::Notify>,
    release: &Arc<tokio::sync::Notify>,
    calls: &Arc<AtomicUsize>,
    backend: &dyn Backend,
) -> CompiledGraph<Plan> {
    let (entered, release, calls) = (Arc::clone(entered), Arc::clone(release), Arc::clone(calls));
    let mut graph = StateGraph::<Plan>::new();
    graph
        .add_node("hold", move |_, ctx: NodeContext| {
            let (entered, release) = (Arc::clone(&entered), Arc::clone(&release));
            calls.fetch_add(1, Ordering::SeqCst);
            async move {
                if ctx.thread_id() == Some("t") {
                    entered.notify_one();
                    release.notified().await;
                }
                Ok::<_, NodeError>(PlanUpdate::default().log(vec!["held".to_string()]))
            }
        })
        .add_edge(START, "hold")
        .add_edge("hold", END);
    graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await)
}

fn thread_busy(error: GraphError) -> String {
    match error {
        GraphError::Checkpoint(CheckpointError::ThreadBusy { thread_id, .. }) => thread_id,
        other => panic!("expected ThreadBusy, got {other:?}"),
    }
}

/// Scenario: one run per thread at a time.
pub async fn one_run_per_thread_at_a_time(backend: &dyn Backend) {
    let entered = Arc::new(tokio::sync::Notify::new());
    let release = Arc::new(tokio::sync::Notify::new());
    let calls = Arc::new(AtomicUsize::new(0));
    let graph = holding(&entered, &release, &calls, backend).await;

    let first = tokio::spawn({
        let graph = graph.clone();
        async move { graph.run(Plan::default(), thread("t")).await }
    });
    entered.notified().await;

    assert_eq!(
        thread_busy(graph.run(Plan::default(), thread("t")).await.unwrap_err()),
        "t"
    );
    // Still busy: the failed attempt did not release the first run's claim.
    assert_eq!(
        thread_busy(graph.resume(thread("t")).await.unwrap_err()),
        "t"
    );
    assert_eq!(
        thread_busy(
            graph
                .update_state(&thread("t"), PlanUpdate::default(), None)
                .await
                .unwrap_err()
        ),
        "t"
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "the refused runs ran nothing"
    );
    // Another thread runs meanwhile.
    let other = graph.invoke(Plan::default(), thread("u")).await.unwrap();
    assert_eq!(other.log, ["held"]);
    // Reading a busy thread is fine.
    assert!(graph.history(&thread("t"), None, None).await.is_ok());

    release.notify_one();
    let outcome = tokio::time::timeout(Duration::from_secs(5), first)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(outcome.into_state().log, ["held"]);

    // The thread is free again.
    let again = tokio::spawn({
        let graph = graph.clone();
        async move { graph.run(Plan::default(), thread("t")).await }
    });
    entered.notified().await;
    release.notify_one();
    let outcome = again.await.unwrap().unwrap();
    assert!(matches!(outcome, RunOutcome::Completed(_)));
}

/// Scenario: a failed run releases its thread.
pub async fn a_failed_run_releases_its_thread(backend: &dyn Backend) {
    let mut graph = StateGraph::<Plan>::new();
    graph
        .add_sync_node("fail", |_, _| Err::<PlanUpdate, _>(NodeError::msg("no")))
        .add_edge(START, "fail")
        .add_edge("fail", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let error = graph.run(Plan::default(), thread("t")).await.unwrap_err();
    assert!(matches!(error, GraphError::Node { .. }), "{error:?}");
    let error = graph.run(Input::Resume, thread("t")).await.unwrap_err();
    assert!(matches!(error, GraphError::Node { .. }), "{error:?}");
}

/// Scenario: a conflicting superstep persists nothing.
pub async fn a_conflicting_superstep_persists_nothing(backend: &dyn Backend) {
    // Two writers of the replace-field `plan` in one superstep.
    let mut graph = StateGraph::<Plan>::new();
    graph
        .add_sync_node("start", |_, _| {
            Ok(PlanUpdate::default().log(vec!["start".to_string()]))
        })
        .add_sync_node("x", |_, _| Ok(PlanUpdate::default().plan(vec![])))
        .add_sync_node("y", |_, _| Ok(PlanUpdate::default().plan(vec![])))
        .add_edge(START, "start")
        .add_edge("start", "x")
        .add_edge("start", "y")
        .add_edge("x", END)
        .add_edge("y", END);
    let saver = fresh(backend).await;
    let graph = graph.compile().unwrap().with_checkpointer(saver.clone());
    let error = graph.run(Plan::default(), thread("t")).await.unwrap_err();
    assert!(matches!(error, GraphError::Conflict { .. }), "{error:?}");
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    assert_eq!(history.iter().map(|i| i.step).collect::<Vec<_>>(), [1, 0]);
    let latest = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(latest.metadata.next, ["x", "y"]);
    assert_eq!(latest.values.log, ["start"]);
    assert!(saver
        .pending_writes("t", latest.checkpoint_id)
        .await
        .unwrap()
        .is_empty());
}
