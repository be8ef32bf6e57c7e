//! Subgraphs and the parent's run: the child takes the parent's
//! recursion limit and durability but not its run-time interrupts; its
//! events reach the parent's stream with their namespace; a replay from
//! where the subgraph is due runs the child afresh on the new branch, and
//! answering the child's old question again forks the child from it;
//! sent subgraph tasks map their own payloads into their children.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod subgraph_common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rebound_graph::checkpoint::{Checkpointer, MemorySaver};
use rebound_graph::subgraph::is_subgraph_thread;
use rebound_graph::{
    CompiledGraph, Event, GraphError, Input, InterruptKind, NodeContext, NodeError, RunConfig,
    RunOutcome, State, StateGraph, StreamModes, SubgraphError, SubgraphTask, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use subgraph_common::{
    chain, count, counter, node_source, one_subgraph, say, thread, Chat, ChatUpdate,
};

/// A child whose one node loops back to itself forever, counting its runs.
fn spinning_child(runs: &Arc<AtomicUsize>) -> CompiledGraph<Chat> {
    let runs = Arc::clone(runs);
    let mut child = StateGraph::<Chat>::new();
    child
        .add_sync_node("spin", move |s: &Chat, _| {
            runs.fetch_add(1, Ordering::SeqCst);
            Ok(ChatUpdate::default().count(s.count + 1))
        })
        .add_edge(START, "spin")
        .add_conditional_edges("spin", |_: &Chat| "spin", ["spin", END]);
    child.compile().unwrap()
}

#[tokio::test]
async fn a_looping_child_stops_at_the_parents_recursion_limit() {
    for durable in [false, true] {
        let runs = counter();
        let parent = one_subgraph("sub", spinning_child(&runs))
            .compile()
            .unwrap();
        let parent = if durable {
            parent.with_checkpointer(Arc::new(MemorySaver::new()))
        } else {
            parent
        };
        let error = parent
            .invoke(Chat::default(), thread("spin").with_recursion_limit(7))
            .await
            .unwrap_err();
        let (node, source) = node_source(&error);
        assert_eq!(node, "sub");
        let SubgraphError::Child { source, .. } = source else {
            panic!("expected the child's error, got {source:?}");
        };
        match &**source {
            GraphError::RecursionLimit {
                limit,
                recent,
                pending,
            } => {
                assert_eq!(*limit, 7, "the parent's limit, not the default");
                assert_eq!(pending, &["spin"], "names the child's pending node");
                assert_eq!(recent, &vec!["spin".to_string(); 7]);
            }
            other => panic!("expected a recursion error, got {other:?}"),
        }
        assert_eq!(count(&runs), 7, "durable: {durable}");
    }
}

#[tokio::test]
async fn the_child_commits_its_checkpoints_with_the_parents_durability() {
    use rebound_graph::Durability;
    let saver = Arc::new(MemorySaver::new());
    // The child's third node counts the checkpoints of its own thread
    // already committed when it runs.
    let probe_saver = Arc::clone(&saver);
    let runs = counter();
    let mut child = chain(&["one", "two"], &runs);
    child
        .add_node("probe", move |_, ctx: NodeContext| {
            let saver = Arc::clone(&probe_saver);
            async move {
                let thread = ctx.thread_id().unwrap_or_default().to_string();
                let committed = saver.list(&thread, None, None).await.unwrap().len();
                Ok::<_, NodeError>(ChatUpdate::default().count(committed as u32))
            }
        })
        .add_edge("two", "probe")
        .add_edge("probe", END);
    let parent = one_subgraph("sub", child.compile().unwrap())
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());

    let sync = parent.invoke(Chat::default(), thread("d1")).await.unwrap();
    assert_eq!(sync.count, 3, "input, one, two: each committed at once");

    let batched = Durability::Batched {
        max_steps: 64,
        max_delay: std::time::Duration::from_secs(3600),
    };
    let done = parent
        .invoke(Chat::default(), thread("d2").with_durability(batched))
        .await
        .unwrap();
    assert_eq!(done.count, 0, "the child batches its checkpoints too");
    // All committed at the end of the child's run all the same.
    let (_, subgraphs) = parent
        .get_state_with_subgraphs(
            &thread("d2").with_checkpoint_id(
                parent
                    .history(&thread("d2"), None, None)
                    .await
                    .unwrap()
                    .iter()
                    .find(|c| c.metadata.next == ["sub"])
                    .unwrap()
                    .checkpoint_id,
            ),
        )
        .await
        .unwrap();
    assert_eq!(
        subgraphs[0].snapshot.values["messages"],
        json!(["one", "two"])
    );
    assert!(subgraphs[0].snapshot.metadata.is_finished());
}

#[tokio::test]
async fn the_parents_run_time_interrupts_do_not_reach_the_child() {
    let runs = counter();
    // The child has a node named like one of the parent's.
    let child = chain(&["pre", "b"], &runs).compile().unwrap();
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_sync_node("pre", |_, _| Ok(say("parent pre")))
        .add_subgraph("sub", child)
        .add_edge(START, "pre")
        .add_edge("pre", "sub")
        .add_edge("sub", END);
    let parent = parent
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()));
    let config = thread("rt")
        .with_interrupt_before([rebound_graph::ALL_NODES])
        .with_interrupt_after(["pre"]);

    let outcome = parent.run(Chat::default(), config.clone()).await.unwrap();
    let kinds: Vec<_> = outcome
        .interrupts()
        .iter()
        .map(|i| (i.node.as_str(), i.kind))
        .collect();
    assert_eq!(kinds, [("pre", InterruptKind::Before)]);
    let outcome = parent.resume(config.clone()).await.unwrap();
    let kinds: Vec<_> = outcome
        .interrupts()
        .iter()
        .map(|i| (i.node.as_str(), i.kind))
        .collect();
    assert_eq!(kinds, [("pre", InterruptKind::After)]);
    // The child runs through: its "pre" is not the parent's, and "*" is
    // the parent's nodes only.
    let done = parent.resume(config.clone()).await.unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("the child stopped: {done:?}");
    };
    assert_eq!(done.messages, ["parent pre", "pre", "b"]);
    assert_eq!(count(&runs), 2);

    // A node of the child named through the parent is not one of the
    // parent's: refused, as any unknown node is.
    let error = parent
        .run(
            Chat::default(),
            thread("rt2").with_interrupt_before(["sub/b"]),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&error, GraphError::UnknownNode { node, .. } if node == "sub/b"),
        "{error:?}"
    );
}

/// START -> work -> ask -> END, where `work` journals an effect that
/// returns how many times it has run in all, and writes it down.
fn numbered_effect_child(effects: &Arc<AtomicUsize>) -> CompiledGraph<Chat> {
    let effects = Arc::clone(effects);
    let mut child = StateGraph::<Chat>::new();
    child
        .add_node("work", move |_, ctx: NodeContext| {
            let effects = Arc::clone(&effects);
            async move {
                let n = ctx
                    .journal("effect", async move {
                        effects.fetch_add(1, Ordering::SeqCst) + 1
                    })
                    .await?;
                Ok::<_, NodeError>(say(&format!("effect {n}")))
            }
        })
        .add_node("ask", |_, ctx: NodeContext| async move {
            let answer: String = ctx.interrupt("go?")?;
            Ok::<_, NodeError>(say(&answer))
        })
        .add_edge(START, "work")
        .add_edge("work", "ask")
        .add_edge("ask", END);
    child.compile().unwrap()
}

#[tokio::test]
async fn a_replay_from_where_the_subgraph_is_due_runs_the_child_on_a_new_thread() {
    let effects = counter();
    let child = numbered_effect_child(&effects);
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_sync_node("pre", |_, _| Ok(say("pre")))
        .add_subgraph("sub", child.clone())
        .add_edge(START, "pre")
        .add_edge("pre", "sub")
        .add_edge("sub", END);
    let saver = Arc::new(MemorySaver::new());
    let parent = parent.compile().unwrap().with_checkpointer(saver.clone());
    let child = child.with_checkpointer(saver.clone());
    let t = || thread("tt-sub");

    parent.run(Chat::default(), t()).await.unwrap();
    let first = parent
        .resume_with(json!("yes"), t())
        .await
        .unwrap()
        .into_state();
    assert_eq!(first.messages, ["pre", "effect 1", "yes"]);
    let history = parent.history(&t(), None, None).await.unwrap();
    let due = history
        .iter()
        .find(|c| c.metadata.next == ["sub"])
        .unwrap()
        .checkpoint_id;
    let at_due = t().with_checkpoint_id(due);
    let (_, old) = parent.get_state_with_subgraphs(&at_due).await.unwrap();
    let old_thread = old[0].thread_id.clone();
    let old_history = child.history(&old[0].config(), None, None).await.unwrap();

    // Replay from exactly the checkpoint where the subgraph is due: the
    // child runs again, from its start, on a thread of the new branch.
    let outcome = parent.run(Input::Resume, at_due.clone()).await.unwrap();
    let ids: Vec<&str> = outcome.interrupts().iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["1:sub/1:ask:0"], "the child asks again");
    assert_eq!(count(&effects), 2, "its effect ran once on the new branch");
    let (head, new) = parent.get_state_with_subgraphs(&t()).await.unwrap();
    assert_eq!(head.parent_id, Some(due));
    assert_eq!(new.len(), 1);
    assert_ne!(new[0].thread_id, old_thread, "a new child thread");
    assert!(new[0].thread_id.ends_with(&head.checkpoint_id.to_string()));
    assert_eq!(
        new[0].snapshot.values["messages"],
        json!(["pre", "effect 2"])
    );

    // Resuming the new branch resumes its child: the effect is not run
    // twice on one branch.
    let again = parent
        .resume_with(json!("again"), t())
        .await
        .unwrap()
        .into_state();
    assert_eq!(again.messages, ["pre", "effect 2", "again"]);
    assert_eq!(count(&effects), 2);

    // The old branch is intact: its child thread, its history, its state.
    let (_, old_after) = parent.get_state_with_subgraphs(&at_due).await.unwrap();
    assert_eq!(old_after.len(), 1);
    assert_eq!(old_after[0].thread_id, old_thread);
    assert_eq!(
        old_after[0].snapshot.values["messages"],
        json!(["pre", "effect 1", "yes"])
    );
    assert_eq!(
        child.history(&old[0].config(), None, None).await.unwrap(),
        old_history
    );
    let old_final = parent
        .get_state(&t().with_checkpoint_id(history[0].checkpoint_id))
        .await
        .unwrap();
    assert_eq!(old_final.values, first);
    let children = saver
        .threads()
        .await
        .unwrap()
        .into_iter()
        .filter(|t| is_subgraph_thread(&t.thread_id))
        .count();
    assert_eq!(children, 2, "one child thread per branch");
}

/// The events of a stream, read to its end.
async fn streamed(graph: &CompiledGraph<Chat>, config: RunConfig) -> Vec<Event> {
    let mut stream = graph.stream(Chat::default(), config);
    let mut events = Vec::new();
    while let Some(event) = stream.next_event().await {
        events.push(event);
    }
    stream.result().await.unwrap();
    events
}

/// Each event's namespace (task keys joined by `/`) and the name of the
/// node it is about, for node starts.
fn node_starts(events: &[Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|event| match event.inner() {
            Event::NodeStarted { node, .. } => {
                let path: Vec<&str> = event.namespace().iter().map(|t| &*t.task).collect();
                Some((path.join("/"), node.to_string()))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_childs_events_reach_the_parents_stream_with_their_namespace() {
    let runs = counter();
    let mut grandchild = StateGraph::<Chat>::new();
    grandchild
        .add_sync_node("deep", |_, ctx: &NodeContext| {
            ctx.emit(|| json!("from below"));
            Ok(say("deep"))
        })
        .add_edge(START, "deep")
        .add_edge("deep", END);
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
    let parent = parent.compile().unwrap();
    let modes = StreamModes {
        updates: true,
        ..StreamModes::default()
    };

    for durable in [false, true] {
        let graph = if durable {
            parent
                .clone()
                .with_checkpointer(Arc::new(MemorySaver::new()))
        } else {
            parent.clone()
        };
        let events = streamed(&graph, thread("ev").with_stream_modes(modes)).await;
        assert_eq!(
            node_starts(&events),
            [
                ("", "p1"),
                ("", "outer"),
                ("outer", "c1"),
                ("outer", "inner"),
                ("outer/inner", "deep"),
            ]
            .map(|(a, b)| (a.to_string(), b.to_string())),
            "durable: {durable}"
        );
        // The parent's own events have no namespace, and its run's end is
        // the stream's last event.
        assert!(events[0].namespace().is_empty());
        assert!(matches!(events.last(), Some(Event::RunFinished { .. })));
        // A namespace is flat (never a child event inside a child event)
        // and names each level's node, task and parent step.
        let custom = events
            .iter()
            .find(|e| matches!(e.inner(), Event::Custom { .. }))
            .unwrap();
        let Event::Subgraph { namespace, inner } = custom else {
            panic!("expected a subgraph event, got {custom:?}");
        };
        assert_eq!(
            namespace.to_vec(),
            [
                SubgraphTask::new("outer", "outer", 1),
                SubgraphTask::new("inner", "inner", 1),
            ]
        );
        assert!(matches!(&**inner, Event::Custom { node, step: 0, payload }
            if &**node == "deep" && payload == &json!("from below")));
        assert_eq!(
            serde_json::to_value(custom).unwrap(),
            json!({
                "event": "subgraph",
                "namespace": [
                    {"node": "outer", "task": "outer", "step": 1},
                    {"node": "inner", "task": "inner", "step": 1},
                ],
                "inner": {"event": "custom", "node": "deep", "step": 0, "payload": "from below"},
            })
        );
        assert_eq!(custom.to_string(), "outer/inner: [0] deep: \"from below\"");
        // The child's events come while its subgraph node runs: after the
        // node started, before it finished; the child run's own start and
        // end are there too.
        let position = |wanted: &dyn Fn(&Event) -> bool| events.iter().position(wanted).unwrap();
        let outer_started =
            position(&|e| matches!(e, Event::NodeStarted { node, .. } if &**node == "outer"));
        let outer_finished =
            position(&|e| matches!(e, Event::NodeFinished { node, .. } if &**node == "outer"));
        let child_started = position(&|e| {
            e.namespace().len() == 1 && matches!(e.inner(), Event::RunStarted { .. })
        });
        let child_finished = position(&|e| {
            e.namespace().len() == 1 && matches!(e.inner(), Event::RunFinished { .. })
        });
        assert!(outer_started < child_started);
        assert!(child_started < child_finished);
        assert!(child_finished < outer_finished);
        // The stream modes reach the child too.
        assert!(events.iter().any(|e| e.namespace().len() == 2
            && matches!(e.inner(), Event::Updates { node, .. } if &**node == "deep")));
    }
}

#[tokio::test]
async fn a_sent_subgraph_tasks_events_name_their_task() {
    use rebound_graph::{Route, Send};
    // Appends only: the two tasks' updates merge.
    let mut child = StateGraph::<Chat>::new();
    child
        .add_sync_node("c", |_, _| Ok(say("c")))
        .add_edge(START, "c")
        .add_edge("c", END);
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_subgraph("sub", child.compile().unwrap())
        .add_conditional_edges(
            START,
            |_: &Chat| Route::sends([Send::new("sub", 0), Send::new("sub", 1)]),
            ["sub"],
        )
        .add_edge("sub", END);
    let events = streamed(&parent.compile().unwrap(), RunConfig::new()).await;
    let mut starts = node_starts(&events);
    starts.sort();
    assert_eq!(
        starts,
        [("", "sub"), ("", "sub"), ("sub#0", "c"), ("sub#1", "c")]
            .map(|(a, b)| (a.to_string(), b.to_string()))
    );
}

#[tokio::test]
async fn answering_an_old_interrupt_again_forks_the_finished_child_from_where_it_asked() {
    use subgraph_common::asking_child;
    let (effects, work_runs) = (counter(), counter());
    let child = asking_child(&effects, &work_runs);
    let saver = Arc::new(MemorySaver::new());
    let parent = one_subgraph("sub", child.clone())
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());
    let child = child.with_checkpointer(saver.clone());
    let t = || thread("old-q");

    let asked = parent.run(Chat::default(), t()).await.unwrap();
    let RunOutcome::Interrupted { checkpoint_id, .. } = asked else {
        panic!("expected the child's question, got {asked:?}");
    };
    let at_question = t().with_checkpoint_id(checkpoint_id);
    let first = parent
        .resume_with(json!("a"), t())
        .await
        .unwrap()
        .into_state();
    assert_eq!(first.messages, ["work", "a"]);
    let old_head = parent.get_state(&t()).await.unwrap().checkpoint_id;
    let (_, old) = parent.get_state_with_subgraphs(&at_question).await.unwrap();
    let old_thread = old[0].thread_id.clone();
    let old_history = child.history(&old[0].config(), None, None).await.unwrap();
    assert!(old[0].snapshot.metadata.is_finished(), "the child finished");

    // Answer the same question again, differently, at its checkpoint: a
    // new branch where the child gets "b".
    let again = parent
        .resume_with(json!("b"), at_question.clone())
        .await
        .unwrap();
    let RunOutcome::Completed(again) = again else {
        panic!("expected completion, got {again:?}");
    };
    assert_eq!(again.messages, ["work", "b"]);
    let head = parent.get_state(&t()).await.unwrap();
    assert_eq!(head.values, again);
    assert_ne!(head.checkpoint_id, old_head, "a new branch");
    // The child's work before its question is not done again: it forked
    // from where it asked, with its journal.
    assert_eq!(count(&work_runs), 1);
    assert_eq!(count(&effects), 1);

    // The new branch's child is a thread of its own; the old branch keeps
    // its child thread, history and final state.
    let fork_point = head.parent_id.unwrap();
    let (_, new) = parent
        .get_state_with_subgraphs(&t().with_checkpoint_id(fork_point))
        .await
        .unwrap();
    assert_eq!(new.len(), 1);
    assert_ne!(new[0].thread_id, old_thread);
    assert!(is_subgraph_thread(&new[0].thread_id));
    assert_eq!(new[0].snapshot.values["messages"], json!(["work", "b"]));
    let new_history = child.history(&new[0].config(), None, None).await.unwrap();
    let new_start = child
        .get_state(
            &new[0]
                .config()
                .with_checkpoint_id(new_history.last().unwrap().checkpoint_id),
        )
        .await
        .unwrap();
    assert_eq!(
        new_start.values,
        Chat::default(),
        "the forked child starts from the original child's input"
    );
    let (_, old_after) = parent.get_state_with_subgraphs(&at_question).await.unwrap();
    assert_eq!(old_after[0].thread_id, old_thread);
    assert_eq!(
        child.history(&old[0].config(), None, None).await.unwrap(),
        old_history
    );
    let old_final = parent
        .get_state(&t().with_checkpoint_id(old_head))
        .await
        .unwrap();
    assert_eq!(old_final.values, first);

    // Answering it a third time forks again, from the same question.
    let third = parent
        .resume_with(json!("c"), at_question)
        .await
        .unwrap()
        .into_state();
    assert_eq!(third.messages, ["work", "c"]);
    assert_eq!(count(&effects), 1);
}

/// One job of a map-reduce: the item a child gets, the result it makes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Job {
    item: String,
    result: String,
}

/// START -> process -> END over a [`Job`]: `process` journals an effect,
/// then asks a question for the item "ask", and upper-cases any other.
fn job_child(effects: &Arc<AtomicUsize>) -> CompiledGraph<Job> {
    let effects = Arc::clone(effects);
    let mut child = StateGraph::<Job>::new();
    child
        .add_node("process", move |job: Arc<Job>, ctx: NodeContext| {
            let effects = Arc::clone(&effects);
            async move {
                ctx.journal("effect", async move {
                    effects.fetch_add(1, Ordering::SeqCst);
                })
                .await?;
                let result = if job.item == "ask" {
                    let answer: String = ctx.interrupt(json!({"item": job.item}))?;
                    format!("ask:{answer}")
                } else {
                    job.item.to_uppercase()
                };
                Ok::<_, NodeError>(JobUpdate::default().result(result))
            }
        })
        .add_edge(START, "process")
        .add_edge("process", END);
    child.compile().unwrap()
}

/// A router sending `items` to the sent subgraph node "jobs", whose
/// children each get their own item and whose results the parent appends.
fn map_reduce(items: Vec<serde_json::Value>, child: CompiledGraph<Job>) -> StateGraph<Chat> {
    use rebound_graph::{Route, Send};
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_subgraph_sent(
            "jobs",
            child,
            |_: &Chat, item: String| {
                Ok(Job {
                    item,
                    ..Job::default()
                })
            },
            |_: &Chat, job: Job| Ok(say(&job.result)),
        )
        .add_conditional_edges(
            START,
            move |_: &Chat| Route::sends(items.iter().map(|item| Send::new("jobs", item.clone()))),
            ["jobs"],
        )
        .add_edge("jobs", END);
    parent
}

#[tokio::test]
async fn a_sent_subgraph_maps_each_payload_into_its_own_child() {
    let effects = counter();
    let parent = map_reduce(
        vec![json!("x"), json!("ask"), json!("z")],
        job_child(&effects),
    )
    .compile()
    .unwrap()
    .with_checkpointer(Arc::new(MemorySaver::new()));
    let t = || thread("map");

    let outcome = parent.run(Chat::default(), t()).await.unwrap();
    let waiting: Vec<(&str, &serde_json::Value)> = outcome
        .interrupts()
        .iter()
        .map(|i| (i.id.as_str(), &i.payload))
        .collect();
    assert_eq!(
        waiting,
        [("0:jobs#1/0:process:0", &json!({"item": "ask"}))],
        "only the child sent \"ask\" asks"
    );
    assert_eq!(count(&effects), 3);
    // The children's inputs were their own payloads.
    let (_, children) = parent.get_state_with_subgraphs(&t()).await.unwrap();
    let mut items: Vec<(String, serde_json::Value)> = children
        .iter()
        .map(|c| (c.task.clone(), c.snapshot.values["item"].clone()))
        .collect();
    items.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        items,
        [("jobs#0", "x"), ("jobs#1", "ask"), ("jobs#2", "z")]
            .map(|(task, item)| (task.to_string(), json!(item)))
    );

    let answers =
        std::collections::BTreeMap::from([("0:jobs#1/0:process:0".to_string(), json!("yes"))]);
    let done = parent
        .resume_with_map(answers, t())
        .await
        .unwrap()
        .into_state();
    // Merged in emission order; the finished children were not run again.
    assert_eq!(done.messages, ["X", "ask:yes", "Z"]);
    assert_eq!(count(&effects), 3);
}

#[tokio::test]
async fn a_sent_subgraph_scheduled_without_a_payload_is_a_typed_error() {
    let effects = counter();
    let mut parent = StateGraph::<Chat>::new();
    parent
        .add_subgraph_sent(
            "jobs",
            job_child(&effects),
            |_: &Chat, item: String| {
                Ok(Job {
                    item,
                    ..Job::default()
                })
            },
            |_: &Chat, job: Job| Ok(say(&job.result)),
        )
        .add_edge(START, "jobs")
        .add_edge("jobs", END);
    let error = parent
        .compile()
        .unwrap()
        .invoke(Chat::default(), RunConfig::new())
        .await
        .unwrap_err();
    let (node, source) = node_source(&error);
    assert_eq!(node, "jobs");
    assert!(
        matches!(source, SubgraphError::Input { node, message }
            if node == "jobs" && message.contains("no Send payload")),
        "{source:?}"
    );
    assert_eq!(count(&effects), 0, "the child never ran");

    // A payload that does not fit the mapping's type is refused the same way.
    let error = map_reduce(vec![json!("x"), json!(7)], job_child(&effects))
        .compile()
        .unwrap()
        .invoke(Chat::default(), RunConfig::new())
        .await
        .unwrap_err();
    let (node, source) = node_source(&error);
    assert_eq!(node, "jobs");
    assert!(
        matches!(source, SubgraphError::Input { message, .. } if message.contains("does not fit")),
        "{source:?}"
    );
}

#[tokio::test]
async fn a_child_that_failed_after_its_answer_resumes_where_it_failed_not_from_its_question() {
    let (asks, fail) = (
        counter(),
        Arc::new(std::sync::atomic::AtomicBool::new(true)),
    );
    let (asked, flaky) = (Arc::clone(&asks), Arc::clone(&fail));
    let mut child = StateGraph::<Chat>::new();
    child
        .add_sync_node("ask", move |_, ctx| {
            asked.fetch_add(1, Ordering::SeqCst);
            let answer: String = ctx.interrupt("go?")?;
            Ok(say(&answer))
        })
        .add_sync_node("flaky", move |_, _| {
            if flaky.load(Ordering::SeqCst) {
                return Err(NodeError::msg("not yet"));
            }
            Ok(say("flaky"))
        })
        .add_edge(START, "ask")
        .add_edge("ask", "flaky")
        .add_edge("flaky", END);
    let parent = one_subgraph("sub", child.compile().unwrap())
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()));
    parent.run(Chat::default(), thread("mid")).await.unwrap();
    parent
        .resume_with(json!("a"), thread("mid"))
        .await
        .unwrap_err();
    assert_eq!(count(&asks), 2, "asked, then answered");

    // The child ran on past its question on this very branch: the parent
    // goes on with it rather than forking it from the question.
    fail.store(false, Ordering::SeqCst);
    let done = parent.resume(thread("mid")).await.unwrap().into_state();
    assert_eq!(done.messages, ["a", "flaky"]);
    assert_eq!(count(&asks), 2, "the answered node did not run again");
}
