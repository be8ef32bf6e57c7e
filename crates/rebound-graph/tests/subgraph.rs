//! Subgraphs: a compiled graph as a node (same state, or mapped in and
//! out), its checkpoints on a child thread of the parent's, interrupts that
//! surface in the parent and resume into the child (two levels deep too),
//! get_state with subgraphs, update_state in a child, mapping failures,
//! loops and replays.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use rebound_graph::checkpoint::{Checkpointer, MemorySaver};
use rebound_graph::subgraph::is_subgraph_thread;
use rebound_graph::{
    CompiledGraph, GraphError, Input, InterruptKind, NodeContext, NodeError, RunConfig, RunOutcome,
    State, StateGraph, SubgraphError, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

mod subgraph_common;

use subgraph_common::{
    asking_child, chain, count, counter, node_source, one_subgraph, say, thread, Chat, ChatUpdate,
};

#[tokio::test]
async fn a_same_state_subgraph_appends_nothing_twice() {
    let child_runs = counter();
    let child = chain(&["child_a", "child_b"], &child_runs)
        .compile()
        .unwrap();
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_sync_node("pre", |_, _| Ok(say("pre")))
        .add_subgraph("sub", child)
        // A sibling appending in the same superstep as the subgraph.
        .add_sync_node("side", |_, _| Ok(say("side")))
        .add_edge(START, "pre")
        .add_edge("pre", "sub")
        .add_edge("pre", "side")
        .add_join(["sub", "side"], "post")
        .add_sync_node("post", |_, _| Ok(say("post")))
        .add_edge("post", END);
    let parent = parent.compile().unwrap();
    let input = Chat {
        messages: vec!["hello".into()],
        ..Chat::default()
    };
    let expected = vec!["hello", "pre", "side", "child_a", "child_b", "post"];

    let done = parent
        .invoke(input.clone(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(done.messages, expected);
    assert_eq!(done.count, 2);

    // The same, durable: the child's changes are checkpointed in the parent.
    let saver = Arc::new(MemorySaver::new());
    let durable = parent.with_checkpointer(saver.clone());
    let done = durable.invoke(input, thread("t")).await.unwrap();
    assert_eq!(done.messages, expected);
    assert_eq!(durable.get_state(&thread("t")).await.unwrap().values, done);
    assert_eq!(count(&child_runs), 4);
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Tally {
    n: u32,
    #[state(append)]
    trail: Vec<String>,
}

fn tally_child() -> CompiledGraph<Tally> {
    let mut child = StateGraph::<Tally>::new();
    child
        .add_sync_node("inc", |t: &Tally, _| {
            Ok(TallyUpdate::default()
                .n(t.n + 1)
                .trail(vec![format!("n={}", t.n + 1)]))
        })
        .add_edge(START, "inc")
        .add_conditional_edges(
            "inc",
            |t: &Tally| if t.n < 3 { "inc" } else { END },
            ["inc", END],
        );
    child.compile().unwrap()
}

#[tokio::test]
async fn a_mapped_subgraph_maps_in_and_out() {
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_subgraph_mapped(
            "tally",
            tally_child(),
            |chat: &Chat| {
                Ok(Tally {
                    n: chat.count,
                    trail: Vec::new(),
                })
            },
            |_: &Chat, tally: Tally| Ok(ChatUpdate::default().count(tally.n).messages(tally.trail)),
        )
        .add_edge(START, "tally")
        .add_edge("tally", END);
    let parent = parent
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()));
    let input = Chat {
        count: 1,
        ..Chat::default()
    };
    let done = parent.invoke(input, thread("m")).await.unwrap();
    assert_eq!(done.count, 3);
    assert_eq!(done.messages, ["n=2", "n=3"]);
}

#[tokio::test]
async fn an_interrupt_in_a_subgraph_surfaces_and_resumes_into_it() {
    let (effects, work_runs) = (counter(), counter());
    let child = asking_child(&effects, &work_runs);
    let saver = Arc::new(MemorySaver::new());
    let parent = one_subgraph("sub", child.clone())
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());

    let outcome = parent.run(Chat::default(), thread("i")).await.unwrap();
    let interrupts = outcome.interrupts().to_vec();
    assert_eq!(interrupts.len(), 1);
    assert_eq!(interrupts[0].id, "0:sub/1:ask:0");
    assert_eq!(interrupts[0].node, "sub");
    assert_eq!(interrupts[0].kind, InterruptKind::Dynamic);
    assert_eq!(interrupts[0].payload, json!({"question": "go?"}));
    // The parent has merged nothing yet.
    assert!(outcome.state().messages.is_empty());

    // get_state with subgraphs: the child's state, next node and interrupt.
    let (parent_state, subgraphs) = parent.get_state_with_subgraphs(&thread("i")).await.unwrap();
    assert_eq!(parent_state.interrupts, interrupts);
    assert_eq!(subgraphs.len(), 1);
    let sub = &subgraphs[0];
    assert_eq!((sub.node.as_str(), sub.task.as_str()), ("sub", "sub"));
    assert!(is_subgraph_thread(&sub.thread_id));
    assert_eq!(sub.interrupt_prefix, "0:sub/");
    assert_eq!(sub.snapshot.values["messages"], json!(["work"]));
    assert_eq!(sub.snapshot.metadata.next, ["ask"]);
    assert_eq!(sub.snapshot.interrupts.len(), 1);
    assert_eq!(sub.snapshot.interrupts[0].id, "1:ask:0");
    // The child thread is a thread of the store, told apart by its name.
    let threads = saver.threads().await.unwrap();
    assert_eq!(threads.len(), 2);
    assert_eq!(
        threads
            .iter()
            .filter(|t| is_subgraph_thread(&t.thread_id))
            .count(),
        1
    );

    let outcome = parent.resume_with(json!("yes"), thread("i")).await.unwrap();
    let RunOutcome::Completed(done) = outcome else {
        panic!("expected completion, got {outcome:?}");
    };
    assert_eq!(done.messages, ["work", "yes"]);
    assert_eq!(
        count(&work_runs),
        1,
        "the child's finished node did not re-run"
    );
    assert_eq!(count(&effects), 1, "the journaled effect ran once");
    assert_eq!(parent.get_state(&thread("i")).await.unwrap().values, done);
}

#[tokio::test]
async fn update_state_in_the_child_then_resume_the_parent() {
    let (effects, work_runs) = (counter(), counter());
    let child = asking_child(&effects, &work_runs);
    let saver = Arc::new(MemorySaver::new());
    let parent = one_subgraph("sub", child.clone())
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());
    parent.run(Chat::default(), thread("u")).await.unwrap();

    let (_, subgraphs) = parent.get_state_with_subgraphs(&thread("u")).await.unwrap();
    let child = child.with_checkpointer(saver.clone());
    let config = subgraphs[0].config();
    let before = child.get_state(&config).await.unwrap();
    child
        .update_state(&config, ChatUpdate::default().topic("edited".into()), None)
        .await
        .unwrap();
    // The child's history shows the edit on top of its own checkpoints.
    let history = child.history(&config, None, None).await.unwrap();
    assert_eq!(history[1].checkpoint_id, before.checkpoint_id);

    let done = parent
        .resume_with(json!("ok"), thread("u"))
        .await
        .unwrap()
        .into_state();
    assert_eq!(done.topic, "edited");
    assert_eq!(done.messages, ["work", "ok"]);
    assert_eq!(count(&effects), 1);
}

#[tokio::test]
async fn an_interrupt_two_levels_deep_resumes_from_the_parent() {
    let (effects, runs) = (counter(), counter());
    let effects_in = Arc::clone(&effects);
    let mut grandchild = StateGraph::<Chat>::new();
    grandchild
        .add_node("ask", move |_, ctx: NodeContext| {
            let effects = Arc::clone(&effects_in);
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
    let mut child = chain(&["c1"], &runs);
    child
        .add_subgraph("inner", grandchild.compile().unwrap())
        .add_edge("c1", "inner")
        .add_edge("inner", END);
    let mut parent = chain(&["p1"], &runs);
    parent
        .add_subgraph("outer", child.compile().unwrap())
        .add_edge("p1", "outer")
        .add_edge("outer", END);
    let saver = Arc::new(MemorySaver::new());
    let parent = parent.compile().unwrap().with_checkpointer(saver.clone());

    let outcome = parent.run(Chat::default(), thread("deep")).await.unwrap();
    let id = "1:outer/1:inner/0:ask:0";
    assert_eq!(outcome.interrupts().len(), 1);
    assert_eq!(outcome.interrupts()[0].id, id);
    assert_eq!(outcome.interrupts()[0].node, "outer");
    assert_eq!(outcome.interrupts()[0].payload, json!("deep?"));

    let (_, subgraphs) = parent
        .get_state_with_subgraphs(&thread("deep"))
        .await
        .unwrap();
    assert_eq!(subgraphs.len(), 1);
    let outer = &subgraphs[0];
    assert_eq!(outer.snapshot.values["messages"], json!(["p1", "c1"]));
    assert_eq!(outer.snapshot.interrupts[0].id, "1:inner/0:ask:0");
    assert_eq!(outer.subgraphs.len(), 1);
    let inner = &outer.subgraphs[0];
    assert_eq!(inner.snapshot.interrupts[0].id, "0:ask:0");
    assert!(inner.thread_id.starts_with(&outer.thread_id));
    assert_eq!(inner.snapshot.metadata.next, ["ask"]);

    // An id that is not waiting is refused, and nothing is written.
    let wrong = BTreeMap::from([("1:outer/9:nope:0".to_string(), json!("x"))]);
    let error = parent
        .resume_with_map(wrong, thread("deep"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, GraphError::UnknownInterrupt { .. }),
        "{error:?}"
    );

    let answers = BTreeMap::from([(id.to_string(), json!("down here"))]);
    let done = parent
        .resume_with_map(answers, thread("deep"))
        .await
        .unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.messages, ["p1", "c1", "down here"]);
    assert_eq!(count(&runs), 2, "p1 and c1 ran once each");
    assert_eq!(count(&effects), 1, "the grandchild's effect ran once");
    assert_eq!(saver.threads().await.unwrap().len(), 3);
}

#[tokio::test]
async fn a_static_interrupt_inside_a_subgraph_resumes_with_a_bare_resume() {
    let runs = counter();
    let mut child = chain(&["a", "b"], &runs);
    child.interrupt_before(["b"]);
    let parent = one_subgraph("sub", child.compile().unwrap())
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()));
    let outcome = parent.run(Chat::default(), thread("s")).await.unwrap();
    assert_eq!(outcome.interrupts().len(), 1);
    assert_eq!(outcome.interrupts()[0].kind, InterruptKind::Before);
    assert_eq!(outcome.interrupts()[0].id, "0:sub/1:b:before");
    let done = parent.resume(thread("s")).await.unwrap().into_state();
    assert_eq!(done.messages, ["a", "b"]);
    assert_eq!(count(&runs), 2);
}

#[tokio::test]
async fn a_failing_mapping_is_a_typed_error_and_leaves_the_thread_as_it_was() {
    for failing_input in [true, false] {
        let mut parent = StateGraph::<Chat>::new();
        parent
            .add_sync_node("pre", |_, _| Ok(say("pre")))
            .add_subgraph_mapped(
                "tally",
                tally_child(),
                move |chat: &Chat| {
                    if failing_input {
                        Err(format!("no tally for {:?}", chat.topic))
                    } else {
                        Ok(Tally::default())
                    }
                },
                |_: &Chat, tally: Tally| Err(format!("cannot keep n={}", tally.n)),
            )
            .add_edge(START, "pre")
            .add_edge("pre", "tally")
            .add_edge("tally", END);
        let parent = parent
            .compile()
            .unwrap()
            .with_checkpointer(Arc::new(MemorySaver::new()));
        let config = thread("f");
        let input = Chat {
            topic: "x".into(),
            ..Chat::default()
        };
        let error = parent.invoke(input, config.clone()).await.unwrap_err();
        let (node, source) = node_source(&error);
        assert_eq!(node, "tally");
        match (failing_input, source) {
            (true, SubgraphError::Input { node, message }) => {
                assert_eq!(node, "tally");
                assert_eq!(message, "no tally for \"x\"");
            }
            (false, SubgraphError::Output { node, message }) => {
                assert_eq!(node, "tally");
                assert_eq!(message, "cannot keep n=3");
            }
            (_, other) => panic!("unexpected {other:?}"),
        }
        // The parent stays at its last good checkpoint: before the subgraph.
        let state = parent.get_state(&config).await.unwrap();
        assert_eq!(state.values.messages, ["pre"]);
        assert_eq!(state.values.count, 0);
        assert_eq!(state.metadata.next, ["tally"]);
        assert_eq!(state.step, 1);
    }
}

#[tokio::test]
async fn a_subgraph_in_a_loop_runs_its_child_fresh_each_time() {
    let runs = counter();
    let child = chain(&["inc"], &runs).compile().unwrap();
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_subgraph("sub", child)
        .add_edge(START, "sub")
        .add_conditional_edges(
            "sub",
            |c: &Chat| if c.count < 3 { "sub" } else { END },
            ["sub", END],
        );
    let saver = Arc::new(MemorySaver::new());
    let parent = parent.compile().unwrap().with_checkpointer(saver.clone());
    let done = parent
        .invoke(Chat::default(), thread("loop"))
        .await
        .unwrap();
    assert_eq!(done.count, 3);
    assert_eq!(done.messages, ["inc", "inc", "inc"]);
    assert_eq!(count(&runs), 3);
    let children = saver
        .threads()
        .await
        .unwrap()
        .into_iter()
        .filter(|t| is_subgraph_thread(&t.thread_id))
        .count();
    assert_eq!(children, 3, "one child thread per visit");
}

#[tokio::test]
async fn a_parent_replay_from_before_the_subgraph_runs_the_child_fresh() {
    let runs = counter();
    let child = chain(&["inc"], &runs).compile().unwrap();
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_sync_node("pre", |_, _| Ok(say("pre")))
        .add_subgraph("sub", child)
        .add_edge(START, "pre")
        .add_edge("pre", "sub")
        .add_edge("sub", END);
    let saver = Arc::new(MemorySaver::new());
    let parent = parent.compile().unwrap().with_checkpointer(saver.clone());
    let first = parent.invoke(Chat::default(), thread("r")).await.unwrap();
    assert_eq!(first.messages, ["pre", "inc"]);

    let history = parent.history(&thread("r"), None, None).await.unwrap();
    let input = history
        .iter()
        .find(|c| c.metadata.next == ["pre"])
        .expect("the input checkpoint");
    let replay = thread("r").with_checkpoint_id(input.checkpoint_id);
    let again = parent
        .run(Input::Resume, replay)
        .await
        .unwrap()
        .into_state();
    assert_eq!(again, first);
    assert_eq!(count(&runs), 2, "the child ran again on the new branch");
    let children = saver
        .threads()
        .await
        .unwrap()
        .into_iter()
        .filter(|t| is_subgraph_thread(&t.thread_id))
        .count();
    assert_eq!(children, 2);
}

#[tokio::test]
async fn sent_subgraph_tasks_wait_and_resume_one_by_one() {
    use rebound_graph::{Route, Send};
    let (effects, work_runs) = (counter(), counter());
    let child = asking_child(&effects, &work_runs);
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_sync_node("plan", |_, _| Ok(ChatUpdate::default()))
        .add_subgraph("sub", child)
        .add_edge(START, "plan")
        .add_conditional_edges(
            "plan",
            |_: &Chat| Route::sends([Send::new("sub", 0), Send::new("sub", 1)]),
            ["sub"],
        )
        .add_edge("sub", END);
    let parent = parent
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()));
    let outcome = parent.run(Chat::default(), thread("sends")).await.unwrap();
    let ids: Vec<&str> = outcome.interrupts().iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["1:sub#0/1:ask:0", "1:sub#1/1:ask:0"]);
    // A bare value is refused while two wait.
    let error = parent
        .resume_with(json!("x"), thread("sends"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, GraphError::AmbiguousResume { .. }),
        "{error:?}"
    );

    // Answer the second only: the first still waits, with the same id.
    let answers = BTreeMap::from([("1:sub#1/1:ask:0".to_string(), json!("second"))]);
    let outcome = parent
        .resume_with_map(answers, thread("sends"))
        .await
        .unwrap();
    let ids: Vec<&str> = outcome.interrupts().iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["1:sub#0/1:ask:0"]);

    let done = parent
        .resume_with(json!("first"), thread("sends"))
        .await
        .unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    // Merged in emission order; each child's work ran once.
    assert_eq!(done.messages, ["work", "first", "work", "second"]);
    assert_eq!(count(&work_runs), 2);
    assert_eq!(count(&effects), 2);
}

#[tokio::test]
async fn an_update_of_the_parent_keeps_the_child_run_it_waits_in() {
    let (effects, work_runs) = (counter(), counter());
    let child = asking_child(&effects, &work_runs);
    let parent = one_subgraph("sub", child)
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()));
    let outcome = parent.run(Chat::default(), thread("pu")).await.unwrap();
    let id = outcome.interrupts()[0].id.clone();
    parent
        .update_state(
            &thread("pu"),
            ChatUpdate::default().topic("from parent".into()),
            None,
        )
        .await
        .unwrap();
    let state = parent.get_state(&thread("pu")).await.unwrap();
    assert_eq!(
        state.interrupts[0].id, id,
        "the interrupt still waits, same id"
    );

    let answers = BTreeMap::from([(id, json!("after update"))]);
    let done = parent
        .resume_with_map(answers, thread("pu"))
        .await
        .unwrap()
        .into_state();
    assert_eq!(done.topic, "from parent");
    assert_eq!(done.messages, ["work", "after update"]);
    assert_eq!(count(&work_runs), 1, "the child resumed, not restarted");
    assert_eq!(count(&effects), 1);
}

#[tokio::test]
async fn time_travel_in_the_child_then_resume_the_parent() {
    let (effects, work_runs) = (counter(), counter());
    let child = asking_child(&effects, &work_runs);
    let saver = Arc::new(MemorySaver::new());
    let parent = one_subgraph("sub", child.clone())
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());
    parent.run(Chat::default(), thread("tt")).await.unwrap();
    let (_, subgraphs) = parent
        .get_state_with_subgraphs(&thread("tt"))
        .await
        .unwrap();
    let child = child.with_checkpointer(saver.clone());
    let config = subgraphs[0].config();
    // Back to the child's input, before `work` ran, with an edit.
    let history = child.history(&config, None, None).await.unwrap();
    let input = history
        .iter()
        .find(|c| c.metadata.next == ["work"])
        .unwrap();
    child
        .update_state(
            &config.clone().with_checkpoint_id(input.checkpoint_id),
            ChatUpdate::default().topic("rewound".into()),
            None,
        )
        .await
        .unwrap();

    // The answer was for a question the rewound child has not asked yet:
    // the child runs on from its new head and asks again.
    let outcome = parent
        .resume_with(json!("too early"), thread("tt"))
        .await
        .unwrap();
    let ids: Vec<&str> = outcome.interrupts().iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["0:sub/2:ask:0"]);
    let done = parent
        .resume_with(json!("final"), thread("tt"))
        .await
        .unwrap()
        .into_state();
    assert_eq!(done.topic, "rewound");
    assert_eq!(done.messages, ["work", "final"]);
    assert_eq!(count(&work_runs), 2, "work ran again on the child's fork");
    assert_eq!(count(&effects), 1, "its journaled effect did not");
}

#[tokio::test]
async fn each_visit_of_a_looping_subgraph_is_found_from_the_parents_history() {
    let runs = counter();
    let child = chain(&["inc"], &runs).compile().unwrap();
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_subgraph("sub", child.clone())
        .add_edge(START, "sub")
        .add_conditional_edges(
            "sub",
            |c: &Chat| if c.count < 2 { "sub" } else { END },
            ["sub", END],
        );
    let saver = Arc::new(MemorySaver::new());
    let parent = parent.compile().unwrap().with_checkpointer(saver.clone());
    parent.invoke(Chat::default(), thread("h")).await.unwrap();
    let mut seen = Vec::new();
    for info in parent.history(&thread("h"), None, None).await.unwrap() {
        if info.metadata.next != ["sub"] {
            continue;
        }
        let at = thread("h").with_checkpoint_id(info.checkpoint_id);
        let (_, subgraphs) = parent.get_state_with_subgraphs(&at).await.unwrap();
        assert_eq!(subgraphs.len(), 1);
        let sub = &subgraphs[0];
        assert!(sub.snapshot.metadata.is_finished());
        // The child's own history, through the child graph.
        let child = child.clone().with_checkpointer(saver.clone());
        let history = child.history(&sub.config(), None, None).await.unwrap();
        assert_eq!(history.len(), 2, "input and inc");
        seen.push((sub.thread_id.clone(), sub.snapshot.values["count"].clone()));
    }
    seen.sort_by_key(|(_, count)| count.as_u64());
    assert_eq!(seen.len(), 2);
    assert_ne!(seen[0].0, seen[1].0, "a child thread per visit");
    assert_eq!(seen[0].1, json!(1));
    assert_eq!(seen[1].1, json!(2));
}

#[tokio::test]
async fn a_failing_child_node_names_the_subgraph_and_resumes_where_the_child_stopped() {
    let runs = counter();
    let fail = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let flaky = Arc::clone(&fail);
    let mut child = chain(&["first"], &runs);
    child
        .add_sync_node("flaky", move |_, _| {
            if flaky.load(Ordering::SeqCst) {
                return Err(NodeError::msg("not yet"));
            }
            Ok(say("flaky"))
        })
        .add_edge("first", "flaky")
        .add_edge("flaky", END);
    let parent = one_subgraph("sub", child.compile().unwrap())
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()));
    let error = parent
        .invoke(Chat::default(), thread("fail"))
        .await
        .unwrap_err();
    let (node, source) = node_source(&error);
    assert_eq!(node, "sub");
    match source {
        SubgraphError::Child { node, source } => {
            assert_eq!(node, "sub");
            assert!(
                matches!(&**source, GraphError::Node { node, .. } if node == "flaky"),
                "{source:?}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(parent
        .get_state(&thread("fail"))
        .await
        .unwrap()
        .values
        .messages
        .is_empty());

    fail.store(false, Ordering::SeqCst);
    let done = parent.resume(thread("fail")).await.unwrap().into_state();
    assert_eq!(done.messages, ["first", "flaky"]);
    assert_eq!(
        count(&runs),
        1,
        "the child's finished node did not run again"
    );
}
