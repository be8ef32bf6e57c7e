//! Snapshots of the prompts as the model sees them, so a change to a
//! prompt file or to how it is filled shows up in review.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rebound_agent::pev::{plan_context, reviewer_message, PevState};
use rebound_agent::planning::planner_message;
use rebound_agent::prompts;
use rebound_agent::{ExecReport, PlanStep, StepFailure, StepRecord, Verdict};

fn step(description: &str, command: Option<&str>) -> PlanStep {
    PlanStep {
        description: description.into(),
        command: command.map(str::to_string),
        ..PlanStep::default()
    }
}

const FILES: &str = "calc.py\ntest_calc.py";

#[test]
fn system_prompts() {
    insta::assert_snapshot!("planner_system", prompts::PLANNER);
    insta::assert_snapshot!("executor_system", prompts::EXECUTOR);
    insta::assert_snapshot!("reviewer_system", prompts::REVIEWER);
    insta::assert_snapshot!("reflector_system", prompts::REFLECTOR);
    insta::assert_snapshot!("coordinator_system", prompts::COORDINATOR);
    insta::assert_snapshot!("course_advisor_system", prompts::COURSE_ADVISOR);
    insta::assert_snapshot!("learning_planner_system", prompts::LEARNING_PLANNER);
}

#[test]
fn planner_first_plan() {
    let state = PevState::new("make the tests pass", 10);
    insta::assert_snapshot!(planner_message(&state.goal, FILES, &plan_context(&state)));
}

#[test]
fn planner_in_repair_mode() {
    let state = PevState {
        last_error: Some(StepFailure {
            plan: Vec::new(),
            step: step("Run the tests", Some("python3 -m unittest -q")),
            error: "exit code 1 (failure) after 0.1 s\nModuleNotFoundError: No module named 'calc'"
                .into(),
        }),
        results: vec![StepRecord {
            step: step("Read the tests", None),
            success: true,
            output: "ok".into(),
            no_change: false,
        }],
        ..PevState::new("make the tests pass", 10)
    };
    let message = planner_message(&state.goal, FILES, &plan_context(&state));
    assert!(message.contains("No module named 'calc'"));
    insta::assert_snapshot!(message);
}

#[test]
fn planner_after_review_feedback() {
    let state = PevState {
        verdict: Some(Verdict::Replan),
        last_result: Some("replan: the tests still fail\nFix suggestions: fix add()".into()),
        ..PevState::new("make the tests pass", 10)
    };
    insta::assert_snapshot!(planner_message(&state.goal, FILES, &plan_context(&state)));
}

#[test]
fn reviewer_sees_goal_plan_and_results_only() {
    let state = PevState {
        plan: vec![
            step("Fix add", Some("sed -i 's/a - b/a + b/' calc.py")),
            step("Run the tests", Some("python3 -m unittest -q")),
        ],
        step_index: 1,
        results: vec![
            StepRecord {
                step: step("Fix add", None),
                success: true,
                output: "exit code 0".into(),
                no_change: false,
            },
            StepRecord {
                step: step("Run the tests", None),
                success: true,
                output: "Ran 2 tests\nOK".into(),
                no_change: false,
            },
        ],
        executor_output: Some(ExecReport {
            success: true,
            output: "Ran 2 tests\nOK".into(),
        }),
        messages: vec![rebound_llm::Message::user("TRANSCRIPT-ONLY TEXT")],
        ..PevState::new("make the tests pass", 10)
    };
    let message = reviewer_message(&state);
    assert!(!message.contains("TRANSCRIPT-ONLY TEXT"));
    insta::assert_snapshot!(message);
}

/// The prompts stay short: every system prompt is read on every call by a
/// small local model.
#[test]
fn prompts_are_short() {
    for (name, text) in [
        ("planner", prompts::PLANNER),
        ("executor", prompts::EXECUTOR),
        ("reviewer", prompts::REVIEWER),
        ("reflector", prompts::REFLECTOR),
        ("coordinator", prompts::COORDINATOR),
    ] {
        assert!(text.len() < 1_200, "{name} prompt is {} bytes", text.len());
        assert!(!text.contains("{{"), "{name} has an unfilled placeholder");
    }
}

fn failing_check() -> rebound_agent::checks::CheckResult {
    rebound_agent::checks::CheckResult {
        command: "python3 -m unittest".into(),
        passed: false,
        exit_code: Some(1),
        output: "FAIL: test_subtract\nAssertionError: -2 != 2".into(),
        duration_ms: 80,
    }
}

#[test]
fn planner_sees_the_failing_checks_first() {
    let state = PevState {
        evidence: rebound_agent::checks::Evidence {
            checks: vec![rebound_agent::checks::Check::new(
                "python3 -m unittest",
                rebound_agent::checks::CheckSource::Flag,
            )],
            results: vec![failing_check()],
            ..Default::default()
        },
        ..PevState::new("make the tests pass", 10)
    };
    let message = planner_message(&state.goal, FILES, &plan_context(&state));
    assert!(message.contains("AssertionError: -2 != 2"));
    insta::assert_snapshot!(message);
}

#[test]
fn reviewer_sees_how_the_checks_ran() {
    let state = PevState {
        plan: vec![step("Fix subtract", Some("sed -i s/b - a/a - b/ calc.py"))],
        evidence: rebound_agent::checks::Evidence {
            results: vec![failing_check()],
            ..Default::default()
        },
        ..PevState::new("make the tests pass", 10)
    };
    let message = reviewer_message(&state);
    assert!(message.contains("- `python3 -m unittest` failed (exit 1)"));
    insta::assert_snapshot!(message);
}

#[test]
fn planner_is_told_which_places_its_edits_failed_again_and_again() {
    let failed = |words: &str, target: &str| StepRecord {
        step: PlanStep::edit(words, "calc.py", target),
        success: false,
        output: "no candidate improved it; the file is unchanged".into(),
        no_change: false,
    };
    let once = PevState {
        results: vec![failed("Fix add", "add"), failed("Fix sub", "sub")],
        ..PevState::new("make the tests pass", 10)
    };
    let message = planner_message(&once.goal, FILES, &plan_context(&once));
    assert!(!message.contains("not offered again"), "{message}");
    let twice = PevState {
        results: vec![
            failed("Fix add", "add"),
            failed("Fix sub", "sub"),
            failed("Make add return the sum", "add"),
        ],
        ..PevState::new("make the tests pass", 10)
    };
    let message = planner_message(&twice.goal, FILES, &plan_context(&twice));
    assert!(
        message.contains("failed 2 times each, so they are not offered again")
            && message.contains("- add in calc.py")
            && !message.contains("- sub in calc.py"),
        "{message}"
    );
}
