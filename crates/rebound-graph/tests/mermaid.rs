//! Mermaid export: exact output, edge styles, ids for awkward names.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rebound_graph::{NodeError, NodeOptions, PathMap, State, StateGraph, END, START};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct S {
    n: u32,
}

fn noop(_: &S, _: &rebound_graph::NodeContext) -> Result<SUpdate, NodeError> {
    Ok(SUpdate::default())
}

fn graph_with(nodes: &[&str]) -> StateGraph<S> {
    let mut graph = StateGraph::new();
    for name in nodes {
        graph.add_sync_node(*name, noop);
    }
    graph
}

#[test]
fn exact_output_of_a_small_graph() {
    let mut graph = graph_with(&["plan", "do work", "notify", "review"]);
    graph
        .add_edge(START, "plan")
        .add_edge("plan", "do work")
        .add_edge("plan", "notify")
        .add_join(["do work", "notify"], "review")
        .add_conditional_edges(
            "review",
            |_: &S| "ship",
            PathMap::new()
                .route("again", "plan")
                .route("ship", END)
                .fallback("notify"),
        )
        .configure_node("review", NodeOptions::new().destinations(["plan"]));
    let mermaid = graph.compile().unwrap().to_mermaid();
    assert_eq!(
        mermaid,
        r#"flowchart TD
    __start__([START])
    plan["plan"]
    __n1["do work"]
    notify["notify"]
    review["review"]
    __end__([END])
    __start__ --> plan
    plan --> __n1
    plan --> notify
    review -.->|"again"| plan
    review -.->|"ship"| __end__
    review -.->|"otherwise"| notify
    review -.->|"goto"| plan
    __n1 & notify --> review
"#
    );
}

#[test]
fn edges_name_the_same_edges_as_the_drawing() {
    let mut graph = graph_with(&["plan", "do work", "review"]);
    graph
        .add_edge(START, "plan")
        .add_edge("plan", "do work")
        .add_join(["do work"], "review")
        .add_conditional_edges(
            "review",
            |_: &S| "ship",
            PathMap::new().route("again", "plan").route("ship", END),
        );
    let edges: Vec<(String, String, bool, Option<String>)> = graph
        .compile()
        .unwrap()
        .edges()
        .into_iter()
        .map(|e| (e.source, e.target, e.conditional, e.label))
        .collect();
    let edge = |s: &str, t: &str, c: bool, l: Option<&str>| {
        (s.to_string(), t.to_string(), c, l.map(str::to_string))
    };
    assert_eq!(
        edges,
        [
            edge(START, "plan", false, None),
            edge("plan", "do work", false, None),
            edge("review", "plan", true, Some("again")),
            edge("review", END, true, Some("ship")),
            edge("do work", "review", false, None),
        ]
    );
}

#[test]
fn static_edges_are_solid_and_conditional_ones_dashed() {
    let mut graph = graph_with(&["a", "b", "c"]);
    graph
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_conditional_edges("b", |_: &S| "c", ["c", END])
        .add_edge("c", END);
    let mermaid = graph.compile().unwrap().to_mermaid();
    let lines: Vec<&str> = mermaid.lines().map(str::trim).collect();
    assert!(lines.contains(&"__start__ --> a"), "{mermaid}");
    assert!(lines.contains(&"a --> b"), "{mermaid}");
    assert!(lines.contains(&r#"b -.->|"c"| c"#), "{mermaid}");
    assert!(lines.contains(&r#"b -.->|"__end__"| __end__"#), "{mermaid}");
    assert!(lines.contains(&"c --> __end__"), "{mermaid}");
    assert!(!mermaid.contains("otherwise"));
}

#[test]
fn fallback_is_labelled_otherwise() {
    let mut graph = graph_with(&["a", "b"]);
    graph
        .add_edge(START, "a")
        .add_conditional_edges(
            "a",
            |_: &S| "x",
            PathMap::new().route("go", "b").fallback(END),
        )
        .add_edge("b", END);
    let mermaid = graph.compile().unwrap().to_mermaid();
    assert!(
        mermaid.contains("    a -.->|\"go\"| b\n    a -.->|\"otherwise\"| __end__\n"),
        "{mermaid}"
    );
}

#[test]
fn conditional_entry_is_drawn_from_start() {
    let mut graph = graph_with(&["a", "b"]);
    graph
        .add_conditional_edges(START, |_: &S| "a", ["a", "b"])
        .add_edge("a", END)
        .add_edge("b", END);
    let mermaid = graph.compile().unwrap().to_mermaid();
    assert!(
        mermaid.contains("    __start__ -.->|\"a\"| a\n"),
        "{mermaid}"
    );
    assert!(
        mermaid.contains("    __start__ -.->|\"b\"| b\n"),
        "{mermaid}"
    );
}

#[test]
fn joins_list_every_source_with_ampersands() {
    let mut graph = graph_with(&["x", "y", "z", "sink"]);
    graph
        .add_edge(START, "x")
        .add_edge(START, "y")
        .add_edge(START, "z")
        .add_join(["x", "y", "z"], "sink")
        .add_edge("sink", END);
    let mermaid = graph.compile().unwrap().to_mermaid();
    assert!(mermaid.ends_with("    x & y & z --> sink\n"), "{mermaid}");
}

#[test]
fn awkward_names_get_generated_ids_and_escaped_labels() {
    let mut graph = graph_with(&["ok_1", "say \"hi\"", "__private", "naïve"]);
    graph
        .add_edge(START, "ok_1")
        .add_conditional_edges(
            "ok_1",
            |_: &S| "q",
            PathMap::new()
                .route("say \"q\"", "say \"hi\"")
                .route("p", "__private")
                .route("n", "naïve"),
        )
        .add_edge("say \"hi\"", END)
        .add_edge("__private", END)
        .add_edge("naïve", END);
    let mermaid = graph.compile().unwrap().to_mermaid();
    let lines: Vec<&str> = mermaid.lines().map(str::trim).collect();
    assert!(lines.contains(&r#"ok_1["ok_1"]"#), "{mermaid}");
    assert!(
        lines.contains(&r#"__n1["say #quot;hi#quot;"]"#),
        "{mermaid}"
    );
    assert!(lines.contains(&r#"__n2["__private"]"#), "{mermaid}");
    assert!(lines.contains(&r#"__n3["naïve"]"#), "{mermaid}");
    assert!(
        lines.contains(&r#"ok_1 -.->|"say #quot;q#quot;"| __n1"#),
        "{mermaid}"
    );
    assert!(lines.contains(&"__n1 --> __end__"), "{mermaid}");
    // No raw double quote inside a label.
    assert!(!mermaid.contains("\"hi\""), "{mermaid}");
}

/// Mermaid's flowchart parser treats a lowercase `end` as the keyword closing
/// a subgraph; its documentation warns that a node called `end` breaks the
/// chart. A node named "end" must therefore get a generated id.
#[test]
fn node_named_end_does_not_use_the_mermaid_keyword_as_id() {
    let mut graph = graph_with(&["start", "end"]);
    graph
        .add_edge(START, "start")
        .add_edge("start", "end")
        .add_edge("end", END);
    let mermaid = graph.compile().unwrap().to_mermaid();
    let ids: Vec<&str> = mermaid
        .lines()
        .skip(1)
        .flat_map(|l| l.split([' ', '[', '(']))
        .filter(|t| !t.is_empty())
        .collect();
    assert!(
        !ids.contains(&"end"),
        "a bare `end` id breaks Mermaid:\n{mermaid}"
    );
    // The label still shows the name.
    assert!(mermaid.contains("[\"end\"]"), "{mermaid}");
}
