//! Routing: static edges, conditional edges (identity and keyed path maps,
//! fan-out, fallbacks), `Command::goto`, and the `UnknownRoute` error.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rebound_graph::{
    Command, GraphError, NodeContext, NodeError, NodeOptions, PathMap, Route, RunConfig, State,
    StateGraph, END, START,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct S {
    #[state(append)]
    log: Vec<String>,
    /// What routers read.
    choice: String,
    count: u32,
}

/// A node that appends `"<name>@<step>"` to the log.
fn stamp(s: &S, ctx: &NodeContext) -> Result<SUpdate, NodeError> {
    let _ = s;
    Ok(SUpdate::default().log(vec![format!("{}@{}", ctx.node(), ctx.step())]))
}

fn input(choice: &str) -> S {
    S {
        choice: choice.to_string(),
        ..S::default()
    }
}

async fn run(graph: StateGraph<S>, input: S) -> Result<S, GraphError> {
    graph
        .compile()
        .unwrap()
        .invoke(input, RunConfig::new())
        .await
}

fn unknown_route(result: Result<S, GraphError>) -> (String, String, Vec<String>) {
    match result {
        Err(GraphError::UnknownRoute {
            node,
            value,
            allowed,
        }) => (node, value, allowed),
        other => panic!("expected UnknownRoute, got {other:?}"),
    }
}

#[tokio::test]
async fn static_edges_run_in_order() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("b", stamp)
        .add_sync_node("c", stamp)
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", "c")
        .add_edge("c", END);
    let out = run(graph, S::default()).await.unwrap();
    assert_eq!(out.log, ["a@0", "b@1", "c@2"]);
}

#[tokio::test]
async fn static_fan_out_runs_both_in_the_next_superstep() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("b", stamp)
        .add_sync_node("c", stamp)
        .add_edge(START, "a")
        .add_edge("a", "c")
        .add_edge("a", "b")
        .add_edge("b", END)
        .add_edge("c", END);
    let out = run(graph, S::default()).await.unwrap();
    assert_eq!(out.log, ["a@0", "b@1", "c@1"]);
}

fn branch_graph(paths: impl Into<PathMap>, router: fn(&S) -> Route) -> StateGraph<S> {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("left", stamp)
        .add_sync_node("right", stamp)
        .add_edge(START, "a")
        .add_conditional_edges("a", router, paths)
        .add_edge("left", END)
        .add_edge("right", END);
    graph
}

#[tokio::test]
async fn conditional_identity_path_map() {
    for (choice, expected) in [
        ("left", vec!["a@0", "left@1"]),
        ("right", vec!["a@0", "right@1"]),
        (END, vec!["a@0"]),
    ] {
        let graph = branch_graph(["left", "right", END], |s| Route::to(s.choice.clone()));
        let out = run(graph, input(choice)).await.unwrap();
        assert_eq!(out.log, expected, "choice {choice}");
    }
}

#[tokio::test]
async fn conditional_keyed_path_map() {
    let paths = || {
        PathMap::new()
            .route("go_left", "left")
            .route("go_right", "right")
            .route("stop", END)
    };
    for (choice, expected) in [
        ("go_left", vec!["a@0", "left@1"]),
        ("go_right", vec!["a@0", "right@1"]),
        ("stop", vec!["a@0"]),
    ] {
        let graph = branch_graph(paths(), |s| Route::to(s.choice.clone()));
        let out = run(graph, input(choice)).await.unwrap();
        assert_eq!(out.log, expected, "choice {choice}");
    }
}

#[tokio::test]
async fn keyed_path_map_matches_keys_not_targets() {
    let graph = branch_graph(
        PathMap::new()
            .route("go_left", "left")
            .route("go_right", "right")
            .route("stop", END),
        |s| Route::to(s.choice.clone()),
    );
    let (node, value, allowed) = unknown_route(run(graph, input("left")).await);
    assert_eq!(node, "a");
    assert_eq!(value, "left");
    assert_eq!(allowed, ["go_left", "go_right", "stop"]);
}

#[tokio::test]
async fn router_fan_out_to_several_targets() {
    let graph = branch_graph(["left", "right", END], |_| Route::to_all(["right", "left"]));
    let out = run(graph, S::default()).await.unwrap();
    // Both run in superstep 1, merged in name order.
    assert_eq!(out.log, ["a@0", "left@1", "right@1"]);
}

#[tokio::test]
async fn router_fan_out_including_end() {
    let graph = branch_graph(["left", "right", END], |_| Route::to_all(["left", END]));
    let out = run(graph, S::default()).await.unwrap();
    assert_eq!(out.log, ["a@0", "left@1"]);
}

#[tokio::test]
async fn router_may_return_a_vec_or_a_string() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("left", stamp)
        .add_sync_node("right", stamp)
        .add_edge(START, "a")
        .add_conditional_edges("a", |_: &S| vec!["left", "right"], ["left", "right"])
        .add_conditional_edges("left", |_: &S| END.to_string(), [END])
        .add_edge("right", END);
    let out = run(graph, S::default()).await.unwrap();
    assert_eq!(out.log, ["a@0", "left@1", "right@1"]);
}

#[tokio::test]
async fn router_answer_outside_declared_set_is_unknown_route() {
    let graph = branch_graph(["left", "right", END], |_| Route::to("middle"));
    let result = run(graph, S::default()).await;
    let err = result.as_ref().unwrap_err().to_string();
    assert_eq!(
        err,
        r#""a" routed to "middle", which is not one of its declared targets: left, right, __end__"#
    );
    let (node, value, allowed) = unknown_route(result);
    assert_eq!(node, "a");
    assert_eq!(value, "middle");
    assert_eq!(allowed, ["left", "right", END]);
}

#[tokio::test]
async fn one_bad_answer_among_several_is_unknown_route() {
    let graph = branch_graph(["left", "right"], |_| Route::to_all(["left", "nope"]));
    let (node, value, allowed) = unknown_route(run(graph, S::default()).await);
    assert_eq!((node.as_str(), value.as_str()), ("a", "nope"));
    assert_eq!(allowed, ["left", "right"]);
}

#[tokio::test]
async fn router_from_start_with_unknown_answer() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_conditional_edges(START, |_: &S| "b", ["a"])
        .add_edge("a", END);
    let (node, value, allowed) = unknown_route(run(graph, S::default()).await);
    assert_eq!(node, START);
    assert_eq!(value, "b");
    assert_eq!(allowed, ["a"]);
}

#[tokio::test]
async fn conditional_entry_from_start() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("left", stamp)
        .add_sync_node("right", stamp)
        .add_conditional_edges(
            START,
            |s: &S| Route::to(s.choice.clone()),
            ["left", "right"],
        )
        .add_edge("left", END)
        .add_edge("right", END);
    let out = run(graph, input("right")).await.unwrap();
    assert_eq!(out.log, ["right@0"]);
}

#[tokio::test]
async fn fallback_to_end_takes_undeclared_answers() {
    let graph = branch_graph(
        PathMap::new()
            .route("go_left", "left")
            .route("go_right", "right")
            .fallback(END),
        |s| Route::to(s.choice.clone()),
    );
    let out = run(graph, input("something else")).await.unwrap();
    assert_eq!(out.log, ["a@0"]);
    let graph = branch_graph(
        PathMap::new()
            .route("go_left", "left")
            .route("go_right", "right")
            .fallback(END),
        |s| Route::to(s.choice.clone()),
    );
    let out = run(graph, input("go_left")).await.unwrap();
    assert_eq!(out.log, ["a@0", "left@1"]);
}

#[tokio::test]
async fn fallback_to_a_node() {
    let graph = branch_graph(
        PathMap::new().route("go_left", "left").fallback("right"),
        |s| Route::to(s.choice.clone()),
    );
    let out = run(graph, input("??")).await.unwrap();
    assert_eq!(out.log, ["a@0", "right@1"]);
}

#[tokio::test]
async fn routers_see_the_state_after_the_update() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("decide", |_, _| {
            Ok(SUpdate::default().choice("right".into()))
        })
        .add_sync_node("left", stamp)
        .add_sync_node("right", stamp)
        .add_edge(START, "decide")
        .add_conditional_edges(
            "decide",
            |s: &S| Route::to(s.choice.clone()),
            ["left", "right"],
        )
        .add_edge("left", END)
        .add_edge("right", END);
    // The input says "left"; the node's write says "right".
    let out = run(graph, input("left")).await.unwrap();
    assert_eq!(out.log, ["right@1"]);
}

#[tokio::test]
async fn loop_through_conditional_edge() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("inc", |s, _| Ok(SUpdate::default().count(s.count + 1)))
        .add_edge(START, "inc")
        .add_conditional_edges(
            "inc",
            |s: &S| if s.count < 5 { "again" } else { "done" },
            PathMap::new().route("again", "inc").route("done", END),
        );
    let out = run(graph, S::default()).await.unwrap();
    assert_eq!(out.count, 5);
}

#[tokio::test]
async fn static_and_conditional_edges_of_one_node_both_apply() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("b", stamp)
        .add_sync_node("c", stamp)
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_conditional_edges("a", |_: &S| "c", ["c"])
        .add_edge("b", END)
        .add_edge("c", END);
    let out = run(graph, S::default()).await.unwrap();
    assert_eq!(out.log, ["a@0", "b@1", "c@1"]);
}

/// A node scheduled twice for the same superstep (here by a static edge and by
/// a router) must run once, as it does when the scheduling node shared its
/// superstep with others (the parallel path dedups `next`).
#[tokio::test]
async fn node_scheduled_twice_after_a_lone_node_runs_once() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("b", stamp)
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_conditional_edges("a", |_: &S| "b", ["b"])
        .add_edge("b", END);
    let out = run(graph, S::default()).await.unwrap();
    assert_eq!(out.log, ["a@0", "b@1"]);
}

#[tokio::test]
async fn router_naming_one_target_twice_runs_it_once() {
    let graph = branch_graph(["left", "right"], |_| Route::to_all(["left", "left"]));
    let out = run(graph, S::default()).await.unwrap();
    assert_eq!(out.log, ["a@0", "left@1"]);
}

#[tokio::test]
async fn node_scheduled_twice_from_start_runs_once() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_edge(START, "a")
        .add_conditional_edges(START, |_: &S| "a", ["a"])
        .add_edge("a", END);
    let out = run(graph, S::default()).await.unwrap();
    assert_eq!(out.log, ["a@0"]);
}

// ---- Command::goto ---------------------------------------------------------

fn goto_graph(goto: &'static str) -> StateGraph<S> {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_node("a", move |_, ctx: NodeContext| async move {
            Ok::<_, NodeError>(
                Command::goto(Route::to(goto).because("jumping"))
                    .with_update(SUpdate::default().log(vec![format!("a@{}", ctx.step())])),
            )
        })
        .add_sync_node("b", stamp)
        .add_sync_node("c", stamp)
        .add_sync_node("d", stamp)
        .add_edge(START, "a")
        // The static edge is replaced by the goto.
        .add_edge("a", "d")
        .configure_node("a", NodeOptions::new().destinations(["b", "c", END]))
        .add_edge("b", END)
        .add_edge("c", END)
        .add_edge("d", END);
    graph
}

#[tokio::test]
async fn goto_a_declared_destination_replaces_the_edges() {
    let out = run(goto_graph("c"), S::default()).await.unwrap();
    assert_eq!(out.log, ["a@0", "c@1"]);
}

#[tokio::test]
async fn goto_end() {
    let out = run(goto_graph(END), S::default()).await.unwrap();
    assert_eq!(out.log, ["a@0"]);
}

#[tokio::test]
async fn goto_undeclared_target_is_unknown_route() {
    let result = run(goto_graph("d"), S::default()).await;
    let (node, value, allowed) = unknown_route(result);
    assert_eq!(node, "a");
    assert_eq!(value, "d");
    assert_eq!(allowed, ["b", "c", END]);
}

#[tokio::test]
async fn goto_without_declared_destinations_is_unknown_route() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", |_, _| Ok(Command::<SUpdate>::goto("b")))
        .add_sync_node("b", stamp)
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", END);
    let (node, value, allowed) = unknown_route(run(graph, S::default()).await);
    assert_eq!(node, "a");
    assert_eq!(value, "b");
    assert!(allowed.is_empty());
}

#[tokio::test]
async fn goto_several_destinations_fans_out() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", |_, _| {
            Ok(Command::<SUpdate>::goto(Route::to_all(["c", "b"])))
        })
        .add_sync_node("b", stamp)
        .add_sync_node("c", stamp)
        .add_edge(START, "a")
        .configure_node("a", NodeOptions::new().destinations(["b", "c"]))
        .add_edge("b", END)
        .add_edge("c", END);
    let out = run(graph, S::default()).await.unwrap();
    assert_eq!(out.log, ["b@1", "c@1"]);
}

#[tokio::test]
async fn plain_update_from_a_node_with_destinations_follows_edges() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", stamp)
        .add_sync_node("b", stamp)
        .add_sync_node("c", stamp)
        .add_edge(START, "a")
        .add_edge("a", "c")
        .configure_node("a", NodeOptions::new().destinations(["b"]))
        .add_edge("b", END)
        .add_edge("c", END);
    let out = run(graph, S::default()).await.unwrap();
    assert_eq!(out.log, ["a@0", "c@1"]);
}
