//! Subgraphs on the SQLite saver: an interrupt two levels deep survives
//! closing the database, and the resume reaches the innermost child
//! without repeating its journaled effect or the nodes that finished.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rebound_graph::checkpoint::Checkpointer;
use rebound_graph::subgraph::is_subgraph_thread;
use rebound_graph::{
    CompiledGraph, NodeContext, NodeError, RunConfig, RunOutcome, State, StateGraph, END, START,
};
use rebound_sqlite::SqliteSaver;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Chat {
    #[state(append)]
    messages: Vec<String>,
}

fn say(word: &str) -> ChatUpdate {
    ChatUpdate::default().messages(vec![word.to_string()])
}

/// parent: p1 -> outer{ c1 -> inner{ ask } }; `ask` journals an effect,
/// then asks.
fn graph(effects: &Arc<AtomicUsize>, runs: &Arc<AtomicUsize>) -> CompiledGraph<Chat> {
    let effects = Arc::clone(effects);
    let mut grandchild = StateGraph::<Chat>::new();
    grandchild
        .add_node("ask", move |_, ctx: NodeContext| {
            let effects = Arc::clone(&effects);
            async move {
                ctx.journal("effect", async move {
                    effects.fetch_add(1, Ordering::SeqCst);
                })
                .await?;
                let answer: String = ctx.interrupt("deep?")?;
                Ok::<_, NodeError>(say(&answer))
            }
        })
        .add_edge(START, "ask")
        .add_edge("ask", END);
    let mut child = StateGraph::<Chat>::new();
    let c1 = Arc::clone(runs);
    child
        .add_sync_node("c1", move |_, _| {
            c1.fetch_add(1, Ordering::SeqCst);
            Ok(say("c1"))
        })
        .add_subgraph("inner", grandchild.compile().unwrap())
        .add_edge(START, "c1")
        .add_edge("c1", "inner")
        .add_edge("inner", END);
    let mut parent = StateGraph::<Chat>::new();
    let p1 = Arc::clone(runs);
    parent
        .add_sync_node("p1", move |_, _| {
            p1.fetch_add(1, Ordering::SeqCst);
            Ok(say("p1"))
        })
        .add_subgraph("outer", child.compile().unwrap())
        .add_edge(START, "p1")
        .add_edge("p1", "outer")
        .add_edge("outer", END);
    parent.compile().unwrap()
}

#[tokio::test]
async fn an_interrupt_two_levels_deep_resumes_after_reopening_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rebound.db");
    let (effects, runs) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let config = RunConfig::new().with_thread_id("deep");
    let id = "1:outer/1:inner/0:ask:0";
    {
        let saver = Arc::new(SqliteSaver::open_default(&path).unwrap());
        let parent = graph(&effects, &runs).with_checkpointer(saver.clone());
        let outcome = parent.run(Chat::default(), config.clone()).await.unwrap();
        assert_eq!(outcome.interrupts().len(), 1);
        assert_eq!(outcome.interrupts()[0].id, id);
        let (_, subgraphs) = parent.get_state_with_subgraphs(&config).await.unwrap();
        assert_eq!(
            subgraphs[0].snapshot.values["messages"],
            json!(["p1", "c1"])
        );
        assert_eq!(
            subgraphs[0].subgraphs[0].snapshot.interrupts[0].id,
            "0:ask:0"
        );
        let threads = saver.threads().await.unwrap();
        assert_eq!(threads.len(), 3);
        assert_eq!(
            threads
                .iter()
                .filter(|t| is_subgraph_thread(&t.thread_id))
                .count(),
            2
        );
    }
    let saver = Arc::new(SqliteSaver::open_default(&path).unwrap());
    let parent = graph(&effects, &runs).with_checkpointer(saver);
    let answers = BTreeMap::from([(id.to_string(), json!("from sqlite"))]);
    let outcome = parent
        .resume_with_map(answers, config.clone())
        .await
        .unwrap();
    let RunOutcome::Completed(done) = outcome else {
        panic!("expected completion, got {outcome:?}");
    };
    assert_eq!(done.messages, ["p1", "c1", "from sqlite"]);
    assert_eq!(runs.load(Ordering::SeqCst), 2, "p1 and c1 ran once each");
    assert_eq!(effects.load(Ordering::SeqCst), 1, "the effect ran once");
    assert_eq!(parent.get_state(&config).await.unwrap().values, done);
}
