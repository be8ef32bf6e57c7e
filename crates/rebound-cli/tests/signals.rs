//! Ctrl-C and crashes: SIGINT stops a run with exit code 130 and leaves it
//! resumable; a run killed outright shows as crashed and resumes to the end.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{output_text, plan, review, FakeModel, TestEnv};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// Starts `rebound run` and returns it once its stdout shows `marker`,
/// with the lines read so far. (The caller waits for it.)
#[allow(clippy::zombie_processes)]
fn start_until(env: &TestEnv, model: &FakeModel, goal: &str, marker: &str) -> (Child, Vec<String>) {
    let binary = assert_cmd::cargo::cargo_bin("rebound");
    let mut child = Command::new(binary)
        .args(["run", goal, "--model", "openai:test", "--approval", "auto"])
        .current_dir(env.ws())
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(env.vars(Some(model)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines_tx, lines_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if lines_tx.send(line).is_err() {
                return;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(line) = lines_rx.recv_timeout(Duration::from_millis(100)) {
            let found = line.contains(marker);
            seen.push(line);
            if found {
                // Let the command start.
                std::thread::sleep(Duration::from_millis(300));
                return (child, seen);
            }
        }
    }
    let _ = child.kill();
    panic!(
        "{marker:?} never showed; output so far:\n{}",
        seen.join("\n")
    );
}

fn wait(child: &mut Child, limit: Duration) -> Option<i32> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the run did not stop within {limit:?}");
}

fn threads(env: &TestEnv) -> String {
    let output = env.rebound(None).arg("threads").output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", output_text(&output));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn ctrl_c_stops_with_130_and_the_thread_stays_resumable() {
    let env = TestEnv::new();
    let model = FakeModel::start(vec![plan(&[("Wait", Some("sleep 30"))])]);
    let (mut child, _) = start_until(&env, &model, "wait a while", "tool started: $ sleep 30");
    let listing = threads(&env);
    assert!(
        listing.contains(&format!("running (pid {})", child.id())),
        "{listing}"
    );
    let started = Instant::now();
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let code = wait(&mut child, Duration::from_secs(20));
    assert_eq!(code, Some(130));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the command was stopped"
    );
    let listing = threads(&env);
    assert!(listing.contains("cancelled (resumable)"), "{listing}");
    // The checkpoint before the step is saved: the executor is next.
    let thread = listing
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let output = env
        .rebound(None)
        .args(["show", &thread, "--json"])
        .output()
        .unwrap();
    let shown: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(shown["next"], serde_json::json!(["executor"]), "{shown}");
}

#[test]
fn a_killed_run_shows_as_crashed_and_resumes_to_the_end() {
    let env = TestEnv::new();
    let model = FakeModel::start(vec![
        plan(&[("Wait a little", Some("sleep 1 && echo waited >> log.txt"))]),
        review("finish", "waited"),
    ]);
    let (mut child, _) = start_until(&env, &model, "wait a little", "tool started: $ sleep 1");
    child.kill().unwrap();
    child.wait().unwrap();
    let listing = threads(&env);
    assert!(listing.contains("crashed (resumable)"), "{listing}");
    let thread = listing
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let output = env
        .rebound(Some(&model))
        .args(["resume", &thread])
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(4), "{text}");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("rebound: resuming thread"),
        "{text}"
    );
    assert!(threads(&env).contains("finished"));
    assert_eq!(model.remaining(), 0);
}
