//! Interrupts: static ones before and after nodes (graph-wide and per run),
//! dynamic ones from `NodeContext::interrupt`, resuming them, parallel
//! supersteps that stop at one, and the events of an interrupted run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rebound_graph::checkpoint::CheckpointSource;
use rebound_graph::{
    Command, CompiledGraph, Event, GraphError, Interrupt, InterruptKind, NodeError, NodeOptions,
    RetryPolicy, RunConfig, RunOutcome, RunStatus, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::backend::fresh;
use crate::Backend;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Review {
    #[state(append)]
    log: Vec<String>,
    #[state(append)]
    answers: Vec<String>,
}

fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

type Calls = Arc<[AtomicUsize; 3]>;

fn calls() -> Calls {
    Arc::new([
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    ])
}

fn counts(calls: &Calls) -> [usize; 3] {
    [0, 1, 2].map(|i| calls[i].load(Ordering::SeqCst))
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

async fn durable(graph: StateGraph<Review>, backend: &dyn Backend) -> CompiledGraph<Review> {
    graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await)
}

fn interrupt(id: &str, node: &str, kind: InterruptKind, payload: Value) -> Interrupt {
    Interrupt {
        id: id.to_string(),
        node: node.to_string(),
        kind,
        payload,
    }
}

/// Scenario: interrupt before stops before the node and resume runs it.
pub async fn interrupt_before_stops_before_the_node_and_resume_runs_it(backend: &dyn Backend) {
    let calls = calls();
    let mut graph = chain(&calls);
    graph.interrupt_before(["b"]);
    let graph = durable(graph, backend).await;

    let outcome = graph.run(Review::default(), thread("t")).await.unwrap();
    let RunOutcome::Interrupted {
        state,
        interrupts,
        checkpoint_id,
    } = outcome
    else {
        panic!("expected an interrupt, got {outcome:?}");
    };
    let expected = vec![interrupt(
        "1:b:before",
        "b",
        InterruptKind::Before,
        Value::Null,
    )];
    assert_eq!(interrupts, expected);
    assert_eq!(state.log, ["a"]);
    assert_eq!(counts(&calls), [1, 0, 0]);

    let snapshot = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(snapshot.checkpoint_id, checkpoint_id);
    assert_eq!(snapshot.interrupts, expected);
    assert_eq!(snapshot.metadata.next, ["b"]);
    assert_eq!(snapshot.values, state);

    let done = graph.resume(thread("t")).await.unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.log, ["a", "b", "c"]);
    assert_eq!(counts(&calls), [1, 1, 1]);
    let finished = graph.get_state(&thread("t")).await.unwrap();
    assert!(finished.interrupts.is_empty());
    assert!(finished.metadata.next.is_empty());
}

/// Scenario: interrupt after stops after the node and resume continues.
pub async fn interrupt_after_stops_after_the_node_and_resume_continues(backend: &dyn Backend) {
    let calls = calls();
    let mut graph = chain(&calls);
    graph.interrupt_after(["b"]);
    let graph = durable(graph, backend).await;

    let outcome = graph.run(Review::default(), thread("t")).await.unwrap();
    assert_eq!(
        outcome.interrupts(),
        [interrupt(
            "2:b:after",
            "b",
            InterruptKind::After,
            Value::Null
        )]
    );
    assert_eq!(outcome.state().log, ["a", "b"]);
    assert_eq!(counts(&calls), [1, 1, 0]);

    let snapshot = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(snapshot.metadata.next, ["c"]);
    assert_eq!(snapshot.metadata.ran, ["b"]);
    assert_eq!(
        snapshot.interrupts,
        [interrupt(
            "2:b:after",
            "b",
            InterruptKind::After,
            Value::Null
        )]
    );
    assert_eq!(snapshot.values.log, ["a", "b"]);

    let done = graph.resume(thread("t")).await.unwrap();
    assert!(!done.is_interrupted());
    assert_eq!(done.into_state().log, ["a", "b", "c"]);
    assert_eq!(counts(&calls), [1, 1, 1]);
}

/// Scenario: interrupt after the last node does not stop a finished run.
pub async fn interrupt_after_the_last_node_does_not_stop_a_finished_run(backend: &dyn Backend) {
    let calls = calls();
    let mut graph = chain(&calls);
    graph.interrupt_after(["c"]);
    let graph = durable(graph, backend).await;
    let outcome = graph.run(Review::default(), thread("t")).await.unwrap();
    assert!(!outcome.is_interrupted(), "{outcome:?}");
}

/// Scenario: per run interrupt before applies to that run only.
pub async fn per_run_interrupt_before_applies_to_that_run_only(backend: &dyn Backend) {
    let calls = calls();
    let graph = durable(chain(&calls), backend).await;

    let outcome = graph
        .run(Review::default(), thread("t").with_interrupt_before(["c"]))
        .await
        .unwrap();
    assert_eq!(
        outcome.interrupts(),
        [interrupt(
            "2:c:before",
            "c",
            InterruptKind::Before,
            Value::Null
        )]
    );
    assert_eq!(counts(&calls), [1, 1, 0]);
    // Resuming with the same per-run setting does not stop at c again.
    let done = graph
        .resume(thread("t").with_interrupt_before(["c"]))
        .await
        .unwrap();
    assert_eq!(done.into_state().log, ["a", "b", "c"]);

    // Another run without it does not stop.
    let done = graph.run(Review::default(), thread("u")).await.unwrap();
    assert!(!done.is_interrupted());

    // Per-run interrupt_after.
    let outcome = graph
        .run(Review::default(), thread("v").with_interrupt_after(["a"]))
        .await
        .unwrap();
    assert_eq!(
        outcome.interrupts(),
        [interrupt(
            "1:a:after",
            "a",
            InterruptKind::After,
            Value::Null
        )]
    );
}

/// Scenario: an unknown node in a per run interrupt is an error.
pub async fn an_unknown_node_in_a_per_run_interrupt_is_an_error(backend: &dyn Backend) {
    let calls = calls();
    let graph = durable(chain(&calls), backend).await;
    for config in [
        thread("t").with_interrupt_before(["zzz"]),
        thread("t").with_interrupt_after(["zzz"]),
    ] {
        let error = graph.run(Review::default(), config).await.unwrap_err();
        match error {
            GraphError::UnknownNode { place, node } => {
                assert_eq!(node, "zzz");
                assert!(place.starts_with("RunConfig::interrupt_"), "{place}");
            }
            other => panic!("expected UnknownNode, got {other:?}"),
        }
    }
    assert_eq!(counts(&calls), [0, 0, 0]);
}

/// Scenario: invoke on an interrupting graph is an interrupted error.
pub async fn invoke_on_an_interrupting_graph_is_an_interrupted_error(backend: &dyn Backend) {
    let calls = calls();
    let mut graph = chain(&calls);
    graph.interrupt_before(["b"]);
    let graph = durable(graph, backend).await;
    match graph.invoke(Review::default(), thread("t")).await {
        Err(GraphError::Interrupted { thread_id, nodes }) => {
            assert_eq!(thread_id, "t");
            assert_eq!(nodes, ["b"]);
        }
        other => panic!("expected Interrupted, got {other:?}"),
    }
    // The interrupt is saved: the thread resumes.
    let done = graph
        .invoke(rebound_graph::Input::Resume, thread("t"))
        .await;
    assert_eq!(done.unwrap().log, ["a", "b", "c"]);
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

/// Scenario: a dynamic interrupt returns its payload and resume with answers it.
pub async fn a_dynamic_interrupt_returns_its_payload_and_resume_with_answers_it(
    backend: &dyn Backend,
) {
    let calls = Arc::new(AtomicUsize::new(0));
    let graph = durable(asking(1, &calls), backend).await;
    let outcome = graph.run(Review::default(), thread("t")).await.unwrap();
    let expected = vec![interrupt(
        "0:ask:0",
        "ask",
        InterruptKind::Dynamic,
        json!({"question": "q0?"}),
    )];
    assert_eq!(outcome.interrupts(), expected);
    assert!(outcome.state().answers.is_empty());
    let snapshot = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(snapshot.interrupts, expected);
    assert_eq!(snapshot.metadata.next, ["ask"]);
    assert_eq!(snapshot.metadata.source, CheckpointSource::Input);

    let done = graph.resume_with(json!("yes"), thread("t")).await.unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.answers, ["yes"]);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert!(graph
        .get_state(&thread("t"))
        .await
        .unwrap()
        .interrupts
        .is_empty());
}

/// Scenario: a node that interrupts twice gets each answer in order.
pub async fn a_node_that_interrupts_twice_gets_each_answer_in_order(backend: &dyn Backend) {
    let calls = Arc::new(AtomicUsize::new(0));
    let graph = durable(asking(2, &calls), backend).await;
    let first = graph.run(Review::default(), thread("t")).await.unwrap();
    assert_eq!(
        first.interrupts(),
        [interrupt(
            "0:ask:0",
            "ask",
            InterruptKind::Dynamic,
            json!({"question": "q0?"})
        )]
    );
    let second = graph.resume_with(json!("one"), thread("t")).await.unwrap();
    assert_eq!(
        second.interrupts(),
        [interrupt(
            "0:ask:1",
            "ask",
            InterruptKind::Dynamic,
            json!({"question": "q1?"})
        )]
    );
    assert_eq!(
        graph.get_state(&thread("t")).await.unwrap().interrupts,
        second.interrupts()
    );
    let done = graph.resume_with(json!("two"), thread("t")).await.unwrap();
    assert!(!done.is_interrupted(), "{done:?}");
    assert_eq!(done.into_state().answers, ["one", "two"]);
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

/// Scenario: a resume value of the wrong type is a permanent node error.
pub async fn a_resume_value_of_the_wrong_type_is_a_permanent_node_error(backend: &dyn Backend) {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut graph = asking(1, &calls);
    graph.configure_node("ask", NodeOptions::new().retry(RetryPolicy::new(3)));
    let graph = durable(graph, backend).await;
    graph.run(Review::default(), thread("t")).await.unwrap();
    let error = graph
        .resume_with(json!({"not": "a string"}), thread("t"))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, GraphError::Node { node, attempt: 1, .. } if node == "ask"),
        "{error:?}"
    );
    assert!(error.to_string().contains("does not fit"), "{error}");
}

/// Scenario: a rejected resume value can be replaced with a good one.
pub async fn a_rejected_resume_value_can_be_replaced_with_a_good_one(backend: &dyn Backend) {
    // The failed superstep should leave the thread usable from its last good
    // checkpoint: the interrupt is still unanswered, so a second
    // resume_with with a value that fits must go through.
    let calls = Arc::new(AtomicUsize::new(0));
    let graph = durable(asking(1, &calls), backend).await;
    graph.run(Review::default(), thread("t")).await.unwrap();
    graph.resume_with(json!(42), thread("t")).await.unwrap_err();
    let done = graph.resume_with(json!("yes"), thread("t")).await.unwrap();
    assert_eq!(done.into_state().answers, ["yes"]);
}

/// START -> {asker, sibling} -> END: asker interrupts, sibling finishes.
fn parallel(
    asker_calls: &Arc<AtomicUsize>,
    sibling_calls: &Arc<AtomicUsize>,
) -> StateGraph<Review> {
    let (asker_calls, sibling_calls) = (Arc::clone(asker_calls), Arc::clone(sibling_calls));
    let mut graph = StateGraph::<Review>::new();
    graph
        .add_sync_node("asker", move |_, ctx| {
            asker_calls.fetch_add(1, Ordering::SeqCst);
            let answer: String = ctx.interrupt("approve?")?;
            Ok(ReviewUpdate::default()
                .log(vec!["asker".to_string()])
                .answers(vec![answer]))
        })
        .add_node("sibling", move |_, _| {
            sibling_calls.fetch_add(1, Ordering::SeqCst);
            async move { Ok::<_, NodeError>(ReviewUpdate::default().log(vec!["sibling".to_string()])) }
        })
        .add_edge(START, "asker")
        .add_edge(START, "sibling")
        .add_edge("asker", END)
        .add_edge("sibling", END);
    graph
}

/// Scenario: a finished sibling of an interrupted node is not run again.
pub async fn a_finished_sibling_of_an_interrupted_node_is_not_run_again(backend: &dyn Backend) {
    let (asker_calls, sibling_calls) =
        (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let graph = durable(parallel(&asker_calls, &sibling_calls), backend).await;

    let outcome = graph.run(Review::default(), thread("t")).await.unwrap();
    assert_eq!(
        outcome.interrupts(),
        [interrupt(
            "0:asker:0",
            "asker",
            InterruptKind::Dynamic,
            json!("approve?")
        )]
    );
    // Nothing of the stopped superstep is merged yet.
    assert!(outcome.state().log.is_empty());
    let snapshot = graph.get_state(&thread("t")).await.unwrap();
    assert!(snapshot.values.log.is_empty());
    assert_eq!(snapshot.metadata.next, ["asker", "sibling"]);

    let done = graph.resume_with(json!("ok"), thread("t")).await.unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(
        done,
        Review {
            log: strings(&["asker", "sibling"]),
            answers: strings(&["ok"]),
        }
    );
    assert_eq!(asker_calls.load(Ordering::SeqCst), 2);
    assert_eq!(
        sibling_calls.load(Ordering::SeqCst),
        1,
        "sibling not re-run"
    );
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].metadata.ran, ["asker", "sibling"]);
}

/// Scenario: a finished siblings goto survives the interrupt.
pub async fn a_finished_siblings_goto_survives_the_interrupt(backend: &dyn Backend) {
    // The sibling routes with a Command goto (it has no static edge). Its
    // finished result is kept as a pending write while the asker waits;
    // on resume, the goto must still be followed.
    let asker_calls = Arc::new(AtomicUsize::new(0));
    let calls = Arc::clone(&asker_calls);
    let mut graph = StateGraph::<Review>::new();
    graph
        .add_sync_node("asker", move |_, ctx| {
            calls.fetch_add(1, Ordering::SeqCst);
            let answer: String = ctx.interrupt("approve?")?;
            Ok(ReviewUpdate::default().answers(vec![answer]))
        })
        .add_sync_node("jumper", |_, _| {
            Ok(Command::goto("landing")
                .with_update(ReviewUpdate::default().log(vec!["jumper".to_string()])))
        })
        .add_sync_node("landing", |_, _| {
            Ok(ReviewUpdate::default().log(vec!["landing".to_string()]))
        })
        .configure_node("jumper", NodeOptions::new().destinations(["landing", END]))
        .add_edge(START, "asker")
        .add_edge(START, "jumper")
        .add_edge("asker", END)
        .add_edge("landing", END);
    let graph = durable(graph, backend).await;
    let first = graph.run(Review::default(), thread("t")).await.unwrap();
    assert!(first.is_interrupted());
    let done = graph.resume_with(json!("ok"), thread("t")).await.unwrap();
    assert_eq!(
        done.into_state().log,
        ["jumper", "landing"],
        "jumper's goto to landing was lost across the interrupt"
    );
}

/// Scenario: a static interrupt before a node that then interrupts dynamically.
pub async fn a_static_interrupt_before_a_node_that_then_interrupts_dynamically(
    backend: &dyn Backend,
) {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut graph = asking(1, &calls);
    graph.interrupt_before(["ask"]);
    let graph = durable(graph, backend).await;
    let first = graph.run(Review::default(), thread("t")).await.unwrap();
    assert_eq!(
        first.interrupts(),
        [interrupt(
            "0:ask:before",
            "ask",
            InterruptKind::Before,
            Value::Null
        )]
    );
    let second = graph.resume(thread("t")).await.unwrap();
    assert_eq!(
        second.interrupts(),
        [interrupt(
            "0:ask:0",
            "ask",
            InterruptKind::Dynamic,
            json!({"question": "q0?"})
        )]
    );
    assert_eq!(
        graph.get_state(&thread("t")).await.unwrap().interrupts,
        second.interrupts()
    );
    let done = graph.resume_with(json!("fine"), thread("t")).await.unwrap();
    assert_eq!(done.into_state().answers, ["fine"]);
}

/// Scenario: an interrupted streams events end with interrupted then run finished.
pub async fn an_interrupted_streams_events_end_with_interrupted_then_run_finished(
    backend: &dyn Backend,
) {
    let calls = Arc::new(AtomicUsize::new(0));
    let graph = durable(asking(1, &calls), backend).await;
    let mut stream = graph.stream(Review::default(), thread("t"));
    let mut events = Vec::new();
    while let Some(event) = stream.next_event().await {
        events.push(event);
    }
    let outcome = stream.outcome().await.unwrap();
    assert_eq!(
        outcome.interrupts(),
        [interrupt(
            "0:ask:0",
            "ask",
            InterruptKind::Dynamic,
            json!({"question": "q0?"})
        )]
    );
    let tail = &events[events.len() - 2..];
    match tail {
        [Event::Interrupted {
            node,
            kind,
            payload,
        }, Event::RunFinished { status, steps, .. }] => {
            assert_eq!(&**node, "ask");
            assert_eq!(*kind, InterruptKind::Dynamic);
            assert_eq!(payload, &json!({"question": "q0?"}));
            assert_eq!(*status, RunStatus::Interrupted);
            assert_eq!(*steps, 0);
        }
        other => panic!("unexpected last events: {other:?}"),
    }
    assert!(matches!(events.first(), Some(Event::RunStarted { .. })));
    // No Error event for an interrupt.
    assert!(!events.iter().any(|e| matches!(e, Event::Error { .. })));

    // The resumed run's stream completes.
    let stream = graph.stream(rebound_graph::Input::ResumeWith(json!("yes")), thread("t"));
    let done = stream.result().await.unwrap();
    assert_eq!(done.answers, ["yes"]);
}

/// Scenario: stream result of an interrupted run is an interrupted error.
pub async fn stream_result_of_an_interrupted_run_is_an_interrupted_error(backend: &dyn Backend) {
    let calls = calls();
    let mut graph = chain(&calls);
    graph.interrupt_before(["c"]);
    let graph = durable(graph, backend).await;
    let stream = graph.stream(Review::default(), thread("t"));
    match stream.result().await {
        Err(GraphError::Interrupted { thread_id, nodes }) => {
            assert_eq!(thread_id, "t");
            assert_eq!(nodes, ["c"]);
        }
        other => panic!("expected Interrupted, got {other:?}"),
    }
}

/// Scenario: a join half done before an interrupt completes after resume.
pub async fn a_join_half_done_before_an_interrupt_completes_after_resume(backend: &dyn Backend) {
    // START -> {a, b1}; b1 -> b2; join [a, b2] -> c. The run stops before
    // b2, with a already counted by the join; after resume, c runs once.
    let c_calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&c_calls);
    let mut graph = StateGraph::<Review>::new();
    for name in ["a", "b1", "b2"] {
        graph.add_sync_node(name, move |_, _| {
            Ok(ReviewUpdate::default().log(vec![name.to_string()]))
        });
    }
    graph
        .add_sync_node("c", move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(ReviewUpdate::default().log(vec!["c".to_string()]))
        })
        .add_edge(START, "a")
        .add_edge(START, "b1")
        .add_edge("b1", "b2")
        .add_join(["a", "b2"], "c")
        .add_edge("c", END)
        .interrupt_before(["b2"]);
    let graph = durable(graph, backend).await;
    let outcome = graph.run(Review::default(), thread("t")).await.unwrap();
    assert_eq!(
        outcome.interrupts(),
        [interrupt(
            "1:b2:before",
            "b2",
            InterruptKind::Before,
            Value::Null
        )]
    );
    assert_eq!(
        graph
            .get_state(&thread("t"))
            .await
            .unwrap()
            .metadata
            .barriers,
        [1],
        "a's bit of the join is saved"
    );
    let done = graph.resume(thread("t")).await.unwrap().into_state();
    assert_eq!(done.log, ["a", "b1", "b2", "c"]);
    assert_eq!(c_calls.load(Ordering::SeqCst), 1);
}

/// `"*"` stops before (or after) every node, for the graph or one run.
pub async fn a_star_interrupts_at_every_node(backend: &dyn Backend) {
    let calls = calls();
    let mut graph = chain(&calls);
    graph.interrupt_before([rebound_graph::ALL_NODES]);
    let graph = durable(graph, backend).await;
    let mut stops = Vec::new();
    let mut outcome = graph.run(Review::default(), thread("t")).await.unwrap();
    while let RunOutcome::Interrupted { interrupts, .. } = &outcome {
        stops.push(interrupts[0].node.clone());
        outcome = graph.resume(thread("t")).await.unwrap();
    }
    assert_eq!(stops, ["a", "b", "c"]);
    assert_eq!(outcome.state().log, ["a", "b", "c"]);

    let calls = self::calls();
    let graph = durable(chain(&calls), backend).await;
    let config = thread("u").with_interrupt_after(["*"]);
    let first = graph.run(Review::default(), config).await.unwrap();
    assert_eq!(first.interrupts()[0].node, "a");
    assert_eq!(first.interrupts()[0].kind, InterruptKind::After);
}
