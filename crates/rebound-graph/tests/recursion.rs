//! The recursion guard: supersteps are counted exactly, and the error is
//! informative (limit, recent nodes, pending nodes, how to raise it).

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rebound_graph::{
    GraphError, NodeError, PathMap, Route, RunConfig, State, StateGraph, DEFAULT_RECURSION_LIMIT,
    END, START,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct S {
    count: u64,
    stop_at: u64,
}

/// START -> inc, inc loops while `count < stop_at`: exactly `stop_at`
/// supersteps (one node each).
fn counter() -> rebound_graph::CompiledGraph<S> {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("inc", |s, _| Ok(SUpdate::default().count(s.count + 1)))
        .add_edge(START, "inc")
        .add_conditional_edges(
            "inc",
            |s: &S| if s.count < s.stop_at { "inc" } else { END },
            ["inc", END],
        );
    graph.compile().unwrap()
}

fn input(stop_at: u64) -> S {
    S { count: 0, stop_at }
}

fn recursion_error(result: Result<S, GraphError>) -> (u64, Vec<String>, Vec<String>, String) {
    match result {
        Err(err @ GraphError::RecursionLimit { .. }) => {
            let message = err.to_string();
            let GraphError::RecursionLimit {
                limit,
                recent,
                pending,
            } = err
            else {
                unreachable!()
            };
            (limit, recent, pending, message)
        }
        other => panic!("expected RecursionLimit, got {other:?}"),
    }
}

#[tokio::test]
async fn exactly_s_supersteps_pass_with_limit_s() {
    let graph = counter();
    for steps in [1, 2, 5, 25] {
        let out = graph
            .invoke(input(steps), RunConfig::new().with_recursion_limit(steps))
            .await
            .unwrap();
        assert_eq!(out.count, steps);
    }
}

#[tokio::test]
async fn s_supersteps_fail_with_limit_s_minus_1() {
    let graph = counter();
    for steps in [1, 2, 5, 25] {
        let result = graph
            .invoke(
                input(steps),
                RunConfig::new().with_recursion_limit(steps - 1),
            )
            .await;
        let (limit, recent, pending, _) = recursion_error(result);
        assert_eq!(limit, steps - 1);
        assert_eq!(recent.len() as u64, (steps - 1).min(10));
        assert!(recent.iter().all(|n| n == "inc"));
        assert_eq!(pending, ["inc"]);
    }
}

#[tokio::test]
async fn error_lists_last_ten_nodes_and_pending_and_says_how_to_raise() {
    // a -> b -> c -> a ... forever; the last ten nodes before the limit.
    let mut graph = StateGraph::<S>::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a")] {
        graph
            .add_sync_node(from, |_, _| Ok(SUpdate::default()))
            .add_edge(from, to);
    }
    graph.add_edge(START, "a");
    let graph = graph.compile().unwrap();
    let result = graph
        .invoke(S::default(), RunConfig::new().with_recursion_limit(13))
        .await;
    let (limit, recent, pending, message) = recursion_error(result);
    assert_eq!(limit, 13);
    // Steps 0..=12 ran a b c a b c a b c a b c a; the last ten start at step 3.
    assert_eq!(recent, ["a", "b", "c", "a", "b", "c", "a", "b", "c", "a"]);
    assert_eq!(pending, ["b"]);
    assert!(message.contains("13"), "{message}");
    assert!(message.contains("with_recursion_limit"), "{message}");
    assert!(message.contains("b"), "{message}");
    assert!(message.contains("c -> a"), "{message}");
}

#[tokio::test]
async fn pending_lists_every_node_due_next() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("fork", |_, _| Ok(SUpdate::default()))
        .add_sync_node("left", |_, _| Ok(SUpdate::default()))
        .add_sync_node("right", |_, _| Ok(SUpdate::default()))
        .add_edge(START, "fork")
        .add_conditional_edges(
            "fork",
            |_: &S| Route::to_all(["left", "right"]),
            ["left", "right"],
        )
        .add_edge("left", END)
        .add_edge("right", END);
    let graph = graph.compile().unwrap();
    let result = graph
        .invoke(S::default(), RunConfig::new().with_recursion_limit(1))
        .await;
    let (limit, recent, mut pending, _) = recursion_error(result);
    assert_eq!(limit, 1);
    assert_eq!(recent, ["fork"]);
    pending.sort();
    assert_eq!(pending, ["left", "right"]);

    // Two supersteps are enough.
    assert!(graph
        .invoke(S::default(), RunConfig::new().with_recursion_limit(2))
        .await
        .is_ok());
}

#[tokio::test]
async fn limit_zero_refuses_any_step() {
    let result = counter()
        .invoke(input(1), RunConfig::new().with_recursion_limit(0))
        .await;
    let (limit, recent, pending, _) = recursion_error(result);
    assert_eq!(limit, 0);
    assert!(recent.is_empty());
    assert_eq!(pending, ["inc"]);
}

#[tokio::test]
async fn default_limit_applies() {
    assert_eq!(RunConfig::new().recursion_limit(), DEFAULT_RECURSION_LIMIT);
    assert_eq!(
        RunConfig::default().recursion_limit(),
        DEFAULT_RECURSION_LIMIT
    );

    let graph = counter();
    // A run of exactly the default limit passes...
    let out = graph
        .invoke(input(DEFAULT_RECURSION_LIMIT), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.count, DEFAULT_RECURSION_LIMIT);
    // ...one more superstep does not.
    let result = graph
        .invoke(input(DEFAULT_RECURSION_LIMIT + 1), RunConfig::new())
        .await;
    let (limit, recent, _, _) = recursion_error(result);
    assert_eq!(limit, DEFAULT_RECURSION_LIMIT);
    assert_eq!(recent.len(), 10);
}

#[tokio::test]
async fn raising_the_limit_lets_a_long_run_finish() {
    let out = counter()
        .invoke(
            input(DEFAULT_RECURSION_LIMIT + 5),
            RunConfig::new().with_recursion_limit(DEFAULT_RECURSION_LIMIT + 5),
        )
        .await
        .unwrap();
    assert_eq!(out.count, DEFAULT_RECURSION_LIMIT + 5);
}

#[tokio::test]
async fn infinite_loop_via_keyed_path_map_stops() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_node("spin", |s: std::sync::Arc<S>, _| async move {
            Ok::<_, NodeError>(SUpdate::default().count(s.count + 1))
        })
        .add_edge(START, "spin")
        .add_conditional_edges(
            "spin",
            |_: &S| "again",
            PathMap::new().route("again", "spin").fallback(END),
        );
    let result = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new().with_recursion_limit(50))
        .await;
    let (limit, _, pending, _) = recursion_error(result);
    assert_eq!(limit, 50);
    assert_eq!(pending, ["spin"]);
}
