//! A store opened again, as a new process would open it: it holds every
//! thread, checkpoint and pending write the first saver wrote, and a run
//! goes on from it without repeating journaled effects.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rebound_graph::checkpoint::Checkpointer;
use rebound_graph::{
    CompiledGraph, NodeContext, NodeError, RunConfig, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::backend::{fresh, reopen};
use crate::Backend;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Desk {
    #[state(append)]
    log: Vec<String>,
    count: u32,
}

fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
}

/// START -> work (loops until `count` is 3) -> ask -> END. `work` logs its
/// count; `ask` makes a journaled effect (counted in `effects`), then asks
/// for approval and logs the answer.
fn desk(saver: Arc<dyn Checkpointer>, effects: &Arc<AtomicUsize>) -> CompiledGraph<Desk> {
    let effects = Arc::clone(effects);
    let mut graph = StateGraph::<Desk>::new();
    graph
        .add_sync_node("work", |s: &Desk, _| {
            Ok(DeskUpdate::default()
                .count(s.count + 1)
                .log(vec![format!("work{}", s.count + 1)]))
        })
        .add_node("ask", move |_, ctx: NodeContext| {
            let effects = Arc::clone(&effects);
            async move {
                let made = ctx
                    .journal("effect", async move {
                        effects.fetch_add(1, Ordering::SeqCst) + 1
                    })
                    .await?;
                let answer: String = ctx.interrupt(json!({"question": "ship?"}))?;
                Ok::<_, NodeError>(DeskUpdate::default().log(vec![format!("{answer} {made}")]))
            }
        })
        .add_edge(START, "work")
        .add_conditional_edges(
            "work",
            |s: &Desk| if s.count < 3 { "work" } else { "ask" },
            ["work", "ask"],
        )
        .add_edge("ask", END);
    graph.compile().unwrap().with_checkpointer(saver)
}

/// Everything the first saver wrote reads back the same through a saver
/// that opened the store again: the thread list, every checkpoint of every
/// thread, their pending writes, and the states and history a graph builds
/// from them.
pub async fn a_reopened_store_reads_back_everything_written(backend: &dyn Backend) {
    let effects = Arc::new(AtomicUsize::new(0));
    let saver = fresh(backend).await;
    let graph = desk(Arc::clone(&saver), &effects);
    // "done" finishes; "waiting" stops at the question with its journal entry.
    graph.run(Desk::default(), thread("done")).await.unwrap();
    graph
        .resume_with(json!("yes"), thread("done"))
        .await
        .unwrap();
    let waiting = graph.run(Desk::default(), thread("waiting")).await.unwrap();
    assert!(waiting.is_interrupted());

    let reopened = reopen(backend, &saver).await;
    let threads = saver.threads().await.unwrap();
    assert_eq!(threads.len(), 2);
    assert_eq!(reopened.threads().await.unwrap(), threads);
    let read = desk(Arc::clone(&reopened), &effects);
    for id in ["done", "waiting"] {
        let checkpoints = saver.list(id, None, None).await.unwrap();
        assert_eq!(reopened.list(id, None, None).await.unwrap(), checkpoints);
        for checkpoint in &checkpoints {
            assert_eq!(
                reopened
                    .get(id, Some(checkpoint.id))
                    .await
                    .unwrap()
                    .as_ref(),
                Some(checkpoint)
            );
            assert_eq!(
                reopened.pending_writes(id, checkpoint.id).await.unwrap(),
                saver.pending_writes(id, checkpoint.id).await.unwrap()
            );
            let at = thread(id).with_checkpoint_id(checkpoint.id);
            assert_eq!(
                read.get_state(&at).await.unwrap(),
                graph.get_state(&at).await.unwrap()
            );
        }
        assert_eq!(
            read.history(&thread(id), None, None).await.unwrap(),
            graph.history(&thread(id), None, None).await.unwrap()
        );
        assert_eq!(
            read.get_state(&thread(id)).await.unwrap(),
            graph.get_state(&thread(id)).await.unwrap()
        );
    }
    let waiting = read.get_state(&thread("waiting")).await.unwrap();
    assert_eq!(waiting.metadata.next, ["ask"]);
    assert_eq!(waiting.interrupts.len(), 1);
    assert_eq!(waiting.interrupts[0].payload, json!({"question": "ship?"}));
}

/// A thread interrupted after a journaled effect is resumed by a new graph
/// on the reopened store: the effect is replayed from the store, not made
/// again, and the run finishes where the first left off.
pub async fn an_interrupted_thread_resumes_on_a_reopened_store_without_repeating_its_effect(
    backend: &dyn Backend,
) {
    let effects = Arc::new(AtomicUsize::new(0));
    let saver = fresh(backend).await;
    let first = desk(Arc::clone(&saver), &effects);
    let outcome = first.run(Desk::default(), thread("t")).await.unwrap();
    assert!(outcome.is_interrupted());
    assert_eq!(effects.load(Ordering::SeqCst), 1);
    let before = first.history(&thread("t"), None, None).await.unwrap();
    drop(first);

    let second = desk(reopen(backend, &saver).await, &effects);
    let done = second
        .resume_with(json!("yes"), thread("t"))
        .await
        .unwrap()
        .into_state();
    assert_eq!(
        done,
        Desk {
            log: vec![
                "work1".to_string(),
                "work2".to_string(),
                "work3".to_string(),
                "yes 1".to_string()
            ],
            count: 3,
        }
    );
    assert_eq!(effects.load(Ordering::SeqCst), 1, "the effect ran once");
    let after = second.history(&thread("t"), None, None).await.unwrap();
    assert_eq!(after.len(), before.len() + 1);
    assert_eq!(after[1..], before[..]);
    assert_eq!(after[0].parent_id, Some(before[0].checkpoint_id));
    assert!(after[0].metadata.is_finished());
}
