//! What the subgraph tests share: a chat state, a chain of nodes, a child
//! that asks a question.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rebound_graph::{
    CompiledGraph, GraphError, NodeContext, NodeError, RunConfig, State, StateGraph, SubgraphError,
    END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
pub struct Chat {
    #[state(append)]
    pub messages: Vec<String>,
    pub topic: String,
    pub count: u32,
}

pub fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
}

pub fn say(word: &str) -> ChatUpdate {
    ChatUpdate::default().messages(vec![word.to_string()])
}

pub fn counter() -> Arc<AtomicUsize> {
    Arc::new(AtomicUsize::new(0))
}

pub fn count(c: &AtomicUsize) -> usize {
    c.load(Ordering::SeqCst)
}

/// A chain of sync nodes, each appending its name; `count` counts them all.
pub fn chain(names: &[&'static str], runs: &Arc<AtomicUsize>) -> StateGraph<Chat> {
    let mut graph = StateGraph::<Chat>::new();
    let mut previous = START;
    for &name in names {
        let runs = Arc::clone(runs);
        graph
            .add_sync_node(name, move |s: &Chat, _| {
                runs.fetch_add(1, Ordering::SeqCst);
                Ok(say(name).count(s.count + 1))
            })
            .add_edge(previous, name);
        previous = name;
    }
    graph.add_edge(previous, END);
    graph
}

/// START -> work -> ask -> END: `work` journals an effect; `ask` journals
/// one, then asks.
pub fn asking_child(
    effects: &Arc<AtomicUsize>,
    work_runs: &Arc<AtomicUsize>,
) -> CompiledGraph<Chat> {
    let (effects, work_runs) = (Arc::clone(effects), Arc::clone(work_runs));
    let mut child = StateGraph::<Chat>::new();
    child
        .add_node("work", move |_, ctx: NodeContext| {
            let (effects, work_runs) = (Arc::clone(&effects), Arc::clone(&work_runs));
            async move {
                work_runs.fetch_add(1, Ordering::SeqCst);
                ctx.journal("work-effect", async move {
                    effects.fetch_add(1, Ordering::SeqCst);
                })
                .await?;
                Ok::<_, NodeError>(say("work"))
            }
        })
        .add_node("ask", |_, ctx: NodeContext| async move {
            let answer: String = ctx.interrupt(json!({"question": "go?"}))?;
            Ok::<_, NodeError>(say(&answer))
        })
        .add_edge(START, "work")
        .add_edge("work", "ask")
        .add_edge("ask", END);
    child.compile().unwrap()
}

pub fn one_subgraph(name: &str, child: CompiledGraph<Chat>) -> StateGraph<Chat> {
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_subgraph(name, child)
        .add_edge(START, name)
        .add_edge(name, END);
    parent
}

pub fn node_source(error: &GraphError) -> (&str, &SubgraphError) {
    match error {
        GraphError::Node { node, source, .. } => (
            node.as_str(),
            source
                .downcast_ref::<SubgraphError>()
                .expect("a subgraph error"),
        ),
        other => panic!("expected a node error, got {other:?}"),
    }
}
