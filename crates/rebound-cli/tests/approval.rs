//! Approvals without a terminal: the run stops as interrupted (exit 3) and
//! `rebound resume <thread> --approve` or `--deny "msg"` continues it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{json_lines, output_text, plan, review, summary, thread_id, FakeModel, TestEnv};

/// A workspace whose config asks before `touch`.
fn env_asking_for_touch() -> TestEnv {
    let env = TestEnv::new();
    env.workspace_config(
        "[[rules]]\npattern = \"touch\"\naction = \"ask\"\nreason = \"touch writes files\"\n",
    );
    env
}

#[test]
fn an_approval_stops_with_3_and_resume_approve_finishes() {
    let env = env_asking_for_touch();
    let model = FakeModel::start(vec![
        plan(&[("Mark it", Some("touch approved.txt"))]),
        review("finish", "marked"),
    ]);
    let output = env
        .rebound(Some(&model))
        .args(TestEnv::run_args("mark it", &["--json"]))
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(3), "{text}");
    let lines = json_lines(&output.stdout);
    let thread = thread_id(&lines);
    let end = summary(&lines);
    assert_eq!(end["status"], "interrupted", "{text}");
    let payload = &end["pending"][0]["payload"];
    assert_eq!(payload["kind"], "approval");
    assert_eq!(payload["command"], "touch approved.txt");
    assert!(
        payload["reason"]
            .as_str()
            .unwrap()
            .contains("touch writes files"),
        "{text}"
    );
    assert_eq!(end["resume"], format!("rebound resume {thread}"));
    assert!(lines.iter().any(|l| l["event"] == "interrupted"), "{text}");
    assert!(!env.ws().join("approved.txt").exists());

    // The thread is listed as waiting.
    let output = env.rebound(None).arg("threads").output().unwrap();
    let listing = String::from_utf8_lossy(&output.stdout);
    assert!(listing.contains(&thread), "{listing}");
    assert!(
        listing.contains("interrupted: awaiting approval"),
        "{listing}"
    );

    // Resuming without an answer, non-interactively, stays interrupted.
    let output = env
        .rebound(Some(&model))
        .args(["resume", &thread])
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(3), "{text}");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("awaiting approval: `touch approved.txt`"),
        "{text}"
    );

    let output = env
        .rebound(Some(&model))
        .args(["resume", &thread, "--approve", "--json"])
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(4), "{text}");
    let lines = json_lines(&output.stdout);
    assert_eq!(
        lines[0]["approval_answer"]["answer"]["decision"], "approve",
        "{text}"
    );
    assert_eq!(lines[1]["event"], "run_started", "{text}");
    assert_eq!(summary(&lines)["status"], "finished", "{text}");
    assert!(env.ws().join("approved.txt").exists());
    assert_eq!(model.remaining(), 0);

    // A finished thread has nothing to resume: a usage error.
    let output = env
        .rebound(Some(&model))
        .args(["resume", &thread])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("nothing to resume"));
}

#[test]
fn resume_deny_sends_the_message_to_the_planner() {
    let env = env_asking_for_touch();
    let model = FakeModel::start(vec![
        plan(&[("Mark it", Some("touch denied.txt"))]),
        plan(&[("List instead", Some("ls"))]),
        review("finish", "listed instead"),
    ]);
    let output = env
        .rebound(Some(&model))
        .args(TestEnv::run_args("mark it", &["--json"]))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", output_text(&output));
    let thread = thread_id(&json_lines(&output.stdout));
    let output = env
        .rebound(Some(&model))
        .args(["resume", &thread, "--deny", "no new files, just list them"])
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(4), "{text}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("approval: `touch denied.txt` denied: no new files, just list them"),
        "{text}"
    );
    assert!(!env.ws().join("denied.txt").exists());
    // The repair plan was asked with the user's message.
    let requests = model.requests();
    assert!(
        requests[1]
            .to_string()
            .contains("no new files, just list them"),
        "{}",
        requests[1]
    );
}

#[test]
fn answering_a_thread_that_waits_for_nothing_is_a_usage_error() {
    let env = TestEnv::new();
    let model = FakeModel::start(vec![
        plan(&[("Look", Some("ls"))]),
        review("finish", "looked"),
    ]);
    let thread = env.run_unverified(&model, "look");
    let output = env
        .rebound(Some(&model))
        .args(["resume", &thread, "--approve"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
    let output = env
        .rebound(Some(&model))
        .args(["resume", "run-nosuchthread"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown thread"));
    let output = env
        .rebound(Some(&model))
        .args(["resume", &thread, "--approve", "--deny", "x"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
}
