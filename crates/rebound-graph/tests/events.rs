//! The event stream: order and content of events for successful, failing and
//! cancelled runs, JSON serialization, custom events, `with_events`.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use rebound_graph::{
    CancellationToken, Command, CompiledGraph, Event, GraphError, NodeContext, NodeError,
    NodeErrorKind, NodeOptions, Route, RunConfig, RunId, RunStatus, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct S {
    topic: String,
    draft: String,
    #[state(append)]
    notes: Vec<String>,
}

/// START -> plan -(router, with reason)-> write -> END
fn two_step() -> CompiledGraph<S> {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("plan", |_, _| Ok(SUpdate::default().topic("rust".into())))
        .add_node("write", |s: Arc<S>, _| async move {
            Ok::<_, NodeError>(
                SUpdate::default()
                    .draft(format!("about {}", s.topic))
                    .notes(vec!["drafted".into()]),
            )
        })
        .add_edge(START, "plan")
        .add_conditional_edges(
            "plan",
            |s: &S| {
                if s.topic.is_empty() {
                    Route::end().because("nothing to do")
                } else {
                    Route::to("write").because("needs a draft")
                }
            },
            ["write", END],
        )
        .add_edge("write", END);
    graph.compile().unwrap()
}

/// The event as JSON, without the values that vary between runs (ids,
/// durations), after checking they are present and well-typed.
fn normalized(event: &Event) -> Value {
    let mut value = serde_json::to_value(event).unwrap();
    let object = value.as_object_mut().unwrap();
    if let Some(run_id) = object.remove("run_id") {
        assert!(run_id.is_string(), "run_id should be a string: {run_id}");
    }
    for key in ["duration_us", "delay_us"] {
        if let Some(duration) = object.remove(key) {
            assert!(duration.is_u64(), "{key} should be an integer: {duration}");
        }
    }
    value
}

/// Checks that each event's JSON is its wire form's
/// ([`rebound_protocol::Event`]), which reads it back to itself: what a
/// log or a server writes from the engine's events, a reader decodes.
fn same_json_as_the_wire_form(events: &[Event]) {
    for event in events {
        let json = serde_json::to_value(event).unwrap();
        let wire = rebound_protocol::Event::from(event);
        assert_eq!(serde_json::to_value(&wire).unwrap(), json);
        assert_eq!(
            rebound_protocol::Event::decode(json.clone()),
            wire,
            "{json}"
        );
        assert_eq!(wire.to_string(), event.to_string());
    }
}

async fn drain(mut stream: rebound_graph::RunStream<S>) -> (Vec<Event>, Result<S, GraphError>) {
    let mut events = Vec::new();
    while let Some(event) = stream.next_event().await {
        events.push(event);
    }
    (events, stream.result().await)
}

#[tokio::test]
async fn successful_run_event_sequence() {
    let stream = two_step().stream(S::default(), RunConfig::new().with_thread_id("t-1"));
    let (events, result) = drain(stream).await;
    let out = result.unwrap();
    assert_eq!(out.draft, "about rust");

    let json: Vec<Value> = events.iter().map(normalized).collect();
    assert_eq!(
        json,
        [
            json!({"event": "run_started", "thread_id": "t-1"}),
            json!({"event": "route_chosen", "from": START, "to": ["plan"], "step": 0, "reason": null}),
            json!({"event": "node_started", "node": "plan", "step": 0, "attempt": 1}),
            json!({"event": "node_finished", "node": "plan", "step": 0, "attempt": 1, "changed": ["topic"]}),
            json!({"event": "route_chosen", "from": "plan", "to": ["write"], "step": 0, "reason": "needs a draft"}),
            json!({"event": "node_started", "node": "write", "step": 1, "attempt": 1}),
            json!({"event": "node_finished", "node": "write", "step": 1, "attempt": 1, "changed": ["draft", "notes"]}),
            json!({"event": "route_chosen", "from": "write", "to": [END], "step": 1, "reason": null}),
            json!({"event": "run_finished", "status": "completed", "steps": 2}),
        ]
    );

    // The same run id at both ends.
    let ids: Vec<RunId> = events
        .iter()
        .filter_map(|e| match e {
            Event::RunStarted { run_id, .. } | Event::RunFinished { run_id, .. } => Some(*run_id),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[0], ids[1]);
}

#[tokio::test]
async fn node_finished_serializes_as_one_flat_object() {
    let (events, _) = drain(two_step().stream(S::default(), RunConfig::new())).await;
    let finished = events
        .iter()
        .find(|e| matches!(e, Event::NodeFinished { node, .. } if &**node == "write"))
        .unwrap();
    let Event::NodeFinished {
        duration, changed, ..
    } = finished
    else {
        unreachable!()
    };
    assert_eq!(changed.names().collect::<Vec<_>>(), ["draft", "notes"]);
    assert_eq!(changed.set().len(), 2);
    let value = serde_json::to_value(finished).unwrap();
    assert_eq!(
        value,
        json!({
            "event": "node_finished",
            "node": "write",
            "step": 1,
            "attempt": 1,
            "duration_us": duration.as_micros() as u64,
            "changed": ["draft", "notes"],
        })
    );
}

#[test]
fn every_event_kind_serializes_with_its_tag() {
    let run_id = RunId::new();
    let id = run_id.to_string();
    let cases = [
        (
            Event::RunStarted {
                run_id,
                thread_id: None,
            },
            json!({"event": "run_started", "run_id": id, "thread_id": null}),
        ),
        (
            Event::NodeStarted {
                node: "n".into(),
                step: 3,
                attempt: 2,
            },
            json!({"event": "node_started", "node": "n", "step": 3, "attempt": 2}),
        ),
        (
            Event::RouteChosen {
                from: "n".into(),
                to: vec!["a".into(), END.into()],
                step: 3,
                reason: Some("why".into()),
            },
            json!({"event": "route_chosen", "from": "n", "to": ["a", END], "step": 3, "reason": "why"}),
        ),
        (
            Event::Retry {
                node: "n".into(),
                step: 1,
                attempt: 1,
                delay: Duration::from_millis(3),
                error: "oops".into(),
            },
            json!({"event": "retry", "node": "n", "step": 1, "attempt": 1, "delay_us": 3000, "error": "oops"}),
        ),
        (
            Event::Error {
                node: Some("n".into()),
                step: 4,
                kind: Some(NodeErrorKind::TimedOut),
                message: "m".into(),
            },
            json!({"event": "error", "node": "n", "step": 4, "kind": "timed_out", "message": "m"}),
        ),
        (
            Event::Custom {
                node: "n".into(),
                step: 0,
                payload: json!({"tokens": 12}),
            },
            json!({"event": "custom", "node": "n", "step": 0, "payload": {"tokens": 12}}),
        ),
        (
            Event::RunFinished {
                run_id,
                status: RunStatus::Cancelled,
                steps: 7,
                duration: Duration::from_micros(1234),
            },
            json!({"event": "run_finished", "run_id": id, "status": "cancelled", "steps": 7, "duration_us": 1234}),
        ),
    ];
    for (event, expected) in &cases {
        assert_eq!(&serde_json::to_value(event).unwrap(), expected);
    }
    let mut events: Vec<Event> = cases.into_iter().map(|(event, _)| event).collect();
    events.push(Event::Interrupted {
        node: "n".into(),
        kind: rebound_graph::InterruptKind::Before,
        payload: json!({"question": "go on?"}),
    });
    events.push(Event::Subgraph {
        namespace: vec![rebound_graph::SubgraphTask::new("sub", "sub#2", 4)].into(),
        inner: Box::new(events[1].clone()),
    });
    same_json_as_the_wire_form(&events);
    assert_eq!(
        serde_json::to_value(NodeErrorKind::Panicked).unwrap(),
        json!("panicked")
    );
    assert_eq!(
        serde_json::to_value(RunStatus::Failed).unwrap(),
        json!("failed")
    );
}

#[tokio::test]
async fn failing_run_ends_with_error_then_run_finished_failed() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("plan", |_, _| Ok(SUpdate::default().topic("t".into())))
        .add_sync_node("boom", |_, _| Err::<SUpdate, _>(NodeError::msg("exploded")))
        .add_edge(START, "plan")
        .add_edge("plan", "boom")
        .add_edge("boom", END);
    let (events, result) = drain(
        graph
            .compile()
            .unwrap()
            .stream(S::default(), RunConfig::new()),
    )
    .await;
    assert!(matches!(result, Err(GraphError::Node { .. })));
    let json: Vec<Value> = events.iter().map(normalized).collect();
    assert_eq!(
        json[json.len() - 3..],
        [
            json!({"event": "node_started", "node": "boom", "step": 1, "attempt": 1}),
            json!({
                "event": "error",
                "node": "boom",
                "step": 1,
                "kind": "failed",
                "message": "node \"boom\" failed at step 1 (attempt 1): exploded",
            }),
            json!({"event": "run_finished", "status": "failed", "steps": 1}),
        ]
    );
    // No node_finished for the failed node.
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::NodeFinished { node, .. } if &**node == "boom")));
}

#[tokio::test]
async fn unknown_route_error_event_names_the_node() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", |_, _| Ok(SUpdate::default()))
        .add_edge(START, "a")
        .add_conditional_edges("a", |_: &S| "nowhere", [END]);
    let (events, result) = drain(
        graph
            .compile()
            .unwrap()
            .stream(S::default(), RunConfig::new()),
    )
    .await;
    assert!(matches!(result, Err(GraphError::UnknownRoute { .. })));
    let json: Vec<Value> = events.iter().map(normalized).collect();
    assert_eq!(
        json[json.len() - 2..],
        [
            json!({
                "event": "error",
                "node": "a",
                "step": 0,
                "kind": null,
                "message": "\"a\" routed to \"nowhere\", which is not one of its declared targets: __end__",
            }),
            json!({"event": "run_finished", "status": "failed", "steps": 0}),
        ]
    );
}

#[tokio::test]
async fn conflict_error_event_has_no_node() {
    let mut graph = StateGraph::<S>::new();
    for name in ["x", "y"] {
        graph
            .add_sync_node(name, |_, _| Ok(SUpdate::default().topic("same".into())))
            .add_edge(START, name)
            .add_edge(name, END);
    }
    let (events, _) = drain(
        graph
            .compile()
            .unwrap()
            .stream(S::default(), RunConfig::new()),
    )
    .await;
    let error = events
        .iter()
        .find(|e| matches!(e, Event::Error { .. }))
        .map(normalized)
        .unwrap();
    assert_eq!(error["node"], Value::Null);
    assert_eq!(error["kind"], Value::Null);
    assert_eq!(error["step"], 0);
    assert!(error["message"]
        .as_str()
        .unwrap()
        .contains("conflicting writes at step 0"));
}

#[tokio::test]
async fn custom_events_are_emitted_between_start_and_finish() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_node("talk", |_, ctx: NodeContext| async move {
            ctx.emit(|| json!({"progress": 1}));
            tokio::task::yield_now().await;
            ctx.emit(|| json!({"progress": 2}));
            Ok::<_, NodeError>(SUpdate::default())
        })
        .add_edge(START, "talk")
        .add_edge("talk", END);
    let (events, result) = drain(
        graph
            .compile()
            .unwrap()
            .stream(S::default(), RunConfig::new()),
    )
    .await;
    result.unwrap();
    let json: Vec<Value> = events.iter().map(normalized).collect();
    assert_eq!(
        json[2..6],
        [
            json!({"event": "node_started", "node": "talk", "step": 0, "attempt": 1}),
            json!({"event": "custom", "node": "talk", "step": 0, "payload": {"progress": 1}}),
            json!({"event": "custom", "node": "talk", "step": 0, "payload": {"progress": 2}}),
            json!({"event": "node_finished", "node": "talk", "step": 0, "attempt": 1, "changed": []}),
        ]
    );
}

#[tokio::test]
async fn custom_event_payload_is_not_built_without_a_listener() {
    let built = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&built);
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("quiet", move |_, ctx| {
            assert!(!ctx.events().is_active());
            ctx.emit(|| {
                flag.store(true, Ordering::SeqCst);
                Value::Null
            });
            Ok(SUpdate::default())
        })
        .add_edge(START, "quiet")
        .add_edge("quiet", END);
    graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert!(!built.load(Ordering::SeqCst));
}

#[tokio::test]
async fn with_events_and_invoke() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let out = two_step()
        .invoke(S::default(), RunConfig::new().with_events(tx))
        .await
        .unwrap();
    assert_eq!(out.draft, "about rust");
    let mut events = Vec::new();
    // The run dropped its sender: the channel is closed after the last event.
    while let Some(event) = rx.recv().await {
        events.push(event);
    }
    assert_eq!(events.len(), 9);
    assert!(matches!(
        events.first(),
        Some(Event::RunStarted {
            thread_id: None,
            ..
        })
    ));
    assert!(matches!(
        events.last(),
        Some(Event::RunFinished {
            status: RunStatus::Completed,
            steps: 2,
            ..
        })
    ));
    let changed: Vec<Vec<&str>> = events
        .iter()
        .filter_map(|e| match e {
            Event::NodeFinished { changed, .. } => Some(changed.names().collect()),
            _ => None,
        })
        .collect();
    assert_eq!(changed, [vec!["topic"], vec!["draft", "notes"]]);
}

#[tokio::test]
async fn run_stream_is_a_futures_stream() {
    let mut stream = two_step().stream(S::default(), RunConfig::new());
    let mut tags = Vec::new();
    while let Some(event) = stream.next().await {
        tags.push(normalized(&event)["event"].as_str().unwrap().to_string());
    }
    assert_eq!(
        tags,
        [
            "run_started",
            "route_chosen",
            "node_started",
            "node_finished",
            "route_chosen",
            "node_started",
            "node_finished",
            "route_chosen",
            "run_finished"
        ]
    );
    assert_eq!(stream.result().await.unwrap().topic, "rust");
}

#[tokio::test]
async fn result_without_reading_events() {
    let stream = two_step().stream(S::default(), RunConfig::new());
    assert_eq!(stream.result().await.unwrap().draft, "about rust");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_superstep_events() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("b", |_, _| Ok(SUpdate::default().notes(vec!["b".into()])))
        .add_sync_node("a", |_, _| Ok(SUpdate::default().draft("a".into())))
        .add_edge(START, "b")
        .add_edge(START, "a")
        .add_edge("a", END)
        .add_edge("b", END);
    let (events, result) = drain(
        graph
            .compile()
            .unwrap()
            .stream(S::default(), RunConfig::new()),
    )
    .await;
    result.unwrap();
    let json: Vec<Value> = events.iter().map(normalized).collect();
    assert_eq!(
        json[1],
        json!({"event": "route_chosen", "from": START, "to": ["b", "a"], "step": 0, "reason": null})
    );
    // Each node's events come as they happen: its start, then its finish
    // (not held for the merge), in whatever order the two nodes run.
    let node_events = &json[2..6];
    for (node, field) in [("a", "draft"), ("b", "notes")] {
        let at = |event: &str| {
            node_events
                .iter()
                .position(|e| e["event"] == event && e["node"] == node)
                .unwrap_or_else(|| panic!("{event} of {node}: {json:?}"))
        };
        assert!(at("node_started") < at("node_finished"), "{json:?}");
        assert_eq!(
            node_events[at("node_finished")],
            json!({"event": "node_finished", "node": node, "step": 0, "attempt": 1, "changed": [field]})
        );
    }
    // The merge routes in name order once both are done.
    assert_eq!(
        json[6..8],
        [
            json!({"event": "route_chosen", "from": "a", "to": [END], "step": 0, "reason": null}),
            json!({"event": "route_chosen", "from": "b", "to": [END], "step": 0, "reason": null}),
        ]
    );
    assert_eq!(
        json[8],
        json!({"event": "run_finished", "status": "completed", "steps": 1})
    );
}

/// A fast node's finish is told while a slow sibling still runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fast_nodes_finish_does_not_wait_for_a_slow_sibling() {
    // Named so that the merge's name order would tell the slow one first.
    let mut graph = StateGraph::<S>::new();
    graph
        .add_node("a_slow", |_, _| async {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            Ok::<_, NodeError>(SUpdate::default().notes(vec!["a_slow".into()]))
        })
        .add_sync_node("b_fast", |_, _| {
            Ok(SUpdate::default().draft("b_fast".into()))
        })
        .add_edge(START, "a_slow")
        .add_edge(START, "b_fast")
        .add_edge("a_slow", END)
        .add_edge("b_fast", END);
    let (events, result) = drain(
        graph
            .compile()
            .unwrap()
            .stream(S::default(), RunConfig::new()),
    )
    .await;
    result.unwrap();
    let json: Vec<Value> = events.iter().map(normalized).collect();
    let at = |event: &str, node: &str| {
        json.iter()
            .position(|e| e["event"] == event && e["node"] == node)
            .unwrap()
    };
    assert!(
        at("node_finished", "b_fast") < at("node_finished", "a_slow"),
        "{json:?}"
    );
}

#[tokio::test]
async fn goto_route_and_pending_join_are_reported() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", |_, _| {
            Ok(Command::<SUpdate>::goto(
                Route::to("b").because("skip ahead"),
            ))
        })
        .add_sync_node("b", |_, _| Ok(SUpdate::default()))
        .add_sync_node("c", |_, _| Ok(SUpdate::default()))
        .add_sync_node("d", |_, _| Ok(SUpdate::default()))
        .configure_node("a", NodeOptions::new().destinations(["b"]))
        .add_edge(START, "a")
        .add_edge(START, "c")
        .add_join(["b", "c"], "d")
        .add_edge("d", END);
    let (events, result) = drain(
        graph
            .compile()
            .unwrap()
            .stream(S::default(), RunConfig::new()),
    )
    .await;
    result.unwrap();
    let routes: Vec<Value> = events
        .iter()
        .map(normalized)
        .filter(|v| v["event"] == "route_chosen")
        .collect();
    assert_eq!(
        routes,
        [
            json!({"event": "route_chosen", "from": START, "to": ["a", "c"], "step": 0, "reason": null}),
            json!({"event": "route_chosen", "from": "a", "to": ["b"], "step": 0, "reason": "skip ahead"}),
            // The join into "d" still waits for "b".
            json!({"event": "route_chosen", "from": "c", "to": [], "step": 0, "reason": null}),
            json!({"event": "route_chosen", "from": "b", "to": ["d"], "step": 1, "reason": null}),
            json!({"event": "route_chosen", "from": "d", "to": [END], "step": 2, "reason": null}),
        ]
    );
}

#[tokio::test]
async fn retry_events_in_the_stream() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("flaky", |_, ctx| {
            if ctx.attempt() == 1 {
                Err(NodeError::msg("first try fails"))
            } else {
                Ok(SUpdate::default())
            }
        })
        .configure_node(
            "flaky",
            NodeOptions::new().retry(
                rebound_graph::RetryPolicy::new(2)
                    .initial_backoff(Duration::from_millis(1))
                    .jitter(false),
            ),
        )
        .add_edge(START, "flaky")
        .add_edge("flaky", END);
    let (events, result) = drain(
        graph
            .compile()
            .unwrap()
            .stream(S::default(), RunConfig::new()),
    )
    .await;
    result.unwrap();
    let retry = events
        .iter()
        .find(|e| matches!(e, Event::Retry { .. }))
        .unwrap();
    assert_eq!(
        serde_json::to_value(retry).unwrap(),
        json!({"event": "retry", "node": "flaky", "step": 0, "attempt": 1, "delay_us": 1000, "error": "first try fails"})
    );
    let json: Vec<Value> = events.iter().map(normalized).collect();
    assert_eq!(
        json[2..6],
        [
            json!({"event": "node_started", "node": "flaky", "step": 0, "attempt": 1}),
            json!({"event": "retry", "node": "flaky", "step": 0, "attempt": 1, "error": "first try fails"}),
            json!({"event": "node_started", "node": "flaky", "step": 0, "attempt": 2}),
            json!({"event": "node_finished", "node": "flaky", "step": 0, "attempt": 2, "changed": []}),
        ]
    );
    same_json_as_the_wire_form(&events);
}

#[tokio::test(start_paused = true)]
async fn cancelled_run_reports_cancelled_status() {
    let token = CancellationToken::new();
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("first", |_, _| Ok(SUpdate::default()))
        .add_node("wait", |_, _| async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok::<_, NodeError>(SUpdate::default())
        })
        .add_edge(START, "first")
        .add_edge("first", "wait")
        .add_edge("wait", END);
    let mut stream = graph.compile().unwrap().stream(
        S::default(),
        RunConfig::new().with_cancellation(token.clone()),
    );
    // Cancel once "wait" has started.
    let mut events = Vec::new();
    while let Some(event) = stream.next_event().await {
        let waiting = matches!(&event, Event::NodeStarted { node, .. } if &**node == "wait");
        events.push(event);
        if waiting {
            token.cancel();
        }
    }
    assert!(matches!(
        stream.result().await,
        Err(GraphError::Cancelled { step: 1 })
    ));
    let json: Vec<Value> = events.iter().map(normalized).collect();
    assert_eq!(
        json[json.len() - 2..],
        [
            json!({"event": "error", "node": null, "step": 1, "kind": null, "message": "run cancelled at step 1"}),
            json!({"event": "run_finished", "status": "cancelled", "steps": 1}),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn dropping_the_stream_aborts_the_run() {
    let finished = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&finished);
    let mut graph = StateGraph::<S>::new();
    graph
        .add_node("slow", move |_, _| {
            let flag = Arc::clone(&flag);
            async move {
                tokio::time::sleep(Duration::from_secs(10)).await;
                flag.store(true, Ordering::SeqCst);
                Ok::<_, NodeError>(SUpdate::default())
            }
        })
        .add_edge(START, "slow")
        .add_edge("slow", END);
    let mut stream = graph
        .compile()
        .unwrap()
        .stream(S::default(), RunConfig::new());
    // Wait until the node runs, then drop the stream.
    loop {
        let event = stream.next_event().await.unwrap();
        if matches!(event, Event::NodeStarted { .. }) {
            break;
        }
    }
    drop(stream);
    tokio::time::sleep(Duration::from_secs(20)).await;
    assert!(!finished.load(Ordering::SeqCst));
}

/// `RunStream` aborts the run when dropped, but `result()` moves the join
/// handle into its future: dropping that future early (here through a
/// timeout) detaches the task, and the run keeps going unobserved.
#[tokio::test(start_paused = true)]
async fn abandoning_result_aborts_the_run_too() {
    let finished = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&finished);
    let mut graph = StateGraph::<S>::new();
    graph
        .add_node("slow", move |_, _| {
            let flag = Arc::clone(&flag);
            async move {
                tokio::time::sleep(Duration::from_secs(10)).await;
                flag.store(true, Ordering::SeqCst);
                Ok::<_, NodeError>(SUpdate::default())
            }
        })
        .add_edge(START, "slow")
        .add_edge("slow", END);
    let stream = graph
        .compile()
        .unwrap()
        .stream(S::default(), RunConfig::new());
    let gave_up = tokio::time::timeout(Duration::from_secs(1), stream.result()).await;
    assert!(gave_up.is_err(), "the run cannot have finished within 1 s");
    tokio::time::sleep(Duration::from_secs(20)).await;
    assert!(
        !finished.load(Ordering::SeqCst),
        "the run went on after its RunStream and result future were dropped"
    );
}

/// Stream modes: the state after the input and after each superstep
/// (values) and each node's update as it finishes (updates), only when
/// asked for.
#[tokio::test]
async fn values_and_updates_stream_when_asked_for() {
    let modes = rebound_graph::StreamModes {
        values: true,
        updates: true,
    };
    let stream = two_step().stream(S::default(), RunConfig::new().with_stream_modes(modes));
    let (events, result) = drain(stream).await;
    result.unwrap();
    same_json_as_the_wire_form(&events);
    let json: Vec<Value> = events
        .iter()
        .map(normalized)
        .filter(|e| e["event"] == "values" || e["event"] == "updates")
        .collect();
    assert_eq!(
        json,
        [
            json!({"event": "values", "step": 0, "values": {"topic": "", "draft": "", "notes": []}}),
            json!({"event": "updates", "node": "plan", "step": 0, "update": {"topic": "rust"}}),
            json!({"event": "values", "step": 1, "values": {"topic": "rust", "draft": "", "notes": []}}),
            json!({"event": "updates", "node": "write", "step": 1, "update": {"draft": "about rust", "notes": ["drafted"]}}),
            json!({"event": "values", "step": 2, "values": {"topic": "rust", "draft": "about rust", "notes": ["drafted"]}}),
        ]
    );
    let (plain, _) = drain(two_step().stream(S::default(), RunConfig::new())).await;
    assert!(
        plain
            .iter()
            .all(|e| !matches!(e, Event::Values { .. } | Event::Updates { .. })),
        "not by default"
    );
}
