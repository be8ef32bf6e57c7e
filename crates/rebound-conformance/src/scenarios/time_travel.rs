//! Time travel: `update_state` forks a checkpoint as if a node had written
//! the update, and a resume from a past checkpoint replays the run from
//! there on a new branch, leaving the old one intact.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rebound_graph::checkpoint::{Abandoned, CheckpointId, CheckpointMetadata, CheckpointSource};
use rebound_graph::{
    CompiledGraph, GraphError, Input, Route, RunConfig, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};

use crate::backend::fresh;
use crate::Backend;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Trip {
    #[state(append)]
    log: Vec<String>,
    budget: u32,
}

fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

type Calls = Arc<[AtomicUsize; 3]>;

fn counts(calls: &Calls) -> [usize; 3] {
    [0, 1, 2].map(|i| calls[i].load(Ordering::SeqCst))
}

/// START -> plan; plan -> book (normally) or -> pay ("skip" in the log);
/// book -> pay -> END. Each node logs its name and counts its calls.
async fn trip(calls: &Calls, backend: &dyn Backend) -> CompiledGraph<Trip> {
    let mut graph = StateGraph::<Trip>::new();
    for (i, name) in ["plan", "book", "pay"].into_iter().enumerate() {
        let calls = Arc::clone(calls);
        graph.add_sync_node(name, move |_, _| {
            calls[i].fetch_add(1, Ordering::SeqCst);
            Ok(TripUpdate::default().log(vec![name.to_string()]))
        });
    }
    graph
        .add_edge(START, "plan")
        .add_conditional_edges(
            "plan",
            |s: &Trip| {
                if s.log.iter().any(|l| l == "skip") {
                    Route::to("pay").because("booking skipped")
                } else {
                    Route::to("book").because("needs booking")
                }
            },
            ["book", "pay"],
        )
        .add_edge("book", "pay")
        .add_edge("pay", END);
    graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await)
}

fn new_calls() -> Calls {
    Arc::new([
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    ])
}

/// The checkpoint ids of a finished run of `trip`, oldest first:
/// input, plan, book, pay.
async fn finished_trip(graph: &CompiledGraph<Trip>) -> Vec<CheckpointId> {
    graph.invoke(Trip::default(), thread("t")).await.unwrap();
    let mut ids: Vec<CheckpointId> = graph
        .history(&thread("t"), None, None)
        .await
        .unwrap()
        .iter()
        .map(|i| i.checkpoint_id)
        .collect();
    ids.reverse();
    assert_eq!(ids.len(), 4);
    ids
}

/// Scenario: update state as a node forks a checkpoint routed from that node.
pub async fn update_state_as_a_node_forks_a_checkpoint_routed_from_that_node(
    backend: &dyn Backend,
) {
    let calls = new_calls();
    let graph = trip(&calls, backend).await;
    let ids = finished_trip(&graph).await;
    let after_plan = ids[1];

    let fork = graph
        .update_state(
            &thread("t").with_checkpoint_id(after_plan),
            TripUpdate::default().log(vec!["skip".into()]).budget(300),
            Some("plan"),
        )
        .await
        .unwrap();
    let forked = graph
        .get_state(&thread("t").with_checkpoint_id(fork))
        .await
        .unwrap();
    assert_eq!(forked.parent_id, Some(after_plan));
    assert_eq!(forked.step, 2);
    assert_eq!(
        forked.values,
        Trip {
            log: strings(&["plan", "skip"]),
            budget: 300,
        }
    );
    assert_eq!(
        CheckpointMetadata {
            duration_us: 0,
            ..forked.metadata.clone()
        },
        CheckpointMetadata {
            source: CheckpointSource::Update,
            next: strings(&["pay"]),
            ran: strings(&["plan"]),
            reasons: strings(&["booking skipped"]),
            // Routed from `plan` anew: `book`, due at that checkpoint, is
            // not run on this branch.
            abandoned: Some(Abandoned {
                next: strings(&["book"]),
                ..Abandoned::default()
            }),
            ..CheckpointMetadata::default()
        }
    );
    // The fork is the thread's latest now; resuming continues from it.
    assert_eq!(
        graph.get_state(&thread("t")).await.unwrap().checkpoint_id,
        fork
    );
    let done = graph.resume(thread("t")).await.unwrap().into_state();
    assert_eq!(done.log, ["plan", "skip", "pay"]);
    assert_eq!(done.budget, 300);
    assert_eq!(counts(&calls), [1, 1, 2]);

    // The old branch is intact.
    let old = graph
        .get_state(&thread("t").with_checkpoint_id(ids[3]))
        .await
        .unwrap();
    assert_eq!(old.values.log, ["plan", "book", "pay"]);
    assert_eq!(old.values.budget, 0);
}

/// Scenario: update state without a node keeps the next nodes.
pub async fn update_state_without_a_node_keeps_the_next_nodes(backend: &dyn Backend) {
    let calls = new_calls();
    let graph = trip(&calls, backend).await;
    // Stop before book, then edit the state.
    let outcome = graph
        .run(Trip::default(), thread("t").with_interrupt_before(["book"]))
        .await
        .unwrap();
    assert!(outcome.is_interrupted());
    let paused = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(paused.metadata.next, ["book"]);

    let fork = graph
        .update_state(&thread("t"), TripUpdate::default().budget(50), None)
        .await
        .unwrap();
    let forked = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(forked.checkpoint_id, fork);
    assert_eq!(forked.parent_id, Some(paused.checkpoint_id));
    assert_eq!(forked.metadata.next, ["book"]);
    assert_eq!(forked.metadata.source, CheckpointSource::Update);
    assert_eq!(
        forked.values,
        Trip {
            log: strings(&["plan"]),
            budget: 50,
        }
    );
    let done = graph.resume(thread("t")).await.unwrap().into_state();
    assert_eq!(
        done,
        Trip {
            log: strings(&["plan", "book", "pay"]),
            budget: 50,
        }
    );
    assert_eq!(counts(&calls), [1, 1, 1]);
}

/// Scenario: update state with an unknown node is an error.
pub async fn update_state_with_an_unknown_node_is_an_error(backend: &dyn Backend) {
    let calls = new_calls();
    let graph = trip(&calls, backend).await;
    let ids = finished_trip(&graph).await;
    match graph
        .update_state(&thread("t"), TripUpdate::default().budget(1), Some("fly"))
        .await
    {
        Err(GraphError::UnknownNode { node, place }) => {
            assert_eq!(node, "fly");
            assert!(place.contains("as_node"), "{place}");
        }
        other => panic!("expected UnknownNode, got {other:?}"),
    }
    // Nothing was written.
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    assert_eq!(history.len(), ids.len());
}

/// Scenario: replay from a past checkpoint runs the later nodes again on a new branch.
pub async fn replay_from_a_past_checkpoint_runs_the_later_nodes_again_on_a_new_branch(
    backend: &dyn Backend,
) {
    let calls = new_calls();
    let graph = trip(&calls, backend).await;
    let ids = finished_trip(&graph).await;
    assert_eq!(counts(&calls), [1, 1, 1]);
    let after_plan = ids[1];
    let old_history = graph.history(&thread("t"), None, None).await.unwrap();

    let replayed = graph
        .run(Input::Resume, thread("t").with_checkpoint_id(after_plan))
        .await
        .unwrap()
        .into_state();
    assert_eq!(replayed.log, ["plan", "book", "pay"]);
    assert_eq!(
        counts(&calls),
        [1, 2, 2],
        "book and pay ran again, plan did not"
    );

    // A new branch head (the replay, with after_plan's state and next
    // nodes), then two new checkpoints (book, pay) after it.
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    assert_eq!(history.len(), 7);
    let new: Vec<_> = history.iter().take(3).collect();
    assert_eq!(new[0].parent_id, Some(new[1].checkpoint_id));
    assert_eq!(new[1].parent_id, Some(new[2].checkpoint_id));
    assert_eq!(new[2].parent_id, Some(after_plan));
    assert_eq!(new.iter().map(|i| i.step).collect::<Vec<_>>(), [3, 2, 1]);
    assert_eq!(new[0].metadata.ran, ["pay"]);
    assert_eq!(new[1].metadata.ran, ["book"]);
    assert_eq!(new[2].metadata.source, CheckpointSource::Fork);
    assert_eq!(new[2].metadata.next, ["book"]);
    assert!(new[2].metadata.ran.is_empty());
    assert!(new[0].metadata.next.is_empty());
    // The old branch is intact: the same checkpoints, the same states.
    assert_eq!(&history[3..], &old_history[..]);
    let old_final = graph
        .get_state(&thread("t").with_checkpoint_id(ids[3]))
        .await
        .unwrap();
    assert_eq!(old_final.values.log, ["plan", "book", "pay"]);
    assert_eq!(old_final.parent_id, Some(ids[2]));
    // The latest is the new branch's end.
    assert_eq!(
        graph.get_state(&thread("t")).await.unwrap().checkpoint_id,
        new[0].checkpoint_id
    );
}

/// Scenario: replay from the final checkpoint has nothing to resume.
pub async fn replay_from_the_final_checkpoint_has_nothing_to_resume(backend: &dyn Backend) {
    let calls = new_calls();
    let graph = trip(&calls, backend).await;
    let ids = finished_trip(&graph).await;
    let error = graph
        .run(Input::Resume, thread("t").with_checkpoint_id(ids[3]))
        .await
        .unwrap_err();
    assert!(
        matches!(error, GraphError::NothingToResume { .. }),
        "{error:?}"
    );
}

/// Scenario: a fork of a past checkpoint then resume follows the fork.
pub async fn a_fork_of_a_past_checkpoint_then_resume_follows_the_fork(backend: &dyn Backend) {
    // Fork from the input checkpoint as if plan had written "skip": the
    // resumed run skips booking.
    let calls = new_calls();
    let graph = trip(&calls, backend).await;
    let ids = finished_trip(&graph).await;
    let fork = graph
        .update_state(
            &thread("t").with_checkpoint_id(ids[0]),
            TripUpdate::default().log(vec!["skip".into()]),
            Some("plan"),
        )
        .await
        .unwrap();
    let done = graph
        .run(Input::Resume, thread("t").with_checkpoint_id(fork))
        .await
        .unwrap()
        .into_state();
    assert_eq!(done.log, ["skip", "pay"]);
    assert_eq!(counts(&calls), [1, 1, 2]);
    let latest = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(latest.parent_id, Some(fork));
    assert_eq!(latest.step, 2);
}
