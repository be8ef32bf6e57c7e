//! Checks as the goal's evidence, end to end: a scripted model, the real
//! shell, temp workspaces, SQLite. A finish a check contradicts is
//! overruled; a change that makes the checks pass finishes without asking
//! the model; a check that cannot run stops the run before any plan.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{deps, plan, reflection, review, run, saver};
use rebound_agent::checks::{Check, CheckSource, CheckWhen};
use rebound_agent::events::AgentEvent;
use rebound_agent::pev::{self, PevState};
use rebound_agent::reflect::{self, ReflectState};
use rebound_agent::{AgentConfig, StopReason};
use rebound_graph::CompiledGraph;
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

/// The default settings without the harness's localized edits: these
/// tests are about what the checks do to the planner's own plans (the
/// edit step has its own tests, `tests/edit.rs`).
fn planner_only() -> AgentConfig {
    AgentConfig {
        localized_edits: false,
        ..AgentConfig::default()
    }
}

/// Each proposed check's verdict: adopted, and why.
fn proposals(events: &[AgentEvent]) -> Vec<(bool, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::CheckProposed {
                adopted, reason, ..
            } => Some((*adopted, reason.clone())),
            _ => None,
        })
        .collect()
}

/// The pev graph on `model` in `work` (auto approval, default budgets),
/// its checkpoints in `dir`.
fn pev_graph(model: &Arc<ScriptedModel>, work: &Path, dir: &Path) -> CompiledGraph<PevState> {
    let deps = deps(
        model.clone(),
        work,
        ApprovalMode::Auto,
        Vec::new(),
        planner_only(),
    );
    pev::build(deps).unwrap().with_checkpointer(saver(dir))
}

/// The false success cannot happen: the model reviews a plan only
/// when it is done, and a plan that ends with the tests failing is sent
/// back to the planner by the harness (no model call, no finish to
/// overrule), with the failure localized; the fix makes the checks pass,
/// which finishes the run with no further model call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_that_leaves_a_check_failing_is_replanned_and_the_fix_finishes_without_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Read the README", Some("ls")), ("List all", Some("ls -a"))])
            .expect_user_contains("The checks (commands that must succeed")
            .expect_user_contains(
                "FAIL test_calc.T.test_sub: AssertionError: -2 != 2\nat test_calc.py:7 (in test_sub)\nsuspect: calc.py:1-2, def sub\n 1 | def sub(a, b):\n 2 |     return b - a",
            )
            .expect_user_contains("suspect: calc.py:1-2, def sub"),
        plan(&[("Fix sub", Some(FIX))])
            .expect_user_contains("the plan is done and the checks still fail")
            .expect_user_contains("AssertionError: -2 != 2")
            .expect_user_contains(" 2 |     return b - a"),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let (state, events) = run(&graph, PevState::new("fix calc", 10).with_checks(check())).await;

    assert_eq!(model.remaining(), 0, "no reviewer call at all");
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert!(state.evidence.results.iter().all(|r| r.passed));
    assert!(state.evidence.failed_at_start);
    assert_eq!(state.repairs, 0, "a replan, not a repair: no step failed");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::FinishOverruled { .. })),
        "no finish was claimed while a check failed"
    );
    let whens: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Checks { when, results } => Some(format!("{when}: {}", results[0].passed)),
            _ => None,
        })
        .collect();
    assert_eq!(
        whens,
        ["before the first plan: false", "after a change: true"]
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
        review("finish", "it was right all along", &[])
            .expect_user_contains("`python3 -m unittest -q test_calc` passed"),
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
    let model = Arc::new(ScriptedModel::new([plan(&[
        ("Look", Some("ls")),
        ("Look again", Some("ls -a")),
    ])
    .expect_user_contains("timed out after")]));
    let mut config = planner_only();
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
        "the first step's review used the last round"
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
        planner_only(),
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

/// A run with no check: the planner is asked for one with its plan; it
/// fails before any change, so it is adopted, reported as agent-written,
/// and it gates the finish: a plan that ends while it fails goes back to
/// the planner. Passing
/// it does not end the run by itself (an agent's check is necessary, not
/// sufficient): the reviewer still has its say.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_the_planner_writes_is_adopted_when_it_fails_now_and_gates_the_finish() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let agent_check = "grep -qx 'total: 3' report.txt";
    let model = Arc::new(ScriptedModel::new([
        common::plan_with_check(
            agent_check,
            &[
                ("Write the report", Some("echo 'total: 2' > report.txt")),
                ("Show it", Some("cat report.txt")),
            ],
        )
        .expect_user_contains("No command shows yet that this goal is reached"),
        plan(&[("Fix the total", Some("echo 'total: 3' > report.txt"))])
            .expect_user_contains("the plan is done and the checks still fail"),
        review("finish", "the total is right now", &[]),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let (state, events) = run(
        &graph,
        PevState::new("write report.txt: its line `total: 3`", 10),
    )
    .await;
    assert_eq!(model.remaining(), 0, "the reviewer was asked after the fix");
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert_eq!(
        state.evidence.checks,
        vec![Check::new(agent_check, CheckSource::Agent)]
    );
    assert!(state.evidence.failed_at_start);
    let proposed = proposals(&events);
    assert_eq!(proposed.len(), 1);
    assert!(proposed[0].0, "{proposed:?}");
    assert!(proposed[0].1.contains("fails before any change"));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::FinishOverruled { .. })),
        "the failing check sent the first plan back without a finish"
    );
    let summary = pev::summarize(&state);
    assert_eq!(summary.checks[0].source.to_string(), "agent-written");
}

/// A proposed check that passes before any change proves nothing, and one
/// that runs a script the agent would write judges nothing: both are
/// refused, the planner is asked twice at most, and the finish is then
/// unverified.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proposed_check_that_cannot_tell_done_from_not_done_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([
        common::plan_with_check("grep -q sub calc.py", &[("Look", Some("ls"))]),
        review("replan", "nothing done yet", &[]),
        common::plan_with_check("python3 check_report.py", &[("Look", Some("ls -a"))])
            .expect_user_contains("No command shows yet that this goal is reached"),
        review("replan", "still nothing", &[]),
        plan(&[("Look", Some("pwd"))]),
        review("finish", "done", &[]),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let (state, events) = run(&graph, PevState::new("tidy up", 10)).await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert!(state.evidence.checks.is_empty());
    assert_eq!(state.evidence.proposals, 2);
    let refusals: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::CheckProposed {
                adopted: false,
                reason,
                ..
            } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(refusals.len(), 2, "{refusals:?}");
    assert!(refusals[0].contains("passes before any change"));
    assert!(refusals[1].contains("does not exist yet"));
}

/// A check proposed after the workspace changed is refused: it may fail
/// only because of the change. Found on dev: once an edit had removed the
/// wrong line a program printed, a proposal that *passes while that line
/// is printed* failed, was adopted, and judged every later edit. Its
/// failure on the workspace as the run found it cannot be seen any more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_proposed_after_the_workspace_changed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    std::fs::write(work.join("report.txt"), "total: 2\n").unwrap();
    let model = Arc::new(ScriptedModel::new([
        common::plan_with_check(
            "grep -q sub calc.py",
            &[("Fix the total", Some("echo 'total: 3' > report.txt"))],
        ),
        review("replan", "not sure yet", &[]),
        // Fails now, only because the first plan changed the file: on the
        // report as the run found it, it passes.
        common::plan_with_check("grep -qx 'total: 2' report.txt", &[("Look", Some("ls"))])
            .expect_user_contains("No command shows yet that this goal is reached"),
        review("finish", "done", &[]),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let (state, events) = run(
        &graph,
        PevState::new("fix the total in report.txt (`total: 2`)", 10),
    )
    .await;
    assert_eq!(model.remaining(), 0);
    assert!(
        state.evidence.checks.is_empty(),
        "{:?}",
        state.evidence.checks
    );
    assert!(
        state.evidence.found.is_some(),
        "recorded before the first plan"
    );
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    let proposed = proposals(&events);
    assert_eq!(proposed.len(), 2, "{proposed:?}");
    assert!(
        proposed[0].1.contains("passes before any change"),
        "{proposed:?}"
    );
    assert!(!proposed[1].0, "{proposed:?}");
    assert!(
        proposed[1].1.contains("has changed since the run began"),
        "{proposed:?}"
    );
}

/// Checks that pass because the agent rewrote the tests prove nothing:
/// the change does not finish the run by itself, and the reviewer's finish
/// is reported unverified, naming the test file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checks_that_pass_after_the_tests_were_rewritten_do_not_verify() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let weaken = "printf 'import unittest\\n\\nclass T(unittest.TestCase):\\n    def test_sub(self):\\n        pass\\n' > test_calc.py";
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Make the test pass", Some(weaken))]),
        review("finish", "the tests pass", &[]),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let (state, _) = run(&graph, PevState::new("fix calc", 10).with_checks(check())).await;
    assert_eq!(model.remaining(), 0, "the passing checks did not settle it");
    assert!(state.evidence.results.iter().all(|r| r.passed));
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    let summary = pev::summarize(&state);
    assert_eq!(summary.tests_changed, vec!["test_calc.py".to_string()]);
}

/// A proposed check that writes files is not a check: it is refused, even
/// though it fails now. A program that writes by itself (no writing
/// command or redirection the line shows) is caught by its trial run in
/// a scratch copy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proposed_check_that_changes_files_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let writes = "python3 -c \"open('listing.txt', 'w').write('x')\" && false";
    let model = Arc::new(ScriptedModel::new([
        common::plan_with_check(writes, &[("Look", Some("ls"))]),
        review("finish", "done", &[]),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let (state, events) = run(&graph, PevState::new("tidy up", 10)).await;
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    assert!(state.evidence.checks.is_empty());
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::CheckProposed { adopted: false, reason, .. } if reason.contains("changes the workspace")
    )));
    assert!(
        !work.join("listing.txt").exists(),
        "it ran in a scratch copy, not in the workspace"
    );
}

/// A proposed "check" that does the task (a commit) runs in a scratch
/// copy: it is refused because it writes to `.git`, and the workspace has
/// no new commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proposed_check_that_commits_is_refused_and_commits_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@localhost"])
            .args(args)
            .current_dir(&work)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    git(&["init", "-q"]);
    git(&["add", "calc.py"]);
    git(&["commit", "-q", "-m", "first"]);
    let action = "git -c user.name=a -c user.email=a@b add . && git -c user.name=a -c user.email=a@b commit -q -m 'Add tests' && test \"$(git status --porcelain)\" = x";
    let model = Arc::new(ScriptedModel::new([
        common::plan_with_check(action, &[("Look", Some("ls"))]),
        review("finish", "done", &[]),
        // Nothing was committed: that finish is refused once
        // (`rebound_agent::unchanged`), and the next one ends the run.
        common::plan(&[("Look again", Some("ls -a"))]),
        review("finish", "done", &[]),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let (state, events) = run(&graph, PevState::new("commit the tests", 10)).await;
    assert_eq!(state.progress.unchanged_finishes, 1);
    assert!(state.evidence.checks.is_empty(), "{:?}", state.evidence);
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::CheckProposed { adopted: false, reason, .. } if reason.contains("git")
    )));
    assert_eq!(git(&["log", "--format=%s"]).trim(), "first");
    assert!(git(&["status", "--porcelain"]).contains("test_calc.py"));
}

/// A proposal that copies a check the run has already is refused (it
/// would test nothing new); one adopted beside the run's other checks
/// runs with them, so the evidence keeps every check's result, not only
/// the new one's (found on dev: an edit's baseline had lost the failing
/// `make` and its build-file repairs were never tried).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proposal_copying_a_check_is_refused_and_an_adopted_one_keeps_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let condition = Check::new(
        "test -s report.txt",
        CheckSource::Clause {
            rule: "file shape".to_string(),
            proves: false,
        },
    );
    let agent_check = "grep -qx 'total: 3' report.txt";
    let model = Arc::new(ScriptedModel::new([
        common::plan_with_check("test -s report.txt", &[("Look", Some("ls"))]),
        review("replan", "nothing written yet", &[]),
        common::plan_with_check(
            agent_check,
            &[("Write the report", Some("echo 'total: 3' > report.txt"))],
        ),
        review("finish", "the report is written", &[]),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let input = PevState::new("write report.txt: its line `total: 3`", 10)
        .with_checks(vec![condition.clone()]);
    let (state, events) = run(&graph, input).await;
    assert_eq!(model.remaining(), 0);
    let proposed = proposals(&events);
    assert_eq!(proposed.len(), 2, "{proposed:?}");
    assert!(!proposed[0].0 && proposed[0].1.contains("has this check already"));
    assert!(proposed[1].0, "{proposed:?}");
    let adoption = events
        .iter()
        .position(|e| matches!(e, AgentEvent::CheckProposed { adopted: true, .. }))
        .unwrap();
    let after_adoption = events[adoption..]
        .iter()
        .find_map(|e| match e {
            AgentEvent::Checks { when, results } if *when == CheckWhen::Start => Some(results),
            _ => None,
        })
        .unwrap();
    let commands: Vec<&str> = after_adoption.iter().map(|r| r.command.as_str()).collect();
    assert_eq!(commands, vec!["test -s report.txt", agent_check]);
    assert_eq!(
        state.evidence.checks,
        vec![condition, Check::new(agent_check, CheckSource::Agent)]
    );
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
}

/// A named test command that runs no test (`Ran 0 tests ... OK`: the
/// test file is named so that discovery misses it) fails, with the
/// reason, so a finish is not verified by it (found on dev: the goal
/// reported "Ran 0 tests" and the run finished verified by that very
/// output); once the tests are found and pass, it verifies the finish.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_test_run_that_runs_no_test_proves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    std::fs::write(work.join("calc.py"), "def sub(a, b):\n    return a - b\n").unwrap();
    std::fs::rename(work.join("test_calc.py"), work.join("calc_check.py")).unwrap();
    // Imported by name: the harness's rename (below) leaves it alone.
    std::fs::write(work.join("run_checks.py"), "import calc_check\n").unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Look", Some("ls"))])
            .expect_user_contains("Ran 0 tests")
            .expect_user_contains("the test run found no test"),
        plan(&[(
            "Name the tests so discovery finds them",
            Some("mv calc_check.py test_calc.py"),
        )])
        .expect_user_contains("exit 0, but it proved nothing"),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let checks = vec![Check::new("python3 -m unittest", CheckSource::Goal)];
    let (state, events) = run(
        &graph,
        PevState::new("`python3 -m unittest` runs no test: make it find them", 10)
            .with_checks(checks),
    )
    .await;
    assert_eq!(model.remaining(), 0, "{events:?}");
    let firsts: Vec<bool> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Checks { results, .. } => Some(results[0].passed),
            _ => None,
        })
        .collect();
    assert!(!firsts[0], "no test ran: failed");
    assert!(state.evidence.failed_at_start);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert!(state.evidence.results[0].output.contains("Ran 1 test"));
}

/// Tests that unittest's discovery misses (`calc_check.py`: not
/// `test*.py`) are renamed by the harness so it finds them, with no model
/// call; the rename keeps their contents, so the passing run verifies
/// the finish (found on dev: plans of `pip install` and README edits).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tests_that_discovery_misses_are_renamed_without_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    std::fs::write(work.join("calc.py"), "def sub(a, b):\n    return a - b\n").unwrap();
    std::fs::rename(work.join("test_calc.py"), work.join("calc_check.py")).unwrap();
    let model = Arc::new(ScriptedModel::new(Vec::<rebound_llm::Step>::new()));
    let graph = pev_graph(&model, &work, dir.path());
    let checks = vec![Check::new("python3 -m unittest", CheckSource::Goal)];
    let goal = "`python3 -m unittest` runs no test: make it find them without changing the tests.";
    let (state, events) = run(&graph, PevState::new(goal, 10).with_checks(checks)).await;
    assert_eq!(pev::stop_reason(&state), StopReason::Finished, "{events:?}");
    assert!(work.join("test_calc_check.py").is_file());
    assert!(state.evidence.results[0].output.contains("Ran 1 test"));
    assert!(
        state.evidence.tests_changed.is_empty(),
        "moved, not changed"
    );
}

/// A test run that finds some of the tests is not the run of all of them:
/// with one test module renamed (the other is imported by name, so the
/// harness leaves it), `python3 -m unittest` runs 1 test of the 2 the
/// test files define and still fails, with the reason; once the planner
/// renames the other, it verifies the finish (found on dev as a false
/// success: 5 of 9 tests ran, and the run was verified).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_run_that_finds_some_of_the_tests_does_not_verify() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(work.join("tests")).unwrap();
    let case = |name: &str| {
        format!("import unittest\n\n\nclass {name}(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n")
    };
    std::fs::write(work.join("tests/__init__.py"), "").unwrap();
    std::fs::write(work.join("tests/a_test.py"), case("A")).unwrap();
    std::fs::write(work.join("tests/b_test.py"), case("B")).unwrap();
    std::fs::write(work.join("tools.py"), "from tests import b_test\n").unwrap();
    let model = Arc::new(ScriptedModel::new([plan(&[(
        "Rename the other test module so discovery finds it",
        Some("mv tests/b_test.py tests/test_b.py"),
    )])
    .expect_user_contains("ran 1 tests, but the workspace's test files define 2")]));
    let graph = pev_graph(&model, &work, dir.path());
    let checks = vec![Check::new("python3 -m unittest", CheckSource::Goal)];
    let goal =
        "`python3 -m unittest` runs none of the tests in tests/: make it find and run all of them.";
    let (state, events) = run(&graph, PevState::new(goal, 10).with_checks(checks)).await;
    assert_eq!(model.remaining(), 0, "{events:?}");
    assert!(
        work.join("tests/test_a.py").is_file(),
        "the harness's rename"
    );
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert!(state.evidence.results[0].output.contains("Ran 2 tests"));
}

/// A script the check cannot run for want of its executable bit is made
/// executable by the harness, with no model call, also when the goal
/// protects what the scripts do (protection keeps contents; found on
/// dev, where the protection had kept the harness from its plan).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_without_its_executable_bit_is_made_executable_without_the_model() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(work.join("steps")).unwrap();
    std::fs::write(work.join("run.sh"), "#!/bin/sh\nset -e\n./steps/build.sh\n").unwrap();
    std::fs::write(work.join("steps/build.sh"), "#!/bin/sh\necho built\n").unwrap();
    std::fs::set_permissions(work.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let model = Arc::new(ScriptedModel::new(Vec::<rebound_llm::Step>::new()));
    let graph = pev_graph(&model, &work, dir.path());
    let checks = vec![Check::new("./run.sh", CheckSource::Goal)];
    let goal = "`./run.sh` stops with Permission denied. Make it pass without changing what run.sh or the steps do.";
    let (state, events) = run(&graph, PevState::new(goal, 10).with_checks(checks)).await;
    assert_eq!(pev::stop_reason(&state), StopReason::Finished, "{events:?}");
    let mode = std::fs::metadata(work.join("steps/build.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_ne!(mode & 0o111, 0);
    assert_eq!(
        std::fs::read_to_string(work.join("steps/build.sh")).unwrap(),
        "#!/bin/sh\necho built\n"
    );
}

/// A command the goal quotes that names a make target the Makefile lacks
/// is the run's to define: its passing after the run wrote the target
/// shows that the target exists, not that it does what the goal says, so
/// it must pass for a finish but cannot verify one (found on test as a
/// false success: `make clean` passed with a target that left the object
/// files, and verified the finish).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quoted_command_whose_target_the_run_writes_does_not_verify_the_finish() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("Makefile"), "app:\n\ttouch app main.o\n").unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[(
            "Add a clean target",
            Some("printf 'clean:\\n\\trm -f app\\n' >> Makefile"),
        )]),
        review("finish", "make clean passes", &[]),
    ]));
    let graph = pev_graph(&model, &work, dir.path());
    let checks = vec![Check::new("make clean", CheckSource::Goal)];
    let goal = "Add a target so that `make clean` deletes the app binary and all the .o files.";
    let (state, events) = run(&graph, PevState::new(goal, 10).with_checks(checks)).await;
    assert_eq!(model.remaining(), 0, "{events:?}");
    assert_eq!(
        state.evidence.checks,
        vec![Check::new(
            "make clean",
            CheckSource::Defined {
                missing: "make target 'clean'".to_string()
            }
        )]
    );
    assert!(
        !state.evidence.failed_at_start,
        "it failed for want of itself"
    );
    assert!(state.evidence.results[0].passed);
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
}
