//! Checks as the goal's evidence, end to end: a scripted model, the real
//! shell, temp workspaces, SQLite. A finish a check contradicts is
//! overruled; a change that makes the checks pass finishes without asking
//! the model; a check that cannot run stops the run before any plan.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{deps, plan, reflection, review, saver};
use rebound_agent::checks::{Check, CheckSource};
use rebound_agent::events::AgentEvent;
use rebound_agent::pev::{self, PevState};
use rebound_agent::reflect::{self, ReflectState};
use rebound_agent::{AgentConfig, StopReason};
use rebound_graph::{CompiledGraph, Event, RunConfig, RunOutcome, State};
use rebound_llm::ScriptedModel;
use rebound_tools::approval::ApprovalMode;

const TESTS: &str = "import unittest\nfrom calc import sub\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n        self.assertEqual(sub(5, 3), 2)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
const BUGGY: &str = "def sub(a, b):\n    return b - a\n";
const FIX: &str = "printf 'def sub(a, b):\\n    return a - b\\n' > calc.py";
const CHECK: &str = "python3 -m unittest -q test_calc";

fn workspace(dir: &Path) -> std::path::PathBuf {
    let work = dir.join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("test_calc.py"), TESTS).unwrap();
    std::fs::write(work.join("calc.py"), BUGGY).unwrap();
    work
}

fn check() -> Vec<Check> {
    vec![Check::new(CHECK, CheckSource::Flag)]
}

/// The pev graph on `model` in `work` (auto approval, default budgets),
/// its checkpoints in `dir`.
fn pev_graph(model: &Arc<ScriptedModel>, work: &Path, dir: &Path) -> CompiledGraph<PevState> {
    let deps = deps(
        model.clone(),
        work,
        ApprovalMode::Auto,
        Vec::new(),
        AgentConfig::default(),
    );
    pev::build(deps).unwrap().with_checkpointer(saver(dir))
}

/// Runs `input` to its end, collecting the agent's events.
async fn run<S: State + std::fmt::Debug>(
    graph: &CompiledGraph<S>,
    input: S,
) -> (S, Vec<AgentEvent>) {
    let mut stream = graph.stream(input, RunConfig::new().with_thread_id("t"));
    let mut events = Vec::new();
    while let Some(event) = stream.next_event().await {
        if let Event::Custom { payload, .. } = &event {
            if let Some(agent) = AgentEvent::from_payload(payload) {
                events.push(agent);
            }
        }
    }
    match stream.outcome().await.unwrap() {
        RunOutcome::Completed(state) => (state, events),
        other => panic!("expected the run to complete, got {other:?}"),
    }
}

/// The false success: the reviewer says finish while the tests
/// fail. The checks overrule it; the planner gets their output in repair
/// mode; its fix makes them pass, which finishes the run with no further
/// model call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_false_finish_is_overruled_and_the_fix_finishes_without_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Read the README", Some("ls"))])
            .expect_user_contains("The checks (commands that must succeed")
            .expect_user_contains("AssertionError"),
        review("finish", "the tests are already passing", &[]),
        plan(&[("Fix sub", Some(FIX))])
            .expect_user_contains("Failed step: Verify the goal")
            .expect_user_contains("but a check fails")
            .expect_user_contains("AssertionError: -2 != 2"),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let (state, events) = run(&graph, PevState::new("fix calc", 10).with_checks(check())).await;

    assert_eq!(model.remaining(), 0, "no reviewer call after the fix");
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert!(state.evidence.results.iter().all(|r| r.passed));
    assert!(state.evidence.failed_at_start);
    assert_eq!(state.repairs, 1, "the overruled finish went to repair mode");
    assert_eq!(state.last_error, None, "the repair plan cleared it");
    let overruled: Vec<&AgentEvent> = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::FinishOverruled { .. }))
        .collect();
    assert_eq!(overruled.len(), 1);
    let AgentEvent::FinishOverruled {
        by,
        reason,
        failing,
    } = overruled[0]
    else {
        unreachable!()
    };
    assert_eq!(by, "reviewer");
    assert_eq!(reason, "the tests are already passing");
    assert_eq!(failing.len(), 1);
    assert_eq!(failing[0].exit_code, Some(1));
    let whens: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Checks { when, results } => Some(format!("{when}: {}", results[0].passed)),
            _ => None,
        })
        .collect();
    assert_eq!(
        whens,
        [
            "before the first plan: false",
            "to verify the finish: false",
            "after a change: true"
        ]
    );
    let summary = pev::summarize(&state);
    assert_eq!(summary.checks.len(), 1);
    assert_eq!(summary.checks[0].passed, Some(true));
    assert_eq!(summary.checks[0].source, CheckSource::Flag);
}

/// A finish is verified even when nothing changed since the checks last
/// ran, and a step that changed nothing does not run them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checks_run_only_after_changes_and_to_verify_a_finish() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    std::fs::write(work.join("calc.py"), "def sub(a, b):\n    return a - b\n").unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Look", Some("ls")), ("Look again", Some("cat calc.py"))])
            .expect_user_contains("The checks pass now: `python3 -m unittest -q test_calc`"),
        review("continue", "looked", &[])
            .expect_user_contains("`python3 -m unittest -q test_calc` passed"),
        review("finish", "it was right all along", &[]),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let (state, events) = run(&graph, PevState::new("check calc", 10).with_checks(check())).await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert!(!state.evidence.failed_at_start);
    let runs = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Checks { .. }))
        .count();
    assert_eq!(
        runs, 2,
        "at the start, and to verify the finish: {events:?}"
    );
}

/// A check whose program is not installed stops the run before the first
/// plan, naming it; the model is never called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_that_cannot_run_stops_the_run_before_planning() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([]));
    let graph = pev_graph(&model, &work, dir.path());
    let checks = vec![Check::new("no-such-checker-xyz --all", CheckSource::Flag)];
    let (state, _) = run(&graph, PevState::new("fix calc", 10).with_checks(checks)).await;
    let StopReason::Error { message } = pev::stop_reason(&state) else {
        panic!("expected an error stop, got {:?}", pev::stop_reason(&state));
    };
    assert!(
        message.contains("`no-such-checker-xyz --all` cannot run"),
        "{message}"
    );
    assert!(message.contains("not installed"), "{message}");
    assert!(state.plan.is_empty());
}

/// A check that hangs is cut by the shell's timeout and reported as a
/// failure that says so; the run goes on to its budget, not forever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_check_is_bounded_by_the_shell_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Look", Some("ls"))]).expect_user_contains("timed out after"),
        review("finish", "nothing to do", &[]),
    ]));
    let mut config = AgentConfig::default();
    config.budget.max_iters = 1;
    let shell = rebound_tools::shell::ShellConfig {
        default_timeout: std::time::Duration::from_millis(500),
        ..Default::default()
    };
    let deps = common::deps_with_shell(
        model.clone(),
        &work,
        ApprovalMode::Auto,
        Vec::new(),
        config,
        shell,
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let checks = vec![Check::new("sleep 30", CheckSource::Flag)];
    let started = std::time::Instant::now();
    let (state, _) = run(&graph, PevState::new("fix calc", 1).with_checks(checks)).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(model.remaining(), 0);
    assert_eq!(
        pev::stop_reason(&state),
        StopReason::MaxIterations { limit: 1 },
        "the overruled finish used the last round"
    );
    assert!(!state.evidence.results[0].passed);
    assert!(
        state.evidence.results[0].output.contains("timed out"),
        "{}",
        state.evidence.results[0].output
    );
}

/// Reflect and commit: a `proceed` on the plan's last step is a finish; a
/// failing check overrules it into a rollback and a replan with the
/// check's output; the fix that makes the checks pass is committed and
/// ends the run, verified.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflect_overrules_a_false_finish_with_a_rollback() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Add a note", Some("echo note > NOTE.txt"))]),
        reflection("proceed", "the note is written, done"),
        plan(&[("Fix sub", Some(FIX)), ("Say done", Some("echo done"))])
            .expect_user_contains("but a check fails"),
    ]));
    let deps = deps(
        model.clone(),
        &work,
        ApprovalMode::Auto,
        Vec::new(),
        AgentConfig::default(),
    );
    let graph = reflect::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let (state, events) = run(
        &graph,
        ReflectState::new("fix calc", 3, 20).with_checks(check()),
    )
    .await;
    assert_eq!(
        model.remaining(),
        0,
        "the passing checks proceed without the model"
    );
    assert_eq!(reflect::stop_reason(&state), StopReason::Finished);
    assert_eq!(state.rollbacks, 1);
    assert!(
        !work.join("NOTE.txt").exists(),
        "the rolled-back step is undone"
    );
    assert_eq!(
        state.commits.len(),
        1,
        "only the fix is committed: {:?}",
        state.commits
    );
    assert!(state.commits[0].ends_with("Fix sub"));
    assert!(events
        .iter()
        .any(|e| matches!(e, AgentEvent::FinishOverruled { by, .. } if by == "reflector")));
}
