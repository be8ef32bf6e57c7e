//! Edit steps end to end: a scripted model, the real shell and file tools,
//! temp workspaces, SQLite. The harness cuts the span localization found,
//! the model writes only the replacement, the checks decide what is kept;
//! a candidate that breaks the syntax or adds failures is refused or
//! reverted and the file restored byte for byte.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{deps, plan, review, run, saver};
use rebound_agent::checks::{Check, CheckSource};
use rebound_agent::events::AgentEvent;
use rebound_agent::pev::{self, PevState};
use rebound_agent::{AgentConfig, StepKind, StopReason};
use rebound_graph::CompiledGraph;
use rebound_llm::{ScriptedModel, Step};
use rebound_tools::approval::ApprovalMode;

const TESTS: &str = "import unittest\nfrom calc import add, sub\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_sub(self):\n        self.assertEqual(sub(5, 3), 2)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
const BUGGY: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return b - a\n";
const FIXED: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";
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

/// A model answer with `code` in a fenced block.
fn code(code: &str) -> Step {
    Step::text(format!("```python\n{code}```"))
}

fn graph(
    model: &Arc<ScriptedModel>,
    work: &Path,
    dir: &Path,
    config: AgentConfig,
) -> CompiledGraph<PevState> {
    let deps = deps(model.clone(), work, ApprovalMode::Auto, Vec::new(), config);
    pev::build(deps).unwrap().with_checkpointer(saver(dir))
}

/// The configuration of a test that scripts every model answer: one
/// candidate per edit, no mutants.
fn model_only() -> AgentConfig {
    AgentConfig {
        edit_candidates: 0,
        edit_mutants: 0,
        ..AgentConfig::default()
    }
}

/// The targets the planner's grammar offers an edit in `request`: the
/// enum of the edit shape's `target`.
fn edit_targets(request: &rebound_llm::ChatRequest) -> serde_json::Value {
    let schema = &request.response_schema.as_ref().unwrap().schema;
    let shapes = schema["properties"]["steps"]["items"]["anyOf"]
        .as_array()
        .unwrap();
    let edit = shapes
        .iter()
        .find(|shape| shape["properties"]["kind"]["const"] == "edit")
        .unwrap();
    edit["properties"]["target"]["anyOf"][0]["enum"].clone()
}

/// A workspace whose report.py prints a total one too small, and `show`,
/// which runs it. The check ([`report_check`]) names no file of the
/// workspace's code: no failure points at report.py, so an unchanged
/// answer is "nothing to change".
fn report_workspace(dir: &Path) -> std::path::PathBuf {
    let work = dir.join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(
        work.join("report.py"),
        "def header():\n    return \"Report\"\n\n\ndef total(values):\n    return sum(values) - 1\n\n\nif __name__ == \"__main__\":\n    print(header())\n    print(total([1, 2, 3]))\n",
    )
    .unwrap();
    std::fs::write(work.join("show"), "python3 report.py\n").unwrap();
    work
}

/// The check of [`report_workspace`]: the report's last line is 6.
fn report_check() -> Vec<Check> {
    vec![Check::new(
        "test \"$(sh show | tail -n 1)\" = 6",
        CheckSource::Flag,
    )]
}

/// A workspace with notes.txt holding `text`.
fn notes_workspace(dir: &Path, text: &str) -> std::path::PathBuf {
    let work = dir.join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("notes.txt"), text).unwrap();
    work
}

/// The agent's own check of [`notes_workspace`]: a line `done`.
fn notes_check() -> Vec<Check> {
    vec![Check::new("grep -qx done notes.txt", CheckSource::Agent)]
}

fn step_outputs(events: &[AgentEvent]) -> Vec<(StepKind, bool, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Step {
                step,
                success: Some(success),
                output: Some(output),
                ..
            } => Some((step.kind, *success, output.clone())),
            _ => None,
        })
        .collect()
}

/// A check fails at code localization finds: the first plan is the
/// harness's edit of the definition the failing assertion calls (no
/// planner call), the model writes the new `sub`, the checks pass, and
/// the run finishes, verified, after one model call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_localized_edit_fixes_the_bug_in_one_model_call() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([code(
        "def sub(a, b):\n    return a - b\n",
    )
    .expect_user_contains("def sub (lines 5-6) of calc.py")
    .expect_user_contains("def sub(a, b):\n    return b - a\n```")
    .expect_user_contains("AssertionError: -2 != 2")]));
    let graph = graph(&model, &work, dir.path(), AgentConfig::default());
    let (state, events) = run(&graph, PevState::new("fix calc", 10).with_checks(check())).await;

    assert_eq!(model.remaining(), 0);
    assert_eq!(model.requests().len(), 1);
    let editor = &model.requests()[0];
    assert!(
        editor.grammar.is_some(),
        "the answer is a fenced block under a grammar"
    );
    assert_eq!(editor.temperature, None, "the first candidate is greedy");
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert_eq!(
        std::fs::read_to_string(work.join("calc.py")).unwrap(),
        FIXED
    );
    let (plan, prompt_tokens) = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::Plan {
                steps,
                prompt_tokens,
                ..
            } => Some((steps.clone(), *prompt_tokens)),
            _ => None,
        })
        .unwrap();
    assert_eq!(plan.len(), 1, "{plan:?}");
    assert_eq!(plan[0].kind, StepKind::Edit);
    assert_eq!(plan[0].file.as_deref(), Some("calc.py"));
    assert_eq!(plan[0].target.as_deref(), Some("sub"));
    assert_eq!(prompt_tokens, 0, "no planner call");
    let outputs = step_outputs(&events);
    assert_eq!(
        outputs.len(),
        1,
        "the run finished after the edit: {outputs:?}"
    );
    assert!(outputs[0].1);
    assert!(
        outputs[0].2.contains("kept: every check passes"),
        "{}",
        outputs[0].2
    );
}

/// The edit of the located definition fails (its only candidate leaves
/// the test failing and is reverted); in repair mode the harness's next
/// edit, put before the planner's steps, is the whole file, and the
/// model's rewrite of it is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_definition_edit_widens_to_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([
        code("def sub(a, b):\n    return -(a - b)\n").expect_user_contains("def sub (lines 5-6)"),
        plan(&[("Run the tests", Some(CHECK))])
            .expect_user_contains("no candidate improved def sub"),
        code(FIXED)
            .expect_user_contains("def add(a, b):")
            .expect_user_contains("AssertionError: -2 != 2"),
    ]));
    let config = model_only();
    let graph = graph(&model, &work, dir.path(), config);
    let (state, events) = run(&graph, PevState::new("fix calc", 10).with_checks(check())).await;

    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert_eq!(
        std::fs::read_to_string(work.join("calc.py")).unwrap(),
        FIXED
    );
    let plans: Vec<Vec<(StepKind, Option<String>)>> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Plan { steps, .. } => Some(
                steps
                    .iter()
                    .map(|s| (s.kind, s.target.clone().or(s.command.clone())))
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(
        plans,
        vec![
            vec![(StepKind::Edit, Some("sub".to_string()))],
            vec![
                (StepKind::Edit, Some("whole file".to_string())),
                (StepKind::Run, Some(CHECK.to_string())),
            ],
        ]
    );
}

/// The edit's prompt does not fit the model's context window (a long
/// file shown to a small model): the step fails with the reason, the
/// planner hears it, and the run goes on to the next edit instead of
/// ending with the model's error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_whose_prompt_does_not_fit_the_context_fails_the_step_not_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([
        Step::error(rebound_llm::LlmError::ContextTooLong {
            provider: "local:small".to_string(),
            message: "7188 prompt tokens + 1536 max_tokens = 8724 > 4096 tokens".to_string(),
        })
        .expect_user_contains("def sub (lines 5-6)"),
        plan(&[("Run the tests", Some(CHECK))])
            .expect_user_contains("does not fit the model's context window (7188 prompt tokens"),
        code(FIXED).expect_user_contains("def add(a, b):"),
    ]));
    let config = model_only();
    let graph = graph(&model, &work, dir.path(), config);
    let (state, events) = run(&graph, PevState::new("fix calc", 10).with_checks(check())).await;

    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert_eq!(
        std::fs::read_to_string(work.join("calc.py")).unwrap(),
        FIXED
    );
    let outputs = step_outputs(&events);
    assert_eq!(outputs[0].0, StepKind::Edit);
    assert!(!outputs[0].1, "{outputs:?}");
    assert!(
        outputs[0].2.contains("plan a smaller part"),
        "{}",
        outputs[0].2
    );
}

/// An edit the model finds nothing to change in, of a file no failing
/// check points at, changes nothing and lets the plan go on (the checks
/// still judge the finish); the same answer for the file a failure points
/// at is a failed step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_edit_of_a_file_no_failure_names_lets_the_plan_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    std::fs::write(work.join("README.md"), "# calc\n").unwrap();
    let steps = serde_json::json!({"steps": [
        {"kind": "edit", "description": "Tidy the README", "file": "README.md", "target": ""},
        {"kind": "run", "description": "Mark it done", "command": "touch DONE"},
    ]});
    let model = Arc::new(ScriptedModel::new([
        Step::json(steps),
        Step::text("```markdown\n# calc\n```"),
    ]));
    let config = AgentConfig {
        edit_candidates: 0,
        ..AgentConfig::default()
    };
    let agent = graph(&model, &work, dir.path(), config);
    let checks = vec![Check::new("test -f DONE", CheckSource::Flag)];
    let (state, events) = run(
        &agent,
        PevState::new("mark it done", 10).with_checks(checks),
    )
    .await;

    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    let outputs = step_outputs(&events);
    assert_eq!(outputs.len(), 2, "{outputs:?}");
    assert!(outputs[0].1, "{outputs:?}");
    assert!(outputs[0].2.contains("needs no change"), "{}", outputs[0].2);
    assert_eq!(
        std::fs::read_to_string(work.join("README.md")).unwrap(),
        "# calc\n"
    );

    // The same unchanged answer for the file the failing test points at.
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([code(BUGGY)]));
    let mut config = AgentConfig {
        edit_candidates: 0,
        edit_mutants: 0,
        ..AgentConfig::default()
    };
    config.budget.max_attempts = 1;
    let agent = graph(&model, &work, dir.path(), config);
    let (_, events) = run(&agent, PevState::new("fix calc", 10).with_checks(check())).await;
    let outputs = step_outputs(&events);
    assert!(!outputs[0].1, "{outputs:?}");
    assert!(
        outputs[0].2.contains("use a run step"),
        "every candidate changed nothing: {}",
        outputs[0].2
    );
}

/// Best-of-n: the greedy candidate leaves the test failing and is
/// reverted; a sampled duplicate of it is skipped without running the
/// checks; a candidate that renames the function (a new failure: the
/// import breaks) is reverted; the next sampled one fixes it and is kept.
/// The samples are seeded from the configured seed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampled_candidates_are_tried_until_one_passes() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([
        code("def sub(a, b):\n    return -(a - b)\n"),
        code("def sub(a, b):\n    return -(a - b)   \n"),
        code("def subtract(a, b):\n    return a - b\n"),
        code("def sub(a, b):\n    return a - b\n"),
    ]));
    let config = AgentConfig {
        seed: 40,
        edit_mutants: 0,
        ..AgentConfig::default()
    };
    let graph = graph(&model, &work, dir.path(), config);
    let (state, events) = run(&graph, PevState::new("fix calc", 10).with_checks(check())).await;

    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert_eq!(
        std::fs::read_to_string(work.join("calc.py")).unwrap(),
        FIXED
    );
    let requests = model.requests();
    assert_eq!((requests[0].seed, requests[0].temperature), (None, None));
    let seeds: Vec<u64> = requests[1..]
        .iter()
        .map(|r| {
            assert_eq!(r.temperature, Some(0.8));
            r.seed.expect("a sampled candidate is seeded")
        })
        .collect();
    assert_eq!(
        seeds,
        vec![seeds[0], seeds[0] + 1, seeds[0] + 2],
        "one seed per candidate, from the configured one"
    );
    assert_ne!(seeds[0], 41, "the attempt's superstep is part of the seed");
    assert_eq!(
        requests[0].messages, requests[3].messages,
        "every candidate has the same prompt (the KV cache is reused)"
    );
    let output = &step_outputs(&events)[0].2;
    assert!(output.contains("candidate 1: reverted"), "{output}");
    assert!(
        output.contains("candidate 2: the same as an earlier candidate"),
        "{output}"
    );
    assert!(output.contains("candidate 3: reverted"), "{output}");
    assert!(
        output.contains("candidate 4: kept: every check passes"),
        "{output}"
    );
    let judged = events
        .iter()
        .filter(|e| {
            matches!(e, AgentEvent::Checks { when, .. } if *when == rebound_agent::checks::CheckWhen::Edit)
        })
        .count();
    assert_eq!(judged, 3, "the duplicate did not run the checks");
}

/// Candidates that are unusable or break the syntax are refused without
/// touching the checks; when none is left, the step fails with each
/// candidate's reason, the file is byte for byte what it was, and the run
/// goes to repair mode.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_edit_leaves_the_file_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    // CRLF and no final newline: restored exactly.
    let original =
        "def add(a, b):\r\n    return a + b\r\n\r\n\r\ndef sub(a, b):\r\n    return b - a";
    std::fs::write(work.join("calc.py"), original).unwrap();
    let model = Arc::new(ScriptedModel::new([
        code("def sub(a, b)\n    return a - b\n"),
        Step::text("I would change the minus."),
        code(""),
    ]));
    let mut config = AgentConfig {
        edit_candidates: 2,
        edit_mutants: 0,
        ..AgentConfig::default()
    };
    config.budget.max_attempts = 1;
    let graph = graph(&model, &work, dir.path(), config);
    let (state, events) = run(&graph, PevState::new("fix calc", 10).with_checks(check())).await;

    assert_eq!(model.remaining(), 0);
    assert!(matches!(
        pev::stop_reason(&state),
        StopReason::Budget { .. }
    ));
    assert_eq!(
        std::fs::read(work.join("calc.py")).unwrap(),
        original.as_bytes()
    );
    let (kind, success, _) = step_outputs(&events)[0].clone();
    assert_eq!(kind, StepKind::Edit);
    assert!(!success);
    let failure = state.last_error.expect("repair mode");
    let output = &failure.error;
    assert!(output.contains("the file is unchanged"), "{output}");
    assert!(
        output.contains("candidate 1: refused, it breaks the syntax"),
        "{output}"
    );
    assert!(
        output.contains("candidate 2: refused: the answer cannot be used"),
        "{output}"
    );
    assert!(
        output.contains("candidate 3: refused: the answer cannot be used"),
        "{output}"
    );
    assert_eq!(failure.step.kind, StepKind::Edit);
    assert_eq!(
        failure.plan.len(),
        1,
        "the failed plan is kept for the planner"
    );
}

/// The model writes the buggy line back; the harness's one-token
/// mutants of the span, nearest the suspect line first, are judged by the
/// checks, and the one that makes them pass is kept: no sampled candidate
/// (no further model call) was needed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_mutant_fixes_what_the_model_wrote_back() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([code(
        "def sub(a, b):\n    return b - a\n",
    )]));
    let graph = graph(&model, &work, dir.path(), AgentConfig::default());
    let (state, events) = run(&graph, PevState::new("fix calc", 10).with_checks(check())).await;

    assert_eq!(model.remaining(), 0);
    assert_eq!(model.requests().len(), 1, "no sampled candidate");
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert_eq!(
        std::fs::read_to_string(work.join("calc.py")).unwrap(),
        FIXED
    );
    let outputs = step_outputs(&events);
    let output = &outputs[0].2;
    assert!(outputs[0].1, "{output}");
    assert!(
        output.contains("mutants: kept line 6: `b - a` → `a - b`"),
        "{output}"
    );
    let judged = events
        .iter()
        .filter(|e| {
            matches!(e, AgentEvent::Checks { when, .. } if *when == rebound_agent::checks::CheckWhen::Edit)
        })
        .count();
    assert!(
        (1..=3).contains(&judged),
        "the swap is among the first mutants tried: {judged}"
    );
}

/// No one-token change fixes the bug: every mutant is judged and
/// reverted, and the file is byte for byte what it was (CRLF, no final
/// newline).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_no_mutant_passes_the_file_is_restored() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let original =
        "def add(a, b):\r\n    return a + b\r\n\r\n\r\ndef sub(a, b):\r\n    return str(b - a)";
    std::fs::write(work.join("calc.py"), original).unwrap();
    let model = Arc::new(ScriptedModel::new([Step::text("no code")]));
    let mut config = AgentConfig {
        edit_candidates: 0,
        ..AgentConfig::default()
    };
    config.budget.max_attempts = 1;
    let graph = graph(&model, &work, dir.path(), config);
    let (state, events) = run(&graph, PevState::new("fix calc", 10).with_checks(check())).await;

    assert_eq!(model.remaining(), 0);
    assert_eq!(
        std::fs::read(work.join("calc.py")).unwrap(),
        original.as_bytes()
    );
    let failure = state.last_error.expect("repair mode");
    assert!(
        failure
            .error
            .contains("one-token changes); none makes every check pass"),
        "{}",
        failure.error
    );
    let judged = events
        .iter()
        .filter(|e| {
            matches!(e, AgentEvent::Checks { when, .. } if *when == rebound_agent::checks::CheckWhen::Edit)
        })
        .count();
    assert!(judged >= 3, "each mutant ran the checks: {judged}");
}

/// A planner's own edit step of a file outside the workspace fails with
/// the reason and no model call; an observe step whose command fails is
/// not a failure, and needs no review while the plan goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn planner_edit_steps_are_confined_and_observations_do_not_fail() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    std::fs::write(dir.path().join("secret.py"), "x = 1\n").unwrap();
    let steps = serde_json::json!({"steps": [
        {"kind": "observe", "description": "Look for a missing file", "command": "cat nothing.txt"},
        {"kind": "edit", "description": "Change x", "file": "../secret.py", "target": ""},
    ]});
    let model = Arc::new(ScriptedModel::new([Step::json(steps)]));
    let mut config = AgentConfig {
        localized_edits: false,
        ..AgentConfig::default()
    };
    config.budget.max_attempts = 1;
    let graph = graph(&model, &work, dir.path(), config);
    let (state, events) = run(&graph, PevState::new("tidy", 10)).await;

    assert_eq!(model.remaining(), 0, "the refused edit made no model call");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("secret.py")).unwrap(),
        "x = 1\n"
    );
    let outputs = step_outputs(&events);
    assert_eq!(outputs.len(), 2, "{outputs:?}");
    assert_eq!(outputs[0].0, StepKind::Observe);
    assert!(
        outputs[0].1,
        "an observation that exits 1 succeeds: {outputs:?}"
    );
    assert_eq!(outputs[1].0, StepKind::Edit);
    assert!(!outputs[1].1);
    assert!(outputs[1].2.contains("outside"), "{}", outputs[1].2);
    assert!(matches!(
        pev::stop_reason(&state),
        StopReason::Budget { .. }
    ));
}

/// Loop hygiene: a plan's repeated steps are merged; a command that ran
/// before with the same output and changed nothing is no progress (a
/// failure the planner hears about); a repair plan identical to the plan
/// that failed is refused once, with the reason, and asked again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_steps_and_plans_are_caught() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([
        plan(&[
            ("List", Some("ls")),
            ("List", Some("ls")),
            ("List again", Some("ls")),
        ]),
        // The first `ls` is reviewed by the harness (steps remain); the
        // second is no progress.
        plan(&[("List", Some("ls")), ("List again", Some("ls"))])
            .expect_user_contains("no progress: this command ran before"),
        plan(&[("Write a note", Some("echo hi > NOTE.txt"))])
            .expect_user_contains("That plan was tried already"),
        review("finish", "noted", &[]),
    ]));
    let config = AgentConfig {
        localized_edits: false,
        ..AgentConfig::default()
    };
    let graph = graph(&model, &work, dir.path(), config);
    let (state, events) = run(&graph, PevState::new("tidy", 10)).await;

    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
    let plans: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Plan { steps, .. } => Some(steps.len()),
            _ => None,
        })
        .collect();
    assert_eq!(
        plans,
        vec![2, 1],
        "two identical steps merged; the refused plan is not shown"
    );
    assert!(work.join("NOTE.txt").is_file());
}

/// Runs `goal` in `work` with `check`, a model whose answers (`answers`
/// of them) are no use and no sampled candidates: asserts the run
/// finished (by a mutant, after those model calls) and gives its events.
async fn fixed_without_the_model(
    dir: &Path,
    work: &Path,
    goal: &str,
    check: &str,
    answers: usize,
) -> Vec<AgentEvent> {
    let model = Arc::new(ScriptedModel::new(
        (0..answers).map(|_| Step::text("no code")),
    ));
    let config = AgentConfig {
        edit_candidates: 0,
        ..AgentConfig::default()
    };
    let graph = graph(&model, work, dir, config);
    let checks = vec![Check::new(check, CheckSource::Flag)];
    let (state, events) = run(&graph, PevState::new(goal, 10).with_checks(checks)).await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    events
}

/// A function renamed in its module and still called by its old name in
/// two others: the model's answer is no use, and the rename mutant
/// (the missing name → the most similar defined one, in every non-test
/// file that uses it) makes the checks pass; the test file is left as it
/// is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renamed_function_is_renamed_in_every_caller() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let files = [
        (
            "textstats.py",
            "def count_words(text):\n    return len(text.split())\n\n\ndef count_lines(text):\n    return len(text.splitlines())\n",
        ),
        (
            "report.py",
            "from textstats import count_lines, word_count\n\n\ndef summary(text):\n    return f\"{word_count(text)} words, {count_lines(text)} lines\"\n",
        ),
        (
            "reading.py",
            "import textstats\n\n\ndef minutes(text):\n    return -(-textstats.word_count(text) // 200)\n",
        ),
        (
            "test_docs.py",
            "import unittest\n\nfrom reading import minutes\nfrom report import summary\n\n\nclass T(unittest.TestCase):\n    def test_summary(self):\n        self.assertEqual(summary(\"a b\\nc\\n\"), \"3 words, 2 lines\")\n\n    def test_minutes(self):\n        self.assertEqual(minutes(\"w \" * 201), 2)\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(work.join(name), text).unwrap();
    }
    let events = fixed_without_the_model(
        dir.path(),
        &work,
        "fix the docs",
        "python3 -m unittest -q test_docs",
        1,
    )
    .await;
    let read = |name: &str| std::fs::read_to_string(work.join(name)).unwrap();
    assert_eq!(
        read("report.py"),
        files[1].1.replace("word_count", "count_words")
    );
    assert_eq!(
        read("reading.py"),
        files[2].1.replace("word_count", "count_words")
    );
    assert_eq!(read("textstats.py"), files[0].1);
    assert_eq!(read("test_docs.py"), files[3].1);
    let outputs = step_outputs(&events);
    assert!(
        outputs[0].2.contains(
            "mutants: kept renamed `word_count` → `count_words` in reading.py, report.py"
        ),
        "{outputs:?}"
    );
}

/// A TOML file with two syntax errors and a model whose answer is no
/// use: the syntax repair (line by line, where the parser stops) makes it
/// parse, the check passes, and the values are what they were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_file_with_two_syntax_errors_is_repaired_by_the_harness() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let broken = "# Settings.\nname = mail-relay\n\n[server\nport = 2525\n";
    std::fs::write(work.join("settings.toml"), broken).unwrap();
    let events = fixed_without_the_model(
        dir.path(),
        &work,
        "fix settings.toml",
        "python3 -c \"import tomllib; tomllib.load(open('settings.toml', 'rb'))\"",
        // The parser says what is wrong: the repair goes before any model call.
        0,
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(work.join("settings.toml")).unwrap(),
        "# Settings.\nname = \"mail-relay\"\n\n[server]\nport = 2525\n"
    );
    let outputs = step_outputs(&events);
    assert!(
        outputs[0].2.contains("quoted the value") && outputs[0].2.contains("closed `]`"),
        "{outputs:?}"
    );
}

/// A program whose output is wrong, with nothing in the output to locate
/// the bug: the goal names the file, so the harness edits it whole, and
/// its one-token changes go before any model call; the operands swapped
/// make the goal's prints check pass (found on dev: a league table's goal
/// difference, `hg - ag` for the away team).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_file_the_goal_names_gets_its_mutants_before_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let program = "import sys\n\n\ndef margin(won, lost):\n    return lost - won\n\n\nprint(margin(int(sys.argv[1]), int(sys.argv[2])))\n";
    std::fs::write(work.join("margin.py"), program).unwrap();
    fixed_without_the_model(
        dir.path(),
        &work,
        "`python3 margin.py 7 1` should print `6`, but it prints -6. Fix margin.py.",
        "test \"$(python3 margin.py 7 1)\" = 6",
        0,
    )
    .await;
    assert!(std::fs::read_to_string(work.join("margin.py"))
        .unwrap()
        .contains("return won - lost"));
}

/// A small model asked to add a function often rewrites the one it was
/// shown into the new one: the harness reads that as an addition beside
/// it (the shown definition kept), and the checks judge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_function_written_over_the_shown_one_is_added_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let stats = "def mean(values):\n    return sum(values) / len(values)\n";
    std::fs::write(work.join("stats.py"), stats).unwrap();
    std::fs::write(
        work.join("test_stats.py"),
        "import unittest\nfrom stats import mean, median\n\n\nclass T(unittest.TestCase):\n    def test_both(self):\n        self.assertEqual(mean([1, 3]), 2)\n        self.assertEqual(median([3, 1, 2]), 2)\n",
    )
    .unwrap();
    let steps = serde_json::json!({"steps": [
        {"kind": "edit", "description": "Add a median function to stats.py", "file": "stats.py", "target": "mean"},
    ]});
    let model = Arc::new(ScriptedModel::new([
        Step::json(steps),
        code("def median(values):\n    ordered = sorted(values)\n    return ordered[len(ordered) // 2]\n"),
    ]));
    let config = AgentConfig {
        localized_edits: false,
        ..AgentConfig::default()
    };
    let checks = vec![Check::new(
        "python3 -m unittest -q test_stats",
        CheckSource::Flag,
    )];
    let graph = graph(&model, &work, dir.path(), config);
    let goal = PevState::new("Add median(values) to stats.py", 10).with_checks(checks);
    let (state, events) = run(&graph, goal).await;

    let text = std::fs::read_to_string(work.join("stats.py")).unwrap();
    assert!(text.starts_with(stats), "mean is kept first: {text}");
    assert!(
        text.contains("\n\n\ndef median(values):") || text.contains("\n\ndef median(values):"),
        "{text}"
    );
    let outputs = step_outputs(&events);
    assert!(outputs[0].1, "{outputs:?}");
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    assert_eq!(model.remaining(), 0);
}

/// An edit whose model finds nothing to change is not planned again: the
/// next planner call is told the target needed no change, its grammar no
/// longer offers that target, and its plan edits elsewhere (found on dev:
/// a planner targeted the same struct three plans in a row, and the
/// editor gave it back unchanged each time).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_needed_no_change_is_not_offered_again() {
    let dir = tempfile::tempdir().unwrap();
    let work = report_workspace(dir.path());
    let header = "def header():\n    return \"Report\"\n";
    let edit = |target: &str| {
        Step::json(serde_json::json!({"steps": [
            {"kind": "edit", "description": "Fix the total", "file": "report.py", "target": target},
        ]}))
    };
    let model = Arc::new(ScriptedModel::new([
        edit("header"),
        code(header),
        edit("total")
            .expect_user_contains("These edits changed nothing")
            .expect_user_contains("- header in report.py"),
        code("def total(values):\n    return sum(values)\n"),
    ]));
    let config = model_only();
    let agent = graph(&model, &work, dir.path(), config);
    let checks = report_check();
    let (state, events) = run(
        &agent,
        PevState::new("the report's total is wrong", 10).with_checks(checks),
    )
    .await;

    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    let outputs = step_outputs(&events);
    assert!(outputs[0].2.contains("needs no change"), "{outputs:?}");
    let requests = model.requests();
    assert_eq!(
        edit_targets(&requests[0]),
        serde_json::json!(["", "header", "total"])
    );
    assert_eq!(
        edit_targets(&requests[2]),
        serde_json::json!(["", "total"]),
        "the second plan may not name `header`"
    );
}

/// A place whose edits failed twice is exhausted: the next planner call is
/// told so, its grammar no longer offers the target, and its plan edits
/// elsewhere (found on dev: a Go type planned four times in a row while
/// the bug was in another function).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_whose_edits_failed_twice_is_not_offered_again() {
    let dir = tempfile::tempdir().unwrap();
    let work = report_workspace(dir.path());
    let edit = |words: &str, target: &str| {
        Step::json(serde_json::json!({"steps": [
            {"kind": "edit", "description": words, "file": "report.py", "target": target},
        ]}))
    };
    let model = Arc::new(ScriptedModel::new([
        edit("Fix the total", "header"),
        code("def header():\n    return \"Report!\"\n"),
        edit("Fix the report's header", "header").expect_user_contains("Fix the total"),
        // The same place again is refused once as the plan that failed;
        // the planner insists.
        edit("Fix the header", "header").expect_user_contains("That plan was tried already"),
        code("def header():\n    return \"REPORT\"\n"),
        edit("Fix the sum", "total")
            .expect_user_contains("failed 2 times each, so they are not offered again")
            .expect_user_contains("- header in report.py"),
        code("def total(values):\n    return sum(values)\n"),
    ]));
    let config = model_only();
    let agent = graph(&model, &work, dir.path(), config);
    let checks = report_check();
    let (state, _) = run(
        &agent,
        PevState::new("the report's total is wrong", 10).with_checks(checks),
    )
    .await;

    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    let requests = model.requests();
    assert_eq!(
        edit_targets(&requests[2]),
        serde_json::json!(["", "header", "total"]),
        "one failure is not enough"
    );
    assert_eq!(
        edit_targets(&requests[5]),
        serde_json::json!(["", "total"]),
        "after two, the plan may not name `header`"
    );
}

/// The model's plan ends at the step that made every failing check pass:
/// the next step (a second rewrite of the same file, planned before the
/// checks passed) would drop a line no check looks at, and the checks,
/// passing either way, could not tell. It is left out; the review sees it
/// marked so, and its finish is verified by the check (the agent's own,
/// which cannot settle the goal without a review).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_ends_at_the_step_that_made_the_failing_checks_pass() {
    let dir = tempfile::tempdir().unwrap();
    let work = notes_workspace(dir.path(), "draft\nkeep me\n");
    let steps = serde_json::json!({"steps": [
        {"kind": "edit", "description": "Mark the notes done", "file": "notes.txt", "target": ""},
        {"kind": "edit", "description": "Tidy the notes", "file": "notes.txt", "target": ""},
        {"kind": "run", "description": "Show them", "command": "touch SHOWN"},
    ]});
    let model = Arc::new(ScriptedModel::new([
        Step::json(steps),
        Step::text("```text\ndone\nkeep me\n```"),
        review("continue", "the notes are done", &[])
            .expect_user_contains("2. [left out: every check passes] Tidy the notes"),
        // What the second step would have written, were it run.
        Step::text("```text\ndone\n```"),
    ]));
    let config = model_only();
    let agent = graph(&model, &work, dir.path(), config);
    let checks = notes_check();
    let (state, events) = run(
        &agent,
        PevState::new("mark the notes done", 10).with_checks(checks),
    )
    .await;

    assert_eq!(model.remaining(), 1, "the second edit was never asked for");
    assert_eq!(
        std::fs::read_to_string(work.join("notes.txt")).unwrap(),
        "done\nkeep me\n"
    );
    assert!(!work.join("SHOWN").exists());
    let outputs = step_outputs(&events);
    assert_eq!(outputs.len(), 1, "{outputs:?}");
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
}

/// A flip belongs to the step that made it: after the review asks for a
/// new plan, that plan's first step (an observe, which runs no checks)
/// does not end it, and its edit runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_plan_is_not_ended_by_an_earlier_plans_flip() {
    let dir = tempfile::tempdir().unwrap();
    let work = notes_workspace(dir.path(), "draft\n");
    let first = serde_json::json!({"steps": [
        {"kind": "edit", "description": "Mark the notes done", "file": "notes.txt", "target": ""},
        {"kind": "edit", "description": "Tidy the notes", "file": "notes.txt", "target": ""},
    ]});
    let second = serde_json::json!({"steps": [
        {"kind": "observe", "description": "Read them", "command": "cat notes.txt"},
        {"kind": "edit", "description": "Add the follow-up", "file": "notes.txt", "target": ""},
    ]});
    let model = Arc::new(ScriptedModel::new([
        Step::json(first),
        Step::text("```text\ndone\n```"),
        review("replan", "the follow-up is missing", &[]),
        Step::json(second),
        Step::text("```text\ndone\nfollow up\n```"),
    ]));
    let config = model_only();
    let agent = graph(&model, &work, dir.path(), config);
    let checks = notes_check();
    let (_, events) = run(
        &agent,
        PevState::new("mark the notes done and add the follow-up", 10).with_checks(checks),
    )
    .await;

    assert_eq!(model.remaining(), 0);
    assert_eq!(
        std::fs::read_to_string(work.join("notes.txt")).unwrap(),
        "done\nfollow up\n"
    );
    let kinds: Vec<StepKind> = step_outputs(&events).iter().map(|o| o.0).collect();
    assert_eq!(
        kinds,
        [StepKind::Edit, StepKind::Observe, StepKind::Edit],
        "{events:?}"
    );
}

/// A harness plan runs to its end even when its first step makes every
/// check pass: a virtualenv's program that lacks a third-party module gets
/// it installed (a stand-in interpreter here, so no network; a visible
/// `venv/`, so the install changes what the checks see) and then
/// declared in requirements.txt, with no model call, before the finish.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_harness_plan_runs_to_its_end_after_its_checks_pass() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("ws");
    std::fs::create_dir_all(work.join("venv/bin")).unwrap();
    let python = work.join("venv/bin/python");
    std::fs::write(
        &python,
        "#!/bin/bash\nhere=\"$(dirname \"$0\")\"\nif [ \"$1 $2 $3\" = \"-m pip install\" ]; then touch \"$here/installed-$4\"; exit 0; fi\nif [ -e \"$here/installed-tabulate\" ]; then echo table; exit 0; fi\necho \"ModuleNotFoundError: No module named 'tabulate'\" >&2; exit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(work.join("report.py"), "from tabulate import tabulate\n").unwrap();
    std::fs::write(work.join("requirements.txt"), "PyYAML>=6.0\n").unwrap();
    let model = Arc::new(ScriptedModel::new([]));
    let agent = graph(&model, &work, dir.path(), model_only());
    let checks = vec![Check::new("venv/bin/python report.py", CheckSource::Goal)];
    let (state, events) = run(
        &agent,
        PevState::new(
            "`venv/bin/python report.py` fails: install what it needs",
            10,
        )
        .with_checks(checks),
    )
    .await;

    assert!(work.join("venv/bin/installed-tabulate").exists());
    assert_eq!(
        std::fs::read_to_string(work.join("requirements.txt")).unwrap(),
        "PyYAML>=6.0\ntabulate\n"
    );
    let outputs = step_outputs(&events);
    assert_eq!(outputs.len(), 2, "{outputs:?}");
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
}
