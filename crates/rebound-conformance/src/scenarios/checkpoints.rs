//! Checkpoints: one per superstep plus one for the input, their metadata,
//! states rebuilt from deltas, checkpoint size, history filters, and the
//! batched durability mode.
//!
//! Longer than 800 lines on purpose: 28 scenarios, each a short function
//! read by its name (the conformance macro lists them), about one concern;
//! split, they would be found in more places, not read faster.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rebound_graph::checkpoint::{
    CheckpointId, CheckpointMetadata, CheckpointSource, PendingWrite, WriteKind,
};
use rebound_graph::{
    CancellationToken, CheckpointInfo, CompiledGraph, Durability, GraphError, Input, NodeContext,
    NodeError, Route, RunConfig, RunOutcome, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};

use crate::backend::fresh;
use crate::Backend;

fn keep_max(old: &mut u32, new: u32) {
    *old = (*old).max(new);
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Chat {
    #[state(append)]
    messages: Vec<String>,
    count: u32,
    #[state(merge = keep_max)]
    best: u32,
}

fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
}

/// A checkpoint's metadata without its duration (which differs between runs).
fn timeless(meta: &CheckpointMetadata) -> CheckpointMetadata {
    CheckpointMetadata {
        duration_us: 0,
        ..meta.clone()
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// START -> a; a loops twice ("again"), then fans out to b and c ("fan out");
/// b and c go to END.
fn looping_fan_out() -> StateGraph<Chat> {
    let mut graph = StateGraph::<Chat>::new();
    graph
        .add_sync_node("a", |s, _| {
            Ok(ChatUpdate::default()
                .count(s.count + 1)
                .messages(vec![format!("a{}", s.count + 1)]))
        })
        .add_sync_node("b", |_, _| {
            Ok(ChatUpdate::default().messages(vec!["b".to_string()]))
        })
        .add_sync_node("c", |_, _| {
            Ok(ChatUpdate::default().messages(vec!["c".to_string()]))
        })
        .add_edge(START, "a")
        .add_conditional_edges(
            "a",
            |s: &Chat| {
                if s.count < 2 {
                    Route::to("a").because("again")
                } else {
                    Route::to_all(["b", "c"]).because("fan out")
                }
            },
            ["a", "b", "c"],
        )
        .add_edge("b", END)
        .add_edge("c", END);
    graph
}

#[derive(Debug, PartialEq)]
struct Row {
    step: u64,
    source: CheckpointSource,
    next: Vec<String>,
    ran: Vec<String>,
    reasons: Vec<String>,
}

fn rows(history: &[CheckpointInfo]) -> Vec<Row> {
    history
        .iter()
        .map(|info| Row {
            step: info.step,
            source: info.metadata.source,
            next: info.metadata.next.clone(),
            ran: info.metadata.ran.clone(),
            reasons: info.metadata.reasons.clone(),
        })
        .collect()
}

/// Scenario: one checkpoint per superstep plus the input newest first.
pub async fn one_checkpoint_per_superstep_plus_the_input_newest_first(backend: &dyn Backend) {
    let graph = looping_fan_out()
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let config = thread("t");
    let outcome = graph.run(Chat::default(), config.clone()).await.unwrap();
    let RunOutcome::Completed(done) = outcome else {
        panic!("expected the run to complete, got {outcome:?}");
    };
    assert_eq!(done.messages, strings(&["a1", "a2", "b", "c"]));

    let history = graph.history(&config, None, None).await.unwrap();
    assert_eq!(
        rows(&history),
        vec![
            Row {
                step: 3,
                source: CheckpointSource::Loop,
                next: vec![],
                ran: strings(&["b", "c"]),
                reasons: vec![],
            },
            Row {
                step: 2,
                source: CheckpointSource::Loop,
                next: strings(&["b", "c"]),
                ran: strings(&["a"]),
                reasons: strings(&["fan out"]),
            },
            Row {
                step: 1,
                source: CheckpointSource::Loop,
                next: strings(&["a"]),
                ran: strings(&["a"]),
                reasons: strings(&["again"]),
            },
            Row {
                step: 0,
                source: CheckpointSource::Input,
                next: strings(&["a"]),
                ran: vec![],
                reasons: vec![],
            },
        ]
    );
    // Each checkpoint follows the one before it; ids increase.
    let parents: Vec<Option<CheckpointId>> = history.iter().map(|i| i.parent_id).collect();
    let mut expected: Vec<Option<CheckpointId>> = history
        .iter()
        .skip(1)
        .map(|i| Some(i.checkpoint_id))
        .collect();
    expected.push(None);
    assert_eq!(parents, expected);
    assert!(history
        .windows(2)
        .all(|w| w[0].checkpoint_id > w[1].checkpoint_id));
    // The input checkpoint is a snapshot; small supersteps are deltas.
    assert_eq!(
        history.iter().map(|i| i.snapshot).collect::<Vec<_>>(),
        [false, false, false, true]
    );
}

/// Scenario: a finished thread has empty next and latest equals by id.
pub async fn a_finished_thread_has_empty_next_and_latest_equals_by_id(backend: &dyn Backend) {
    let graph = looping_fan_out()
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let config = thread("t");
    let done = graph.invoke(Chat::default(), config.clone()).await.unwrap();

    let latest = graph.get_state(&config).await.unwrap();
    assert!(latest.metadata.next.is_empty());
    assert!(latest.interrupts.is_empty());
    assert_eq!(latest.values, done);
    assert_eq!(latest.step, 3);

    let by_id = graph
        .get_state(&config.clone().with_checkpoint_id(latest.checkpoint_id))
        .await
        .unwrap();
    assert_eq!(by_id.values, latest.values);
    assert_eq!(by_id.checkpoint_id, latest.checkpoint_id);
    assert_eq!(by_id.parent_id, latest.parent_id);
    assert_eq!(by_id.step, latest.step);
    assert_eq!(by_id.metadata, latest.metadata);
    assert_eq!(by_id.interrupts, latest.interrupts);

    // The history's newest entry is that same checkpoint.
    let history = graph.history(&config, None, Some(1)).await.unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].checkpoint_id, latest.checkpoint_id);
    assert_eq!(history[0].metadata, latest.metadata);
}

/// Scenario: a second run on a thread follows its latest checkpoint.
pub async fn a_second_run_on_a_thread_follows_its_latest_checkpoint(backend: &dyn Backend) {
    let graph = looping_fan_out()
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let config = thread("t");
    graph.invoke(Chat::default(), config.clone()).await.unwrap();
    let first_final = graph.get_state(&config).await.unwrap();

    graph.invoke(Chat::default(), config.clone()).await.unwrap();
    let history = graph.history(&config, None, None).await.unwrap();
    assert_eq!(history.len(), 8);
    let second_input = &history[3];
    assert_eq!(second_input.metadata.source, CheckpointSource::Input);
    assert_eq!(second_input.parent_id, Some(first_final.checkpoint_id));
    // Steps keep counting on the thread.
    assert_eq!(
        history.iter().map(|i| i.step).collect::<Vec<_>>(),
        [6, 5, 4, 3, 3, 2, 1, 0]
    );
}

/// START -> a; a fans out to x and y (both back to a) until `rounds`
/// rounds are done. Every node records the state it saw, by step.
fn recording_graph(rounds: u32, seen: &Arc<Mutex<BTreeMap<u64, Chat>>>) -> CompiledGraph<Chat> {
    let mut graph = StateGraph::<Chat>::new();
    for name in ["a", "x", "y"] {
        let seen = Arc::clone(seen);
        graph.add_sync_node(name, move |s: &Chat, ctx: &NodeContext| {
            let mut seen = seen.lock().unwrap();
            let previous = seen.insert(ctx.step(), s.clone());
            if let Some(previous) = previous {
                assert_eq!(&previous, s, "nodes of one superstep see one state");
            }
            let long = format!("{name}{:0>97}", ctx.step());
            let update = ChatUpdate::default().messages(vec![long]);
            Ok(match name {
                "a" => update.count(s.count + 1).best((ctx.step() as u32 * 7) % 13),
                _ => update.best(ctx.step() as u32 % 5),
            })
        });
    }
    graph
        .add_edge(START, "a")
        .add_conditional_edges(
            "a",
            move |s: &Chat| {
                if s.count < rounds {
                    Route::to_all(["x", "y"])
                } else {
                    Route::end()
                }
            },
            ["x", "y", END],
        )
        .add_edge("x", "a")
        .add_edge("y", "a");
    graph.compile().unwrap()
}

/// Scenario: states rebuilt from deltas equal the live states at every checkpoint.
pub async fn states_rebuilt_from_deltas_equal_the_live_states_at_every_checkpoint(
    backend: &dyn Backend,
) {
    let seen = Arc::new(Mutex::new(BTreeMap::new()));
    let graph = recording_graph(80, &seen).with_checkpointer(fresh(backend).await);
    let config = thread("t");
    let done = graph.invoke(Chat::default(), config.clone()).await.unwrap();

    let history = graph.history(&config, None, None).await.unwrap();
    // 80 rounds of a, then x+y between them: 80 + 79 supersteps, plus the input.
    assert_eq!(history.len(), 80 + 79 + 1);
    let snapshots = history.iter().filter(|i| i.snapshot).count();
    assert!(
        snapshots >= 2,
        "the run is long enough to take snapshots between deltas ({snapshots})"
    );
    assert!(snapshots * 4 < history.len(), "most are deltas");

    let seen = seen.lock().unwrap().clone();
    for info in &history {
        let state = graph
            .get_state(&config.clone().with_checkpoint_id(info.checkpoint_id))
            .await
            .unwrap();
        let live = if info.metadata.next.is_empty() {
            &done
        } else {
            &seen[&info.step]
        };
        assert_eq!(&state.values, live, "state at step {}", info.step);
        assert_eq!(state.step, info.step);
    }
}

/// One node appending a 100-byte message per step for `steps` steps.
fn appender(steps: u32) -> CompiledGraph<Chat> {
    let mut graph = StateGraph::<Chat>::new();
    graph
        .add_sync_node("append", |s, _| {
            Ok(ChatUpdate::default()
                .count(s.count + 1)
                .messages(vec![format!("{:0>100}", s.count)]))
        })
        .add_edge(START, "append")
        .add_conditional_edges(
            "append",
            move |s: &Chat| if s.count < steps { "append" } else { END },
            ["append", END],
        );
    graph.compile().unwrap()
}

/// Scenario: a delta does not grow with the message list.
pub async fn a_delta_does_not_grow_with_the_message_list(backend: &dyn Backend) {
    let graph = appender(300).with_checkpointer(fresh(backend).await);
    let config = thread("t");
    graph.invoke(Chat::default(), config.clone()).await.unwrap();
    let history = graph.history(&config, None, None).await.unwrap();
    assert_eq!(history.len(), 301);

    let deltas: Vec<usize> = history
        .iter()
        .filter(|i| !i.snapshot)
        .map(|i| i.state_bytes)
        .collect();
    assert!(deltas.len() * 10 > history.len() * 9, "most are deltas");
    let (min, max) = (deltas.iter().min().unwrap(), deltas.iter().max().unwrap());
    assert!(*max < 200, "a delta of one message is small: {max} bytes");
    assert!(
        max - min <= 4,
        "deltas stay the same size: {min}..{max} bytes"
    );
}

/// Scenario: stored bytes per step stay flat as the message list grows.
pub async fn stored_bytes_per_step_stay_flat_as_the_message_list_grows(backend: &dyn Backend) {
    let graph = appender(300).with_checkpointer(fresh(backend).await);
    let config = thread("t");
    graph.invoke(Chat::default(), config.clone()).await.unwrap();
    let history = graph.history(&config, None, None).await.unwrap();
    let by_step: BTreeMap<u64, usize> = history.iter().map(|i| (i.step, i.state_bytes)).collect();
    let average = |from: u64, to: u64| -> f64 {
        (from..to).map(|s| by_step[&s] as f64).sum::<f64>() / (to - from) as f64
    };
    let early = average(10, 110);
    let late = average(200, 300);
    let snapshots: Vec<(u64, usize)> = history
        .iter()
        .filter(|i| i.snapshot)
        .map(|i| (i.step, i.state_bytes))
        .collect();
    assert!(
        late <= 2.0 * early,
        "stored bytes per step: {early:.0} over steps 10-110, {late:.0} over steps 200-300; \
         snapshots (step, bytes): {snapshots:?}"
    );
}

/// Scenario: history filters by before and limit.
pub async fn history_filters_by_before_and_limit(backend: &dyn Backend) {
    let graph = looping_fan_out()
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let config = thread("t");
    graph.invoke(Chat::default(), config.clone()).await.unwrap();
    let all = graph.history(&config, None, None).await.unwrap();
    let ids: Vec<CheckpointId> = all.iter().map(|i| i.checkpoint_id).collect();
    assert_eq!(ids.len(), 4);

    let ids_of = |h: Vec<CheckpointInfo>| h.iter().map(|i| i.checkpoint_id).collect::<Vec<_>>();
    assert_eq!(
        ids_of(graph.history(&config, None, Some(2)).await.unwrap()),
        ids[..2]
    );
    assert_eq!(
        ids_of(graph.history(&config, Some(ids[1]), None).await.unwrap()),
        ids[2..]
    );
    assert_eq!(
        ids_of(graph.history(&config, Some(ids[0]), Some(1)).await.unwrap()),
        ids[1..2]
    );
    assert_eq!(
        ids_of(graph.history(&config, Some(ids[3]), None).await.unwrap()),
        Vec::<CheckpointId>::new()
    );
    assert_eq!(
        ids_of(graph.history(&config, None, Some(0)).await.unwrap()),
        Vec::<CheckpointId>::new()
    );
    // Another thread's history is its own.
    assert!(graph
        .history(&thread("other"), None, None)
        .await
        .unwrap()
        .is_empty());
}

/// Scenario: batched durability gives the same checkpoints and state as sync.
pub async fn batched_durability_gives_the_same_checkpoints_and_state_as_sync(
    backend: &dyn Backend,
) {
    let sync_graph = appender(150).with_checkpointer(fresh(backend).await);
    let batched_graph = appender(150).with_checkpointer(fresh(backend).await);
    let config = thread("t");
    let sync_done = sync_graph
        .invoke(Chat::default(), config.clone())
        .await
        .unwrap();
    let batched_done = batched_graph
        .invoke(
            Chat::default(),
            config.clone().with_durability(Durability::batched()),
        )
        .await
        .unwrap();
    assert_eq!(batched_done, sync_done);

    let project = |history: Vec<CheckpointInfo>| -> Vec<(u64, CheckpointMetadata, bool, usize)> {
        history
            .iter()
            .map(|i| (i.step, timeless(&i.metadata), i.snapshot, i.state_bytes))
            .collect()
    };
    let sync_history = sync_graph.history(&config, None, None).await.unwrap();
    let batched_history = batched_graph.history(&config, None, None).await.unwrap();
    assert_eq!(batched_history.len(), 151);
    assert_eq!(
        project(batched_history.clone()),
        project(sync_history.clone())
    );
    for (b, s) in batched_history.iter().zip(&sync_history).step_by(7) {
        let b = batched_graph
            .get_state(&config.clone().with_checkpoint_id(b.checkpoint_id))
            .await
            .unwrap();
        let s = sync_graph
            .get_state(&config.clone().with_checkpoint_id(s.checkpoint_id))
            .await
            .unwrap();
        assert_eq!(b.values, s.values);
    }
}

/// START -> a -> b -> {c, d} -> END; c fails on its first call.
fn failing_once(c_calls: &Arc<AtomicUsize>, d_calls: &Arc<AtomicUsize>) -> CompiledGraph<Chat> {
    let mut graph = StateGraph::<Chat>::new();
    let c_calls = Arc::clone(c_calls);
    let d_calls = Arc::clone(d_calls);
    graph
        .add_sync_node("a", |_, _| {
            Ok(ChatUpdate::default().messages(vec!["a".to_string()]))
        })
        .add_sync_node("b", |_, _| {
            Ok(ChatUpdate::default().messages(vec!["b".to_string()]))
        })
        .add_sync_node("c", move |_, _| {
            if c_calls.fetch_add(1, Ordering::SeqCst) == 0 {
                return Err(NodeError::msg("disk on fire"));
            }
            Ok(ChatUpdate::default().messages(vec!["c".to_string()]))
        })
        .add_sync_node("d", move |_, _| {
            d_calls.fetch_add(1, Ordering::SeqCst);
            Ok(ChatUpdate::default().messages(vec!["d".to_string()]))
        })
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", "c")
        .add_edge("b", "d")
        .add_edge("c", END)
        .add_edge("d", END);
    graph.compile().unwrap()
}

/// Scenario: batched error commits the completed supersteps and resume works.
pub async fn batched_error_commits_the_completed_supersteps_and_resume_works(
    backend: &dyn Backend,
) {
    let saver = fresh(backend).await;
    let (c_calls, d_calls) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let graph = failing_once(&c_calls, &d_calls).with_checkpointer(saver.clone());
    let config = thread("t").with_durability(Durability::batched());

    let error = graph
        .run(Chat::default(), config.clone())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, GraphError::Node { node, step: 2, attempt: 1, .. } if node == "c"),
        "{error:?}"
    );

    // The input and the supersteps of a and b are committed; the failed
    // superstep made no checkpoint.
    let history = graph.history(&config, None, None).await.unwrap();
    assert_eq!(
        rows(&history),
        vec![
            Row {
                step: 2,
                source: CheckpointSource::Loop,
                next: strings(&["c", "d"]),
                ran: strings(&["b"]),
                reasons: vec![],
            },
            Row {
                step: 1,
                source: CheckpointSource::Loop,
                next: strings(&["b"]),
                ran: strings(&["a"]),
                reasons: vec![],
            },
            Row {
                step: 0,
                source: CheckpointSource::Input,
                next: strings(&["a"]),
                ran: vec![],
                reasons: vec![],
            },
        ]
    );
    // ... and left only d's finished update, as a pending write.
    let latest = history[0].checkpoint_id;
    let writes = saver.pending_writes("t", latest).await.unwrap();
    assert_eq!(
        writes
            .iter()
            .map(|w| (w.node.as_str(), w.kind))
            .collect::<Vec<_>>(),
        [("d", WriteKind::Update)]
    );
    let state = graph.get_state(&config).await.unwrap();
    assert_eq!(state.values.messages, strings(&["a", "b"]));
    assert_eq!(state.metadata.next, strings(&["c", "d"]));

    let outcome = graph.resume(config.clone()).await.unwrap();
    let RunOutcome::Completed(done) = outcome else {
        panic!("expected completion, got {outcome:?}");
    };
    assert_eq!(done.messages, strings(&["a", "b", "c", "d"]));
    assert_eq!(c_calls.load(Ordering::SeqCst), 2);
    assert_eq!(d_calls.load(Ordering::SeqCst), 1, "d is not run again");
    let history = graph.history(&config, None, None).await.unwrap();
    assert_eq!(history.len(), 4);
    assert_eq!(history[0].parent_id, Some(latest));
    assert_eq!(history[0].metadata.ran, strings(&["c", "d"]));
}

/// Scenario: sync error leaves the same as batched.
pub async fn sync_error_leaves_the_same_as_batched(backend: &dyn Backend) {
    let saver = fresh(backend).await;
    let (c_calls, d_calls) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let graph = failing_once(&c_calls, &d_calls).with_checkpointer(saver.clone());
    let config = thread("t");
    graph
        .run(Chat::default(), config.clone())
        .await
        .unwrap_err();
    let history = graph.history(&config, None, None).await.unwrap();
    assert_eq!(
        history.iter().map(|i| i.step).collect::<Vec<_>>(),
        [2, 1, 0]
    );
    let writes: Vec<PendingWrite> = saver
        .pending_writes("t", history[0].checkpoint_id)
        .await
        .unwrap();
    assert_eq!(writes.len(), 1);
    assert_eq!(writes[0].node, "d");
    let done = graph.resume(config).await.unwrap().into_state();
    assert_eq!(done.messages, strings(&["a", "b", "c", "d"]));
    assert_eq!(d_calls.load(Ordering::SeqCst), 1);
}

/// Scenario: batched cancellation still commits the completed supersteps.
pub async fn batched_cancellation_still_commits_the_completed_supersteps(backend: &dyn Backend) {
    // Durability::Batched promises a commit "always at an interrupt, an
    // error, the end of the run"; a cancelled run is an error.
    let entered = Arc::new(tokio::sync::Notify::new());
    let mut graph = StateGraph::<Chat>::new();
    let signal = Arc::clone(&entered);
    graph
        .add_sync_node("a", |_, _| {
            Ok(ChatUpdate::default().messages(vec!["a".to_string()]))
        })
        .add_sync_node("b", |_, _| {
            Ok(ChatUpdate::default().messages(vec!["b".to_string()]))
        })
        .add_node("stuck", move |_, _| {
            let signal = Arc::clone(&signal);
            async move {
                signal.notify_one();
                std::future::pending::<()>().await;
                Ok::<_, NodeError>(ChatUpdate::default())
            }
        })
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", "stuck")
        .add_edge("stuck", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let token = CancellationToken::new();
    let config = thread("t")
        .with_durability(Durability::batched())
        .with_cancellation(token.clone());

    let run = tokio::spawn({
        let graph = graph.clone();
        let config = config.clone();
        async move { graph.run(Chat::default(), config).await }
    });
    entered.notified().await;
    token.cancel();
    let error = run.await.unwrap().unwrap_err();
    assert!(matches!(error, GraphError::Cancelled { .. }), "{error:?}");

    let history = graph.history(&thread("t"), None, None).await.unwrap();
    assert_eq!(
        history.iter().map(|i| i.step).collect::<Vec<_>>(),
        [2, 1, 0],
        "the supersteps of a and b finished before the cancellation"
    );
}

/// START -> a -> b -> c -> d -> END.
fn chain() -> StateGraph<Chat> {
    let mut graph = StateGraph::<Chat>::new();
    for name in ["a", "b", "c", "d"] {
        graph.add_sync_node(name, move |_, _| {
            Ok(ChatUpdate::default().messages(vec![name.to_string()]))
        });
    }
    graph
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", "c")
        .add_edge("c", "d")
        .add_edge("d", END);
    graph
}

/// Scenario: a resumed run of s supersteps passes with limit s.
pub async fn a_resumed_run_of_s_supersteps_passes_with_limit_s(backend: &dyn Backend) {
    let mut graph = chain();
    graph.interrupt_before(["c"]);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);

    // Interrupted before c after a and b; two supersteps remain (c, d).
    let first = graph.run(Chat::default(), thread("ok")).await.unwrap();
    assert!(first.is_interrupted());
    let done = graph
        .resume(thread("ok").with_recursion_limit(2))
        .await
        .unwrap();
    assert_eq!(done.into_state().messages, strings(&["a", "b", "c", "d"]));

    // A limit of one stops the resumed run with d still to run.
    graph.run(Chat::default(), thread("short")).await.unwrap();
    let error = graph
        .resume(thread("short").with_recursion_limit(1))
        .await
        .unwrap_err();
    match error {
        GraphError::RecursionLimit {
            limit,
            recent,
            pending,
        } => {
            assert_eq!(limit, 1);
            assert_eq!(recent, strings(&["c"]));
            assert_eq!(pending, strings(&["d"]));
        }
        other => panic!("expected a recursion limit, got {other:?}"),
    }
}

/// Scenario: a resumed dynamic interrupt counts its superstep once.
pub async fn a_resumed_dynamic_interrupt_counts_its_superstep_once(backend: &dyn Backend) {
    // START -> a -> ask (interrupts) -> b -> END: the resumed run is ask, b.
    let mut graph = StateGraph::<Chat>::new();
    graph
        .add_sync_node("a", |_, _| {
            Ok(ChatUpdate::default().messages(vec!["a".to_string()]))
        })
        .add_sync_node("ask", |_, ctx| {
            let answer: String = ctx.interrupt("go?")?;
            Ok(ChatUpdate::default().messages(vec![answer]))
        })
        .add_sync_node("b", |_, _| {
            Ok(ChatUpdate::default().messages(vec!["b".to_string()]))
        })
        .add_edge(START, "a")
        .add_edge("a", "ask")
        .add_edge("ask", "b")
        .add_edge("b", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let first = graph.run(Chat::default(), thread("t")).await.unwrap();
    assert!(first.is_interrupted());
    // The interrupted superstep did not complete: one superstep (a) ran.
    assert_eq!(graph.get_state(&thread("t")).await.unwrap().step, 1);

    graph.run(Chat::default(), thread("short")).await.unwrap();
    let short = graph
        .resume_with(
            serde_json::json!("go"),
            thread("short").with_recursion_limit(1),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&short, GraphError::RecursionLimit { limit: 1, pending, .. } if pending == &strings(&["b"])),
        "{short:?}"
    );
    let done = graph
        .resume_with(serde_json::json!("go"), thread("t").with_recursion_limit(2))
        .await
        .unwrap();
    assert_eq!(done.into_state().messages, strings(&["a", "go", "b"]));
}

/// Scenario: a run of s supersteps ending at an interrupt before passes with limit s.
pub async fn a_run_of_s_supersteps_ending_at_an_interrupt_before_passes_with_limit_s(
    backend: &dyn Backend,
) {
    // a and b run, then the run stops before c: two supersteps. The limit is
    // counted the same way as for interrupt_after (which stops after the
    // superstep) and a run that ends: only runnable work should raise it.
    let mut before = chain();
    before.interrupt_before(["c"]);
    let before = before
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let mut after = chain();
    after.interrupt_after(["b"]);
    let after = after
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);

    let stopped_after = after
        .run(Chat::default(), thread("t").with_recursion_limit(2))
        .await
        .unwrap();
    assert!(stopped_after.is_interrupted());
    let stopped_before = before
        .run(Chat::default(), thread("t").with_recursion_limit(2))
        .await
        .unwrap();
    assert!(stopped_before.is_interrupted());
}

/// Scenario: input resume on a thread interrupted before runs from the input checkpoint.
pub async fn input_resume_on_a_thread_interrupted_before_runs_from_the_input_checkpoint(
    backend: &dyn Backend,
) {
    // interrupt_before the very first node: the only checkpoint is the input.
    let mut graph = chain();
    graph.interrupt_before(["a"]);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let outcome = graph.run(Chat::default(), thread("t")).await.unwrap();
    let RunOutcome::Interrupted { checkpoint_id, .. } = &outcome else {
        panic!("expected an interrupt, got {outcome:?}");
    };
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].checkpoint_id, *checkpoint_id);
    let done = graph.run(Input::Resume, thread("t")).await.unwrap();
    assert_eq!(done.into_state().messages, strings(&["a", "b", "c", "d"]));
}

/// Scenario: metadata records durations and ids record time.
pub async fn metadata_records_durations_and_ids_record_time(backend: &dyn Backend) {
    let mut graph = StateGraph::<Chat>::new();
    graph
        .add_node("slow", |_, _| async {
            tokio::time::sleep(std::time::Duration::from_millis(3)).await;
            Ok::<_, NodeError>(ChatUpdate::default().count(1))
        })
        .add_edge(START, "slow")
        .add_edge("slow", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    graph.invoke(Chat::default(), thread("t")).await.unwrap();
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    assert!(
        history[0].metadata.duration_us >= 3_000,
        "{:?}",
        history[0].metadata
    );
    assert_eq!(history[1].metadata.duration_us, 0, "the input took no time");
    for info in &history {
        let created = info.checkpoint_id.created_ms();
        assert!(
            created + 1_000 >= started && created <= started + 60_000,
            "{created} vs {started}"
        );
    }
}

/// Scenario: the saver lists threads most recent first.
pub async fn the_saver_lists_threads_most_recent_first(backend: &dyn Backend) {
    let saver = fresh(backend).await;
    let graph = looping_fan_out()
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());
    graph
        .invoke(Chat::default(), thread("first"))
        .await
        .unwrap();
    graph
        .invoke(Chat::default(), thread("second"))
        .await
        .unwrap();
    let threads = saver.threads().await.unwrap();
    let summary: Vec<(&str, u64, u64)> = threads
        .iter()
        .map(|t| (t.thread_id.as_str(), t.step, t.checkpoints))
        .collect();
    assert_eq!(summary, [("second", 3, 4), ("first", 3, 4)]);
    let latest = graph.get_state(&thread("second")).await.unwrap();
    assert_eq!(threads[0].latest, latest.checkpoint_id);
    let meta: CheckpointMetadata = serde_json::from_slice(&threads[0].meta).unwrap();
    assert_eq!(meta, latest.metadata);
}

/// The clock stepped back since the thread's head was made (here: a head
/// an hour ahead of the clock, as another process would have left it): a
/// resumed run's checkpoints still get ids above their parents, so the
/// newest checkpoint stays the thread's head.
pub async fn checkpoint_ids_increase_along_a_thread_when_the_clock_went_back(
    backend: &dyn Backend,
) {
    let mut graph = chain();
    graph.interrupt_before(["c"]);
    let saver = fresh(backend).await;
    let graph = graph.compile().unwrap().with_checkpointer(saver.clone());
    assert!(graph
        .run(Chat::default(), thread("t"))
        .await
        .unwrap()
        .is_interrupted());
    let head = saver.get("t", None).await.unwrap().unwrap();
    let hour = 3_600_000_000u64 << 8;
    let ahead = CheckpointId::from_u64(head.id.as_u64() + hour);
    // The same checkpoint again (same parent and state), an hour ahead.
    let mut moved = head.clone();
    moved.id = ahead;
    saver.put(vec![moved], Vec::new()).await.unwrap();

    let done = graph.resume(thread("t")).await.unwrap();
    assert_eq!(done.into_state().messages, strings(&["a", "b", "c", "d"]));
    let state = graph.get_state(&thread("t")).await.unwrap();
    assert!(state.checkpoint_id > ahead, "the newest is the head");
    assert_eq!(state.values.messages, strings(&["a", "b", "c", "d"]));
    assert!(state.metadata.is_finished());
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    assert_eq!(history.len(), 6, "input, a, b, its copy, c, d");
    for info in &history {
        if let Some(parent) = info.parent_id {
            assert!(info.checkpoint_id > parent, "{info:?}");
        }
    }
}
