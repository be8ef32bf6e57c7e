//! `Send` with checkpoints: sent tasks that interrupt (each with an id of
//! its own), finished siblings that are not run again, journaled effects
//! that run once per task, a failed superstep resumed by a new graph with
//! the same tasks and payloads, static interrupts on a sent node, and
//! `update_state` on a checkpoint whose sends are due.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rebound_graph::{
    CompiledGraph, GraphError, Input, Interrupt, InterruptKind, NodeError, Route, RunConfig,
    RunOutcome, Send, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::backend::{fresh, reopen};
use crate::Backend;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Docs {
    docs: Vec<String>,
    #[state(append)]
    summaries: Vec<String>,
}

fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn dynamic(id: &str, doc: &str) -> Interrupt {
    Interrupt {
        id: id.to_string(),
        node: "review".to_string(),
        kind: InterruptKind::Dynamic,
        payload: json!({ "doc": doc }),
    }
}

/// Which payloads ran, in the order they started.
type Runs = Arc<Mutex<Vec<String>>>;

fn count(runs: &Runs, doc: &str) -> usize {
    runs.lock().unwrap().iter().filter(|d| *d == doc).count()
}

/// START -> plan =(a send per document)=> review -> END. review journals an
/// effect, then a document starting with '?' asks a human about it.
async fn reviewing(
    runs: &Runs,
    effects: &Arc<AtomicUsize>,
    backend: &dyn Backend,
) -> CompiledGraph<Docs> {
    let (runs, effects) = (Arc::clone(runs), Arc::clone(effects));
    let mut graph = StateGraph::<Docs>::new();
    graph
        .add_sync_node("plan", |_, _| Ok(DocsUpdate::default()))
        .add_node("review", move |_, ctx| {
            let (runs, effects) = (Arc::clone(&runs), Arc::clone(&effects));
            async move {
                let doc: String = ctx.send_arg()?.unwrap_or_default();
                runs.lock().unwrap().push(doc.clone());
                ctx.journal(
                    "effect",
                    async move { effects.fetch_add(1, Ordering::SeqCst) },
                )
                .await?;
                let summary = match doc.strip_prefix('?') {
                    Some(question) => {
                        let answer: String = ctx.interrupt(json!({ "doc": question }))?;
                        format!("{question}: {answer}")
                    }
                    None => doc,
                };
                Ok::<_, NodeError>(DocsUpdate::default().summaries(vec![summary]))
            }
        })
        .add_edge(START, "plan")
        .add_conditional_edges(
            "plan",
            |s: &Docs| Route::sends(s.docs.iter().map(|d| Send::new("review", d.clone()))),
            ["review"],
        )
        .add_edge("review", END);
    graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await)
}

fn docs(items: &[&str]) -> Docs {
    Docs {
        docs: strings(items),
        summaries: Vec::new(),
    }
}

/// Scenario: a sent task that interrupts stops the superstep and resumes alone.
pub async fn a_sent_task_that_interrupts_stops_the_superstep_and_resumes_alone(
    backend: &dyn Backend,
) {
    let (runs, effects) = (Runs::default(), Arc::new(AtomicUsize::new(0)));
    let graph = reviewing(&runs, &effects, backend).await;

    let outcome = graph
        .run(docs(&["a", "?b", "c"]), thread("t"))
        .await
        .unwrap();
    let expected = vec![dynamic("1:review#1:0", "b")];
    assert_eq!(outcome.interrupts(), expected);
    // Nothing of the stopped superstep is merged.
    assert!(outcome.state().summaries.is_empty());
    let snapshot = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(snapshot.interrupts, expected);
    assert_eq!(snapshot.metadata.sends.len(), 3);
    assert_eq!(effects.load(Ordering::SeqCst), 3);

    let done = graph.resume_with(json!("yes"), thread("t")).await.unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.summaries, ["a", "b: yes", "c"]);
    // Only the interrupted task ran again; its journaled effect did not.
    assert_eq!(
        [count(&runs, "a"), count(&runs, "?b"), count(&runs, "c")],
        [1, 2, 1]
    );
    assert_eq!(effects.load(Ordering::SeqCst), 3);
}

/// Scenario: two sent tasks of one node interrupting are answered by id.
pub async fn two_sent_tasks_of_one_node_interrupting_are_answered_by_id(backend: &dyn Backend) {
    let (runs, effects) = (Runs::default(), Arc::new(AtomicUsize::new(0)));
    let graph = reviewing(&runs, &effects, backend).await;

    let outcome = graph
        .run(docs(&["a", "?b", "?c"]), thread("t"))
        .await
        .unwrap();
    let (b, c) = (dynamic("1:review#1:0", "b"), dynamic("1:review#2:0", "c"));
    assert_eq!(outcome.interrupts(), [b.clone(), c.clone()]);

    // One value would answer both.
    match graph
        .resume_with(json!("x"), thread("t"))
        .await
        .unwrap_err()
    {
        GraphError::AmbiguousResume { waiting, .. } => {
            assert_eq!(waiting, [b.id.clone(), c.id.clone()]);
        }
        other => panic!("expected AmbiguousResume, got {other:?}"),
    }

    // Answer b only: c asks again, with the id it had.
    let answers = BTreeMap::from([(b.id.clone(), json!("one"))]);
    let partial = graph.resume_with_map(answers, thread("t")).await.unwrap();
    assert_eq!(partial.interrupts(), std::slice::from_ref(&c));
    assert_eq!(
        graph.get_state(&thread("t")).await.unwrap().interrupts,
        std::slice::from_ref(&c)
    );

    let answers = BTreeMap::from([(c.id.clone(), json!("two"))]);
    let done = graph.resume_with_map(answers, thread("t")).await.unwrap();
    assert_eq!(done.into_state().summaries, ["a", "b: one", "c: two"]);
    assert_eq!(
        [count(&runs, "a"), count(&runs, "?b"), count(&runs, "?c")],
        [1, 2, 3]
    );
    assert_eq!(effects.load(Ordering::SeqCst), 3, "one effect per task");
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Numbers {
    k: u64,
    #[state(append)]
    items: Vec<u64>,
}

fn numbers(k: u64) -> Numbers {
    Numbers {
        k,
        items: Vec::new(),
    }
}

/// How often each payload ran.
type Counts = Arc<[AtomicUsize; 3]>;

fn counts(counts: &Counts) -> [usize; 3] {
    [0, 1, 2].map(|i| counts[i].load(Ordering::SeqCst))
}

/// START -> fanout =(k sends of 0..k)=> work -> tail -> END. work records
/// its payload `n` as `10 n`; with `fail_once`, payload 1 fails (after its
/// siblings finished) the first time.
fn fan_out(runs: &Counts, fail_once: &Arc<AtomicBool>) -> StateGraph<Numbers> {
    let (runs, fail_once) = (Arc::clone(runs), Arc::clone(fail_once));
    let mut graph = StateGraph::<Numbers>::new();
    graph
        .add_sync_node("fanout", |_, _| Ok(NumbersUpdate::default()))
        .add_node("work", move |_, ctx| {
            let (runs, fail_once) = (Arc::clone(&runs), Arc::clone(&fail_once));
            async move {
                let n: u64 = ctx.send_arg()?.unwrap_or(u64::MAX);
                runs[n as usize].fetch_add(1, Ordering::SeqCst);
                if n == 1 && fail_once.swap(false, Ordering::SeqCst) {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    return Err(NodeError::msg("crashed"));
                }
                Ok(NumbersUpdate::default().items(vec![10 * n]))
            }
        })
        .add_sync_node("tail", |_, _| Ok(NumbersUpdate::default()))
        .add_edge(START, "fanout")
        .add_conditional_edges(
            "fanout",
            |s: &Numbers| Route::sends((0..s.k).map(|i| Send::new("work", i))),
            ["work"],
        )
        .add_edge("work", "tail")
        .add_edge("tail", END);
    graph
}

fn sends(k: u64) -> Vec<Send> {
    (0..k).map(|i| Send::new("work", i)).collect()
}

/// Scenario: a failed send superstep is resumed by a new graph with the same tasks.
pub async fn a_failed_send_superstep_is_resumed_by_a_new_graph_with_the_same_tasks(
    backend: &dyn Backend,
) {
    let (runs, fail_once) = (Counts::default(), Arc::new(AtomicBool::new(true)));
    let saver = fresh(backend).await;
    let graph = fan_out(&runs, &fail_once)
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());
    let error = graph.invoke(numbers(3), thread("t")).await.unwrap_err();
    assert!(
        matches!(&error, GraphError::Node { node, .. } if node == "work"),
        "{error:?}"
    );
    assert_eq!(counts(&runs), [1, 1, 1]);
    let latest = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(latest.metadata.sends, sends(3));
    // The finished siblings' updates are kept, by task.
    let writes = saver
        .pending_writes("t", latest.checkpoint_id)
        .await
        .unwrap();
    let mut kept: Vec<&str> = writes.iter().map(|w| w.node.as_str()).collect();
    kept.sort_unstable();
    assert_eq!(kept, ["work#0", "work#2"]);

    // A new process: the graph built again over the same store.
    let fresh = fan_out(&runs, &fail_once)
        .compile()
        .unwrap()
        .with_checkpointer(reopen(backend, &saver).await);
    let done = fresh.run(Input::Resume, thread("t")).await.unwrap();
    assert_eq!(done.into_state().items, [0, 10, 20]);
    assert_eq!(counts(&runs), [1, 2, 1], "only the failed task ran again");
}

/// Scenario: interrupt before a sent node stops once and resume runs every task.
pub async fn interrupt_before_a_sent_node_stops_once_and_resume_runs_every_task(
    backend: &dyn Backend,
) {
    let runs = Counts::default();
    let saver = fresh(backend).await;
    let no_failure = Arc::new(AtomicBool::new(false));
    let graph = fan_out(&runs, &no_failure)
        .compile()
        .unwrap()
        .with_checkpointer(saver.clone());
    let config = thread("t").with_interrupt_before(["work"]);
    let outcome = graph.run(numbers(3), config).await.unwrap();
    let expected = vec![Interrupt {
        id: "1:work:before".to_string(),
        node: "work".to_string(),
        kind: InterruptKind::Before,
        payload: Value::Null,
    }];
    assert_eq!(outcome.interrupts(), expected);
    assert_eq!(counts(&runs), [0, 0, 0]);
    let snapshot = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(snapshot.metadata.sends, sends(3));
    assert!(snapshot.metadata.next.is_empty());
    assert_eq!(snapshot.interrupts, expected);

    // A new process: the graph built again over the same store.
    let fresh = fan_out(&runs, &no_failure)
        .compile()
        .unwrap()
        .with_checkpointer(reopen(backend, &saver).await);
    let done = fresh.run(Input::Resume, thread("t")).await.unwrap();
    assert_eq!(done.into_state().items, [0, 10, 20]);
    assert_eq!(counts(&runs), [1, 1, 1]);
}

/// Scenario: interrupt after a sent node stops once after all its tasks.
pub async fn interrupt_after_a_sent_node_stops_once_after_all_its_tasks(backend: &dyn Backend) {
    let runs = Counts::default();
    let no_failure = Arc::new(AtomicBool::new(false));
    let graph = fan_out(&runs, &no_failure)
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let config = thread("t").with_interrupt_after(["work"]);
    let outcome = graph.run(numbers(3), config).await.unwrap();
    let interrupts = outcome.interrupts();
    assert_eq!(interrupts.len(), 1, "{interrupts:?}");
    assert_eq!(
        (interrupts[0].node.as_str(), interrupts[0].kind),
        ("work", InterruptKind::After)
    );
    assert_eq!(outcome.state().items, [0, 10, 20]);
    let done = graph.resume(thread("t")).await.unwrap();
    assert_eq!(done.into_state().items, [0, 10, 20]);
    assert_eq!(counts(&runs), [1, 1, 1]);
}

/// Scenario: update state without as node keeps the sends due.
pub async fn update_state_without_as_node_keeps_the_sends_due(backend: &dyn Backend) {
    let runs = Counts::default();
    let no_failure = Arc::new(AtomicBool::new(false));
    let graph = fan_out(&runs, &no_failure)
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let config = thread("t").with_interrupt_before(["work"]);
    assert!(graph
        .run(numbers(3), config)
        .await
        .unwrap()
        .is_interrupted());

    let update = NumbersUpdate::default().items(vec![99]);
    graph
        .update_state(&thread("t"), update, None)
        .await
        .unwrap();
    let snapshot = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(snapshot.metadata.sends, sends(3));
    assert_eq!(snapshot.values.items, [99]);

    let done = graph.resume(thread("t")).await.unwrap();
    assert_eq!(done.into_state().items, [99, 0, 10, 20]);
    assert_eq!(counts(&runs), [1, 1, 1]);
}

/// Scenario: update state as the last waiting node completes the superstep with the sends.
pub async fn update_state_as_the_last_waiting_node_completes_the_superstep_with_the_sends(
    backend: &dyn Backend,
) {
    // fanout schedules asker (which interrupts) and sends three tasks of work.
    let mut graph = StateGraph::<Numbers>::new();
    graph
        .add_sync_node("fanout", |_, _| Ok(NumbersUpdate::default()))
        .add_sync_node("asker", |_, ctx| {
            let value: u64 = ctx.interrupt("value?")?;
            Ok(NumbersUpdate::default().items(vec![value]))
        })
        .add_sync_node("work", |_, ctx| {
            let n: u64 = ctx.send_arg()?.unwrap_or(u64::MAX);
            Ok(NumbersUpdate::default().items(vec![n]))
        })
        .add_edge(START, "fanout")
        .add_conditional_edges(
            "fanout",
            |s: &Numbers| Route::to("asker").with_sends(sends(s.k)),
            ["asker", "work"],
        )
        .add_edge("asker", END)
        .add_edge("work", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let outcome = graph.run(numbers(3), thread("t")).await.unwrap();
    assert_eq!(outcome.interrupts().len(), 1);
    assert_eq!(outcome.interrupts()[0].id, "1:asker:0");

    let update = NumbersUpdate::default().items(vec![7]);
    graph
        .update_state(&thread("t"), update, Some("asker"))
        .await
        .unwrap();
    let snapshot = graph.get_state(&thread("t")).await.unwrap();
    // The scheduled node's update, then the sends' in emission order.
    assert_eq!(snapshot.values.items, [7, 0, 1, 2]);
    assert!(snapshot.metadata.is_finished());
    assert_eq!(snapshot.metadata.ran, ["asker", "work"]);
}

/// Scenario: a replay from a checkpoint with sends runs the same tasks again.
pub async fn a_replay_from_a_checkpoint_with_sends_runs_the_same_tasks_again(
    backend: &dyn Backend,
) {
    let runs = Counts::default();
    let no_failure = Arc::new(AtomicBool::new(false));
    let graph = fan_out(&runs, &no_failure)
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let done = graph.invoke(numbers(3), thread("t")).await.unwrap();
    assert_eq!(done.items, [0, 10, 20]);
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    let fanned = history
        .iter()
        .find(|c| !c.metadata.sends.is_empty())
        .unwrap();
    assert_eq!(fanned.metadata.sends, sends(3));

    let replay = thread("t").with_checkpoint_id(fanned.checkpoint_id);
    let again = graph.run(Input::Resume, replay).await.unwrap();
    assert_eq!(again.into_state().items, [0, 10, 20]);
    assert_eq!(counts(&runs), [2, 2, 2]);
}

/// Scenario: a resume commands goto replaces the sends due.
pub async fn a_resume_commands_goto_replaces_the_sends_due(backend: &dyn Backend) {
    let runs = Counts::default();
    let no_failure = Arc::new(AtomicBool::new(false));
    let graph = fan_out(&runs, &no_failure)
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let config = thread("t").with_interrupt_before(["work"]);
    assert!(graph
        .run(numbers(3), config)
        .await
        .unwrap()
        .is_interrupted());

    let command = rebound_graph::ResumeCommand {
        goto: Some(strings(&["tail"])),
        ..Default::default()
    };
    let done = graph
        .run(Input::Command(command), thread("t"))
        .await
        .unwrap();
    assert!(done.into_state().items.is_empty());
    assert_eq!(counts(&runs), [0, 0, 0]);
    let latest = graph.get_state(&thread("t")).await.unwrap();
    assert!(latest.metadata.is_finished());
}

/// Scenario: a finished siblings goto sends survive the interrupt.
pub async fn a_finished_siblings_goto_sends_survive_the_interrupt(backend: &dyn Backend) {
    // jumper sends with its goto and finishes while asker waits: its output
    // is kept as a pending write, and its sends must run after the resume.
    let mut graph = StateGraph::<Numbers>::new();
    graph
        .add_sync_node("asker", |_, ctx| {
            let value: u64 = ctx.interrupt("value?")?;
            Ok(NumbersUpdate::default().items(vec![value]))
        })
        .add_sync_node("jumper", |_, _| {
            Ok(rebound_graph::Command::goto(Route::sends(sends(2))))
        })
        .add_sync_node("work", |_, ctx| {
            let n: u64 = ctx.send_arg()?.unwrap_or(u64::MAX);
            Ok(NumbersUpdate::default().items(vec![100 + n]))
        })
        .configure_node(
            "jumper",
            rebound_graph::NodeOptions::new().destinations(["work"]),
        )
        .add_edge(START, "asker")
        .add_edge(START, "jumper")
        .add_edge("asker", END)
        .add_edge("work", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await);
    let first = graph.run(numbers(0), thread("t")).await.unwrap();
    assert!(first.is_interrupted());
    let done = graph.resume_with(json!(7), thread("t")).await.unwrap();
    assert_eq!(done.into_state().items, [7, 100, 101]);
}
