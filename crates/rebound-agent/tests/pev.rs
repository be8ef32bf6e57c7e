//! End-to-end runs of plan-execute-review: a scripted model, the real shell
//! and file tools, temp workspaces, a SQLite checkpointer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::{deps, plan, review, rule, saver};
use rebound_agent::checks::{Check, CheckSource};
use rebound_agent::pev::{self, PevState};
use rebound_agent::{AgentConfig, PlanStatus, StopReason};
use rebound_graph::{RunConfig, RunOutcome};
use rebound_llm::{ScriptedModel, Step};
use rebound_tools::approval::{ApprovalAnswer, ApprovalMode};

const TESTS: &str = "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
const RUN_TESTS: &str = "python3 -m unittest -q test_app";

fn config(max_iters: u32) -> AgentConfig {
    let mut config = AgentConfig::default();
    config.budget.max_iters = max_iters;
    config
}

async fn run_to_end(
    graph: &rebound_graph::CompiledGraph<PevState>,
    goal: &str,
    max_iters: u32,
    thread: &str,
) -> PevState {
    run_state_to_end(graph, PevState::new(goal, max_iters), thread).await
}

async fn run_state_to_end(
    graph: &rebound_graph::CompiledGraph<PevState>,
    input: PevState,
    thread: &str,
) -> PevState {
    match graph
        .run(input, RunConfig::new().with_thread_id(thread))
        .await
        .unwrap()
    {
        RunOutcome::Completed(state) => state,
        other => panic!("expected the run to complete, got {other:?}"),
    }
}

/// The notes' example scenario, in Python: the tests fail because a module
/// is missing; the repair plan creates it; the tests pass; finish.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repair_mode_fixes_a_missing_module_and_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("test_app.py"), TESTS).unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Run the tests", Some(RUN_TESTS))])
            .expect_user_contains("Goal: make the tests pass"),
        plan(&[
            (
                "Create calc.py with add",
                Some("printf 'def add(a, b):\\n    return a + b\\n' > calc.py"),
            ),
            ("Run the tests", Some(RUN_TESTS)),
        ])
        .expect_user_contains("No module named 'calc'")
        .expect_user_contains("Failed step: Run the tests"),
        // No review after the first step: the model reviews a plan when it
        // is done.
        review("finish", "the tests pass", &[]).expect_user_contains("Run the tests (ok)"),
    ]));
    let deps = deps(
        model.clone(),
        &work,
        ApprovalMode::Auto,
        Vec::new(),
        config(10),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run_to_end(&graph, "make the tests pass", 10, "t1").await;

    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(model.remaining(), 0);
    assert_eq!(state.repairs, 1);
    assert_eq!(state.last_error, None, "the repair plan clears last_error");
    assert_eq!(state.plan_status, PlanStatus::Completed);
    let outcomes: Vec<bool> = state.results.iter().map(|r| r.success).collect();
    assert_eq!(outcomes, [false, true, true]);
    assert!(state.results[0].output.contains("No module named 'calc'"));
    assert!(
        state.results[0].output.contains("exit code 1")
            || state.results[0].output.contains("exit 1"),
        "the failure shows its exit code: {}",
        state.results[0].output
    );
    assert!(work.join("calc.py").exists());
    assert_eq!(state.iters, 2);
    let summary = pev::summarize(&state);
    assert_eq!(summary.steps_failed, 1);
    assert_eq!(summary.repairs, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_goes_back_to_the_planner_with_the_feedback() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Write a greeting", Some("echo helo > greeting.txt"))]),
        review("retry", "the greeting is misspelled", &["write hello"]),
        plan(&[("Write a greeting", Some("echo hello > greeting.txt"))])
            .expect_user_contains("retry: the greeting is misspelled")
            .expect_user_contains("write hello"),
        review("finish", "spelled right", &[]),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::Auto,
        Vec::new(),
        config(10),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run_to_end(&graph, "greet", 10, "t").await;
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(model.remaining(), 0);
    assert_eq!(state.iters, 2);
    assert_eq!(state.repairs, 0, "a retry is not a repair");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("greeting.txt")).unwrap(),
        "hello\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replan_makes_a_new_plan_from_the_fix_suggestions() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[
            ("Make a dir", Some("mkdir -p out")),
            ("Write into it", Some("echo 1 > out/a.txt")),
        ]),
        // Asked when the plan is done (not after each step).
        review(
            "replan",
            "the goal asked for a file named b",
            &["write out/b.txt instead"],
        ),
        plan(&[("Write b", Some("mkdir -p out && echo 2 > out/b.txt"))])
            .expect_user_contains("write out/b.txt instead"),
        review("finish", "b exists", &[]),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::Auto,
        Vec::new(),
        config(10),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run_to_end(&graph, "write out/b.txt", 10, "t").await;
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(model.remaining(), 0);
    assert!(dir.path().join("out/b.txt").exists());
    assert!(
        dir.path().join("out/a.txt").exists(),
        "the first plan ran to its end before its review"
    );
    assert_eq!(state.iters, 3, "two harness and one model review, then one");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_runs_every_step_then_finish_ends() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[
            ("one", Some("echo 1 >> log.txt")),
            ("two", Some("echo 2 >> log.txt")),
            ("three", Some("echo 3 >> log.txt")),
        ]),
        // The first two steps are reviewed by the harness (`continue`:
        // they succeeded and steps remain), the last by the model.
        review("finish", "all three ran", &[]),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::Auto,
        Vec::new(),
        config(10),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run_to_end(&graph, "log", 10, "t").await;
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(state.iters, 3);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("log.txt")).unwrap(),
        "1\n2\n3\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_run_stops_at_max_iters() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("look", Some("ls"))]),
        review("continue", "not yet", &[]),
        plan(&[("look again", Some("ls -a"))]),
        review("continue", "still not", &[]),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::Auto,
        Vec::new(),
        config(2),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run_to_end(&graph, "never done", 2, "t").await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(state.iters, 2);
    assert_eq!(
        pev::stop_reason(&state),
        StopReason::MaxIterations { limit: 2 }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_repairs_stop_at_max_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(10);
    config.budget.max_attempts = 2;
    let model = Arc::new(ScriptedModel::new([
        plan(&[("fail", Some("exit 3"))]),
        plan(&[("fail again", Some("exit 4"))]).expect_user_contains("exit code 3"),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::Auto,
        Vec::new(),
        config,
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run_to_end(&graph, "fail", 10, "t").await;
    assert_eq!(model.remaining(), 0);
    assert!(matches!(
        pev::stop_reason(&state),
        StopReason::Budget {
            budget: rebound_agent::BudgetKind::Attempts,
            ..
        }
    ));
}

/// A denied command reaches the planner as a failed step carrying the
/// user's message; the planner plans around it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_command_is_planned_around() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Publish", Some("git push origin main"))]),
        plan(&[("List instead", Some("ls"))]).expect_user_contains("do not push, just list"),
        review("finish", "listed", &[]),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::OnRisk,
        Vec::new(),
        config(10),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let run = RunConfig::new().with_thread_id("deny");
    let outcome = graph
        .run(PevState::new("publish", 10), run.clone())
        .await
        .unwrap();
    let RunOutcome::Interrupted { interrupts, .. } = outcome else {
        panic!("git push must ask: {outcome:?}");
    };
    assert_eq!(interrupts.len(), 1);
    let payload = &interrupts[0].payload;
    assert_eq!(payload["command"], "git push origin main");
    assert!(
        payload["reason"].as_str().unwrap().contains("push"),
        "{payload}"
    );
    assert!(payload["cwd"].as_str().is_some());
    let answer = serde_json::to_value(ApprovalAnswer::Deny {
        message: "do not push, just list".into(),
    })
    .unwrap();
    let state = match graph.resume_with(answer, run).await.unwrap() {
        RunOutcome::Completed(state) => state,
        other => panic!("{other:?}"),
    };
    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(state.denials, 1);
    assert!(!state.results[0].success);
    assert!(state.results[0].output.contains("do not push, just list"));
}

/// Resuming after an approval interrupt does not run earlier commands again:
/// the executor's tool loop re-runs, its model calls and its first tool
/// call are replayed from the journal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_after_approval_does_not_rerun_earlier_commands() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Log, then mark", None)]),
        Step::tool_call(
            "shell",
            serde_json::json!({"command": "echo one >> log.txt"}),
        ),
        Step::tool_call("shell", serde_json::json!({"command": "touch marker.txt"})),
        Step::json(serde_json::json!({"success": true, "output": "logged and marked"})),
        review("finish", "done", &[]),
    ]));
    let rules = vec![rule("echo", "allow"), rule("touch", "ask")];
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::OnRisk,
        rules,
        config(10),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let run = RunConfig::new().with_thread_id("approve");
    let outcome = graph
        .run(PevState::new("log and mark", 10), run.clone())
        .await
        .unwrap();
    let RunOutcome::Interrupted { interrupts, .. } = outcome else {
        panic!("touch must ask: {outcome:?}");
    };
    assert_eq!(interrupts[0].payload["command"], "touch marker.txt");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("log.txt")).unwrap(),
        "one\n"
    );
    assert!(!dir.path().join("marker.txt").exists());

    let answer = serde_json::to_value(ApprovalAnswer::Approve).unwrap();
    let state = match graph.resume_with(answer, run).await.unwrap() {
        RunOutcome::Completed(state) => state,
        other => panic!("{other:?}"),
    };
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(model.remaining(), 0, "no model call was made twice");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("log.txt")).unwrap(),
        "one\n",
        "the first command ran once"
    );
    assert!(dir.path().join("marker.txt").exists());
    assert!(state.results[0].success);
}

/// The model's claim of success never overrides a failed command.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_tool_call_overrides_the_models_claim() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Check", None)]),
        Step::tool_call("shell", serde_json::json!({"command": "exit 5"})),
        Step::json(serde_json::json!({"success": true, "output": "all good"})),
        plan(&[("Look", Some("ls"))]).expect_user_contains("exit code 5"),
        review("finish", "ok", &[]),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::Auto,
        Vec::new(),
        config(10),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run_to_end(&graph, "check", 10, "t").await;
    assert_eq!(model.remaining(), 0);
    assert!(!state.results[0].success);
    assert_eq!(state.repairs, 1);
}

/// An unusable plan ends the run with a typed error, not a loop or a panic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unusable_plan_stops_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::new([
        Step::text("I think you should run the tests."),
        Step::text("Sure! Run the tests."),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::Auto,
        Vec::new(),
        config(10),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run_to_end(&graph, "x", 10, "t").await;
    match pev::stop_reason(&state) {
        StopReason::Error { message } => assert!(message.contains("planner"), "{message}"),
        other => panic!("{other:?}"),
    }
}

/// A tool call whose arguments were not JSON is not run and does not end
/// the run: the model is told what was wrong, as a failed tool output, and
/// calls again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_call_arguments_that_are_not_json_go_back_to_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Mark it", None)]),
        Step::tool_call(
            "shell",
            rebound_llm::invalid_arguments("expected value at line 1", "{command: touch x}"),
        ),
        Step::tool_call("shell", serde_json::json!({"command": "touch marker.txt"})).expect(
            "the failed tool output names the problem",
            |request| {
                let last = request.messages.last().map(|m| m.content.clone());
                match last {
                    Some(text) if text.contains("not valid JSON") => Ok(()),
                    other => Err(format!("last message: {other:?}")),
                }
            },
        ),
        Step::json(serde_json::json!({"success": true, "output": "marked"})),
        review("finish", "done", &[]),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::Auto,
        Vec::new(),
        config(10),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let outcome = graph
        .run(
            PevState::new("mark it", 10),
            RunConfig::new().with_thread_id("args"),
        )
        .await
        .unwrap();
    let RunOutcome::Completed(state) = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert!(dir.path().join("marker.txt").exists());
}

/// Plans that change nothing: one identical to a plan already tried is
/// refused and asked again; after two that changed nothing the planner is
/// asked for a different approach with them listed; after the third the
/// run stops with the reason instead of spending its budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_that_change_nothing_stop_the_run_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("notes.txt"), "todo\n").unwrap();
    let observe = |command: &str| {
        Step::json(serde_json::json!({"steps": [
            {"kind": "observe", "description": "look", "command": command}
        ]}))
    };
    let model = Arc::new(ScriptedModel::new([
        observe("ls"),
        observe("ls"),
        observe("pwd").expect_user_contains("tried already"),
        observe("cat notes.txt").expect_user_contains("changed nothing"),
    ]));
    let deps = deps(
        model.clone(),
        &work,
        ApprovalMode::Auto,
        Vec::new(),
        config(20),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let input =
        PevState::new("write DONE", 20).with_checks(vec![rebound_agent::checks::Check::new(
            "test -f DONE",
            rebound_agent::checks::CheckSource::Flag,
        )]);
    let state = match graph
        .run(input, RunConfig::new().with_thread_id("stale"))
        .await
        .unwrap()
    {
        RunOutcome::Completed(state) => state,
        other => panic!("{other:?}"),
    };
    assert_eq!(model.remaining(), 0);
    assert_eq!(
        pev::stop_reason(&state),
        StopReason::NoProgress { plans: 3 },
        "{:?}",
        state.progress
    );
}

/// A reviewer that answers `continue` when no step is left, while every
/// check passes, finishes the run (a new plan would only repeat the work).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_after_the_last_step_with_every_check_passing_is_a_finish() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Write the note", Some("echo hi > note.txt"))]),
        review("continue", "looks fine", &[]),
    ]));
    let deps = deps(
        model.clone(),
        &work,
        ApprovalMode::Auto,
        Vec::new(),
        config(5),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let input =
        PevState::new("write note.txt", 5).with_checks(vec![rebound_agent::checks::Check::new(
            "test -s note.txt || true",
            rebound_agent::checks::CheckSource::Flag,
        )]);
    let state = match graph
        .run(input, RunConfig::new().with_thread_id("last"))
        .await
        .unwrap()
    {
        RunOutcome::Completed(state) => state,
        other => panic!("{other:?}"),
    };
    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
}

/// Checks that cannot prove the goal (a condition read from its words)
/// pass at the end of a plan and the reviewer asks for more: one more
/// plan is made; when it ends with them passing again, the run finishes,
/// unverified, without asking the model a third time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_plan_ending_with_weak_checks_passing_finishes_unverified() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Write a", Some("echo a > a.txt"))]),
        review("replan", "not sure it is enough", &["write b too"]),
        plan(&[("Write b", Some("echo b > b.txt"))]).expect_user_contains("write b too"),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::Auto,
        Vec::new(),
        config(10),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let weak = Check::new(
        "test -d .",
        CheckSource::Clause {
            rule: "file shape".to_string(),
            proves: false,
        },
    );
    let input = PevState::new("write a and b", 10).with_checks(vec![weak]);
    let state = run_state_to_end(&graph, input, "t").await;
    assert_eq!(model.remaining(), 0, "no third model review");
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(state.evidence.passing_reviews, 1);
    assert!(dir.path().join("b.txt").exists());
}

/// A check the sandbox stops (it writes outside the workspace, like
/// `pip install -e .` into site-packages) after the step fixed what made
/// it fail: the other checks pass, so the run finishes, unverified and
/// without asking the model again, instead of planning for a check that
/// cannot pass here. Real Landlock: skipped where it is absent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_the_sandbox_stops_ends_the_run_unverified() {
    if !rebound_tools::sandbox::landlock_supported() {
        eprintln!("skipping: {}", rebound_tools::sandbox::sandbox_status());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let outside = tempfile::Builder::new()
        .prefix("sandbox-outside-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let install = format!(
        "test -f built && touch {}/installed",
        outside.path().display()
    );
    let model = Arc::new(ScriptedModel::new([plan(&[(
        "Build it",
        Some("touch built"),
    )])]));
    let deps = deps(
        model.clone(),
        &work,
        ApprovalMode::Auto,
        Vec::new(),
        config(5),
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let input = PevState::new("build it so that it installs", 5).with_checks(vec![
        Check::new("test -f built", CheckSource::Flag),
        Check::new(install, CheckSource::Flag),
    ]);
    let state = run_state_to_end(&graph, input, "sandboxed").await;
    assert_eq!(model.remaining(), 0, "no review asked of the model");
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert!(!outside.path().join("installed").exists());
    let results = &state.evidence.results;
    assert!(results[0].passed, "{results:?}");
    assert!(
        rebound_agent::checks::stopped_by_sandbox(&results[1]),
        "{results:?}"
    );
}

/// A goal that asks for a change, a finish with the workspace as the run
/// found it and no check to verify it: the first such finish is refused
/// and the planner is told nothing has changed; a finish after a change
/// ends the run (unverified: no check proves it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finish_with_nothing_changed_is_refused_once() {
    let (dir, work) = greet_workspace();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Look at the program", Some("cat greet.py"))]),
        review("finish", "the program looks right", &[]),
        plan(&[(
            "Fix the greeting",
            Some("printf 'print(\"hello\")\\n' > greet.py"),
        )])
        .expect_user_contains("no file in the workspace has changed"),
        review("finish", "fixed", &[]),
    ]));
    let graph = graph_in(&model, &work, dir.path());
    let state = run_to_end(&graph, "Fix greet.py so it prints hello.", 10, "t").await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(state.progress.unchanged_finishes, 1);
    assert_eq!(
        std::fs::read_to_string(work.join("greet.py")).unwrap(),
        "print(\"hello\")\n"
    );
}

/// The refusal is made once: a second finish with nothing changed ends
/// the run, unverified; a goal that asks for no change is never refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_finish_with_nothing_changed_ends_the_run_unverified() {
    let (dir, work) = greet_workspace();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Look", Some("cat greet.py"))]),
        review("finish", "looks right", &[]),
        plan(&[("Look again", Some("ls"))]),
        review("finish", "still looks right", &[]),
        // A goal that asks for no change: finished at once.
        plan(&[("Look", Some("cat greet.py"))]),
        review("finish", "it prints helo", &[]),
    ]));
    let graph = graph_in(&model, &work, dir.path());
    let state = run_to_end(&graph, "Fix greet.py so it prints hello.", 10, "a").await;
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(state.progress.unchanged_finishes, 1);
    let state = run_to_end(&graph, "Tell me what greet.py prints.", 10, "b").await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(state.progress.unchanged_finishes, 0);
}

/// A workspace (`work/` under the returned dir) whose greet.py prints
/// "helo".
fn greet_workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("greet.py"), "print('helo')\n").unwrap();
    (dir, work)
}

/// The pev graph on `model` in `work`, its checkpoints under `dir`.
fn graph_in(
    model: &Arc<ScriptedModel>,
    work: &std::path::Path,
    dir: &std::path::Path,
) -> rebound_graph::CompiledGraph<PevState> {
    let deps = deps(
        model.clone(),
        work,
        ApprovalMode::Auto,
        Vec::new(),
        config(10),
    );
    pev::build(deps).unwrap().with_checkpointer(saver(dir))
}
