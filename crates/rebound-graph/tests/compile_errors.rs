//! `StateGraph::compile`: every `CompileError` variant, where each kind of
//! name is checked, and graphs that must compile.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rebound_graph::{
    CompileError, NodeError, NodeOptions, PathMap, Route, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct S {
    #[state(append)]
    log: Vec<String>,
}

fn noop(_: &S, _: &rebound_graph::NodeContext) -> Result<SUpdate, NodeError> {
    Ok(SUpdate::default())
}

/// A graph with the given nodes (sync no-ops) and nothing else.
fn graph_with(nodes: &[&str]) -> StateGraph<S> {
    let mut graph = StateGraph::new();
    for name in nodes {
        graph.add_sync_node(*name, noop);
    }
    graph
}

fn compile_err(graph: StateGraph<S>) -> CompileError {
    match graph.compile() {
        Ok(_) => panic!("the graph should not compile"),
        Err(err) => err,
    }
}

fn known(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

// ---- DuplicateNode ---------------------------------------------------------

#[test]
fn duplicate_node() {
    let mut graph = graph_with(&["a", "b", "a"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", END);
    let err = compile_err(graph);
    assert_eq!(
        err,
        CompileError::DuplicateNode {
            name: "a".to_string()
        }
    );
    assert_eq!(
        err.to_string(),
        "duplicate node name \"a\": every node needs its own name"
    );
}

#[test]
fn duplicate_between_sync_and_async_node() {
    let mut graph = graph_with(&["x"]);
    graph.add_node("x", |_, _| async { Ok::<_, NodeError>(SUpdate::default()) });
    graph.add_edge(START, "x").add_edge("x", END);
    assert_eq!(
        compile_err(graph),
        CompileError::DuplicateNode {
            name: "x".to_string()
        }
    );
}

// ---- ReservedName ----------------------------------------------------------

#[test]
fn reserved_names_are_refused() {
    for name in [START, END, ""] {
        let mut graph = graph_with(&["ok", name]);
        graph.add_edge(START, "ok").add_edge("ok", END);
        let err = compile_err(graph);
        assert_eq!(
            err,
            CompileError::ReservedName {
                name: name.to_string()
            },
            "name {name:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains(START) && message.contains(END),
            "{message}"
        );
    }
}

// ---- UnknownNode -----------------------------------------------------------

#[test]
fn unknown_node_in_edge_target() {
    let mut graph = graph_with(&["a", "b"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", "zz")
        .add_edge("b", END);
    let err = compile_err(graph);
    assert_eq!(
        err,
        CompileError::UnknownNode {
            place: r#"edge "a" -> "zz""#.to_string(),
            node: "zz".to_string(),
            known: known(&["a", "b"]),
        }
    );
    assert_eq!(
        err.to_string(),
        r#"edge "a" -> "zz" names unknown node "zz"; known nodes: a, b"#
    );
}

#[test]
fn unknown_node_in_edge_source() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", END)
        .add_edge("ghost", "a");
    assert_eq!(
        compile_err(graph),
        CompileError::UnknownNode {
            place: r#"edge "ghost" -> "a""#.to_string(),
            node: "ghost".to_string(),
            known: known(&["a"]),
        }
    );
}

#[test]
fn unknown_node_as_conditional_source() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", END)
        .add_conditional_edges("ghost", |_: &S| "a", ["a"]);
    assert_eq!(
        compile_err(graph),
        CompileError::UnknownNode {
            place: r#"conditional edge from "ghost""#.to_string(),
            node: "ghost".to_string(),
            known: known(&["a"]),
        }
    );
}

#[test]
fn unknown_node_in_identity_path_map() {
    let mut graph = graph_with(&["a", "b"]);
    graph
        .add_edge(START, "a")
        .add_conditional_edges("a", |_: &S| "b", ["b", "c", END])
        .add_edge("b", END);
    assert_eq!(
        compile_err(graph),
        CompileError::UnknownNode {
            place: r#"conditional edge from "a""#.to_string(),
            node: "c".to_string(),
            known: known(&["a", "b"]),
        }
    );
}

#[test]
fn unknown_node_in_keyed_path_map() {
    let mut graph = graph_with(&["a", "b"]);
    graph
        .add_edge(START, "a")
        .add_conditional_edges(
            "a",
            |_: &S| "go",
            PathMap::new().route("go", "b").route("back", "nowhere"),
        )
        .add_edge("b", END);
    assert_eq!(
        compile_err(graph),
        CompileError::UnknownNode {
            place: r#"conditional edge from "a""#.to_string(),
            node: "nowhere".to_string(),
            known: known(&["a", "b"]),
        }
    );
}

#[test]
fn unknown_node_in_path_map_fallback() {
    let mut graph = graph_with(&["a", "b"]);
    graph
        .add_edge(START, "a")
        .add_conditional_edges(
            "a",
            |_: &S| "go",
            PathMap::new().route("go", "b").fallback("missing"),
        )
        .add_edge("b", END);
    assert_eq!(
        compile_err(graph),
        CompileError::UnknownNode {
            place: r#"conditional edge from "a""#.to_string(),
            node: "missing".to_string(),
            known: known(&["a", "b"]),
        }
    );
}

#[test]
fn unknown_node_in_configure_node() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", END)
        .configure_node("typo", NodeOptions::new());
    assert_eq!(
        compile_err(graph),
        CompileError::UnknownNode {
            place: "configure_node".to_string(),
            node: "typo".to_string(),
            known: known(&["a"]),
        }
    );
}

#[test]
fn unknown_node_in_goto_destinations() {
    let mut graph = graph_with(&["a", "b"]);
    graph
        .add_edge(START, "a")
        .add_edge("b", END)
        .configure_node("a", NodeOptions::new().destinations(["b", "c"]));
    assert_eq!(
        compile_err(graph),
        CompileError::UnknownNode {
            place: r#"goto destinations of "a""#.to_string(),
            node: "c".to_string(),
            known: known(&["a", "b"]),
        }
    );
}

#[test]
fn unknown_node_in_join_source() {
    let mut graph = graph_with(&["a", "b", "c"]);
    graph
        .add_edge(START, "a")
        .add_edge(START, "b")
        .add_join(["a", "x"], "c")
        .add_edge("b", END)
        .add_edge("c", END);
    assert_eq!(
        compile_err(graph),
        CompileError::UnknownNode {
            place: r#"join ["a", "x"] -> "c""#.to_string(),
            node: "x".to_string(),
            known: known(&["a", "b", "c"]),
        }
    );
}

#[test]
fn unknown_node_in_join_target() {
    let mut graph = graph_with(&["a", "b"]);
    graph
        .add_edge(START, "a")
        .add_edge(START, "b")
        .add_join(["a", "b"], "z");
    assert_eq!(
        compile_err(graph),
        CompileError::UnknownNode {
            place: r#"join ["a", "b"] -> "z""#.to_string(),
            node: "z".to_string(),
            known: known(&["a", "b"]),
        }
    );
}

// ---- MisplacedTerminal -----------------------------------------------------

#[test]
fn end_as_edge_source() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", END)
        .add_edge(END, "a");
    let err = compile_err(graph);
    assert_eq!(
        err,
        CompileError::MisplacedTerminal {
            place: r#"edge "__end__" -> "a""#.to_string()
        }
    );
    assert_eq!(
        err.to_string(),
        r#"edge "__end__" -> "a": START can only be a source and END only a target"#
    );
}

#[test]
fn start_as_edge_target() {
    let mut graph = graph_with(&["a"]);
    graph.add_edge(START, "a").add_edge("a", START);
    assert_eq!(
        compile_err(graph),
        CompileError::MisplacedTerminal {
            place: r#"edge "a" -> "__start__""#.to_string()
        }
    );
}

#[test]
fn end_as_conditional_source() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", END)
        .add_conditional_edges(END, |_: &S| "a", ["a"]);
    assert_eq!(
        compile_err(graph),
        CompileError::MisplacedTerminal {
            place: r#"conditional edge from "__end__""#.to_string()
        }
    );
}

#[test]
fn start_in_path_map() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .add_conditional_edges("a", |_: &S| END, [END, START]);
    assert_eq!(
        compile_err(graph),
        CompileError::MisplacedTerminal {
            place: r#"conditional edge from "a""#.to_string()
        }
    );
}

#[test]
fn start_or_end_as_join_source() {
    for terminal in [START, END] {
        let mut graph = graph_with(&["a", "b"]);
        graph
            .add_edge(START, "a")
            .add_edge("b", END)
            .add_join(["a", terminal], "b");
        assert_eq!(
            compile_err(graph),
            CompileError::MisplacedTerminal {
                place: format!("join [\"a\", {terminal:?}] -> \"b\""),
            },
            "join source {terminal}"
        );
    }
}

#[test]
fn start_as_join_target() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", END)
        .add_join(["a"], START);
    assert_eq!(
        compile_err(graph),
        CompileError::MisplacedTerminal {
            place: r#"join ["a"] -> "__start__""#.to_string()
        }
    );
}

#[test]
fn start_as_goto_destination() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .configure_node("a", NodeOptions::new().destinations([END, START]));
    assert_eq!(
        compile_err(graph),
        CompileError::MisplacedTerminal {
            place: r#"goto destinations of "a""#.to_string()
        }
    );
}

// ---- NoEntry ---------------------------------------------------------------

#[test]
fn no_entry() {
    let mut graph = graph_with(&["a"]);
    graph.add_edge("a", END);
    let err = compile_err(graph);
    assert_eq!(err, CompileError::NoEntry);
    assert!(err.to_string().contains("add an edge from START"), "{err}");
}

#[test]
fn empty_graph_has_no_entry() {
    assert_eq!(compile_err(StateGraph::<S>::new()), CompileError::NoEntry);
}

#[test]
fn conditional_from_start_is_an_entry() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_conditional_edges(START, |_: &S| "a", ["a"])
        .add_edge("a", END);
    assert!(graph.compile().is_ok());
}

// ---- NoWayOut --------------------------------------------------------------

#[test]
fn no_way_out() {
    let mut graph = graph_with(&["a", "b"]);
    graph.add_edge(START, "a").add_edge("a", "b");
    let err = compile_err(graph);
    assert_eq!(
        err,
        CompileError::NoWayOut {
            node: "b".to_string()
        }
    );
    assert!(err.to_string().contains("to END"), "{err}");
}

#[test]
fn empty_goto_destinations_are_no_way_out() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .configure_node("a", NodeOptions::new().destinations(Vec::<String>::new()));
    assert_eq!(
        compile_err(graph),
        CompileError::NoWayOut {
            node: "a".to_string()
        }
    );
}

#[test]
fn goto_destinations_join_and_fallback_are_ways_out() {
    // "a" leaves only through goto destinations, "b" only through a join,
    // "c" only through a fallback-only path map.
    let mut graph = graph_with(&["a", "b", "c"]);
    graph
        .add_edge(START, "a")
        .configure_node("a", NodeOptions::new().destinations(["b"]))
        .add_join(["b"], "c")
        .add_conditional_edges("c", |_: &S| "anything", PathMap::new().fallback(END));
    let compiled = graph.compile().unwrap();
    assert_eq!(compiled.node_names().collect::<Vec<_>>(), ["a", "b", "c"]);
}

// ---- Unreachable -----------------------------------------------------------

#[test]
fn unreachable_nodes_in_insertion_order() {
    // "z" and "y" only reach each other; "b" is a dead island too.
    let mut graph = graph_with(&["z", "a", "b", "y"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", END)
        .add_edge("b", END)
        .add_edge("z", "y")
        .add_edge("y", "z");
    let err = compile_err(graph);
    assert_eq!(
        err,
        CompileError::Unreachable {
            nodes: known(&["z", "b", "y"])
        }
    );
    assert_eq!(err.to_string(), "nodes unreachable from START: z, b, y");
}

#[test]
fn reachability_follows_every_kind_of_edge() {
    let mut graph = graph_with(&["a", "b", "c", "d", "e", "f"]);
    graph
        .add_edge(START, "a")
        // conditional entry
        .add_conditional_edges("a", |_: &S| "b", ["b"])
        // fallback target
        .add_conditional_edges("b", |_: &S| "x", PathMap::new().fallback("c"))
        // goto destination
        .configure_node("c", NodeOptions::new().destinations(["d"]))
        // join target
        .add_join(["d"], "e")
        // keyed path map
        .add_conditional_edges("e", |_: &S| "k", PathMap::new().route("k", "f"))
        .add_edge("f", END);
    assert!(graph.compile().is_ok());
}

// ---- EmptyPathMap ----------------------------------------------------------

#[test]
fn empty_keyed_path_map() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .add_conditional_edges("a", |_: &S| END, PathMap::new());
    let err = compile_err(graph);
    assert_eq!(
        err,
        CompileError::EmptyPathMap {
            node: "a".to_string()
        }
    );
    assert_eq!(
        err.to_string(),
        "the conditional edge from \"a\" has an empty path map"
    );
}

#[test]
fn empty_array_path_map() {
    let empty: [&str; 0] = [];
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", END)
        .add_conditional_edges("a", |_: &S| Route::end(), empty);
    assert_eq!(
        compile_err(graph),
        CompileError::EmptyPathMap {
            node: "a".to_string()
        }
    );
}

// ---- BadJoin ---------------------------------------------------------------

#[test]
fn join_without_sources() {
    let mut graph = graph_with(&["a"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", END)
        .add_join(Vec::<String>::new(), "a");
    let err = compile_err(graph);
    assert_eq!(
        err,
        CompileError::BadJoin {
            target: "a".to_string(),
            count: 0
        }
    );
    assert_eq!(
        err.to_string(),
        "the join into \"a\" must have between 1 and 64 source nodes, got 0"
    );
}

#[test]
fn join_with_65_sources() {
    let names: Vec<String> = (0..65).map(|i| format!("n{i}")).collect();
    let mut graph = StateGraph::<S>::new();
    for name in &names {
        graph
            .add_sync_node(name.clone(), noop)
            .add_edge(START, name.clone());
    }
    graph.add_sync_node("sink", noop).add_edge("sink", END);
    graph.add_join(names.clone(), "sink");
    assert_eq!(
        compile_err(graph),
        CompileError::BadJoin {
            target: "sink".to_string(),
            count: 65
        }
    );
}

#[test]
fn join_with_64_sources_compiles() {
    let names: Vec<String> = (0..64).map(|i| format!("n{i}")).collect();
    let mut graph = StateGraph::<S>::new();
    for name in &names {
        graph
            .add_sync_node(name.clone(), noop)
            .add_edge(START, name.clone());
    }
    graph.add_sync_node("sink", noop).add_edge("sink", END);
    graph.add_join(names, "sink");
    assert!(graph.compile().is_ok());
}

// ---- Check order -----------------------------------------------------------

#[test]
fn first_problem_is_reported() {
    // Both a duplicate and a missing entry: names are checked first.
    let graph = graph_with(&["a", "a"]);
    assert_eq!(
        compile_err(graph),
        CompileError::DuplicateNode {
            name: "a".to_string()
        }
    );
    // An unknown edge target is found before the missing entry.
    let mut graph = graph_with(&["a"]);
    graph.add_edge("a", "b");
    assert!(matches!(
        compile_err(graph),
        CompileError::UnknownNode { ref node, .. } if node == "b"
    ));
}

#[test]
fn compile_error_is_a_std_error() {
    fn takes(_: &dyn std::error::Error) {}
    takes(&CompileError::NoEntry);
}

#[test]
fn a_zero_timeout_is_refused_naming_the_node() {
    let mut graph = graph_with(&["slow"]);
    graph
        .add_edge(START, "slow")
        .add_edge("slow", END)
        .configure_node(
            "slow",
            NodeOptions::new().timeout(std::time::Duration::ZERO),
        );
    match compile_err(graph) {
        CompileError::ZeroTimeout { node } => assert_eq!(node, "slow"),
        other => panic!("expected ZeroTimeout, got {other:?}"),
    }
    let mut fine = graph_with(&["slow"]);
    fine.add_edge(START, "slow")
        .add_edge("slow", END)
        .configure_node(
            "slow",
            NodeOptions::new().timeout(std::time::Duration::from_millis(1)),
        );
    assert!(fine.compile().is_ok());
}
