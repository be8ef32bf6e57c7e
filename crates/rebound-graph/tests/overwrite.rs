//! Overwrites (a write that bypasses a field's merge rule) and nodes that
//! return several updates, merged in order: in memory, through checkpoint
//! deltas, through pending writes, and in conflict checks.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use rebound_graph::checkpoint::MemorySaver;
use rebound_graph::{
    Command, CompiledGraph, GraphError, NodeContext, NodeError, RunConfig, RunOutcome, State,
    StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

fn keep_max(old: &mut u32, new: u32) {
    *old = (*old).max(new);
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Notes {
    #[state(append)]
    lines: Vec<String>,
    #[state(merge = keep_max)]
    best: u32,
    title: String,
}

fn lines(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
}

#[test]
fn an_overwrite_bypasses_append_and_merge_rules() {
    let mut notes = Notes {
        lines: lines(&["a", "b"]),
        best: 9,
        title: "t".into(),
    };
    let update = NotesUpdate::default()
        .overwrite_lines(lines(&["z"]))
        .overwrite_best(2);
    assert_eq!(
        Notes::overwritten(&update)
            .names(Notes::FIELDS)
            .collect::<Vec<_>>(),
        ["lines", "best"]
    );
    notes.apply(update);
    assert_eq!(notes.lines, ["z"]);
    assert_eq!(notes.best, 2);
    // A plain write still merges.
    notes.apply(NotesUpdate::default().lines(lines(&["y"])).best(1));
    assert_eq!(notes.lines, ["z", "y"]);
    assert_eq!(notes.best, 2);
}

#[test]
fn the_update_encoding_is_unchanged_without_overwrites_and_round_trips_with_them() {
    let plain = NotesUpdate::default().lines(lines(&["a"]));
    assert_eq!(
        serde_json::to_value(&plain).unwrap(),
        json!({"lines": ["a"]})
    );
    assert_eq!(
        serde_json::to_value(NotesUpdate::default()).unwrap(),
        json!({})
    );

    let over = NotesUpdate::default().overwrite_lines(lines(&["a"]));
    let text = serde_json::to_string(&over).unwrap();
    let back: NotesUpdate = serde_json::from_str(&text).unwrap();
    assert_eq!(Notes::overwritten(&back), Notes::overwritten(&over));
    let mut notes = Notes {
        lines: lines(&["old"]),
        ..Notes::default()
    };
    notes.apply(back);
    assert_eq!(notes.lines, ["a"]);
}

/// START -> reset -> END; `reset` returns what `command` makes.
fn one_node(
    command: impl Fn() -> Command<NotesUpdate> + Send + Sync + 'static,
) -> CompiledGraph<Notes> {
    let mut graph = StateGraph::<Notes>::new();
    graph
        .add_sync_node("reset", move |_, _| Ok(command()))
        .add_edge(START, "reset")
        .add_edge("reset", END);
    graph.compile().unwrap()
}

#[tokio::test]
async fn several_updates_apply_in_order_and_checkpoints_replay_them() {
    let graph = one_node(|| {
        Command::from(NotesUpdate::default().overwrite_lines(Vec::new()))
            .then(NotesUpdate::default().lines(lines(&["fresh"])).best(3))
            .then(
                NotesUpdate::default()
                    .lines(lines(&["more"]))
                    .title("x".into()),
            )
    })
    .with_checkpointer(Arc::new(MemorySaver::new()));
    let input = Notes {
        lines: lines(&["old", "older"]),
        best: 1,
        title: String::new(),
    };
    let done = graph.invoke(input, thread("t")).await.unwrap();
    let expected = Notes {
        lines: lines(&["fresh", "more"]),
        best: 3,
        title: "x".into(),
    };
    assert_eq!(done, expected);
    // The checkpoint stores them as a delta, in order: rebuilding it from
    // the store gives the same state.
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    assert!(!history[0].snapshot, "the last checkpoint is a delta");
    assert_eq!(history[0].metadata.ran, ["reset"]);
    let state = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(state.values, expected);
}

#[tokio::test]
async fn command_updates_builds_the_list() {
    let graph = one_node(|| {
        Command::updates([
            NotesUpdate::default().title("a".into()),
            NotesUpdate::default().title("b".into()),
        ])
    });
    let done = graph
        .invoke(Notes::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(done.title, "b");
}

/// START -> {left, right} -> END with the given updates.
fn siblings(
    left: impl Fn() -> Command<NotesUpdate> + Send + Sync + 'static,
    right: impl Fn() -> Command<NotesUpdate> + Send + Sync + 'static,
) -> CompiledGraph<Notes> {
    let mut graph = StateGraph::<Notes>::new();
    graph
        .add_sync_node("left", move |_, _| Ok(left()))
        .add_sync_node("right", move |_, _| Ok(right()))
        .add_edge(START, "left")
        .add_edge(START, "right")
        .add_edge("left", END)
        .add_edge("right", END);
    graph.compile().unwrap()
}

#[tokio::test]
async fn an_overwrite_and_an_append_of_one_field_in_one_superstep_conflict() {
    let graph = siblings(
        || NotesUpdate::default().lines(lines(&["l"])).into(),
        || NotesUpdate::default().overwrite_lines(lines(&["r"])).into(),
    )
    .with_checkpointer(Arc::new(MemorySaver::new()));
    let error = graph
        .invoke(Notes::default(), thread("c"))
        .await
        .unwrap_err();
    match error {
        GraphError::Conflict {
            field,
            first,
            second,
            ..
        } => {
            assert_eq!(field, "lines");
            assert_eq!((first.as_str(), second.as_str()), ("left", "right"));
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    // Nothing of the superstep was merged.
    let state = graph.get_state(&thread("c")).await.unwrap();
    assert_eq!(state.values, Notes::default());
    assert_eq!(state.metadata.next, ["left", "right"]);

    // Two plain appends still merge.
    let fine = siblings(
        || NotesUpdate::default().lines(lines(&["l"])).into(),
        || NotesUpdate::default().lines(lines(&["r"])).into(),
    );
    let done = fine
        .invoke(Notes::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(done.lines, ["l", "r"]);
}

#[tokio::test]
async fn a_later_update_of_a_node_is_checked_for_conflicts_too() {
    let graph = siblings(
        || {
            Command::from(NotesUpdate::default().lines(lines(&["l"])))
                .then(NotesUpdate::default().title("left".into()))
        },
        || NotesUpdate::default().title("right".into()).into(),
    );
    let error = graph
        .invoke(Notes::default(), RunConfig::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, GraphError::Conflict { field: "title", .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_finished_siblings_several_updates_survive_as_a_pending_write() {
    let mut graph = StateGraph::<Notes>::new();
    graph
        .add_sync_node("writer", |_, _| {
            Ok(
                Command::from(NotesUpdate::default().overwrite_lines(lines(&["w1"])))
                    .then(NotesUpdate::default().lines(lines(&["w2"]))),
            )
        })
        .add_node("asker", |_, ctx: NodeContext| async move {
            let answer: String = ctx.interrupt("title?")?;
            Ok::<_, NodeError>(NotesUpdate::default().title(answer))
        })
        .add_edge(START, "writer")
        .add_edge(START, "asker")
        .add_edge("writer", END)
        .add_edge("asker", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()));
    let input = Notes {
        lines: lines(&["old"]),
        ..Notes::default()
    };
    let outcome = graph.run(input, thread("p")).await.unwrap();
    assert!(outcome.is_interrupted());
    let outcome = graph.resume_with(json!("T"), thread("p")).await.unwrap();
    let RunOutcome::Completed(done) = outcome else {
        panic!("expected completion");
    };
    assert_eq!(done.lines, ["w1", "w2"]);
    assert_eq!(done.title, "T");
    assert_eq!(graph.get_state(&thread("p")).await.unwrap().values, done);
}
