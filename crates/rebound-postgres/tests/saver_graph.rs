//! A real graph on `PostgresSaver`: a dynamic interrupt answered from a
//! second saver (another "process"), a static interrupt, resume to the
//! end, journaled calls not repeated, and the same states and history as
//! the same runs on `MemorySaver`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod saver_common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rebound_graph::checkpoint::{Checkpointer, MemorySaver};
use rebound_graph::{
    CompiledGraph, NodeError, RunConfig, RunOutcome, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Deploy {
    #[state(append)]
    done: Vec<String>,
    approved_by: Option<String>,
}

/// START -> build -> approve (asks a human) -> ship -> END; `calls`
/// counts the journaled side effects actually run.
fn graph(saver: Arc<dyn Checkpointer>, calls: Arc<AtomicUsize>) -> CompiledGraph<Deploy> {
    let mut graph = StateGraph::<Deploy>::new();
    let build_calls = Arc::clone(&calls);
    graph
        .add_node("build", move |_, ctx| {
            let calls = Arc::clone(&build_calls);
            async move {
                ctx.journal("compile", async { calls.fetch_add(1, Ordering::SeqCst) })
                    .await?;
                Ok::<_, NodeError>(DeployUpdate::default().done(vec!["build".into()]))
            }
        })
        .add_node("approve", move |_, ctx| {
            let calls = Arc::clone(&calls);
            async move {
                // Made before the interrupt: replayed, not repeated, on resume.
                ctx.journal("notify", async { calls.fetch_add(1, Ordering::SeqCst) })
                    .await?;
                let who: String = ctx.interrupt(json!({"question": "deploy?"}))?;
                Ok::<_, NodeError>(
                    DeployUpdate::default()
                        .done(vec![format!("approved by {who}")])
                        .approved_by(Some(who)),
                )
            }
        })
        .add_sync_node("ship", |_, _| {
            Ok(DeployUpdate::default().done(vec!["ship".into()]))
        })
        .add_edge(START, "build")
        .add_edge("build", "approve")
        .add_edge("approve", "ship")
        .add_edge("ship", END);
    graph.compile().unwrap().with_checkpointer(saver)
}

/// What one run through the scenario shows.
#[derive(Debug, PartialEq)]
struct Seen {
    first: Vec<serde_json::Value>,
    after_answer: Vec<String>,
    last: Deploy,
    history: Vec<(u64, bool, usize)>,
    side_effects: usize,
}

/// Runs to the question on `first`, answers it on `second` (stopping
/// before `ship`), and finishes on `first`.
async fn scenario(first: Arc<dyn Checkpointer>, second: Arc<dyn Checkpointer>) -> Seen {
    let calls = Arc::new(AtomicUsize::new(0));
    let a = graph(first, Arc::clone(&calls));
    let b = graph(second, Arc::clone(&calls));
    let config = RunConfig::new().with_thread_id("deploy-7");

    let outcome = a.run(Deploy::default(), config.clone()).await.unwrap();
    assert!(outcome.is_interrupted());
    let first_payloads = outcome
        .interrupts()
        .iter()
        .map(|i| i.payload.clone())
        .collect();

    let outcome = b
        .resume_with(
            json!("alice"),
            config.clone().with_interrupt_before(["ship"]),
        )
        .await
        .unwrap();
    assert!(outcome.is_interrupted());
    let after_answer = outcome.state().done.clone();

    let RunOutcome::Completed(last) = a.resume(config.clone()).await.unwrap() else {
        panic!("the run should have finished");
    };
    let history = a
        .history(&config, None, None)
        .await
        .unwrap()
        .into_iter()
        .map(|info| (info.step, info.snapshot, info.state_bytes))
        .collect();
    Seen {
        first: first_payloads,
        after_answer,
        last,
        history,
        side_effects: calls.load(Ordering::SeqCst),
    }
}

#[tokio::test]
async fn interrupts_and_resume_across_savers_match_memory_saver() {
    let Some((db, first)) = saver_common::fresh().await else {
        return;
    };
    let second = saver_common::connect(&db).await;
    let first: Arc<dyn Checkpointer> = Arc::new(first);
    let postgres = scenario(Arc::clone(&first), Arc::new(second)).await;

    let memory: Arc<dyn Checkpointer> = Arc::new(MemorySaver::new());
    let expected = scenario(Arc::clone(&memory), memory).await;

    assert_eq!(postgres, expected);
    assert_eq!(
        postgres.last,
        Deploy {
            done: vec!["build".into(), "approved by alice".into(), "ship".into()],
            approved_by: Some("alice".into()),
        }
    );
    assert_eq!(postgres.side_effects, 2, "a journaled call ran again");
    assert_eq!(postgres.first, vec![json!({"question": "deploy?"})]);

    // The run released its thread; the store lists it.
    first.acquire("deploy-7").await.unwrap();
    first.release("deploy-7").await.unwrap();
    let threads = first.threads().await.unwrap();
    assert_eq!(threads.len(), 1);
    assert_eq!(threads[0].checkpoints as usize, postgres.history.len());
}
