//! Forks of the past: `update_state` (with or without values, `COPY` too)
//! or a command without answers at a checkpoint the thread has moved on
//! from makes a branch that asks that checkpoint's questions again — the
//! answers given there stay on the old branch — while keeping what must
//! not be done twice (journaled results, finished siblings' updates). At
//! the thread's head, an update keeps the answers (`scenarios::pending`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rebound_graph::checkpoint::{CheckpointId, CheckpointSource};
use rebound_graph::{
    CompiledGraph, Input, NodeContext, NodeError, ResumeCommand, RunConfig, RunOutcome, State,
    StateGraph, COPY, END, START,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::backend::fresh;
use crate::Backend;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Story {
    #[state(append)]
    value: Vec<String>,
}

fn thread(id: &str) -> RunConfig {
    RunConfig::new().with_thread_id(id)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// A node that appends `word` to `value`.
fn say(
    word: &'static str,
) -> impl Fn(&Story, &NodeContext) -> Result<StoryUpdate, NodeError> + Send + Sync + 'static {
    move |_, _| Ok(StoryUpdate::default().value(vec![word.to_string()]))
}

/// A node that asks `question` (counting its runs in `runs`) and appends
/// `{tag}:{answer}`.
fn asker(
    tag: &'static str,
    question: &'static str,
    runs: &Arc<AtomicUsize>,
) -> impl Fn(&Story, &NodeContext) -> Result<StoryUpdate, NodeError> + Send + Sync + 'static {
    let runs = Arc::clone(runs);
    move |_, ctx| {
        runs.fetch_add(1, Ordering::SeqCst);
        let answer: String = ctx.interrupt(question)?;
        Ok(StoryUpdate::default().value(vec![format!("{tag}:{answer}")]))
    }
}

/// START -> node_a -> ask_human -> node_b -> END; `ask_human` asks "What
/// is your input?" and appends `human:<answer>`.
async fn one_question(asked: &Arc<AtomicUsize>, backend: &dyn Backend) -> CompiledGraph<Story> {
    let mut graph = StateGraph::<Story>::new();
    graph
        .add_sync_node("node_a", say("a"))
        .add_sync_node("ask_human", asker("human", "What is your input?", asked))
        .add_sync_node("node_b", say("b"))
        .add_edge(START, "node_a")
        .add_edge("node_a", "ask_human")
        .add_edge("ask_human", "node_b")
        .add_edge("node_b", END);
    graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await)
}

/// START -> node_a -> interrupt_1 -> interrupt_2 -> node_b -> END, asking
/// "First question?" (appends `i1:<answer>`) then "Second question?"
/// (`i2:<answer>`).
async fn two_questions(
    first: &Arc<AtomicUsize>,
    second: &Arc<AtomicUsize>,
    backend: &dyn Backend,
) -> CompiledGraph<Story> {
    let mut graph = StateGraph::<Story>::new();
    graph
        .add_sync_node("node_a", say("a"))
        .add_sync_node("interrupt_1", asker("i1", "First question?", first))
        .add_sync_node("interrupt_2", asker("i2", "Second question?", second))
        .add_sync_node("node_b", say("b"))
        .add_edge(START, "node_a")
        .add_edge("node_a", "interrupt_1")
        .add_edge("interrupt_1", "interrupt_2")
        .add_edge("interrupt_2", "node_b")
        .add_edge("node_b", END);
    graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await)
}

/// The id of the (only) checkpoint of thread "t" where `node` is next.
async fn where_next(graph: &CompiledGraph<Story>, node: &str) -> CheckpointId {
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    let found: Vec<CheckpointId> = history
        .iter()
        .filter(|c| c.metadata.next == [node])
        .map(|c| c.checkpoint_id)
        .collect();
    assert_eq!(found.len(), 1, "{history:?}");
    found[0]
}

/// Runs `one_question` on thread "t" answered `old_answer` to the end;
/// returns the checkpoint where `ask_human` is next.
async fn answered_old(graph: &CompiledGraph<Story>) -> CheckpointId {
    let first = graph.run(Story::default(), thread("t")).await.unwrap();
    assert_eq!(first.interrupts()[0].payload, json!("What is your input?"));
    let done = graph
        .resume_with(json!("old_answer"), thread("t"))
        .await
        .unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.value, ["a", "human:old_answer", "b"]);
    where_next(graph, "ask_human").await
}

/// Resumes thread "t" and expects it to stop at `question` with `values`.
async fn asks_again(graph: &CompiledGraph<Story>, question: &str, values: &[&str]) {
    let outcome = graph.resume(thread("t")).await.unwrap();
    let RunOutcome::Interrupted {
        state, interrupts, ..
    } = &outcome
    else {
        panic!("expected {question:?} asked again, got {outcome:?}");
    };
    assert_eq!(interrupts.len(), 1, "{outcome:?}");
    assert_eq!(interrupts[0].payload, json!(question));
    assert_eq!(state.value, strings(values));
}

/// Answers what waits on thread "t" and expects the run to end with `values`.
async fn ends_with(graph: &CompiledGraph<Story>, answer: &str, values: &[&str]) {
    let done = graph.resume_with(json!(answer), thread("t")).await.unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.value, strings(values));
}

/// `update_state(checkpoint before the question, no values, COPY)`: a copy
/// beside it that asks again (LangGraph's
/// `test_copy_fork_retriggers_interrupt`), and takes the new answer.
pub async fn a_copy_of_the_checkpoint_before_a_question_asks_it_again(backend: &dyn Backend) {
    let asked = Arc::new(AtomicUsize::new(0));
    let graph = one_question(&asked, backend).await;
    let before = answered_old(&graph).await;
    let original = graph
        .get_state(&thread("t").with_checkpoint_id(before))
        .await
        .unwrap();

    let copy = graph
        .update_state(
            &thread("t").with_checkpoint_id(before),
            StoryUpdate::default(),
            Some(COPY),
        )
        .await
        .unwrap();
    let copied = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(copied.checkpoint_id, copy, "the copy is the thread's head");
    assert_eq!(copied.parent_id, original.parent_id, "beside, not after");
    assert_eq!(copied.metadata.source, CheckpointSource::Fork);
    assert_eq!(copied.metadata.next, ["ask_human"]);
    assert_eq!(copied.values.value, ["a"]);
    assert!(
        copied.interrupts.is_empty(),
        "no answer came along: {copied:?}"
    );

    asks_again(&graph, "What is your input?", &["a"]).await;
    assert_eq!(asked.load(Ordering::SeqCst), 3, "asked, answered, asked");
    ends_with(&graph, "new_answer", &["a", "human:new_answer", "b"]).await;
    // The original is as it was.
    let now = graph
        .get_state(&thread("t").with_checkpoint_id(before))
        .await
        .unwrap();
    assert_eq!(now, original);
}

/// `update_state(checkpoint before the question, {value: ["forked"]})`: a
/// fork after it that asks again with the new value in the state
/// (LangGraph's `test_fork_from_before_interrupt_refires`).
pub async fn an_update_of_the_checkpoint_before_a_question_asks_it_again(backend: &dyn Backend) {
    let asked = Arc::new(AtomicUsize::new(0));
    let graph = one_question(&asked, backend).await;
    let before = answered_old(&graph).await;
    let old_end = graph.get_state(&thread("t")).await.unwrap();

    let fork = graph
        .update_state(
            &thread("t").with_checkpoint_id(before),
            StoryUpdate::default().value(vec!["forked".to_string()]),
            None,
        )
        .await
        .unwrap();
    let forked = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(forked.checkpoint_id, fork);
    assert_eq!(forked.parent_id, Some(before));
    assert_eq!(forked.metadata.source, CheckpointSource::Update);
    assert_eq!(forked.metadata.next, ["ask_human"]);
    assert_eq!(forked.values.value, ["a", "forked"]);
    assert!(forked.interrupts.is_empty(), "{forked:?}");

    asks_again(&graph, "What is your input?", &["a", "forked"]).await;
    ends_with(
        &graph,
        "new_answer",
        &["a", "forked", "human:new_answer", "b"],
    )
    .await;
    // The old branch is intact.
    let old = graph
        .get_state(&thread("t").with_checkpoint_id(old_end.checkpoint_id))
        .await
        .unwrap();
    assert_eq!(old, old_end);
}

/// A fork between two answered questions asks only the second again
/// (LangGraph's `test_sequential_interrupts_fork_from_middle`).
pub async fn a_fork_between_two_questions_asks_only_the_second_again(backend: &dyn Backend) {
    let (first, second) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let graph = two_questions(&first, &second, backend).await;
    graph.run(Story::default(), thread("t")).await.unwrap();
    graph.resume_with(json!("ans1"), thread("t")).await.unwrap();
    let done = graph.resume_with(json!("ans2"), thread("t")).await.unwrap();
    assert_eq!(done.state().value, ["a", "i1:ans1", "i2:ans2", "b"]);
    let middle = where_next(&graph, "interrupt_2").await;

    graph
        .update_state(
            &thread("t").with_checkpoint_id(middle),
            StoryUpdate::default().value(vec!["mid_fork".to_string()]),
            None,
        )
        .await
        .unwrap();
    asks_again(&graph, "Second question?", &["a", "i1:ans1", "mid_fork"]).await;
    assert_eq!(
        first.load(Ordering::SeqCst),
        2,
        "the first was not asked again"
    );
    ends_with(
        &graph,
        "ans2b",
        &["a", "i1:ans1", "mid_fork", "i2:ans2b", "b"],
    )
    .await;
}

/// A command with an update and no answer at a checkpoint the thread has
/// moved on from is a fork of the past too: its question is asked again.
pub async fn a_command_without_answers_at_a_past_checkpoint_asks_again(backend: &dyn Backend) {
    let (first, second) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let graph = two_questions(&first, &second, backend).await;
    graph.run(Story::default(), thread("t")).await.unwrap();
    graph.resume_with(json!("ans1"), thread("t")).await.unwrap();
    graph.resume_with(json!("ans2"), thread("t")).await.unwrap();
    let middle = where_next(&graph, "interrupt_2").await;

    let command = ResumeCommand {
        update: Some(json!({"value": ["by command"]})),
        ..Default::default()
    };
    let outcome = graph
        .run(
            Input::Command(command),
            thread("t").with_checkpoint_id(middle),
        )
        .await
        .unwrap();
    assert_eq!(outcome.interrupts().len(), 1, "{outcome:?}");
    assert_eq!(outcome.interrupts()[0].payload, json!("Second question?"));
    assert_eq!(outcome.state().value, ["a", "i1:ans1", "by command"]);
    ends_with(
        &graph,
        "again",
        &["a", "i1:ans1", "by command", "i2:again", "b"],
    )
    .await;
}

/// How often each side of `effect_then_question` ran.
#[derive(Default)]
struct Counts {
    effects: AtomicUsize,
    sibling: AtomicUsize,
}

/// START -> {asker, sibling} -> END: the asker makes a journaled effect,
/// then asks "q?"; the sibling finishes at once.
async fn effect_then_question(counts: &Arc<Counts>, backend: &dyn Backend) -> CompiledGraph<Story> {
    let (asker, sibling) = (Arc::clone(counts), Arc::clone(counts));
    let mut graph = StateGraph::<Story>::new();
    graph
        .add_node("asker", move |_, ctx: NodeContext| {
            let counts = Arc::clone(&asker);
            async move {
                ctx.journal("effect", async move {
                    counts.effects.fetch_add(1, Ordering::SeqCst);
                })
                .await?;
                let answer: String = ctx.interrupt("q?")?;
                Ok::<_, NodeError>(StoryUpdate::default().value(vec![format!("asker:{answer}")]))
            }
        })
        .add_sync_node("sibling", move |_, _| {
            sibling.sibling.fetch_add(1, Ordering::SeqCst);
            Ok(StoryUpdate::default().value(vec!["sibling".to_string()]))
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

/// A fork of the past takes what must not be done twice — the journaled
/// result, the finished sibling's update (kept pending, not applied to the
/// fork's state: LangGraph's `test_fork_does_not_apply_pending_writes`) —
/// and not the answer.
pub async fn a_fork_of_the_past_keeps_its_journal_and_finished_siblings_not_its_answers(
    backend: &dyn Backend,
) {
    let counts = Arc::new(Counts::default());
    let graph = effect_then_question(&counts, backend).await;
    graph.run(Story::default(), thread("t")).await.unwrap();
    let done = graph.resume_with(json!("old"), thread("t")).await.unwrap();
    assert_eq!(done.state().value, ["asker:old", "sibling"]);
    let history = graph.history(&thread("t"), None, None).await.unwrap();
    let input = history.last().unwrap().checkpoint_id;

    graph
        .update_state(
            &thread("t").with_checkpoint_id(input),
            StoryUpdate::default().value(vec!["forked".to_string()]),
            None,
        )
        .await
        .unwrap();
    let forked = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(forked.values.value, ["forked"], "nothing pending applied");
    assert_eq!(forked.metadata.next, ["asker", "sibling"]);
    assert!(forked.interrupts.is_empty(), "{forked:?}");

    let again = graph.resume(thread("t")).await.unwrap();
    assert_eq!(again.interrupts()[0].payload, json!("q?"), "{again:?}");
    let done = graph.resume_with(json!("new"), thread("t")).await.unwrap();
    let RunOutcome::Completed(done) = done else {
        panic!("expected completion, got {done:?}");
    };
    assert_eq!(done.value, ["forked", "asker:new", "sibling"]);
    assert_eq!(
        counts.effects.load(Ordering::SeqCst),
        1,
        "effect not repeated"
    );
    assert_eq!(
        counts.sibling.load(Ordering::SeqCst),
        1,
        "sibling not re-run"
    );
}

/// START -> asker -> END, the asker asking "q1?" then "q2?" and appending
/// both answers.
async fn one_node_two_questions(backend: &dyn Backend) -> CompiledGraph<Story> {
    let mut graph = StateGraph::<Story>::new();
    graph
        .add_sync_node("asker", |_, ctx| {
            let first: String = ctx.interrupt("q1?")?;
            let second: String = ctx.interrupt("q2?")?;
            Ok(StoryUpdate::default().value(vec![first, second]))
        })
        .add_edge(START, "asker")
        .add_edge("asker", END);
    graph
        .compile()
        .unwrap()
        .with_checkpointer(fresh(backend).await)
}

/// The head is the head by id too: an update of it keeps the answer given
/// there. Once the thread has moved on from that checkpoint, an update of
/// it is a fork of the past, and its questions are asked from the first.
pub async fn the_head_by_id_keeps_its_answers_and_once_moved_on_from_does_not(
    backend: &dyn Backend,
) {
    let graph = one_node_two_questions(backend).await;
    graph.run(Story::default(), thread("t")).await.unwrap();
    let waiting = graph.resume_with(json!("a1"), thread("t")).await.unwrap();
    assert_eq!(waiting.interrupts()[0].payload, json!("q2?"));
    let head = graph.get_state(&thread("t")).await.unwrap().checkpoint_id;

    let edit = StoryUpdate::default().value(vec!["edit".to_string()]);
    graph
        .update_state(&thread("t").with_checkpoint_id(head), edit, None)
        .await
        .unwrap();
    let edited = graph.get_state(&thread("t")).await.unwrap();
    assert_eq!(edited.interrupts.len(), 1, "{edited:?}");
    assert_eq!(edited.interrupts[0].payload, json!("q2?"));
    let done = graph.resume_with(json!("a2"), thread("t")).await.unwrap();
    assert_eq!(done.state().value, ["edit", "a1", "a2"]);

    // `head` is in the past now.
    let fork = StoryUpdate::default().value(vec!["fork".to_string()]);
    graph
        .update_state(&thread("t").with_checkpoint_id(head), fork, None)
        .await
        .unwrap();
    let forked = graph.get_state(&thread("t")).await.unwrap();
    assert!(forked.interrupts.is_empty(), "{forked:?}");
    let again = graph.resume(thread("t")).await.unwrap();
    assert_eq!(again.interrupts()[0].payload, json!("q1?"), "{again:?}");
    graph.resume_with(json!("b1"), thread("t")).await.unwrap();
    let done = graph.resume_with(json!("b2"), thread("t")).await.unwrap();
    assert_eq!(done.state().value, ["fork", "b1", "b2"]);
}
