//! `NodeContext`: run id, thread id, node name, step and attempt as nodes see
//! them.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use rebound_graph::{
    CompiledGraph, Event, NodeContext, NodeError, RunConfig, RunId, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct S {
    #[state(append)]
    log: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
struct Seen {
    run_id: RunId,
    thread_id: Option<String>,
    node: String,
    step: u64,
    attempt: u32,
}

type Record = Arc<Mutex<Vec<Seen>>>;

fn seen(ctx: &NodeContext) -> Seen {
    Seen {
        run_id: ctx.run_id(),
        thread_id: ctx.thread_id().map(str::to_string),
        node: ctx.node().to_string(),
        step: ctx.step(),
        attempt: ctx.attempt(),
    }
}

/// START -> first -> {left, right} -> last -> END; left is async.
fn graph(record: &Record) -> CompiledGraph<S> {
    let mut graph = StateGraph::<S>::new();
    for name in ["first", "right", "last"] {
        let record = Arc::clone(record);
        graph.add_sync_node(name, move |_, ctx| {
            record.lock().unwrap().push(seen(ctx));
            Ok(SUpdate::default())
        });
    }
    let record = Arc::clone(record);
    graph
        .add_node("left", move |_, ctx: NodeContext| {
            let record = Arc::clone(&record);
            async move {
                tokio::task::yield_now().await;
                record.lock().unwrap().push(seen(&ctx));
                Ok::<_, NodeError>(SUpdate::default())
            }
        })
        .add_edge(START, "first")
        .add_edge("first", "left")
        .add_edge("first", "right")
        .add_join(["left", "right"], "last")
        .add_edge("last", END);
    graph.compile().unwrap()
}

fn sorted(record: &Record) -> Vec<Seen> {
    let mut all = record.lock().unwrap().clone();
    all.sort_by(|a, b| (a.step, &a.node).cmp(&(b.step, &b.node)));
    all
}

#[tokio::test]
async fn context_fields_as_seen_by_nodes() {
    let record = Record::default();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    graph(&record)
        .invoke(
            S::default(),
            RunConfig::new().with_thread_id("thread-7").with_events(tx),
        )
        .await
        .unwrap();
    let Some(Event::RunStarted { run_id, thread_id }) = rx.recv().await else {
        panic!("the first event should be run_started");
    };
    assert_eq!(thread_id.as_deref(), Some("thread-7"));
    let expect = |node: &str, step: u64| Seen {
        run_id,
        thread_id: Some("thread-7".to_string()),
        node: node.to_string(),
        step,
        attempt: 1,
    };
    assert_eq!(
        sorted(&record),
        [
            expect("first", 0),
            expect("left", 1),
            expect("right", 1),
            expect("last", 2),
        ]
    );
}

#[tokio::test]
async fn thread_id_is_none_without_config() {
    let record = Record::default();
    graph(&record)
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    let all = sorted(&record);
    assert_eq!(all.len(), 4);
    assert!(all.iter().all(|s| s.thread_id.is_none()));
}

#[tokio::test]
async fn each_run_gets_its_own_run_id() {
    let record = Record::default();
    let compiled = graph(&record);
    compiled
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    compiled
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    let all = record.lock().unwrap().clone();
    assert_eq!(all.len(), 8);
    let first = all[0].run_id;
    assert!(all[..4].iter().all(|s| s.run_id == first));
    let second = all[4].run_id;
    assert!(all[4..].iter().all(|s| s.run_id == second));
    assert_ne!(first, second);
    // Ids are time-sortable (UUID v7).
    assert!(first < second);
}

#[test]
fn run_config_accessors() {
    let config = RunConfig::new().with_thread_id("t");
    assert_eq!(config.thread_id(), Some("t"));
    assert_eq!(RunConfig::new().thread_id(), None);
    assert_ne!(RunId::new(), RunId::new());
    assert_eq!(RunId::new().to_string().len(), 36);
}

#[tokio::test]
async fn node_names_of_a_compiled_graph() {
    let record = Record::default();
    assert_eq!(
        graph(&record).node_names().collect::<Vec<_>>(),
        ["first", "right", "last", "left"]
    );
}
