//! `Send`: map-reduce fan-out. A router or a node's `Command` returns sends;
//! each runs its node as a task of its own in the next superstep with its
//! payload; the updates merge in emission order. Here: the map-reduce
//! example, 1,000 sends, sends to unknown nodes, conflicts, `goto` sends,
//! what checkpoints record and what events tell. Interrupts and resumes of
//! sent tasks run on every store in `rebound-conformance`
//! (`scenarios::send`).

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rebound_graph::checkpoint::{Checkpointer, MemorySaver};
use rebound_graph::{
    Command, CompileError, CompiledGraph, Event, GraphError, NodeError, NodeOptions, Route,
    RunConfig, Send, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Docs {
    docs: Vec<String>,
    #[state(append)]
    summaries: Vec<String>,
    joined: String,
    last: String,
}

/// What `summarize` is sent: a document, and how long to take over it.
#[derive(Debug, Deserialize)]
struct Job {
    doc: String,
    delay_ms: u64,
}

fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn docs(items: &[&str]) -> Docs {
    Docs {
        docs: strings(items),
        ..Docs::default()
    }
}

/// The sends of `plan`'s router: one job per document, the first one the
/// slowest, so that the tasks finish in the reverse of emission order.
fn jobs(state: &Docs) -> Vec<Send> {
    let count = state.docs.len() as u64;
    state
        .docs
        .iter()
        .zip(0u64..)
        .map(|(doc, i)| {
            Send::new(
                "summarize",
                json!({"doc": doc, "delay_ms": 2 * (count - i)}),
            )
        })
        .collect()
}

/// START -> plan =(one send per document)=> summarize -> join -> END.
fn map_reduce(join_runs: &Arc<AtomicUsize>) -> StateGraph<Docs> {
    let join_runs = Arc::clone(join_runs);
    let mut graph = StateGraph::<Docs>::new();
    graph
        .add_sync_node("plan", |_, _| Ok(DocsUpdate::default()))
        .add_node("summarize", |_, ctx| async move {
            let job: Job = ctx
                .send_arg()?
                .ok_or_else(|| NodeError::msg("summarize runs only when sent a document"))?;
            tokio::time::sleep(Duration::from_millis(job.delay_ms)).await;
            Ok(DocsUpdate::default().summaries(vec![format!("summary of {}", job.doc)]))
        })
        .add_sync_node("join", move |s, _| {
            join_runs.fetch_add(1, Ordering::SeqCst);
            Ok(DocsUpdate::default().joined(s.summaries.join(" | ")))
        })
        .add_edge(START, "plan")
        .add_conditional_edges("plan", jobs, ["summarize"])
        .add_edge("summarize", "join")
        .add_edge("join", END);
    graph
}

fn summarized(items: &[&str]) -> Docs {
    let summaries: Vec<String> = items.iter().map(|d| format!("summary of {d}")).collect();
    Docs {
        docs: strings(items),
        joined: summaries.join(" | "),
        summaries,
        last: String::new(),
    }
}

#[tokio::test]
async fn map_reduce_merges_the_summaries_in_emission_order() {
    let join_runs = Arc::new(AtomicUsize::new(0));
    let graph = map_reduce(&join_runs).compile().unwrap();
    let input = docs(&["alpha", "beta", "gamma", "delta"]);
    let done = graph.invoke(input, RunConfig::new()).await.unwrap();
    assert_eq!(done, summarized(&["alpha", "beta", "gamma", "delta"]));
    assert_eq!(
        join_runs.load(Ordering::SeqCst),
        1,
        "join is scheduled once"
    );
}

#[tokio::test]
async fn map_reduce_with_a_checkpointer_records_the_sends_of_each_superstep() {
    let join_runs = Arc::new(AtomicUsize::new(0));
    let saver = Arc::new(MemorySaver::new());
    let graph = map_reduce(&join_runs)
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());
    let input = docs(&["alpha", "beta", "gamma"]);
    let done = graph.invoke(input.clone(), thread("t")).await.unwrap();
    assert_eq!(done, summarized(&["alpha", "beta", "gamma"]));
    assert_eq!(join_runs.load(Ordering::SeqCst), 1);

    // Newest first: join, summarize's superstep, plan's, the input.
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    let steps: Vec<_> = history
        .iter()
        .map(|c| {
            (
                c.step,
                c.metadata.ran.clone(),
                c.metadata.next.clone(),
                c.metadata.sends.len(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            (3, strings(&["join"]), vec![], 0),
            (2, strings(&["summarize"]), strings(&["join"]), 0),
            (1, strings(&["plan"]), vec![], 3),
            (0, vec![], strings(&["plan"]), 0),
        ]
    );
    assert_eq!(history[2].metadata.sends, jobs(&input));
    assert!(!history[2].metadata.is_finished());
    assert!(history[0].metadata.is_finished());

    // The sends are stored under their own key, which a checkpoint without
    // sends does not carry (its metadata is encoded as before sends existed).
    let stored = saver.list("t", None, None).await.unwrap();
    let raw = |i: usize| serde_json::from_slice::<serde_json::Value>(&stored[i].meta).unwrap();
    assert_eq!(
        raw(2)["t"][0],
        json!(["summarize", {"doc": "alpha", "delay_ms": 6}])
    );
    for i in [0, 1, 3] {
        assert!(raw(i).get("t").is_none(), "{:?}", raw(i));
    }

    // get_state at plan's checkpoint shows the sends due.
    let at_plan = graph
        .get_state(&thread("t").with_checkpoint_id(history[2].checkpoint_id))
        .await
        .unwrap();
    assert_eq!(at_plan.metadata.sends, jobs(&input));
    assert!(at_plan.metadata.next.is_empty());
    assert_eq!(at_plan.values, input);
}

/// START -> fanout =(k sends of 0..k)=> work -> END; work appends its number.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Numbers {
    k: u64,
    #[state(append)]
    items: Vec<u64>,
}

fn fan_out() -> StateGraph<Numbers> {
    let mut graph = StateGraph::<Numbers>::new();
    graph
        .add_sync_node("fanout", |_, _| Ok(NumbersUpdate::default()))
        .add_sync_node("work", |_, ctx| {
            let n: u64 = ctx.send_arg()?.unwrap_or(u64::MAX);
            Ok(NumbersUpdate::default().items(vec![n]))
        })
        .add_edge(START, "fanout")
        .add_conditional_edges(
            "fanout",
            |s: &Numbers| Route::sends((0..s.k).map(|i| Send::new("work", i))),
            ["work"],
        )
        .add_edge("work", END);
    graph
}

#[tokio::test]
async fn a_thousand_sends_run_in_one_superstep_and_merge_in_order() {
    let input = Numbers {
        k: 1000,
        items: Vec::new(),
    };
    let expected: Vec<u64> = (0..1000).collect();

    let graph = fan_out().compile().unwrap();
    let done = graph.invoke(input.clone(), RunConfig::new()).await.unwrap();
    assert_eq!(done.items, expected);

    let saver = Arc::new(MemorySaver::new());
    let graph = graph.with_checkpointer(saver.clone());
    let done = graph.invoke(input, thread("t")).await.unwrap();
    assert_eq!(done.items, expected);
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    // The input, fanout's superstep, and one superstep for all the sends.
    assert_eq!(history.len(), 3);
    assert_eq!(history[0].step, 2);
    assert_eq!(history[0].metadata.ran, ["work"]);
    assert_eq!(history[1].metadata.sends.len(), 1000);
}

/// START -> plan =(a send to summarize, then one to `target`)=> summarize -> END.
fn sending_to(target: &'static str) -> CompiledGraph<Docs> {
    let mut graph = StateGraph::<Docs>::new();
    graph
        .add_sync_node("plan", |_, _| Ok(DocsUpdate::default()))
        .add_sync_node("summarize", |_, _| {
            Ok(DocsUpdate::default().summaries(strings(&["done"])))
        })
        .add_edge(START, "plan")
        .add_conditional_edges(
            "plan",
            move |_: &Docs| Route::send("summarize", "ok").with_send(Send::new(target, "lost")),
            ["summarize"],
        )
        .add_edge("summarize", END);
    graph.compile().unwrap()
}

fn assert_unknown_send(error: GraphError, target: &str) {
    match &error {
        GraphError::UnknownSendTarget { from, node, known } => {
            assert_eq!(from, "plan");
            assert_eq!(node, target);
            assert_eq!(known, &strings(&["plan", "summarize"]));
        }
        other => panic!("expected UnknownSendTarget, got {other:?}"),
    }
    let message = error.to_string();
    assert!(message.contains(target), "{message}");
    assert!(message.contains("summarize"), "{message}");
}

#[tokio::test]
async fn a_send_to_an_unknown_node_or_to_end_is_a_typed_error() {
    for target in ["nope", END] {
        let error = sending_to(target)
            .invoke(Docs::default(), RunConfig::new())
            .await
            .unwrap_err();
        assert_unknown_send(error, target);
    }
}

#[tokio::test]
async fn a_send_to_an_unknown_node_leaves_the_thread_at_its_last_good_checkpoint() {
    let saver = Arc::new(MemorySaver::new());
    let graph = sending_to("nope").with_checkpointer(saver.clone());
    // Stop before plan, so that the thread has a checkpoint to keep.
    let config = thread("t").with_interrupt_before(["plan"]);
    let stopped = graph.run(docs(&["a"]), config).await.unwrap();
    assert!(stopped.is_interrupted());
    let before = graph.get_state(&thread("t")).await.unwrap();
    let stored = saver.list("t", None, None).await.unwrap();
    let writes = saver
        .pending_writes("t", before.checkpoint_id)
        .await
        .unwrap();

    let error = graph.resume(thread("t")).await.unwrap_err();
    assert_unknown_send(error, "nope");

    // Nothing of plan's superstep was persisted.
    assert_eq!(graph.get_state(&thread("t")).await.unwrap(), before);
    assert_eq!(saver.list("t", None, None).await.unwrap(), stored);
    assert_eq!(
        saver
            .pending_writes("t", before.checkpoint_id)
            .await
            .unwrap(),
        writes
    );
}

#[tokio::test]
async fn two_sends_writing_one_replace_field_conflict_and_persist_nothing() {
    let saver = Arc::new(MemorySaver::new());
    let mut graph = StateGraph::<Docs>::new();
    graph
        .add_sync_node("plan", |_, _| Ok(DocsUpdate::default()))
        .add_sync_node("work", |_, ctx| {
            let doc: String = ctx.send_arg()?.unwrap_or_default();
            Ok(DocsUpdate::default().last(doc))
        })
        .add_edge(START, "plan")
        .add_conditional_edges(
            "plan",
            |_: &Docs| Route::sends([Send::new("work", "a"), Send::new("work", "b")]),
            ["work"],
        )
        .add_edge("work", END);
    let graph = graph.compile().unwrap().with_checkpointer(saver.clone());

    let error = graph
        .invoke(Docs::default(), thread("t"))
        .await
        .unwrap_err();
    match error {
        GraphError::Conflict {
            field,
            first,
            second,
            step,
        } => {
            assert_eq!(
                (field, first.as_str(), second.as_str(), step),
                ("last", "work#0", "work#1", 1)
            );
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    // The thread stays at plan's checkpoint, with the sends still due.
    let latest = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(latest.step, 1);
    assert_eq!(latest.metadata.ran, ["plan"]);
    assert_eq!(latest.metadata.sends.len(), 2);
    assert_eq!(latest.values, Docs::default());
}

#[tokio::test]
async fn a_commands_goto_can_send_alongside_a_target() {
    let audits = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&audits);
    let mut graph = StateGraph::<Docs>::new();
    graph
        .add_sync_node("plan", |s, _| {
            let route = Route::to("audit").with_sends(
                s.docs
                    .iter()
                    .map(|doc| Send::new("summarize", json!({"doc": doc, "delay_ms": 0}))),
            );
            Ok(Command::goto(route).with_update(DocsUpdate::default().last("planned".into())))
        })
        .add_node("summarize", |_, ctx| async move {
            let job: Option<Job> = ctx.send_arg()?;
            let doc = job.map_or_else(|| "nothing sent".to_string(), |job| job.doc);
            Ok::<_, NodeError>(DocsUpdate::default().summaries(vec![doc]))
        })
        .add_sync_node("audit", move |_, ctx| {
            counted.fetch_add(1, Ordering::SeqCst);
            assert!(ctx.send_arg_value().is_none());
            Ok(DocsUpdate::default().joined("audited".into()))
        })
        .configure_node(
            "plan",
            NodeOptions::new().destinations(["audit", "summarize"]),
        )
        .add_edge(START, "plan")
        .add_edge("summarize", END)
        .add_edge("audit", END);
    let graph = graph.compile().unwrap();
    let done = graph
        .invoke(docs(&["x", "y", "z"]), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(
        done,
        Docs {
            docs: strings(&["x", "y", "z"]),
            summaries: strings(&["x", "y", "z"]),
            joined: "audited".into(),
            last: "planned".into(),
        }
    );
    assert_eq!(audits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_node_both_scheduled_and_sent_runs_once_per_task_scheduled_first() {
    let mut graph = StateGraph::<Docs>::new();
    graph
        .add_sync_node("plan", |_, _| Ok(DocsUpdate::default()))
        .add_sync_node("summarize", |_, ctx| {
            let doc: Option<String> = ctx.send_arg()?;
            Ok(DocsUpdate::default().summaries(vec![doc.unwrap_or_else(|| "scheduled".into())]))
        })
        .add_edge(START, "plan")
        .add_conditional_edges(
            "plan",
            |_: &Docs| {
                Route::send("summarize", "first")
                    .with_send(Send::new("summarize", "second"))
                    .with_sends([])
            },
            ["summarize"],
        )
        // An ordinary edge schedules summarize as well.
        .add_edge("plan", "summarize")
        .add_edge("summarize", END);
    let done = graph
        .compile()
        .unwrap()
        .invoke(Docs::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(done.summaries, ["scheduled", "first", "second"]);
}

#[tokio::test]
async fn a_router_from_start_can_send() {
    let mut graph = StateGraph::<Numbers>::new();
    graph
        .add_sync_node("work", |_, ctx| {
            let n: u64 = ctx.send_arg()?.unwrap_or(u64::MAX);
            Ok(NumbersUpdate::default().items(vec![n * 10]))
        })
        .add_conditional_edges(
            START,
            |s: &Numbers| (0..s.k).map(|i| Send::new("work", i)).collect::<Vec<_>>(),
            ["work"],
        )
        .add_edge("work", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()));
    let input = Numbers {
        k: 3,
        items: Vec::new(),
    };
    let done = graph.invoke(input, thread("t")).await.unwrap();
    assert_eq!(done.items, [0, 10, 20]);
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    assert_eq!(history.last().unwrap().metadata.sends.len(), 3);
}

#[tokio::test]
async fn a_payload_that_does_not_fit_is_a_node_error() {
    let mut graph = StateGraph::<Numbers>::new();
    graph
        .add_sync_node("work", |_, ctx| {
            let n: u64 = ctx.send_arg()?.unwrap_or_default();
            Ok(NumbersUpdate::default().items(vec![n]))
        })
        .add_conditional_edges(START, |_: &Numbers| Route::send("work", "text"), ["work"])
        .add_edge("work", END);
    let error = graph
        .compile()
        .unwrap()
        .invoke(Numbers::default(), RunConfig::new())
        .await
        .unwrap_err();
    match error {
        GraphError::Node { node, source, .. } => {
            assert_eq!(node, "work");
            assert!(source.to_string().contains("does not fit"), "{source}");
        }
        other => panic!("expected a node error, got {other:?}"),
    }
}

#[tokio::test]
async fn route_events_name_each_sent_task() {
    let graph = fan_out().compile().unwrap();
    let input = Numbers {
        k: 3,
        items: Vec::new(),
    };
    let mut stream = graph.stream(input, RunConfig::new());
    let mut routes = Vec::new();
    let mut finished = 0;
    while let Some(event) = stream.next_event().await {
        match event {
            Event::RouteChosen { from, to, .. } => routes.push((from.to_string(), to)),
            Event::NodeFinished { node, .. } if &*node == "work" => finished += 1,
            _ => {}
        }
    }
    assert_eq!(stream.result().await.unwrap().items, [0, 1, 2]);
    assert_eq!(finished, 3);
    let work: Vec<Arc<str>> = vec![Arc::from("work"); 3];
    assert_eq!(routes[1], ("fanout".to_string(), work));
    // Each sent task routes on through work's edges.
    assert_eq!(routes.len(), 2 + 3);
}

#[test]
fn a_node_name_with_a_hash_is_refused() {
    let mut graph = StateGraph::<Numbers>::new();
    graph
        .add_sync_node("work#1", |_, _| Ok(NumbersUpdate::default()))
        .add_edge(START, "work#1")
        .add_edge("work#1", END);
    assert!(matches!(
        graph.compile(),
        Err(CompileError::ReservedName { name }) if name == "work#1"
    ));
}
