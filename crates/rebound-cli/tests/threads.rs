//! Inspecting threads: `threads`, `history`, `show`, `show --checkpoint`,
//! and `fork` followed by `resume` (a fork before an answered approval
//! asks it again).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{json_lines, output_text, plan, review, summary, thread_id, FakeModel, TestEnv};
use serde_json::Value;

fn run_json(env: &TestEnv, model: &FakeModel, args: &[&str]) -> Value {
    let output = env.rebound(Some(model)).args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", output_text(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn threads_history_show_and_fork() {
    let env = TestEnv::new();
    let model = FakeModel::start(vec![
        plan(&[("Look", Some("ls")), ("Look closer", Some("ls -a"))]),
        review("finish", "looked closer"),
        // After the fork, the second step runs again and is reviewed again.
        review("finish", "looked closer, again"),
    ]);

    // No runs yet.
    let output = env.rebound(None).arg("threads").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).contains("no threads"));
    let output = env
        .rebound(None)
        .args(["history", "run-x"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));

    let thread = env.run_unverified(&model, "look around");

    // threads: the list, with the status.
    let output = env.rebound(None).arg("threads").output().unwrap();
    let listing = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(listing.starts_with("THREAD"), "{listing}");
    let row = listing.lines().find(|l| l.starts_with(&thread)).unwrap();
    assert!(row.contains("finished (unverified)"), "{listing}");
    assert!(row.contains("pev"), "{listing}");
    assert!(row.contains("look around"), "{listing}");
    let threads = run_json(&env, &model, &["threads", "--json"]);
    assert_eq!(threads[0]["thread_id"], thread.as_str());
    assert_eq!(threads[0]["status"], "finished (unverified)");

    // history: oldest first, with nodes, routes' reasons and times.
    let output = env
        .rebound(None)
        .args(["history", &thread])
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("(input)"), "{text}");
    assert!(stdout.contains("a plan of 2 steps"), "{text}");
    assert!(
        stdout.contains("verdict finish: the goal is reached"),
        "{text}"
    );
    assert!(stdout.contains(" UTC "), "{text}");
    let history = run_json(&env, &model, &["history", &thread, "--json"]);
    let rows = history.as_array().unwrap();
    assert_eq!(rows[0]["node"], "(input)");
    assert_eq!(rows.last().unwrap()["next"], serde_json::json!([]));
    let limited = run_json(
        &env,
        &model,
        &["history", &thread, "--json", "--limit", "2"],
    );
    assert_eq!(limited.as_array().unwrap().len(), 2);
    assert_eq!(limited[1], *rows.last().unwrap());
    // The checkpoint where the second step is next.
    let fork_point = rows
        .iter()
        .rev()
        .find(|r| r["next"] == serde_json::json!(["executor"]))
        .unwrap()["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_string();

    // show: the latest state, and the state at a checkpoint.
    let output = env.rebound(None).args(["show", &thread]).output().unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("END (the run ended here)"), "{text}");
    assert!(stdout.contains("\"goal\": \"look around\""), "{text}");
    let shown = run_json(
        &env,
        &model,
        &["show", &thread, "--checkpoint", &fork_point, "--json"],
    );
    assert_eq!(shown["checkpoint_id"], fork_point.as_str());
    assert_eq!(shown["next"], serde_json::json!(["executor"]));
    assert_eq!(shown["state"]["step_index"], 1);
    assert_eq!(shown["state"]["results"].as_array().unwrap().len(), 1);
    let output = env
        .rebound(None)
        .args(["show", &thread, "--checkpoint", "00000000000000ff"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
    let output = env
        .rebound(None)
        .args(["show", &thread, "--checkpoint", "not-hex"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));

    // fork: a new latest checkpoint copying the fork point; resume runs on from it.
    let forked = run_json(
        &env,
        &model,
        &["fork", &thread, "--checkpoint", &fork_point, "--json"],
    );
    assert_eq!(forked["from"], fork_point.as_str());
    assert_eq!(forked["next"], serde_json::json!(["executor"]));
    assert_eq!(forked["resume"], format!("rebound resume {thread}"));
    let output = env.rebound(None).arg("threads").output().unwrap();
    assert!(
        String::from_utf8_lossy(&output.stdout)
            .contains(&format!("forked from checkpoint {fork_point}")),
        "{}",
        output_text(&output)
    );
    let latest = run_json(&env, &model, &["show", &thread, "--json"]);
    assert_eq!(latest["checkpoint_id"], forked["checkpoint_id"]);
    assert_eq!(latest["state"], shown["state"]);
    let output = env
        .rebound(Some(&model))
        .args(["resume", &thread, "--json"])
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(4), "{text}");
    let lines = json_lines(&output.stdout);
    let summary = common::summary(&lines);
    assert_eq!(summary["status"], "finished", "{text}");
    assert_eq!(summary["steps_succeeded"], 2, "{text}");
    assert_eq!(model.remaining(), 0);
    let history = run_json(&env, &model, &["history", &thread, "--json"]);
    assert!(history
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["node"] == "(fork)"));
}

/// `rebound fork` at the checkpoint where an approval was asked and
/// answered makes a branch that asks it again (the answer stays on the old
/// branch), and keeps the journaled command: approved again, it is not run
/// a second time.
#[test]
fn a_fork_before_an_answered_approval_asks_it_again() {
    let env = TestEnv::new();
    env.workspace_config(
        "[[rules]]\npattern = \"touch\"\naction = \"ask\"\nreason = \"touch writes files\"\n",
    );
    let model = FakeModel::start(vec![
        plan(&[("Mark it", Some("touch approved.txt"))]),
        review("finish", "marked"),
        // On the fork, once approved again: reviewed again.
        review("finish", "marked, again"),
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
        .args(["resume", &thread, "--approve"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4), "{}", output_text(&output));
    let marked = env.ws().join("approved.txt");
    assert!(marked.exists());
    std::fs::remove_file(&marked).unwrap();

    // The checkpoint where the executor asked.
    let history = run_json(&env, &model, &["history", &thread, "--json"]);
    let asked_at = history
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["next"] == serde_json::json!(["executor"]))
        .unwrap()["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_string();
    let forked = run_json(
        &env,
        &model,
        &["fork", &thread, "--checkpoint", &asked_at, "--json"],
    );
    assert_eq!(forked["next"], serde_json::json!(["executor"]));
    // Nothing waits on the fork: the old answer (and its question) stayed
    // behind.
    let shown = run_json(&env, &model, &["show", &thread, "--json"]);
    assert_eq!(shown["checkpoint_id"], forked["checkpoint_id"]);
    assert_eq!(shown["interrupts"], serde_json::json!([]), "{shown}");

    // Resumed without an answer, non-interactively: the executor runs and
    // asks again.
    let output = env
        .rebound(Some(&model))
        .args(["resume", &thread, "--json"])
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(3), "{text}");
    let lines = json_lines(&output.stdout);
    assert!(lines.iter().any(|l| l["event"] == "interrupted"), "{text}");
    let end = summary(&lines);
    assert_eq!(end["status"], "interrupted", "{text}");
    assert_eq!(
        end["pending"][0]["payload"]["command"],
        "touch approved.txt"
    );
    let output = env
        .rebound(Some(&model))
        .args(["resume", &thread, "--approve", "--json"])
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(4), "{text}");
    assert_eq!(
        summary(&json_lines(&output.stdout))["status"],
        "finished",
        "{text}"
    );
    assert!(!marked.exists(), "the journaled command was not run again");
    assert_eq!(model.remaining(), 0);
}

#[test]
fn a_missing_thread_or_state_is_a_usage_error() {
    let env = TestEnv::new();
    for args in [
        vec!["show", "run-missing"],
        vec!["fork", "run-missing", "--checkpoint", "1"],
        vec!["resume", "run-missing"],
        vec!["history", "../etc"],
    ] {
        let output = env.rebound(None).args(&args).output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            output_text(&output)
        );
    }
    let output = env.rebound(None).args(["fork", "run-x"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "--checkpoint is required");
}

/// The per-thread side files of earlier versions (`.rebound/threads/*.json`,
/// with a `pid`) are imported into the database once; a pid in a record
/// never makes a thread "running": only a held lock does.
#[test]
fn side_files_of_earlier_versions_are_imported() {
    let env = TestEnv::new();
    let model = FakeModel::start(vec![
        plan(&[("Look", Some("ls"))]),
        review("finish", "looked"),
    ]);
    let thread = env.run_unverified(&model, "look around");

    let side = env.ws().join(".rebound").join("threads");
    std::fs::create_dir_all(&side).unwrap();
    let old = |id: &str, goal: &str| {
        serde_json::json!({
            "thread_id": id, "workflow": "reflect", "goal": goal,
            "workspace": env.ws(), "model": "openai:old", "approval": "auto",
            "created_ms": 1_000, "updated_ms": 2_000, "state": "running",
            // A live process (this test), which earlier versions trusted.
            "pid": std::process::id(),
        })
        .to_string()
    };
    std::fs::write(side.join("run-old.json"), old("run-old", "an old goal")).unwrap();
    std::fs::write(side.join(format!("{thread}.json")), old(&thread, "stale")).unwrap();

    let listed = run_json(&env, &model, &["threads", "--json"]);
    let rows = listed.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{listed}");
    let current = rows
        .iter()
        .find(|r| r["thread_id"] == thread.as_str())
        .unwrap();
    assert_eq!(current["goal"], "look around", "{listed}");
    assert_eq!(current["status"], "finished (unverified)", "{listed}");
    let imported = rows.iter().find(|r| r["thread_id"] == "run-old").unwrap();
    assert_eq!(imported["goal"], "an old goal", "{listed}");
    assert_eq!(imported["workflow"], "reflect", "{listed}");
    assert_eq!(imported["status"], "crashed (resumable)", "{listed}");
    assert_eq!(imported["updated_ms"], 2_000, "{listed}");
    // Imported once: the files are set aside.
    assert!(!side.join("run-old.json").exists());
    assert!(side.join("run-old.json.imported").is_file());
    assert!(side.join(format!("{thread}.json.imported")).is_file());
    let again = run_json(&env, &model, &["threads", "--json"]);
    assert_eq!(again, listed);
}
