//! `rebound run` against a scripted model server: exit codes 0 and 1, the
//! JSON lines, the plain output, and the thread's record.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{
    answer, json_lines, output_text, plan, review, summary, thread_id, FakeModel, TestEnv,
};

/// A run whose plan succeeds and whose reviewer says finish, with no check
/// to verify it, exits 4 (finished, unverified), and its JSON lines begin
/// with run_started and end with the summary.
#[test]
fn an_unverified_finish_exits_4_with_coherent_json_lines() {
    let env = TestEnv::new();
    let model = FakeModel::start(vec![
        plan(&[
            ("Write a file", Some("echo hello > note.txt")),
            ("Show it", Some("cat note.txt")),
        ]),
        // The first step is reviewed by the harness (`continue`: it
        // succeeded and a step is left), the plan by the model.
        review("finish", "the note says hello"),
    ]);
    let output = env
        .rebound(Some(&model))
        .args(TestEnv::run_args(
            "write a note",
            &["--json", "--approval", "auto"],
        ))
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(4), "{text}");
    let lines = json_lines(&output.stdout);
    assert_eq!(lines[0]["event"], "run_started", "{text}");
    let finished: Vec<_> = lines
        .iter()
        .filter(|l| l["event"] == "run_finished")
        .collect();
    assert_eq!(finished.len(), 1, "{text}");
    assert_eq!(finished[0]["status"], "completed");
    let summary = summary(&lines);
    assert_eq!(summary["status"], "finished", "{text}");
    assert_eq!(summary["exit_code"], 4);
    assert_eq!(summary["stop_reason"]["kind"], "finished_unverified");
    assert_eq!(summary["stop"], "finished (unverified)");
    assert_eq!(summary["verified"], false, "no check verified it");
    assert_eq!(summary["checks"], serde_json::json!([]));
    assert_eq!(summary["steps_succeeded"], 2);
    assert_eq!(summary["steps_failed"], 0);
    assert_eq!(summary["tokens"], 240, "two model calls");
    let thread = thread_id(&lines);
    assert!(thread.starts_with("run-"), "{thread}");
    assert_eq!(lines[0]["thread_id"], thread.as_str());
    // The step's output was streamed, and the command ran in the workspace.
    assert!(
        lines
            .iter()
            .any(|l| l["payload"]["tool_output"]["line"] == "hello"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(env.ws().join("note.txt")).unwrap(),
        "hello\n"
    );
    assert_eq!(model.remaining(), 0);
    // The state is in .rebound/: the database (with the thread's record)
    // and the logs; no side files.
    let state = env.ws().join(".rebound");
    assert!(state.join("state.db").is_file());
    assert!(!state.join("threads").exists());
    assert!(state.join("artifacts").is_dir());
    let listing = env
        .rebound(None)
        .args(["threads", "--json"])
        .output()
        .unwrap();
    let listing: serde_json::Value = serde_json::from_slice(&listing.stdout).unwrap();
    assert_eq!(listing[0]["thread_id"], thread.as_str(), "{listing}");
    assert_eq!(listing[0]["workflow"], "pev", "{listing}");
    assert_eq!(
        std::fs::read_to_string(state.join(".gitignore")).unwrap(),
        "# rebound's run state\n*\n"
    );
}

/// A run that reaches --max-iters without finishing exits 1 with the
/// stop reason in the summary.
#[test]
fn max_iterations_stop_exits_1() {
    let env = TestEnv::new();
    let model = FakeModel::start(vec![
        plan(&[("Look", Some("ls")), ("Look again", Some("ls -a"))]),
        review("continue", "looked"),
        review("continue", "looked again"),
    ]);
    let output = env
        .rebound(Some(&model))
        .args(TestEnv::run_args(
            "look around",
            &["--json", "--max-iters", "2"],
        ))
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let summary = summary(&json_lines(&output.stdout));
    assert_eq!(summary["status"], "stopped", "{text}");
    assert_eq!(summary["stop_reason"]["kind"], "max_iterations");
    assert_eq!(summary["stop_reason"]["limit"], 2);
    assert_eq!(summary["exit_code"], 1);
}

/// A failing step goes back to the planner (repair), and an unusable plan
/// then stops the run with an error: exit 1, the repair visible in plain
/// output, one line per event.
#[test]
fn plain_output_shows_repairs_and_routes_one_line_per_event() {
    let env = TestEnv::new();
    let model = FakeModel::start(vec![
        plan(&[(
            "Run the tests",
            Some("echo 'no module named calc' >&2; exit 3"),
        )]),
        answer("I am not sure what to do."),
        answer("Still not sure."),
    ]);
    let output = env
        .rebound(Some(&model))
        .args(TestEnv::run_args("fix the tests", &["--approval", "auto"]))
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("rebound: starting thread run-"), "{text}");
    assert!(
        stdout.contains("executor: repair: step \"Run the tests\" failed"),
        "{text}"
    );
    assert!(
        stdout.contains("route executor -> planner (the step failed: repair mode"),
        "{text}"
    );
    assert!(stdout.contains("stderr| no module named calc"), "{text}");
    assert!(
        stdout.contains("summary: error: the planner could not plan"),
        "{text}"
    );
    assert!(
        !stdout.contains('\u{1b}'),
        "no escape codes when not a terminal"
    );
}

/// The reflect workflow commits each accepted step in the workspace's git
/// repository.
#[test]
fn a_reflect_run_commits_each_accepted_step() {
    let env = TestEnv::new();
    let model = FakeModel::start(vec![
        plan(&[("Write a file", Some("echo one > one.txt"))]),
        answer(r#"{"decision": "proceed", "reason": "the file is there"}"#),
    ]);
    let output = env
        .rebound(Some(&model))
        .args(TestEnv::run_args(
            "write one file",
            &["--workflow", "reflect", "--approval", "auto", "--json"],
        ))
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(4), "{text}");
    let lines = json_lines(&output.stdout);
    assert_eq!(summary(&lines)["workflow"], "reflect", "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l["payload"]["git"]["action"] == "commit"),
        "{text}"
    );
    let log = std::process::Command::new("git")
        .args(["log", "--oneline"])
        .current_dir(env.ws())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&log.stdout).lines().count(),
        2,
        "the initial commit and the step's: {text}"
    );
}

/// An empty goal and a bad flag are usage errors: exit 2.
#[test]
fn usage_errors_exit_2() {
    let env = TestEnv::new();
    let output = env.rebound(None).args(["run", "  "]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("the goal is empty"));
    let output = env
        .rebound(None)
        .args(["run", "x", "--approval", "sometimes"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
    let output = env.rebound(None).args(["frobnicate"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
    let output = env
        .rebound(None)
        .args(["run", "x", "--model", "gpt-4o"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("openai:<model>"));
}

/// Without the embedded model, the default model explains how to get one.
#[cfg(not(feature = "local"))]
#[test]
fn the_default_model_explains_the_local_feature() {
    let env = TestEnv::new();
    let output = env.rebound(None).args(["run", "fix it"]).output().unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("local:qwen2.5-coder-1.5b"), "{text}");
    assert!(stderr.contains("--features local"), "{text}");
    assert!(stderr.contains("--model openai:"), "{text}");
    assert!(
        stderr.contains("rebound model fetch qwen2.5-coder-1.5b"),
        "{text}"
    );
}
