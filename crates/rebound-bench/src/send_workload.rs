//! The `send` workload: map-reduce fan-out. START -> fanout, whose router
//! emits K sends -> work (a trivial sync node appending its payload) -> END,
//! on the in-memory saver: one superstep of K tasks. The nodes do next to
//! nothing, so the run's wall time is the engine's overhead (routing the
//! sends, running and merging K tasks, two checkpoints that list them).

use std::sync::Arc;
use std::time::Instant;

use anyhow::{ensure, Context, Result};
use rebound_graph::checkpoint::MemorySaver;
use rebound_graph::{CompiledGraph, Route, RunConfig, Send, State, StateGraph, END, START};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::workloads::{line, round};

/// How many timed runs the median is taken over.
const RUNS: usize = 21;

/// The fan-out's state: how many sends, and the numbers the tasks appended.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, State)]
pub struct Fan {
    /// The number of sends K.
    pub k: u64,
    /// The sent numbers, in emission order once merged.
    #[state(append)]
    pub items: Vec<u64>,
}

/// START -> fanout =(K sends of 0..K)=> work -> END.
fn build() -> Result<CompiledGraph<Fan>> {
    let mut graph = StateGraph::<Fan>::new();
    graph
        .add_sync_node("fanout", |_, _| Ok(FanUpdate::default()))
        .add_sync_node("work", |_, ctx| {
            let n: u64 = ctx.send_arg()?.unwrap_or_default();
            Ok(FanUpdate::default().items(vec![n]))
        })
        .add_edge(START, "fanout")
        .add_conditional_edges(
            "fanout",
            |s: &Fan| Route::sends((0..s.k).map(|i| Send::new("work", i))),
            ["work"],
        )
        .add_edge("work", END);
    Ok(graph.compile()?)
}

fn verify(k: u64, state: &Fan) -> bool {
    state.items.iter().copied().eq(0..k)
}

/// The median of `samples` (sorted in place), in microseconds.
fn median_us(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(f64::NAN) * 1e6
}

/// Times `RUNS` runs of `graph` (each on a fresh thread of a fresh saver
/// when `saved`), after one warm-up; returns the median wall time in
/// microseconds, and whether every run ended in the right state.
async fn time_runs(graph: &CompiledGraph<Fan>, k: u64, saved: bool) -> Result<(f64, f64, bool)> {
    let mut samples = Vec::with_capacity(RUNS);
    let mut verified = true;
    for run in 0..=RUNS {
        let (graph, config) = if saved {
            let saver = Arc::new(MemorySaver::new());
            let config = RunConfig::new().with_thread_id(format!("send-{run}"));
            (graph.clone().with_checkpointer(saver), config)
        } else {
            (graph.clone(), RunConfig::new())
        };
        let input = Fan {
            k,
            items: Vec::new(),
        };
        let started = Instant::now();
        let state = graph.invoke(input, config).await?;
        let wall = started.elapsed().as_secs_f64();
        verified &= verify(k, &state);
        if run > 0 {
            samples.push(wall);
        }
    }
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min) * 1e6;
    Ok((median_us(&mut samples), min, verified))
}

/// `send --k K`: one superstep of K sends on the in-memory saver (and, as
/// an extra, without a checkpointer). Reports the median of 21 runs.
pub async fn send(k: usize) -> Result<Value> {
    let k = u64::try_from(k).context("--k is too large")?;
    ensure!(k > 0, "--k must be at least 1");
    let graph = build().context("compiling the fan-out graph")?;
    let (saved_us, saved_min_us, saved_ok) = time_runs(&graph, k, true).await?;
    let (bare_us, bare_min_us, bare_ok) = time_runs(&graph, k, false).await?;
    let node_steps = i64::try_from(k + 1).unwrap_or(i64::MAX);
    Ok(line(
        "send",
        node_steps,
        saved_us / 1e6,
        saved_ok && bare_ok,
        json!({
            "k": k,
            "runs": RUNS,
            "checkpointer": "memory",
            "total_us": round(saved_us, 1),
            "min_total_us": round(saved_min_us, 1),
            "us_per_send": round(saved_us / k as f64, 4),
            "target_total_us": 5000,
            "no_checkpointer_total_us": round(bare_us, 1),
            "no_checkpointer_min_total_us": round(bare_min_us, 1),
            "no_checkpointer_us_per_send": round(bare_us / k as f64, 4),
        }),
    ))
}
