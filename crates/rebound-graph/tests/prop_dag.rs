//! Property test: any DAG wired with plain edges (one predecessor) and joins
//! (several predecessors) runs every node exactly once, each after all of its
//! predecessors, in the superstep given by its longest path from START, and
//! merges each superstep's appends in node-name order.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use rebound_graph::{NodeContext, NodeError, RunConfig, State, StateGraph, END, START};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct Trace {
    #[state(append)]
    order: Vec<String>,
    #[state(append)]
    steps: Vec<(String, u64)>,
}

fn name(i: usize) -> String {
    format!("n{i:02}")
}

fn visit(_: &Trace, ctx: &NodeContext) -> Result<TraceUpdate, NodeError> {
    Ok(TraceUpdate::default()
        .order(vec![ctx.node().to_string()])
        .steps(vec![(ctx.node().to_string(), ctx.step())]))
}

/// `n` nodes and, for each pair `i < j` in row order, whether `i -> j` exists.
fn dag() -> impl Strategy<Value = (usize, Vec<bool>)> {
    (1usize..=12).prop_flat_map(|n| {
        (
            Just(n),
            prop::collection::vec(any::<bool>(), n * (n - 1) / 2),
        )
    })
}

fn predecessors(n: usize, edges: &[bool]) -> Vec<Vec<usize>> {
    let mut preds = vec![Vec::new(); n];
    let mut k = 0;
    for i in 0..n {
        for pred in preds.iter_mut().skip(i + 1) {
            if edges[k] {
                pred.push(i);
            }
            k += 1;
        }
    }
    preds
}

fn build(n: usize, preds: &[Vec<usize>]) -> StateGraph<Trace> {
    let mut graph = StateGraph::<Trace>::new();
    // Add nodes in a scrambled order so that insertion order is not name order.
    for i in (0..n).rev() {
        graph.add_sync_node(name(i), visit);
    }
    for (j, from) in preds.iter().enumerate() {
        match from.as_slice() {
            [] => {
                graph.add_edge(START, name(j));
            }
            [only] => {
                graph.add_edge(name(*only), name(j));
            }
            many => {
                graph.add_join(many.iter().map(|&i| name(i)), name(j));
            }
        }
    }
    for i in 0..n {
        if !preds.iter().any(|p| p.contains(&i)) {
            graph.add_edge(name(i), END);
        }
    }
    graph
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_dag_runs_each_node_once_after_its_predecessors((n, edges) in dag()) {
        let preds = predecessors(n, &edges);
        let graph = build(n, &preds).compile().expect("a DAG wired this way compiles");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let trace = runtime
            .block_on(graph.invoke(Trace::default(), RunConfig::new()))
            .expect("the run succeeds");

        // Every node exactly once.
        let mut seen = trace.order.clone();
        seen.sort();
        let all: Vec<String> = (0..n).map(name).collect();
        prop_assert_eq!(&seen, &all);

        // Each node after all of its predecessors.
        let position = |i: usize| trace.order.iter().position(|x| *x == name(i)).unwrap();
        for (j, from) in preds.iter().enumerate() {
            for &i in from {
                prop_assert!(position(i) < position(j), "{} ran before its predecessor {}: {:?}", name(j), name(i), trace.order);
            }
        }

        // Superstep of each node = length of its longest path from START.
        let mut depth = vec![0u64; n];
        for j in 0..n {
            depth[j] = preds[j].iter().map(|&i| depth[i] + 1).max().unwrap_or(0);
        }
        let expected: Vec<(String, u64)> = {
            let mut v: Vec<(String, u64)> = (0..n).map(|i| (name(i), depth[i])).collect();
            // Merge order: by superstep, then by node name.
            v.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
            v
        };
        prop_assert_eq!(&trace.steps, &expected);
        let expected_order: Vec<String> = expected.iter().map(|(name, _)| name.clone()).collect();
        prop_assert_eq!(&trace.order, &expected_order);
    }
}
