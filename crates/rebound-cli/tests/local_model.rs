//! End to end on the real embedded model: `rebound run` on the bundled task
//! (examples/tasks/dev/calc) with Qwen2.5-Coder 0.5B. The model need not fix
//! the bug; the run must reach a stop reason cleanly, with coherent events.
//!
//! `cargo test -p rebound-cli --features local --release --test local_model`
//! (skips, saying why, when the model file is missing).
#![cfg(feature = "local")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{json_lines, output_text, TestEnv};
use serde_json::Value;

const MODEL: &str = "qwen2.5-coder-0.5b";
const MODEL_FILE: &str = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf";

/// The tests that run the model take turns: llama.cpp uses every core, and
/// two processes sharing two cores slow each other down many times over
/// (its threads spin while they wait), enough to hit an eval's time limit.
static MODEL_TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Waits for this test's turn with the model.
fn model_turn() -> std::sync::MutexGuard<'static, ()> {
    MODEL_TURN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The model directory, when the 0.5B model is in it; otherwise says why
/// the test is skipped. Where the model must be present
/// (`REBOUND_REQUIRE_MODEL`, set by CI), its absence is a failure.
fn model_dir() -> Option<std::path::PathBuf> {
    let dir = rebound_llm::model_dir();
    if dir.join(MODEL_FILE).is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("REBOUND_REQUIRE_MODEL").is_none(),
        "REBOUND_REQUIRE_MODEL is set, but {} is missing",
        dir.join(MODEL_FILE).display()
    );
    eprintln!(
        "skipped: {} is missing; fetch it with `scripts/fetch-model --small`",
        dir.join(MODEL_FILE).display()
    );
    None
}

/// `rebound run GOAL --json --approval auto --max-iters 3` on the 0.5B
/// model in `dir`, in `env`'s workspace, killed after `limit`.
fn run_goal(env: &TestEnv, dir: &Path, goal: &str, limit: Duration) -> std::process::Output {
    env.rebound(None)
        .args([
            "run",
            goal,
            "--json",
            "--approval",
            "auto",
            "--max-iters",
            "3",
        ])
        .args(["--model", &format!("local:{MODEL}")])
        .env("REBOUND_MODEL_DIR", dir)
        .timeout(limit)
        .output()
        .unwrap()
}

#[test]
fn the_local_model_runs_the_bundled_task_to_a_stop_reason() {
    let Some(dir) = model_dir() else {
        return;
    };
    let _turn = model_turn();
    let env = TestEnv::new();
    let task =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks/dev/calc/workspace");
    copy_dir(&task, env.ws());
    let goal = "Make the tests pass: `python3 -m unittest` must succeed. Fix calc.py; do not change test_calc.py.";
    let started = Instant::now();
    let output = run_goal(&env, &dir, goal, Duration::from_secs(40 * 60));
    let text = output_text(&output);
    let code = output.status.code();
    assert!(
        matches!(code, Some(0) | Some(1)),
        "not a clean stop: {text}"
    );
    let lines = json_lines(&output.stdout);
    assert_eq!(lines[0]["event"], "run_started", "{text}");
    let summary = common::summary(&lines);
    eprintln!(
        "local model run: exit {code:?}, stop {}, {} steps ok, {} failed, {} repairs, {} tokens, {:.0?}",
        summary["stop"], summary["steps_succeeded"], summary["steps_failed"], summary["repairs"],
        summary["tokens"], started.elapsed()
    );
    assert!(summary["stop_reason"]["kind"].is_string(), "{text}");
    assert_eq!(
        summary["exit_code"].as_u64(),
        code.map(|c| c as u64),
        "{text}"
    );
    assert_eq!(
        summary["status"] == "finished",
        matches!(code, Some(0 | 4)),
        "exit 0 or 4 exactly when finished: {text}"
    );
    assert_eq!(
        summary["verified"] == true,
        code == Some(0),
        "exit 0 exactly when verified: {text}"
    );
    assert!(summary["tokens"].is_u64(), "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l["payload"].get("model_call").is_some()),
        "the model was called: {text}"
    );
    assert!(
        lines.iter().any(|l| l["payload"].get("thinking").is_some()),
        "the local model's text streamed in as it was generated: {text}"
    );
    // The goal quotes its check: a finish is verified by it, never taken
    // on the model's word, and the tests really pass.
    assert_eq!(
        summary["checks"][0]["command"], "python3 -m unittest",
        "{text}"
    );
    assert_eq!(summary["checks"][0]["source"]["kind"], "goal", "{text}");
    if code == Some(0) {
        assert_eq!(summary["verified"], true, "{text}");
        let tests = std::process::Command::new("python3")
            .args(["-m", "unittest"])
            .current_dir(env.ws())
            .output()
            .unwrap();
        assert!(
            tests.status.success(),
            "exit 0 while the tests fail: {text}"
        );
    }
    check_coherent(&lines[..lines.len() - 1], &text);
    // The thread is recorded with the same ending.
    let thread = summary["thread_id"].as_str().unwrap();
    let listing = env.rebound(None).arg("threads").output().unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout);
    let row = listing.lines().find(|l| l.starts_with(thread)).unwrap();
    let status = if code == Some(0) {
        "finished"
    } else {
        "stopped"
    };
    assert!(row.contains(status), "{listing}");
}

/// The events tell one consistent story: one run, each node that started
/// finished (in order), steps start and finish in pairs, routes come from
/// the node that just ran, and the run ends last.
fn check_coherent(events: &[Value], text: &str) {
    let kind = |e: &Value| e["event"].as_str().unwrap_or_default().to_string();
    assert_eq!(
        events.iter().filter(|e| kind(e) == "run_started").count(),
        1,
        "{text}"
    );
    let last = events.last().unwrap();
    assert_eq!(kind(last), "run_finished", "{text}");
    assert_eq!(last["status"], "completed", "{text}");
    let mut running: Option<String> = None;
    let mut last_finished: Option<String> = None;
    let mut open_step: Option<u64> = None;
    for event in events {
        match kind(event).as_str() {
            "node_started" => {
                assert!(running.is_none(), "two nodes at once: {event} ({text})");
                running = event["node"].as_str().map(str::to_string);
            }
            "node_finished" => {
                assert_eq!(running.take().as_deref(), event["node"].as_str(), "{text}");
                last_finished = event["node"].as_str().map(str::to_string);
            }
            "route_chosen" => {
                let from = event["from"].as_str().unwrap();
                if from != "__start__" {
                    assert_eq!(last_finished.as_deref(), Some(from), "{event} ({text})");
                }
            }
            "custom" => {
                let payload = &event["payload"];
                if let Some(step) = payload.get("step") {
                    let index = step["index"].as_u64().unwrap();
                    match step["phase"].as_str().unwrap() {
                        "started" => {
                            assert!(open_step.is_none(), "{event} ({text})");
                            open_step = Some(index);
                        }
                        _ => {
                            assert_eq!(open_step.take(), Some(index), "{event} ({text})");
                            assert!(step["success"].is_boolean(), "{event}");
                        }
                    }
                }
                assert!(
                    event["node"].as_str() == running.as_deref(),
                    "{event} ({text})"
                );
            }
            "error" => panic!("the engine failed: {event} ({text})"),
            _ => {}
        }
    }
    assert!(running.is_none() && open_step.is_none(), "{text}");
}

/// With the embedded model built in but its file missing, the default
/// model says how to fetch it.
#[test]
fn a_missing_local_model_says_how_to_fetch_it() {
    let env = TestEnv::new();
    let empty = tempfile::tempdir().unwrap();
    let output = env
        .rebound(None)
        .args(["run", "fix it"])
        .env("REBOUND_MODEL_DIR", empty.path())
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("local:qwen2.5-coder-1.5b"), "{text}");
    assert!(
        stderr.contains("rebound model fetch qwen2.5-coder-1.5b"),
        "{text}"
    );
    assert!(stderr.contains("scripts/fetch-model"), "{text}");
}

/// `rebound model info` in a build with the embedded model: this machine
/// built it, so its CPU has every instruction set llama.cpp was built for
/// (AVX2 at least, on x86-64); the threads and the prompt states' place
/// are given.
#[test]
fn model_info_names_the_instruction_sets_and_this_cpu_has_them() {
    let env = TestEnv::new();
    let states = tempfile::tempdir().unwrap();
    let output = env
        .rebound(None)
        .args(["model", "info", "--json"])
        .env("REBOUND_PROMPT_STATES", states.path())
        .env("REBOUND_THREADS", "3")
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let info: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(info["cpu_lacks"], serde_json::json!([]), "{text}");
    if cfg!(target_arch = "x86_64") {
        let built = info["built_for"].as_array().unwrap();
        assert!(built.iter().any(|s| s == "AVX2"), "{text}");
    }
    assert_eq!(info["threads"], 3, "REBOUND_THREADS is obeyed");
    assert_eq!(info["prompt_states"], states.path().display().to_string());
    let output = env
        .rebound(None)
        .args(["model", "info"])
        .env("REBOUND_PROMPT_STATES", "off")
        .output()
        .unwrap();
    let text = output_text(&output);
    assert!(text.contains("  this CPU: has every one of them"), "{text}");
    assert!(text.contains("  prompt states on disk: off"), "{text}");
}

/// `rebound eval` on two bundled tasks with the real 0.5B model: whatever
/// it solves, the results are coherent and judged by the tasks' checks.
#[test]
fn eval_on_the_local_model_judges_two_tasks_coherently() {
    let Some(dir) = model_dir() else {
        return;
    };
    let _turn = model_turn();
    let env = TestEnv::new();
    let tasks = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks/dev");
    let started = Instant::now();
    let output = env
        .rebound(None)
        .args([
            "eval",
            "--json",
            "--max-iters",
            "3",
            "--task-timeout",
            "900",
        ])
        .args(["--model", &format!("local:{MODEL}")])
        .arg(tasks.join("calc"))
        .arg(tasks.join("py-comparison"))
        .env("REBOUND_MODEL_DIR", &dir)
        .timeout(Duration::from_secs(40 * 60))
        .output()
        .unwrap();
    let text = output_text(&output);
    let report: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {text}"));
    let tasks = report["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 2, "{text}");
    for task in tasks {
        eprintln!(
            "eval {}: {} (claimed {}, exit {}, stop {}, {} model calls, {}/{} tokens, {} ms)",
            task["task"],
            task["verdict"],
            task["claimed"],
            task["exit_code"],
            task["stop"],
            task["model_calls"],
            task["input_tokens"],
            task["output_tokens"],
            task["wall_ms"]
        );
        assert!(task.get("error").is_none(), "{task}");
        assert!(
            matches!(task["exit_code"].as_i64(), Some(0 | 1 | 4)),
            "a clean stop: {task}"
        );
        assert_eq!(task["claimed"], task["exit_code"] == 0, "{task}");
        let solved = task["solved"].as_bool().unwrap();
        let claimed = task["claimed"].as_bool().unwrap();
        assert_eq!(task["false_success"], claimed && !solved, "{task}");
        assert!(task["model_calls"].as_u64().unwrap() >= 1, "{task}");
        assert!(task["input_tokens"].as_u64().unwrap() > 0, "{task}");
        assert!(
            !task["agent_checks"].as_array().unwrap().is_empty(),
            "the goals name checks: {task}"
        );
    }
    let totals = &report["totals"];
    eprintln!("eval totals: {totals} in {:.0?}", started.elapsed());
    assert_eq!(totals["tasks"], 2);
    let code = output.status.code();
    assert_eq!(code == Some(0), totals["false_successes"] == 0, "{text}");
}

/// Seed scenario 002, a missing test runner: the project's tests are to
/// run with pytest in its `.venv`, which has no pytest. The check fails
/// with `No module named pytest`; the repair installs pytest into that
/// virtualenv with its own pip (the harness's plan: the check's own tool
/// is missing, not the code), the check runs again and passes, and the
/// run finishes verified.
#[test]
fn a_missing_test_runner_is_installed_and_the_run_finishes_verified() {
    let Some(dir) = model_dir() else {
        return;
    };
    let _turn = model_turn();
    let env = TestEnv::new();
    let ws = env.ws();
    std::fs::write(
        ws.join("slug.py"),
        "def slug(text):\n    return \"-\".join(text.lower().split())\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("test_slug.py"),
        "from slug import slug\n\n\ndef test_words():\n    assert slug(\"Hello World\") == \"hello-world\"\n",
    )
    .unwrap();
    let venv = std::process::Command::new("python3")
        .args(["-m", "venv", ".venv"])
        .current_dir(ws)
        .output()
        .unwrap();
    assert!(venv.status.success(), "{venv:?}");
    let goal = "Run the test suite with pytest in the .venv virtualenv: `.venv/bin/python -m pytest -q` must pass. Do not change slug.py or test_slug.py.";
    let output = run_goal(&env, &dir, goal, Duration::from_secs(20 * 60));
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let lines = json_lines(&output.stdout);
    let summary = common::summary(&lines);
    assert_eq!(summary["verified"], true, "{text}");
    assert!(
        text.contains(".venv/bin/python -m pip install pytest"),
        "the repair installs pytest into the virtualenv: {text}"
    );
    let pytest = std::process::Command::new(ws.join(".venv/bin/python"))
        .args(["-m", "pytest", "-q"])
        .current_dir(ws)
        .output()
        .unwrap();
    assert!(pytest.status.success(), "{pytest:?}");
}
