//! Map-reduce with `Send`: summarise N documents in parallel, then join the
//! summaries. The router of `split` sends one task per document to
//! `summarize`, each with its document as payload; the summaries land in an
//! append field in the order they were sent, whatever order the tasks
//! finish in; `join` runs once, after all of them.
//!
//! Run it with `cargo run -p rebound-graph --example map_reduce`.

use std::time::Duration;

use rebound_graph::checkpoint::MemorySaver;
use rebound_graph::{NodeError, RunConfig, State, StateGraph, END, START};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The graph's state: the documents in, the summaries and the report out.
#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct Digest {
    /// The documents to summarise.
    documents: Vec<String>,
    /// One summary per document, in the order the documents were sent.
    #[state(append)]
    summaries: Vec<String>,
    /// The joined report.
    report: String,
}

/// One document's summary: its first sentence and its length.
fn summarize(document: &str) -> String {
    let first = document.split('.').next().unwrap_or_default().trim();
    let words = document.split_whitespace().count();
    format!("{first} ({words} words)")
}

/// One task per document: the map.
fn split(state: &Digest) -> Vec<rebound_graph::Send> {
    state
        .documents
        .iter()
        .map(|document| rebound_graph::Send::new("summarize", json!(document)))
        .collect()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut graph = StateGraph::<Digest>::new();
    graph
        .add_sync_node("split", |_, _| Ok(DigestUpdate::default()))
        .add_node("summarize", |_, ctx| async move {
            let document: String = ctx
                .send_arg()?
                .ok_or_else(|| NodeError::msg("summarize runs only when sent a document"))?;
            // Stands in for a model call: the longer documents take longer.
            tokio::time::sleep(Duration::from_millis(document.len() as u64 / 4)).await;
            Ok(DigestUpdate::default().summaries(vec![summarize(&document)]))
        })
        .add_sync_node("join", |state, _| {
            Ok(DigestUpdate::default().report(state.summaries.join("\n")))
        })
        .add_edge(START, "split")
        .add_conditional_edges("split", split, ["summarize"])
        .add_edge("summarize", "join")
        .add_edge("join", END);
    let graph = graph
        .compile()?
        .with_checkpointer(std::sync::Arc::new(MemorySaver::new()));

    let documents = [
        "The engine runs supersteps. Each merges its nodes' updates at a barrier.",
        "Checkpoints store what changed. A field that did not change is not stored again.",
        "Sends fan out. Every send is a task of its own with a payload of its own.",
    ];
    let input = Digest {
        documents: documents.iter().map(|d| d.to_string()).collect(),
        ..Digest::default()
    };
    let done = graph
        .invoke(input, RunConfig::new().with_thread_id("digest"))
        .await?;
    println!("{}", done.report);
    Ok(())
}
