//! Checks from the command line, the configuration and the goal, through
//! the `rebound` binary against a scripted model server: a finish is
//! verified, a false one overruled, and exit code 0 never comes with a
//! failing check.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{json_lines, output_text, plan, review, summary, FakeModel, TestEnv};
use serde_json::json;

const TESTS: &str = "import unittest\nfrom calc import sub\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n        self.assertEqual(sub(5, 3), 2)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
const FIX: &str = "printf 'def sub(a, b):\\n    return a - b\\n' > calc.py";

/// The buggy calc project, with the harness's localized edits off in the
/// user's settings: these tests are about what checks do to the planner's
/// own plans (`tests/eval.rs` runs an edit step through the binary).
fn buggy(env: &TestEnv) {
    env.write_user_config("[agent]\nlocalized_edits = false\n");
    std::fs::write(env.ws().join("test_calc.py"), TESTS).unwrap();
    std::fs::write(
        env.ws().join("calc.py"),
        "def sub(a, b):\n    return b - a\n",
    )
    .unwrap();
}

/// `--check`: a plan that ends with the check failing goes back to the
/// planner without a model review (no finish is claimed, none overruled),
/// and the fix's passing check finishes the run verified, with no review
/// at all.
#[test]
fn a_plan_that_leaves_the_check_failing_is_replanned_and_the_verified_fix_exits_0() {
    let env = TestEnv::new();
    buggy(&env);
    let model = FakeModel::start(vec![
        plan(&[("Look", Some("ls")), ("Look again", Some("ls -a"))]),
        plan(&[("Fix sub", Some(FIX))]),
    ]);
    let output = env
        .rebound(Some(&model))
        .args(TestEnv::run_args(
            "fix calc",
            &[
                "--json",
                "--approval",
                "auto",
                "--check",
                "python3 -m unittest",
            ],
        ))
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let lines = json_lines(&output.stdout);
    assert!(
        !lines
            .iter()
            .any(|l| l["payload"].get("finish_overruled").is_some()),
        "{text}"
    );
    let replan = lines
        .iter()
        .filter_map(|l| l["payload"].get("review"))
        .find(|r| r["verdict"] == "replan")
        .expect("the harness's replan");
    assert!(
        replan["reason"]
            .as_str()
            .unwrap()
            .contains("the plan is done and the checks still fail"),
        "{text}"
    );
    let summary = summary(&lines);
    assert_eq!(summary["stop"], "finished", "{text}");
    assert_eq!(summary["verified"], true);
    assert_eq!(
        summary["checks"],
        json!([{"command": "python3 -m unittest", "source": {"kind": "flag"}, "passed": true}])
    );
    assert_eq!(model.remaining(), 0, "{text}");
    assert_eq!(model.requests().len(), 2, "two plans, no review");
}

/// A run whose plans keep leaving the check failing never gets exit code
/// 0: the run stops at its limit, exit 1, the check failing.
#[test]
fn a_run_never_exits_0_while_a_known_check_fails() {
    let env = TestEnv::new();
    buggy(&env);
    std::fs::write(
        env.ws().join("rebound.toml"),
        "check = [\"python3 -m unittest\"]\n",
    )
    .unwrap();
    let model = FakeModel::start(vec![
        plan(&[("Look", Some("ls"))]),
        plan(&[("Look again", Some("ls -a"))]),
    ]);
    let output = env
        .rebound(Some(&model))
        .args(TestEnv::run_args(
            "fix calc",
            &["--json", "--approval", "auto", "--max-iters", "2"],
        ))
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let summary = summary(&json_lines(&output.stdout));
    assert_eq!(summary["stop"], "max iterations (2)", "{text}");
    assert_eq!(summary["verified"], false);
    assert_eq!(summary["checks"][0]["passed"], false);
    assert_eq!(summary["checks"][0]["source"]["kind"], "config");
    assert_eq!(
        summary["checks"][0]["source"]["file"],
        "workspace rebound.toml"
    );

    // The plain summary says so too.
    let threads = env.rebound(None).arg("threads").output().unwrap();
    let listing = String::from_utf8_lossy(&threads.stdout);
    assert!(listing.contains("stopped: max iterations (2)"), "{listing}");
}

/// A goal that quotes its check gets it (source: the goal), and the plain
/// output lists every check with where it came from.
#[test]
fn a_command_quoted_in_the_goal_is_a_check_and_the_summary_names_its_source() {
    let env = TestEnv::new();
    buggy(&env);
    let model = FakeModel::start(vec![plan(&[("Fix sub", Some(FIX))])]);
    let output = env
        .rebound(Some(&model))
        .args(TestEnv::run_args(
            "Fix calc.py: `python3 -m unittest` must succeed.",
            &["--approval", "auto"],
        ))
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("checks (before the first plan): `python3 -m unittest` failed (exit 1)"),
        "{text}"
    );
    assert!(
        stdout.contains("check: `python3 -m unittest` passed (quoted in the goal)"),
        "{text}"
    );
    assert!(stdout.contains("summary: finished |"), "{text}");
}

/// With no check at all, a finish is reported as unverified.
#[test]
fn without_checks_a_finish_is_unverified() {
    let env = TestEnv::new();
    let model = FakeModel::start(vec![
        plan(&[("Write", Some("echo hi > hi.txt"))]),
        review("finish", "written"),
    ]);
    let output = env
        .rebound(Some(&model))
        // A goal that names no file to write (one would be checked for
        // content) and asks for no change (a finish with nothing changed
        // would be refused once).
        .args(TestEnv::run_args("say hi", &["--approval", "auto"]))
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(4), "{text}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("summary: finished (unverified) |"),
        "{text}"
    );
    assert!(
        stdout.contains("check: none: nothing verified the finish"),
        "{text}"
    );
}

/// A goal with no check: the planner proposes one, it fails before any
/// change and is adopted; the terminal output says so, and the summary
/// reports it as agent-written, passing after the work.
#[test]
fn a_check_the_planner_writes_is_shown_and_reported_as_agent_written() {
    let env = TestEnv::new();
    let proposed = "grep -qx hello note.txt";
    let model = FakeModel::start(vec![
        common::answer(
            &json!({
                "check": proposed,
                "steps": [{"description": "Write the note", "command": "echo hello > note.txt"}],
            })
            .to_string(),
        ),
        review("finish", "the note says hello"),
    ]);
    let output = env
        .rebound(Some(&model))
        .args(TestEnv::run_args(
            "write hello into note.txt",
            &["--approval", "auto"],
        ))
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!(
            "check proposed by the planner: `{proposed}` adopted: it fails before any change"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("check: `{proposed}` passed (agent-written)")),
        "{text}"
    );
    assert!(text.contains("summary: finished |"), "{text}");
    let request = &model.requests()[0];
    assert!(
        request
            .to_string()
            .contains("No command shows yet that this goal is reached"),
        "the planner was asked for a check"
    );
}
