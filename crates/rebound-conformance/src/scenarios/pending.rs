//! Pending writes survive `update_state` and replay: answers already given,
//! finished siblings' updates and journaled effects stay attached to the
//! checkpoint a thread goes on from, so no answer is lost and no effect
//! runs twice on one branch. (What a fork of a checkpoint the thread has
//! moved on from takes — not its answers — is `scenarios::forks`.)

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rebound_graph::{
    CompiledGraph, GraphError, InterruptKind, NodeContext, NodeError, RunConfig, RunOutcome, State,
    StateGraph, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::backend::fresh;
use crate::Backend;

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
async fn two_questions(counts: &Arc<Counts>, backend: &dyn Backend) -> CompiledGraph<Desk> {
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
        .with_checkpointer(fresh(backend).await)
}

/// Paused at the second question, with the first answered.
async fn at_the_second_question(graph: &CompiledGraph<Desk>) {
    let first = graph.run(Desk::default(), thread("t")).await.unwrap();
    assert_eq!(first.interrupts()[0].payload, json!("q1?"));
    let second = graph.resume_with(json!("a1"), thread("t")).await.unwrap();
    assert_eq!(second.interrupts()[0].payload, json!("q2?"));
}

/// `update_state` without `as_node` on a superstep stopped at a dynamic
/// interrupt: the interrupt still waits, the answer given keeps, the
/// finished sibling does not run again, and the journaled effect is not
/// repeated.
pub async fn an_update_keeps_the_waiting_interrupt_its_answers_and_the_journal(
    backend: &dyn Backend,
) {
    let counts = Arc::new(Counts::default());
    let graph = two_questions(&counts, backend).await;
    at_the_second_question(&graph).await;

    let update = DeskUpdate::default().log(vec!["patched".to_string()]);
    let id = graph
        .update_state(&thread("t"), update, None)
        .await
        .unwrap();
    let snapshot = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(snapshot.checkpoint_id, id);
    assert_eq!(snapshot.metadata.next, ["asker", "sibling"]);
    assert_eq!(snapshot.interrupts.len(), 1, "{snapshot:?}");
    assert_eq!(snapshot.interrupts[0].payload, json!("q2?"));
    assert_eq!(snapshot.interrupts[0].kind, InterruptKind::Dynamic);

    let done = graph.resume_with(json!("a2"), thread("t")).await.unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.answers, ["a1", "a2"], "the first answer was kept");
    assert_eq!(done.log, ["patched", "asker", "sibling"]);
    assert_eq!(counts.effects(), 1, "the journaled effect ran once");
    assert_eq!(
        counts.sibling(),
        1,
        "the finished sibling did not run again"
    );
}

/// `update_state` as the interrupted node gives that node's result: the
/// superstep completes with it and the finished sibling's kept update, and
/// neither runs again.
pub async fn an_update_as_the_interrupted_node_completes_the_superstep_with_the_sibling(
    backend: &dyn Backend,
) {
    let counts = Arc::new(Counts::default());
    let graph = two_questions(&counts, backend).await;
    at_the_second_question(&graph).await;

    let update = DeskUpdate::default().answers(vec!["by hand".to_string()]);
    graph
        .update_state(&thread("t"), update, Some("asker"))
        .await
        .unwrap();
    let snapshot = graph.get_state(&thread("t")).await.unwrap();
    assert!(snapshot.metadata.next.is_empty(), "{snapshot:?}");
    assert!(snapshot.interrupts.is_empty());
    assert_eq!(snapshot.values.answers, ["by hand"]);
    assert_eq!(
        snapshot.values.log,
        ["sibling"],
        "the sibling's finished update is merged, not lost"
    );
    assert_eq!(counts.sibling(), 1);
    assert_eq!(counts.effects(), 1);
}

/// Updating the state twice in a row still carries the writes along.
pub async fn two_updates_in_a_row_keep_the_writes(backend: &dyn Backend) {
    let counts = Arc::new(Counts::default());
    let graph = two_questions(&counts, backend).await;
    at_the_second_question(&graph).await;
    for word in ["one", "two"] {
        let update = DeskUpdate::default().log(vec![word.to_string()]);
        graph
            .update_state(&thread("t"), update, None)
            .await
            .unwrap();
    }
    let done = graph.resume_with(json!("a2"), thread("t")).await.unwrap();
    assert_eq!(done.state().answers, ["a1", "a2"]);
    assert_eq!(counts.effects(), 1);
    assert_eq!(counts.sibling(), 1);
}

/// START -> a -> ask -> b -> END, `ask` asks a question.
async fn ask_chain(asked: &Arc<AtomicUsize>, backend: &dyn Backend) -> CompiledGraph<Desk> {
    let asked = Arc::clone(asked);
    let mut graph = StateGraph::<Desk>::new();
    graph
        .add_sync_node("a", |_, _| {
            Ok(DeskUpdate::default().log(vec!["a".to_string()]))
        })
        .add_sync_node("ask", move |_, ctx| {
            asked.fetch_add(1, Ordering::SeqCst);
            let answer: String = ctx.interrupt("Q?")?;
            Ok(DeskUpdate::default().answers(vec![answer]))
        })
        .add_sync_node("b", |_, _| {
            Ok(DeskUpdate::default().log(vec!["b".to_string()]))
        })
        .add_edge(START, "a")
        .add_edge("a", "ask")
        .add_edge("ask", "b")
        .add_edge("b", END);
    graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await)
}

/// Replay from the checkpoint before a dynamic interrupt: the interrupt
/// fires again on a new branch head, which `get_state` shows and a resume
/// (of the thread, or of that head by id) continues; the old branch stays.
pub async fn a_replay_before_an_interrupt_can_be_resumed_on_its_new_head(backend: &dyn Backend) {
    let asked = Arc::new(AtomicUsize::new(0));
    let graph = ask_chain(&asked, backend).await;
    graph.run(Desk::default(), thread("t")).await.unwrap();
    let done = graph.resume_with(json!("old"), thread("t")).await.unwrap();
    assert_eq!(done.state().answers, ["old"]);
    let old_head = graph.get_state(&thread("t")).await.unwrap().checkpoint_id;
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    let before_ask = history
        .iter()
        .find(|c| c.metadata.next == ["ask"])
        .unwrap()
        .checkpoint_id;

    let replay = graph
        .resume(thread("t").with_checkpoint_id(before_ask))
        .await
        .unwrap();
    let RunOutcome::Interrupted { checkpoint_id, .. } = &replay else {
        panic!("expected the interrupt again, got {replay:?}");
    };
    assert_ne!(*checkpoint_id, before_ask, "a new branch head");
    let head = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(head.checkpoint_id, *checkpoint_id);
    assert_eq!(head.parent_id, Some(before_ask));
    assert_eq!(head.interrupts.len(), 1, "{head:?}");
    assert_eq!(head.interrupts[0].payload, json!("Q?"));

    let done = graph.resume_with(json!("new"), thread("t")).await.unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.answers, ["new"]);
    assert_eq!(done.log, ["a", "b"]);
    // The old branch is intact.
    let old = graph
        .get_state(&thread("t").with_checkpoint_id(old_head))
        .await
        .unwrap();
    assert_eq!(old.values.answers, ["old"]);
}

/// A resume by the id of an interrupted branch head that is no longer the
/// latest answers that head's interrupt.
pub async fn an_interrupted_head_resumes_by_id_after_the_thread_moved_on(backend: &dyn Backend) {
    let asked = Arc::new(AtomicUsize::new(0));
    let graph = ask_chain(&asked, backend).await;
    let first = graph.run(Desk::default(), thread("t")).await.unwrap();
    let RunOutcome::Interrupted { checkpoint_id, .. } = first else {
        panic!("expected an interrupt");
    };
    // The thread moves on from an earlier checkpoint (a fork).
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    let input = history.last().unwrap().checkpoint_id;
    let update = DeskUpdate::default().log(vec!["fork".to_string()]);
    graph
        .update_state(&thread("t").with_checkpoint_id(input), update, None)
        .await
        .unwrap();

    let done = graph
        .resume_with(json!("late"), thread("t").with_checkpoint_id(checkpoint_id))
        .await
        .unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.answers, ["late"]);
    assert_eq!(asked.load(Ordering::SeqCst), 2, "asked, then answered");
}

/// A resume value for a checkpoint where nothing waits is refused.
pub async fn a_value_for_a_checkpoint_where_nothing_waits_is_refused(backend: &dyn Backend) {
    let asked = Arc::new(AtomicUsize::new(0));
    let graph = ask_chain(&asked, backend).await;
    graph.run(Desk::default(), thread("t")).await.unwrap();
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    let input = history.last().unwrap().checkpoint_id;
    let error = graph
        .resume_with(json!("x"), thread("t").with_checkpoint_id(input))
        .await
        .unwrap_err();
    assert!(
        matches!(error, GraphError::NothingToResume { .. }),
        "{error:?}"
    );
}

/// `update_state` as a node outside the superstep due routes anew: that
/// superstep is abandoned with its writes, so the question is asked again.
pub async fn an_update_as_an_earlier_node_routes_anew_and_asks_again(backend: &dyn Backend) {
    let asked = Arc::new(AtomicUsize::new(0));
    let graph = ask_chain(&asked, backend).await;
    graph.run(Desk::default(), thread("t")).await.unwrap();
    let update = DeskUpdate::default().log(vec!["a again".to_string()]);
    graph
        .update_state(&thread("t"), update, Some("a"))
        .await
        .unwrap();
    let snapshot = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(snapshot.metadata.next, ["ask"]);
    assert!(snapshot.interrupts.is_empty(), "{snapshot:?}");
    // The new checkpoint tells what it left behind: the due `ask` and its
    // interrupt.
    let abandoned = snapshot.metadata.abandoned.clone().unwrap();
    assert_eq!(abandoned.next, ["ask"]);
    assert_eq!((abandoned.sends, abandoned.writes), (0, 1));
    let again = graph.resume(thread("t")).await.unwrap();
    assert_eq!(again.interrupts()[0].payload, json!("Q?"));
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    let done = graph.resume_with(json!("yes"), thread("t")).await.unwrap();
    assert_eq!(done.state().log, ["a", "a again", "b"]);
    let end = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(
        end.metadata.abandoned, None,
        "only on the update's checkpoint"
    );
}

/// START -> {left, right} -> END: both ask at once; `left` first makes a
/// journaled effect.
async fn two_askers(effects: &Arc<AtomicUsize>, backend: &dyn Backend) -> CompiledGraph<Desk> {
    let effects = Arc::clone(effects);
    let mut graph = StateGraph::<Desk>::new();
    graph
        .add_node("left", move |_, ctx: NodeContext| {
            let effects = Arc::clone(&effects);
            async move {
                ctx.journal("effect", async move {
                    effects.fetch_add(1, Ordering::SeqCst);
                })
                .await?;
                let answer: String = ctx.interrupt("left?")?;
                Ok::<_, NodeError>(DeskUpdate::default().answers(vec![format!("left {answer}")]))
            }
        })
        .add_sync_node("right", |_, ctx| {
            let answer: String = ctx.interrupt("right?")?;
            Ok(DeskUpdate::default().answers(vec![format!("right {answer}")]))
        })
        .add_edge(START, "left")
        .add_edge(START, "right")
        .add_edge("left", END)
        .add_edge("right", END);
    graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await)
}

fn ids(interrupts: &[rebound_graph::Interrupt]) -> Vec<&str> {
    interrupts.iter().map(|i| i.id.as_str()).collect()
}

/// Two interrupts wait: a bare value is refused (it would answer both),
/// nothing is written; a map answers one by id, the other keeps waiting
/// under the same id; then the one left takes a bare value.
pub async fn one_answer_per_interrupt_by_id(backend: &dyn Backend) {
    let effects = Arc::new(AtomicUsize::new(0));
    let graph = two_askers(&effects, backend).await;
    let outcome = graph.run(Desk::default(), thread("t")).await.unwrap();
    assert_eq!(ids(outcome.interrupts()), ["0:left:0", "0:right:0"]);
    let before = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(ids(&before.interrupts), ["0:left:0", "0:right:0"]);

    let error = graph
        .resume_with(json!("single"), thread("t"))
        .await
        .unwrap_err();
    match &error {
        GraphError::AmbiguousResume { waiting, .. } => {
            assert_eq!(waiting, &["0:left:0", "0:right:0"]);
        }
        other => panic!("expected AmbiguousResume, got {other:?}"),
    }
    assert!(error.to_string().contains("resume_with_map"), "{error}");
    assert_eq!(graph.get_state(&thread("t")).await.unwrap(), before);

    let partial = graph
        .resume_with_map(
            std::collections::BTreeMap::from([("0:left:0".to_string(), json!("L"))]),
            thread("t"),
        )
        .await
        .unwrap();
    assert_eq!(ids(partial.interrupts()), ["0:right:0"], "{partial:?}");
    let done = graph.resume_with(json!("R"), thread("t")).await.unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.answers, ["left L", "right R"]);
    assert_eq!(effects.load(Ordering::SeqCst), 1);
}

/// An id that is not waiting is a typed error naming it and the ones that
/// are; nothing is written.
pub async fn an_unknown_interrupt_id_is_refused(backend: &dyn Backend) {
    let effects = Arc::new(AtomicUsize::new(0));
    let graph = two_askers(&effects, backend).await;
    graph.run(Desk::default(), thread("t")).await.unwrap();
    let before = graph.get_state(&thread("t")).await.unwrap();
    let error = graph
        .resume_with_map(
            std::collections::BTreeMap::from([
                ("0:left:0".to_string(), json!("L")),
                ("9:nobody:0".to_string(), json!("?")),
            ]),
            thread("t"),
        )
        .await
        .unwrap_err();
    match &error {
        GraphError::UnknownInterrupt { id, waiting, .. } => {
            assert_eq!(id, "9:nobody:0");
            assert_eq!(waiting, &["0:left:0", "0:right:0"]);
        }
        other => panic!("expected UnknownInterrupt, got {other:?}"),
    }
    assert_eq!(graph.get_state(&thread("t")).await.unwrap(), before);
}

/// Interrupt ids stay the same through an update of the state.
pub async fn interrupt_ids_survive_an_update(backend: &dyn Backend) {
    let counts = Arc::new(Counts::default());
    let graph = two_questions(&counts, backend).await;
    at_the_second_question(&graph).await;
    let id = graph.get_state(&thread("t")).await.unwrap().interrupts[0]
        .id
        .clone();
    assert_eq!(id, "0:asker:1");
    let update = DeskUpdate::default().log(vec!["patched".to_string()]);
    graph
        .update_state(&thread("t"), update, None)
        .await
        .unwrap();
    let after = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(ids(&after.interrupts), [id.as_str()]);
    let done = graph
        .resume_with_map(
            std::collections::BTreeMap::from([(id, json!("a2"))]),
            thread("t"),
        )
        .await
        .unwrap();
    assert_eq!(done.state().answers, ["a1", "a2"]);
}

/// A resume command answers, writes to the state and picks the next node
/// in one new checkpoint: the update is in the state the resumed node
/// reads, and the goto replaces the nodes due.
pub async fn a_resume_command_answers_updates_and_goes_to_in_one_checkpoint(backend: &dyn Backend) {
    let asked = Arc::new(AtomicUsize::new(0));
    let graph = ask_chain(&asked, backend).await;
    graph.run(Desk::default(), thread("t")).await.unwrap();
    let before = graph.history(&thread("t"), None, None).await.unwrap().len();

    let command = rebound_graph::ResumeCommand {
        resume: Some(json!("yes")),
        update: Some(json!({"log": ["by command"]})),
        ..Default::default()
    };
    let done = graph
        .run(rebound_graph::Input::Command(command), thread("t"))
        .await
        .unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.answers, ["yes"]);
    assert_eq!(done.log, ["a", "by command", "b"]);
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    // One checkpoint for the command, then ask's and b's.
    assert_eq!(history.len(), before + 3);
    let command_checkpoint = &history[2];
    assert_eq!(command_checkpoint.metadata.ran, ["__command__"]);
    assert_eq!(command_checkpoint.metadata.next, ["ask"]);

    // A goto past the question: `ask` is not run.
    let asked = Arc::new(AtomicUsize::new(0));
    let graph = ask_chain(&asked, backend).await;
    graph.run(Desk::default(), thread("u")).await.unwrap();
    let command = rebound_graph::ResumeCommand {
        goto: Some(vec!["b".to_string()]),
        ..Default::default()
    };
    let done = graph
        .run(rebound_graph::Input::Command(command), thread("u"))
        .await
        .unwrap();
    assert_eq!(done.state().log, ["a", "b"]);
    assert!(done.state().answers.is_empty());
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}

/// A bad command changes nothing: an update that does not fit the state,
/// a goto to an unknown node, both kinds of resume at once.
pub async fn a_bad_resume_command_is_refused_and_writes_nothing(backend: &dyn Backend) {
    let asked = Arc::new(AtomicUsize::new(0));
    let graph = ask_chain(&asked, backend).await;
    graph.run(Desk::default(), thread("t")).await.unwrap();
    let before = graph.get_state(&thread("t")).await.unwrap();
    let commands = [
        rebound_graph::ResumeCommand {
            update: Some(json!({"log": "not a list"})),
            ..Default::default()
        },
        rebound_graph::ResumeCommand {
            goto: Some(vec!["nowhere".to_string()]),
            ..Default::default()
        },
        rebound_graph::ResumeCommand {
            goto: Some(Vec::new()),
            ..Default::default()
        },
        rebound_graph::ResumeCommand {
            resume: Some(json!("x")),
            resume_map: [("0:ask:0".to_string(), json!("y"))].into(),
            ..Default::default()
        },
    ];
    for command in commands {
        let error = graph
            .run(rebound_graph::Input::Command(command.clone()), thread("t"))
            .await
            .unwrap_err();
        assert!(
            matches!(
                error,
                GraphError::BadInput { .. } | GraphError::UnknownNode { .. }
            ),
            "{command:?}: {error:?}"
        );
        assert_eq!(graph.get_state(&thread("t")).await.unwrap(), before);
    }
}

/// One node, `count`, that appends "count" to the log.
fn counting_graph() -> rebound_graph::CompiledGraph<Desk> {
    let mut graph = StateGraph::<Desk>::new();
    graph
        .add_sync_node("count", |_, _| {
            Ok(DeskUpdate::default().log(vec!["count".to_string()]))
        })
        .add_edge(START, "count")
        .add_edge("count", END);
    graph.compile().unwrap()
}

/// `Input::Update` starts a fresh run from the thread's state with the
/// update merged in (appended here), where `Input::State` replaces it.
pub async fn a_partial_input_is_merged_into_the_threads_state(backend: &dyn Backend) {
    let graph = counting_graph().with_checkpointer(fresh(backend).await);
    graph.run(Desk::default(), thread("t")).await.unwrap();
    let merged = graph
        .run(
            rebound_graph::Input::Update(json!({"log": ["input"]})),
            thread("t"),
        )
        .await
        .unwrap();
    assert_eq!(merged.state().log, ["count", "input", "count"]);

    let unknown = graph
        .run(
            rebound_graph::Input::Update(json!({"log": ["x"]})),
            thread("new"),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, GraphError::UnknownThread { .. }),
        "{unknown:?}"
    );
    let bad = graph
        .run(rebound_graph::Input::Update(json!({"log": 3})), thread("t"))
        .await
        .unwrap_err();
    assert!(matches!(bad, GraphError::BadInput { .. }), "{bad:?}");
    assert_eq!(
        graph.get_state(&thread("t")).await.unwrap().values.log,
        ["count", "input", "count"],
        "nothing written"
    );
}

/// An input merged into a thread's state is stored as that change (a
/// delta), not as the whole state again: a thread that takes many inputs
/// keeps few snapshots, and reads back as the same state, here and in a
/// new saver on the same store.
pub async fn a_merged_input_is_stored_as_its_change(backend: &dyn Backend) {
    let compiled = counting_graph();
    let saver = fresh(backend).await;
    let graph = compiled.clone().with_checkpointer(Arc::clone(&saver));
    graph.run(Desk::default(), thread("t")).await.unwrap();
    let mut expected = vec!["count".to_string()];
    for i in 0..40 {
        let input = format!("input {i} {}", "x".repeat(40));
        graph
            .run(
                rebound_graph::Input::Update(json!({ "log": [input.clone()] })),
                thread("t"),
            )
            .await
            .unwrap();
        expected.extend([input, "count".to_string()]);
    }
    assert_eq!(
        graph.get_state(&thread("t")).await.unwrap().values.log,
        expected
    );

    let stored = saver.list("t", None, None).await.unwrap();
    assert_eq!(stored.len(), 2 * 41, "an input and a step per run");
    let snapshots = stored.iter().filter(|c| c.state.is_snapshot()).count();
    assert!(
        snapshots <= 3,
        "{snapshots} of {} checkpoints are whole states",
        stored.len()
    );
    // The second run's input checkpoint: the first merged input, as a delta.
    let first_input = &stored[stored.len() - 3];
    assert!(!first_input.state.is_snapshot(), "{first_input:?}");
    let bytes = String::from_utf8_lossy(first_input.state.bytes()).to_string();
    assert!(
        bytes.contains("input 0") && !bytes.contains("count"),
        "{bytes}"
    );

    // Every checkpoint reads back the same by id as in a new saver.
    let reopened = compiled.with_checkpointer(backend.reopen(&saver).await.unwrap());
    for checkpoint in [&stored[0], first_input, &stored[stored.len() / 2]] {
        let config = thread("t").with_checkpoint_id(checkpoint.id);
        assert_eq!(
            graph.get_state(&config).await.unwrap().values,
            reopened.get_state(&config).await.unwrap().values
        );
    }
    assert_eq!(
        reopened.get_state(&thread("t")).await.unwrap().values.log,
        expected
    );
}

/// `as_node = END` ends the thread with the update, dropping what was due;
/// `as_node = COPY` copies a checkpoint beside itself, with its pending
/// writes, and leaves the original as it was.
pub async fn an_update_as_end_ends_and_a_copy_forks_beside(backend: &dyn Backend) {
    let counts = Arc::new(Counts::default());
    let graph = two_questions(&counts, backend).await;
    at_the_second_question(&graph).await;
    let paused = graph.get_state(&thread("t")).await.unwrap();

    // A copy: a sibling of the paused checkpoint, with its writes.
    let copy = graph
        .update_state(
            &thread("t"),
            DeskUpdate::default().log(vec!["copy".to_string()]),
            Some(rebound_graph::COPY),
        )
        .await
        .unwrap();
    let copied = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(copied.checkpoint_id, copy);
    assert_eq!(copied.parent_id, paused.parent_id, "beside, not after");
    assert_eq!(copied.step, paused.step);
    assert_eq!(copied.values.log, ["copy"]);
    assert_eq!(copied.metadata.next, paused.metadata.next);
    assert_eq!(
        copied.interrupts, paused.interrupts,
        "the writes came along"
    );
    let done = graph.resume_with(json!("a2"), thread("t")).await.unwrap();
    assert_eq!(done.state().answers, ["a1", "a2"]);
    assert_eq!(counts.effects(), 1);
    assert_eq!(counts.sibling(), 1);
    let original = graph
        .get_state(&thread("t").with_checkpoint_id(paused.checkpoint_id))
        .await
        .unwrap();
    assert_eq!(original, paused, "the original is as it was");

    // END: the thread ends with the update; nothing is due.
    let graph = two_questions(&Arc::new(Counts::default()), backend).await;
    at_the_second_question(&graph).await;
    graph
        .update_state(
            &thread("t"),
            DeskUpdate::default().log(vec!["ended".to_string()]),
            Some(END),
        )
        .await
        .unwrap();
    let ended = graph.get_state(&thread("t")).await.unwrap();
    assert!(ended.metadata.next.is_empty());
    assert!(ended.interrupts.is_empty());
    assert_eq!(ended.values.log, ["ended"]);
    let error = graph.resume(thread("t")).await.unwrap_err();
    assert!(
        matches!(error, GraphError::NothingToResume { .. }),
        "{error:?}"
    );
}
