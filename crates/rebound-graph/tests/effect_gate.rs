//! The effect gate and idempotency keys of journaled calls: a refused gate
//! stops the call before it runs, a replayed call is not gated, and a keyed
//! call gets the same key each time its superstep runs again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rebound_graph::checkpoint::MemorySaver;
use rebound_graph::{
    EffectGate, GraphError, Input, NodeError, RunConfig, RunOutcome, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Log {
    #[state(append)]
    log: Vec<String>,
}

/// A gate that holds while `open` is set, counting its checks.
fn gate(open: &Arc<AtomicBool>, checks: &Arc<AtomicUsize>) -> EffectGate {
    let (open, checks) = (Arc::clone(open), Arc::clone(checks));
    EffectGate::new(move || {
        let open = open.load(Ordering::SeqCst);
        checks.fetch_add(1, Ordering::SeqCst);
        async move {
            if open {
                Ok(())
            } else {
                Err("the lease of run r1 is lost".to_string())
            }
        }
    })
}

#[tokio::test]
async fn a_refused_gate_stops_the_call_and_a_replayed_call_is_not_gated() {
    let effects = Arc::new(AtomicUsize::new(0));
    let mut graph = StateGraph::<Log>::new();
    graph
        .add_node("act", {
            let effects = Arc::clone(&effects);
            move |_, ctx| {
                let effects = Arc::clone(&effects);
                async move {
                    let n: usize = ctx
                        .journal("effect", async {
                            effects.fetch_add(1, Ordering::SeqCst) + 1
                        })
                        .await?;
                    let answer: String = ctx.interrupt(json!({"after": n}))?;
                    Ok(LogUpdate::default().log(vec![format!("effect {n}, {answer}")]))
                }
            }
        })
        .add_edge(START, "act")
        .add_edge("act", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()));
    let (open, checks) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicUsize::new(0)),
    );

    // Refused: the effect does not happen, the node fails permanently.
    let config = RunConfig::new()
        .with_thread_id("refused")
        .with_effect_gate(gate(&open, &checks));
    match graph.run(Log::default(), config).await {
        Err(GraphError::Node { source, .. }) => {
            assert!(
                source.to_string().contains("lease of run r1 is lost"),
                "{source}"
            );
        }
        other => panic!("expected the node to fail, got {other:?}"),
    }
    assert_eq!(effects.load(Ordering::SeqCst), 0);
    assert_eq!(checks.load(Ordering::SeqCst), 1);

    // Open: the effect runs once, then the node waits for an answer.
    open.store(true, Ordering::SeqCst);
    let config = RunConfig::new()
        .with_thread_id("open")
        .with_effect_gate(gate(&open, &checks));
    let outcome = graph.run(Log::default(), config.clone()).await.unwrap();
    assert!(matches!(outcome, RunOutcome::Interrupted { .. }));
    assert_eq!(effects.load(Ordering::SeqCst), 1);
    assert_eq!(checks.load(Ordering::SeqCst), 2);

    // Closed again: the resumed node replays its effect, which needs no
    // gate, and finishes.
    open.store(false, Ordering::SeqCst);
    let outcome = graph
        .run(Input::ResumeWith(json!("yes")), config)
        .await
        .unwrap();
    let RunOutcome::Completed(state) = outcome else {
        panic!("expected the run to finish, got {outcome:?}");
    };
    assert_eq!(state.log, vec!["effect 1, yes".to_string()]);
    assert_eq!(effects.load(Ordering::SeqCst), 1);
    assert_eq!(checks.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_keyed_call_gets_the_same_key_when_its_superstep_runs_again() {
    let keys = Arc::new(Mutex::new(Vec::<String>::new()));
    let fail_first = Arc::new(AtomicBool::new(true));
    let mut graph = StateGraph::<Log>::new();
    graph
        .add_node("send", {
            let (keys, fail_first) = (Arc::clone(&keys), Arc::clone(&fail_first));
            move |_, ctx| {
                let (keys, fail_first) = (Arc::clone(&keys), Arc::clone(&fail_first));
                async move {
                    let mut sent = Vec::new();
                    for _ in 0..2 {
                        let keys = Arc::clone(&keys);
                        let fail = fail_first.swap(false, Ordering::SeqCst);
                        let key: String = ctx
                            .try_journal_keyed("email", |key| async move {
                                keys.lock().unwrap().push(key.clone());
                                if fail {
                                    Err(NodeError::msg("the mail server hung up").permanent())
                                } else {
                                    Ok(key)
                                }
                            })
                            .await?;
                        sent.push(key);
                    }
                    Ok(LogUpdate::default().log(sent))
                }
            }
        })
        .add_edge(START, "send")
        .add_edge("send", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()));
    let config = RunConfig::new().with_thread_id("mail");
    assert!(graph.run(Log::default(), config.clone()).await.is_err());
    let outcome = graph.run(Input::Resume, config).await.unwrap();
    let RunOutcome::Completed(state) = outcome else {
        panic!("expected the run to finish, got {outcome:?}");
    };
    let keys = keys.lock().unwrap().clone();
    // The failed first try and its retry share a key; the second use has
    // its own; both start with the thread.
    assert_eq!(keys.len(), 3, "{keys:?}");
    assert_eq!(keys[0], keys[1]);
    assert_ne!(keys[1], keys[2]);
    assert!(keys.iter().all(|k| k.starts_with("mail/")), "{keys:?}");
    assert_eq!(state.log, vec![keys[1].clone(), keys[2].clone()]);
}
