//! Parallel branches: concurrency within a superstep, deterministic merge
//! order, conflicts on replace-fields, fan-in and joins.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rebound_graph::{
    GraphError, NodeContext, NodeError, Route, RunConfig, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use tokio::sync::Barrier;

fn concat(old: &mut String, new: String) {
    old.push_str(&new);
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct S {
    #[state(append)]
    log: Vec<String>,
    winner: String,
    other: String,
    #[state(merge = concat)]
    letters: String,
    /// Which node should be slow, for merge-order tests.
    slow: String,
    rounds: u32,
}

fn stamp(_: &S, ctx: &NodeContext) -> Result<SUpdate, NodeError> {
    Ok(SUpdate::default().log(vec![format!("{}@{}", ctx.node(), ctx.step())]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_of_one_superstep_run_concurrently() {
    let barrier = Arc::new(Barrier::new(2));
    let mut graph = StateGraph::<S>::new();
    for name in ["a", "b"] {
        let barrier = Arc::clone(&barrier);
        graph
            .add_node(name, move |_, ctx: NodeContext| {
                let barrier = Arc::clone(&barrier);
                async move {
                    // Sequential execution would wait here forever.
                    barrier.wait().await;
                    Ok::<_, NodeError>(SUpdate::default().log(vec![ctx.node().to_string()]))
                }
            })
            .add_edge(START, name)
            .add_edge(name, END);
    }
    let graph = graph.compile().unwrap();
    let out = tokio::time::timeout(
        Duration::from_secs(2),
        graph.invoke(S::default(), RunConfig::new()),
    )
    .await
    .expect("the two nodes did not run concurrently (deadlock on the barrier)")
    .unwrap();
    assert_eq!(out.log, ["a", "b"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn append_merge_order_is_by_node_name_not_finish_order() {
    // "b" is added first (lower index); either node may be the slow one.
    let mut graph = StateGraph::<S>::new();
    for name in ["b", "a"] {
        graph
            .add_node(name, move |s: Arc<S>, _ctx| async move {
                if s.slow == name {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                Ok::<_, NodeError>(
                    SUpdate::default()
                        .log(vec![name.to_string()])
                        .letters(name.to_string()),
                )
            })
            .add_edge(START, name)
            .add_edge(name, END);
    }
    let graph = graph.compile().unwrap();
    for i in 0..40 {
        let slow = if i % 2 == 0 { "a" } else { "b" };
        let input = S {
            slow: slow.to_string(),
            ..S::default()
        };
        let out = graph.invoke(input, RunConfig::new()).await.unwrap();
        assert_eq!(out.log, ["a", "b"], "iteration {i}, slow {slow}");
        assert_eq!(out.letters, "ab", "custom merge order, iteration {i}");
    }
}

#[tokio::test]
async fn merge_order_uses_names_for_many_nodes() {
    let names = ["delta", "alpha", "echo", "charlie", "bravo"];
    let mut graph = StateGraph::<S>::new();
    for name in names {
        graph
            .add_sync_node(name, stamp)
            .add_edge(START, name)
            .add_edge(name, END);
    }
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(
        out.log,
        ["alpha@0", "bravo@0", "charlie@0", "delta@0", "echo@0"]
    );
}

fn conflict_graph(order: [&'static str; 2]) -> StateGraph<S> {
    let mut graph = StateGraph::<S>::new();
    for name in order {
        graph
            .add_sync_node(name, move |_, _| {
                Ok(SUpdate::default()
                    .winner(name.to_string())
                    .log(vec![name.to_string()]))
            })
            .add_edge(START, name)
            .add_edge(name, END);
    }
    graph
}

#[tokio::test]
async fn two_writers_of_a_replace_field_conflict() {
    for order in [["a", "b"], ["b", "a"]] {
        let graph = conflict_graph(order).compile().unwrap();
        let err = graph
            .invoke(S::default(), RunConfig::new())
            .await
            .unwrap_err();
        let message = err.to_string();
        match err {
            GraphError::Conflict {
                field,
                first,
                second,
                step,
            } => {
                assert_eq!(field, "winner");
                assert_eq!(first, "a", "first writer is by name order");
                assert_eq!(second, "b");
                assert_eq!(step, 0);
            }
            other => panic!("expected Conflict, got {other:?}"),
        }
        assert!(message.contains("\"winner\""), "{message}");
        assert!(message.contains("append or merge rule"), "{message}");
    }
}

#[tokio::test]
async fn conflict_in_a_later_superstep_reports_that_step() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("first", stamp)
        .add_sync_node("x", |_, _| Ok(SUpdate::default().other("x".into())))
        .add_sync_node("y", |_, _| Ok(SUpdate::default().other("y".into())))
        .add_edge(START, "first")
        .add_edge("first", "x")
        .add_edge("first", "y")
        .add_edge("x", END)
        .add_edge("y", END);
    let err = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            GraphError::Conflict { field: "other", first, second, step: 1 }
                if first == "x" && second == "y"
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn different_replace_fields_in_one_superstep_are_fine() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", |_, _| Ok(SUpdate::default().winner("a".into())))
        .add_sync_node("b", |_, _| Ok(SUpdate::default().other("b".into())))
        .add_edge(START, "a")
        .add_edge(START, "b")
        .add_edge("a", END)
        .add_edge("b", END);
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!((out.winner.as_str(), out.other.as_str()), ("a", "b"));
}

#[tokio::test]
async fn append_and_merge_fields_written_by_both_are_fine() {
    let mut graph = StateGraph::<S>::new();
    for name in ["x", "w"] {
        graph
            .add_sync_node(name, move |_, _| {
                Ok(SUpdate::default()
                    .log(vec![name.to_string()])
                    .letters(name.to_string()))
            })
            .add_edge(START, name)
            .add_edge(name, END);
    }
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["w", "x"]);
    assert_eq!(out.letters, "wx");
}

#[tokio::test]
async fn nodes_of_a_superstep_see_the_state_from_its_start() {
    let mut graph = StateGraph::<S>::new();
    for name in ["a", "b"] {
        graph
            .add_sync_node(name, move |s, _| {
                // Neither sees the other's write of this superstep.
                Ok(SUpdate::default().log(vec![format!("{name} saw {}", s.log.len())]))
            })
            .add_edge(START, name)
            .add_edge(name, END);
    }
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["a saw 0", "b saw 0"]);
}

#[tokio::test]
async fn routers_after_a_parallel_superstep_see_all_its_writes() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", |_, _| Ok(SUpdate::default().winner("from a".into())))
        .add_sync_node("b", |_, _| Ok(SUpdate::default().other("from b".into())))
        .add_sync_node("yes", stamp)
        .add_edge(START, "a")
        .add_edge(START, "b")
        // a's router reads b's write of the same superstep.
        .add_conditional_edges(
            "a",
            |s: &S| if s.other == "from b" { "yes" } else { END },
            ["yes", END],
        )
        .add_edge("b", END)
        .add_edge("yes", END);
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["yes@1"]);
}

#[tokio::test]
async fn failing_parallel_node_fails_the_run_without_merging() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("ok", stamp)
        .add_sync_node("bad", |_, _| Err::<SUpdate, _>(NodeError::msg("boom")))
        .add_edge(START, "ok")
        .add_edge(START, "bad")
        .add_edge("ok", END)
        .add_edge("bad", END);
    let err = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap_err();
    match err {
        GraphError::Node {
            node, step, source, ..
        } => {
            assert_eq!(node, "bad");
            assert_eq!(step, 0);
            assert_eq!(source.to_string(), "boom");
        }
        other => panic!("expected Node error, got {other:?}"),
    }
}

#[tokio::test]
async fn fan_in_in_the_same_superstep_runs_the_target_once() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("b", stamp)
        .add_sync_node("c", stamp)
        .add_edge(START, "a")
        .add_edge(START, "b")
        .add_edge("a", "c")
        .add_edge("b", "c")
        .add_edge("c", END);
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["a@0", "b@0", "c@1"]);
}

#[tokio::test]
async fn plain_edges_from_different_supersteps_run_the_target_each_time() {
    // Without a join, "c" follows each predecessor separately.
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("x", stamp)
        .add_sync_node("b", stamp)
        .add_sync_node("c", stamp)
        .add_edge(START, "a")
        .add_edge(START, "x")
        .add_edge("x", "b")
        .add_edge("a", "c")
        .add_edge("b", "c")
        .add_edge("c", END);
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["a@0", "x@0", "b@1", "c@1", "c@2"]);
}

#[tokio::test]
async fn join_waits_for_sources_finishing_in_different_supersteps() {
    let c_runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&c_runs);
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("x", stamp)
        .add_sync_node("b", stamp)
        .add_sync_node("c", move |s, ctx| {
            counter.fetch_add(1, Ordering::SeqCst);
            // Both sources' writes are visible.
            assert!(s.log.contains(&"a@0".to_string()) && s.log.contains(&"b@1".to_string()));
            stamp(s, ctx)
        })
        .add_edge(START, "a")
        .add_edge(START, "x")
        .add_edge("x", "b")
        .add_join(["a", "b"], "c")
        .add_edge("c", END);
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["a@0", "x@0", "b@1", "c@2"]);
    assert_eq!(c_runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn join_of_sources_in_the_same_superstep() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("b", stamp)
        .add_sync_node("c", stamp)
        .add_edge(START, "a")
        .add_edge(START, "b")
        .add_join(["a", "b"], "c")
        .add_edge("c", END);
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["a@0", "b@0", "c@1"]);
}

#[tokio::test]
async fn join_resets_after_firing_in_a_loop() {
    // Two rounds: a and b both run each round, c joins them each time.
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("b", stamp)
        .add_sync_node("c", |s, ctx| {
            let mut update = stamp(s, ctx)?;
            update.rounds = Some(s.rounds + 1);
            Ok(update)
        })
        .add_edge(START, "a")
        .add_edge(START, "b")
        .add_join(["a", "b"], "c")
        .add_conditional_edges(
            "c",
            |s: &S| {
                if s.rounds < 2 {
                    Route::to_all(["a", "b"])
                } else {
                    Route::end()
                }
            },
            ["a", "b", END],
        );
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["a@0", "b@0", "c@1", "a@2", "b@2", "c@3"]);
    assert_eq!(out.rounds, 2);
}

#[tokio::test]
async fn join_does_not_fire_when_a_source_never_runs() {
    // "b" is only reached when the router says so; here it never does, so the
    // join into "c" never fires and the run simply ends.
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("b", stamp)
        .add_sync_node("c", stamp)
        .add_edge(START, "a")
        .add_conditional_edges(START, |_: &S| END, ["b", END])
        .add_join(["a", "b"], "c")
        .add_edge("c", END);
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["a@0"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compiled_graph_runs_concurrently_from_clones() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("b", stamp)
        .add_edge(START, "a")
        .add_edge(START, "b")
        .add_edge("a", END)
        .add_edge("b", END);
    let graph = graph.compile().unwrap();
    let mut handles = Vec::new();
    for _ in 0..16 {
        let graph = graph.clone();
        handles.push(tokio::spawn(async move {
            graph.invoke(S::default(), RunConfig::new()).await
        }));
    }
    for handle in handles {
        let out = handle.await.unwrap().unwrap();
        assert_eq!(out.log, ["a@0", "b@0"]);
    }
}
