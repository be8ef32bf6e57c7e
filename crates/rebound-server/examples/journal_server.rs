//! A server whose graph makes journaled side effects: each node appends a
//! line to a file through `NodeContext::journal`, then works for a while.
//! The restart test kills it mid-run and counts the lines.
//!
//! `journal_server <state.db> <addr> <effects file> <workers> <work ms>`

use std::io::Write;
use std::time::Duration;

use rebound_graph::{NodeContext, NodeError, State, StateGraph, END, START};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
#[serde(default)]
struct Work {
    #[state(append)]
    done: Vec<String>,
}

async fn step(ctx: &NodeContext, effects: &str, work: Duration) -> Result<WorkUpdate, NodeError> {
    let line = format!("{}:{}\n", ctx.thread_id().unwrap_or("-"), ctx.node());
    let path = effects.to_string();
    ctx.journal("effect", async move {
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut file| file.write_all(line.as_bytes()));
        written.is_ok()
    })
    .await?;
    tokio::time::sleep(work).await;
    Ok(WorkUpdate::default().done(vec![ctx.node().to_string()]))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, db, addr, effects, workers, work_ms] = args.as_slice() else {
        return Err(
            "usage: journal_server <state.db> <addr> <effects file> <workers> <work ms>".into(),
        );
    };
    let work = Duration::from_millis(work_ms.parse()?);
    let mut graph = StateGraph::<Work>::new();
    for node in ["a", "b", "c"] {
        let effects = effects.clone();
        graph.add_node(node, move |_, ctx| {
            let effects = effects.clone();
            async move { step(&ctx, &effects, work).await }
        });
    }
    graph
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", "c")
        .add_edge("c", END);
    let server = rebound_server::Server::builder()
        .database(db)
        .graph("work", graph.compile()?)
        .workers(workers.parse()?)
        .build()?;
    let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
    println!("listening on {}", listener.local_addr()?);
    server.serve(listener).await?;
    Ok(())
}
