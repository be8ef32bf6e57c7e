//! The graph of the server benchmarks: START → `plan` → `act` → `review`
//! → END, each node counting and appending its name to `log`; the same
//! shape as `bench/langgraph-server/graph.py` for LangGraph's server. One
//! file for `bench_server` (SQLite) and `rebound-bench queue-postgres`'s
//! workers (PostgreSQL), so that both measure the same graph.

use rebound_graph::{CompileError, CompiledGraph, NodeError, State, StateGraph, END, START};
use serde::{Deserialize, Serialize};

/// The state of the `bench` graph.
#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
#[serde(default)]
pub struct Bench {
    /// Nodes run so far.
    pub count: u64,
    /// The names of the nodes run, in order.
    #[state(append)]
    pub log: Vec<String>,
}

/// The `bench` graph, compiled.
pub fn bench_graph() -> Result<CompiledGraph<Bench>, CompileError> {
    let mut graph = StateGraph::<Bench>::new();
    for node in ["plan", "act", "review"] {
        graph.add_sync_node(node, move |state, _| {
            Ok::<_, NodeError>(
                BenchUpdate::default()
                    .count(state.count + 1)
                    .log(vec![node.to_string()]),
            )
        });
    }
    graph
        .add_edge(START, "plan")
        .add_edge("plan", "act")
        .add_edge("act", "review")
        .add_edge("review", END);
    graph.compile()
}
