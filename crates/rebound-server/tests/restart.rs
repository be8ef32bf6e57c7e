//! A server killed with SIGKILL while 100 runs are queued or running picks
//! them up when it starts again: every run succeeds, and every journaled
//! side effect happened once. The server is a real process (the
//! `journal_server` example), killed for real.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::JsonAnswer;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const THREADS: usize = 50;
const RUNS_PER_THREAD: usize = 2;

/// The example binary, built by `cargo test` beside the test binaries.
fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    dir.join("examples").join("journal_server")
}

struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(db: &Path, effects: &Path) -> Server {
    let mut child = Command::new(example())
        .arg(db)
        .arg("127.0.0.1:0")
        .arg(effects)
        .arg("8")
        .arg("150")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start {}: {e} (examples are built by `cargo test -p rebound-server`, not by `--test restart` alone)",
                example().display()
            )
        });
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    Server {
        child,
        base: format!("http://{addr}"),
    }
}

async fn runs_of(client: &reqwest::Client, base: &str, thread: &str) -> Vec<Value> {
    client
        .get(format!("{base}/threads/{thread}/runs?limit=100"))
        .send()
        .await
        .unwrap()
        .json::<Vec<Value>>()
        .await
        .unwrap()
}

async fn statuses(
    client: &reqwest::Client,
    base: &str,
    threads: &[String],
) -> BTreeMap<String, usize> {
    let mut count = BTreeMap::new();
    for thread in threads {
        for run in runs_of(client, base, thread).await {
            *count
                .entry(run["status"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
    }
    count
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_finishes_every_run_after_a_restart_repeating_no_effect() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("state.db");
    let effects = dir.path().join("effects.log");
    let client = reqwest::Client::new();

    let server = start(&db, &effects);
    let mut threads = Vec::new();
    for i in 0..THREADS {
        let thread = format!("t{i:02}");
        for _ in 0..RUNS_PER_THREAD {
            let response = client
                .post(format!("{}/threads/{thread}/runs", server.base))
                .json(&json!({"assistant_id": "work", "input": {}, "if_not_exists": "create"}))
                .send()
                .await
                .unwrap();
            assert!(
                response.status().is_success(),
                "{:?}",
                response.text().await
            );
        }
        threads.push(thread);
    }
    // Kill it once some runs have finished and others are under way.
    let deadline = Instant::now() + Duration::from_secs(30);
    let before = loop {
        let count = statuses(&client, &server.base, &threads).await;
        if count.get("success").copied().unwrap_or(0) >= 10 {
            break count;
        }
        assert!(Instant::now() < deadline, "no progress: {count:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    drop(server); // SIGKILL
    let unfinished = THREADS * RUNS_PER_THREAD - before.get("success").copied().unwrap_or(0);
    assert!(unfinished >= 50, "the kill came late: {before:?}");
    let interrupted_thread = {
        // A run that was running when the server died.
        let server = start(&db, &effects);
        let mut running = None;
        for thread in &threads {
            let runs = runs_of(&client, &server.base, thread).await;
            if let Some(run) = runs.iter().find(|r| r["attempt"].as_u64() == Some(2)) {
                running = Some((thread.clone(), run["run_id"].as_str().unwrap().to_string()));
                break;
            }
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let count = statuses(&client, &server.base, &threads).await;
            if count.get("success") == Some(&(THREADS * RUNS_PER_THREAD)) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "runs did not finish after the restart: {count:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // Its stream spans both processes: ids 1, 2, 3... to `end`, each once.
        let (thread, run_id) = running.expect("a run resumed on its second attempt");
        let text = client
            .get(format!(
                "{}/threads/{thread}/runs/{run_id}/stream",
                server.base
            ))
            .header("Last-Event-ID", "1")
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let ids: Vec<u64> = text
            .lines()
            .filter_map(|l| l.strip_prefix("id: "))
            .map(|id| id.parse().unwrap())
            .collect();
        assert_eq!(ids, (2..2 + ids.len() as u64).collect::<Vec<_>>(), "{text}");
        assert!(text.contains("event: end"), "{text}");
        let metadata = text.matches("event: metadata").count();
        assert_eq!(
            metadata, 1,
            "the second attempt's metadata only (after id 1): {text}"
        );
        for thread in &threads {
            let state: Value = client
                .get(format!("{}/threads/{thread}/state", server.base))
                .json_answer()
                .await;
            assert_eq!(
                state["values"]["done"],
                json!(["a", "b", "c", "a", "b", "c"]),
                "{thread}"
            );
        }
        thread
    };
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for line in std::fs::read_to_string(&effects).unwrap().lines() {
        *count.entry(line.to_string()).or_default() += 1;
    }
    assert_eq!(count.len(), THREADS * 3, "{count:?}");
    let repeated: Vec<_> = count
        .iter()
        .filter(|(_, n)| **n != RUNS_PER_THREAD)
        .collect();
    assert!(
        repeated.is_empty(),
        "effects not run exactly once per run: {repeated:?}"
    );
    assert!(count.contains_key(&format!("{interrupted_thread}:a")));
}
