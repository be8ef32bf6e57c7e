//! Pending writes survive `update_state` and replay, as a property: whatever
//! a user does with answers, updates, copies, forks and replays, a journaled
//! effect runs once per branch; and a fork of a checkpoint the thread has
//! moved on from asks its questions again. The example scenarios of pending
//! writes run on every store in `rebound-conformance` (`scenarios::pending`,
//! `scenarios::forks`); these property tests build their own runtime per
//! case and stay on the memory saver.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rebound_graph::checkpoint::MemorySaver;
use rebound_graph::{
    CompiledGraph, GraphError, NodeContext, NodeError, RunConfig, RunOutcome, State, StateGraph,
    COPY, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Desk {
    #[state(append)]
    log: Vec<String>,
    #[state(append)]
    answers: Vec<String>,
}

fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
}

/// How often each side of the graph ran.
#[derive(Default)]
struct Counts {
    /// The asker's journaled effect.
    effects: AtomicUsize,
    /// The sibling's body.
    sibling: AtomicUsize,
}

impl Counts {
    fn effects(&self) -> usize {
        self.effects.load(Ordering::SeqCst)
    }
    fn sibling(&self) -> usize {
        self.sibling.load(Ordering::SeqCst)
    }
}

/// START -> {asker, sibling} -> END. The asker makes a journaled effect,
/// then asks two questions; the sibling finishes at once.
fn two_questions(counts: &Arc<Counts>) -> CompiledGraph<Desk> {
    let (asker, sibling) = (Arc::clone(counts), Arc::clone(counts));
    let mut graph = StateGraph::<Desk>::new();
    graph
        .add_node("asker", move |_, ctx: NodeContext| {
            let counts = Arc::clone(&asker);
            async move {
                ctx.journal("effect", async move {
                    counts.effects.fetch_add(1, Ordering::SeqCst);
                    "done".to_string()
                })
                .await?;
                let first: String = ctx.interrupt("q1?")?;
                let second: String = ctx.interrupt("q2?")?;
                Ok::<_, NodeError>(
                    DeskUpdate::default()
                        .log(vec!["asker".to_string()])
                        .answers(vec![first, second]),
                )
            }
        })
        .add_sync_node("sibling", move |_, _| {
            sibling.sibling.fetch_add(1, Ordering::SeqCst);
            Ok(DeskUpdate::default().log(vec!["sibling".to_string()]))
        })
        .add_edge(START, "asker")
        .add_edge(START, "sibling")
        .add_edge("asker", END)
        .add_edge("sibling", END);
    graph
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()))
}

/// What a user may do to a thread, at its head or at any checkpoint of
/// its history (by position, newest first, modulo its length).
#[derive(Debug, Clone)]
enum Op {
    /// Answer what waits at the head.
    Answer,
    /// Answer what waits at a past checkpoint.
    AnswerAt(usize),
    /// Write to the state at a past checkpoint, without `as_node`.
    UpdateAt(usize),
    /// Write to the state at a past checkpoint as the asker.
    UpdateAsAskerAt(usize),
    /// Replay from a past checkpoint.
    ReplayAt(usize),
    /// Copy a checkpoint beside itself (`as_node` COPY).
    CopyAt(usize),
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        3 => Just(Op::Answer),
        1 => (0..8usize).prop_map(Op::AnswerAt),
        1 => (0..8usize).prop_map(Op::UpdateAt),
        1 => (0..8usize).prop_map(Op::UpdateAsAskerAt),
        1 => (0..8usize).prop_map(Op::ReplayAt),
        1 => (0..8usize).prop_map(Op::CopyAt),
    ]
}

/// Applies `op`; refusals a user can meet (nothing waits there, no such
/// node due) are fine, anything else is a bug.
async fn apply(graph: &CompiledGraph<Desk>, op: &Op) {
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    let at = |i: usize| thread("t").with_checkpoint_id(history[i % history.len()].checkpoint_id);
    let result = match op {
        Op::Answer => graph
            .resume_with(json!("yes"), thread("t"))
            .await
            .map(|_| ()),
        Op::AnswerAt(i) => graph.resume_with(json!("late"), at(*i)).await.map(|_| ()),
        Op::UpdateAt(i) => graph
            .update_state(&at(*i), DeskUpdate::default().log(vec!["u".into()]), None)
            .await
            .map(|_| ()),
        Op::UpdateAsAskerAt(i) => graph
            .update_state(
                &at(*i),
                DeskUpdate::default().answers(vec!["hand".into()]),
                Some("asker"),
            )
            .await
            .map(|_| ()),
        Op::ReplayAt(i) => graph
            .run(rebound_graph::Input::Resume, at(*i))
            .await
            .map(|_| ()),
        Op::CopyAt(i) => graph
            .update_state(&at(*i), DeskUpdate::default(), Some(COPY))
            .await
            .map(|_| ()),
    };
    match result {
        Ok(()) | Err(GraphError::NothingToResume { .. }) => {}
        Err(other) => panic!("{op:?}: {other:?}"),
    }
}

/// A runtime for one property case.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Whatever a user does with answers, updates, forks and replays, the
    /// asker's journaled effect and the finished sibling ran once: every
    /// branch of the thread shares the superstep they belong to.
    #[test]
    fn journaled_effects_run_once_whatever_the_sequence(ops in proptest::collection::vec(op(), 1..12)) {
        let runtime = runtime();
        let counts = Arc::new(Counts::default());
        let graph = two_questions(&counts);
        runtime.block_on(async {
            graph.run(Desk::default(), thread("t")).await.unwrap();
            for op in &ops {
                apply(&graph, op).await;
            }
        });
        proptest::prop_assert_eq!(counts.effects(), 1, "{:?}", ops);
        proptest::prop_assert_eq!(counts.sibling(), 1, "{:?}", ops);
    }

    /// Whatever happened on the thread before, a fork (an update, with or
    /// without values, or a copy) of a checkpoint it has moved on from
    /// where the asker is due does not take the answers given there: the
    /// fork shows nothing waiting, and resuming it asks the first question
    /// again. It does take the journaled result and the finished
    /// sibling's update: neither runs again. (In this graph the asker never
    /// finishes before its sibling, so it is always asked again.)
    #[test]
    fn a_fork_of_the_past_asks_its_questions_again(
        ops in proptest::collection::vec(op(), 0..8),
        pick in 0..16usize,
        how in 0..3usize,
    ) {
        let runtime = runtime();
        let counts = Arc::new(Counts::default());
        let graph = two_questions(&counts);
        let outcome = runtime.block_on(async {
            // Answered to the end: the input checkpoint is in the past.
            graph.run(Desk::default(), thread("t")).await.unwrap();
            graph.resume_with(json!("a1"), thread("t")).await.unwrap();
            graph.resume_with(json!("a2"), thread("t")).await.unwrap();
            for op in &ops {
                apply(&graph, op).await;
            }
            let history = graph.history(&thread("t"), None, None).await.unwrap();
            let latest = history[0].checkpoint_id;
            let due: Vec<_> = history
                .iter()
                .filter(|c| c.checkpoint_id != latest && c.metadata.next.iter().any(|n| n == "asker"))
                .collect();
            let at = thread("t").with_checkpoint_id(due[pick % due.len()].checkpoint_id);
            let values = DeskUpdate::default().log(vec!["fork".into()]);
            let fork = match how {
                0 => graph.update_state(&at, values, None).await,
                1 => graph.update_state(&at, DeskUpdate::default(), None).await,
                _ => graph.update_state(&at, values, Some(COPY)).await,
            };
            fork.unwrap();
            let forked = graph.get_state(&thread("t")).await.unwrap();
            assert!(forked.interrupts.is_empty(), "{ops:?}: {forked:?}");
            graph.resume(thread("t")).await.unwrap()
        });
        let RunOutcome::Interrupted { interrupts, .. } = &outcome else {
            panic!("{ops:?}: expected q1 asked again, got {outcome:?}");
        };
        proptest::prop_assert_eq!(&interrupts[0].payload, &json!("q1?"), "{:?}", ops);
        proptest::prop_assert_eq!(counts.effects(), 1, "{:?}", ops);
        proptest::prop_assert_eq!(counts.sibling(), 1, "{:?}", ops);
    }
}
