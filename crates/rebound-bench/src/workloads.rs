//! The workloads of bench/WORKLOADS.md §2 that need no checkpointer: W0 `ref`,
//! W1 `steps` and W4a `concurrent`. Each returns its one JSON line.

use std::time::Instant;

use anyhow::{bail, Context, Result};
use std::sync::Arc;

use rebound_graph::checkpoint::{Checkpointer, MemorySaver};
use rebound_graph::{Durability, Event, RunConfig};
use serde_json::{json, Value};

use crate::pev::{self, NodeKind, Pev};
use crate::rss::peak_rss_mb;

pub fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

/// The nearest-rank percentile `p` (0..=1) of `values` (sorted in place);
/// `None` when there are none.
pub fn percentile(values: &mut [f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = (p * values.len() as f64).ceil() as usize;
    values.get(rank.clamp(1, values.len()) - 1).copied()
}

pub fn line(workload: &str, node_steps: i64, wall_s: f64, verified: bool, extras: Value) -> Value {
    let mut out = json!({
        "workload": workload,
        "node_steps": node_steps,
        "wall_s": round(wall_s, 6),
        "us_per_step": round(wall_s / node_steps.max(1) as f64 * 1e6, 4),
        "peak_rss_mb": round(peak_rss_mb(), 2),
        "db_bytes": null,
        "verified": verified,
    });
    if let (Some(out), Value::Object(extras)) = (out.as_object_mut(), extras) {
        out.extend(extras);
    }
    out
}

/// W0: the node logic as a plain loop.
pub fn reference(n: i64) -> Value {
    let started = Instant::now();
    let state = std::hint::black_box(pev::reference(std::hint::black_box(n)));
    let wall = started.elapsed().as_secs_f64();
    let verified = pev::verify(n, &state);
    line("ref", state.log_len, wall, verified, json!({ "n": n }))
}

/// W1: one run with no checkpointer, timed with `invoke` (nobody listening to
/// events) and again with `stream` (every event built, sent and received).
pub async fn steps(n: i64) -> Result<Value> {
    let compile_started = Instant::now();
    let graph = pev::build(NodeKind::Sync).context("compiling pev")?;
    let compile_s = compile_started.elapsed().as_secs_f64();
    let config = || RunConfig::new().with_recursion_limit(pev::recursion_limit(n));

    let warm = graph.invoke(Pev::initial(20), config()).await?;
    if !pev::verify(20, &warm) {
        bail!("the warm-up run ended in the wrong state: {warm:?}");
    }

    let started = Instant::now();
    let state = graph.invoke(Pev::initial(n), config()).await?;
    let wall = started.elapsed().as_secs_f64();
    let verified = pev::verify(n, &state);

    let started = Instant::now();
    let mut stream = graph.stream(Pev::initial(n), config());
    let mut events = 0u64;
    while let Some(event) = stream.next_event().await {
        std::hint::black_box(&event);
        if !matches!(event, Event::NodeStarted { .. }) {
            events += 1;
        }
    }
    let streamed = stream.result().await?;
    let stream_wall = started.elapsed().as_secs_f64();
    let stream_verified = pev::verify(n, &streamed);

    Ok(line(
        "steps",
        state.log_len,
        wall,
        verified && stream_verified,
        json!({
            "n": n,
            "compile_s": round(compile_s, 6),
            "stream_wall_s": round(stream_wall, 6),
            "stream_us_per_step": round(stream_wall / state.log_len.max(1) as f64 * 1e6, 4),
            "stream_events": events,
        }),
    ))
}

/// W4a: K concurrent runs of N=20 with async nodes, each on its own task.
pub async fn concurrent(k: usize, m: i64, runtime: &str) -> Result<Value> {
    let graph = pev::build(NodeKind::Async).context("compiling pev")?;
    let config = RunConfig::new().with_recursion_limit(pev::recursion_limit(m));
    let warm = graph.invoke(Pev::initial(m), config.clone()).await?;
    if !pev::verify(m, &warm) {
        bail!("the warm-up run ended in the wrong state: {warm:?}");
    }

    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..k {
        let graph = graph.clone();
        let config = config.clone();
        tasks.spawn(async move { graph.invoke(Pev::initial(m), config).await });
    }
    let mut steps = 0i64;
    let mut verified = true;
    while let Some(joined) = tasks.join_next().await {
        let state = joined.context("a run's task failed")??;
        verified &= pev::verify(m, &state);
        steps += state.log_len;
    }
    let wall = started.elapsed().as_secs_f64();
    Ok(line(
        "concurrent",
        steps,
        wall,
        verified,
        json!({
            "k": k,
            "m": m,
            "runtime": runtime,
            "runs_per_s": round(k as f64 / wall, 1),
        }),
    ))
}

/// Counts a thread's checkpoints.
async fn count_checkpoints(saver: &dyn Checkpointer, thread: &str) -> Result<usize> {
    Ok(saver.list(thread, None, None).await?.len())
}

/// W2: one run with the in-memory checkpointer: a real checkpoint (a delta
/// or a snapshot of the state) per superstep.
pub async fn steps_mem(n: i64, durability: Durability) -> Result<Value> {
    let graph = pev::build(NodeKind::Sync).context("compiling pev")?;
    let config = |thread: &str| {
        RunConfig::new()
            .with_thread_id(thread)
            .with_recursion_limit(pev::recursion_limit(n))
            .with_durability(durability)
    };
    let warm_saver = Arc::new(MemorySaver::new());
    let warm = graph
        .clone()
        .with_checkpointer(warm_saver)
        .invoke(Pev::initial(20), config("warm"))
        .await?;
    if !pev::verify(20, &warm) {
        bail!("the warm-up run ended in the wrong state: {warm:?}");
    }

    let saver = Arc::new(MemorySaver::new());
    let graph = graph.with_checkpointer(saver.clone());
    let started = Instant::now();
    let state = graph.invoke(Pev::initial(n), config("w2")).await?;
    let wall = started.elapsed().as_secs_f64();
    let stored = graph.get_state(&config("w2")).await?;
    let verified = pev::verify(n, &state) && pev::verify(n, &stored.values);
    let checkpoints = count_checkpoints(saver.as_ref(), "w2").await?;
    Ok(line(
        "steps-mem",
        state.log_len,
        wall,
        verified,
        json!({
            "n": n,
            "checkpoints": checkpoints,
            "durability": durability_name(durability),
        }),
    ))
}

/// The name of a durability mode, as reported.
pub fn durability_name(durability: Durability) -> &'static str {
    durability.name()
}
