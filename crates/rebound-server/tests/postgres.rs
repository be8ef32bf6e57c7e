//! The server on a real PostgreSQL (a throwaway cluster from
//! `scripts/postgres`): the API behaves as on SQLite, and an API server
//! with no workers streams a run that a separate worker instance executes,
//! every event once, in order, from the store.
//!
//! Without PostgreSQL the tests say so and pass, unless
//! `REBOUND_REQUIRE_POSTGRES=1` (as on CI).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::JsonAnswer;
use rebound_postgres::testing::test_database;
use rebound_server::Server;
use serde_json::{json, Value};

async fn server(url: &str, workers: usize) -> Server {
    Server::builder()
        .postgres(url)
        .graph("approval", common::approval_graph())
        .workers(workers)
        .lease_ttl(Duration::from_secs(2))
        .connect()
        .await
        .unwrap()
}

/// The (event, data) pairs of an SSE body.
fn events(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter_map(|block| {
            let mut event = None;
            let mut data = String::new();
            for line in block.lines() {
                if let Some(name) = line.strip_prefix("event: ") {
                    event = Some(name.to_string());
                } else if let Some(value) = line.strip_prefix("data: ") {
                    data.push_str(value);
                }
            }
            Some((event?, serde_json::from_str(&data).unwrap_or(Value::Null)))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_server_on_postgres_stops_at_an_interrupt_resumes_and_cancels() {
    let Some(db) = test_database().await.unwrap() else {
        return;
    };
    let base = common::serve_on_loopback(server(&db.url, 2).await).await;
    let client = reqwest::Client::new();
    let thread: Value = client
        .post(format!("{base}/threads"))
        .json(&json!({}))
        .json_answer()
        .await;
    let thread = thread["thread_id"].as_str().unwrap().to_string();

    let values: Value = client
        .post(format!("{base}/threads/{thread}/runs/wait"))
        .json(&json!({"assistant_id": "approval", "input": {"topic": "x"}}))
        .json_answer()
        .await;
    assert_eq!(values["log"], json!(["plan"]), "{values}");
    assert_eq!(
        values["__interrupt__"][0]["value"]["question"],
        "approve x?"
    );
    let record: Value = client
        .get(format!("{base}/threads/{thread}"))
        .json_answer()
        .await;
    assert_eq!(record["status"], "interrupted", "{record}");

    let values: Value = client
        .post(format!("{base}/threads/{thread}/runs/wait"))
        .json(&json!({"assistant_id": "approval", "command": {"resume": "yes"}}))
        .json_answer()
        .await;
    assert_eq!(values["log"], json!(["plan", "approve", "act"]), "{values}");
    assert_eq!(values["answer"], "yes");
    let history: Value = client
        .post(format!("{base}/threads/{thread}/history"))
        .json(&json!({"limit": 100}))
        .json_answer()
        .await;
    let steps: Vec<i64> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["metadata"]["step"].as_i64().unwrap())
        .collect();
    assert_eq!(steps, vec![3, 2, 1, 0], "{history}");

    // A slow run, cancelled while it runs: it ends interrupted.
    let run: Value = client
        .post(format!("{base}/threads/{thread}/runs"))
        .json(
            &json!({"assistant_id": "approval", "input": {"auto_approve": true, "sleep_ms": 5000}}),
        )
        .json_answer()
        .await;
    let run_id = run["run_id"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let running: Value = client
        .get(format!("{base}/threads/{thread}/runs/{run_id}"))
        .json_answer()
        .await;
    assert_eq!(running["status"], "running", "{running}");
    let record: Value = client
        .get(format!("{base}/threads/{thread}"))
        .json_answer()
        .await;
    assert_eq!(record["status"], "busy", "{record}");
    let started = std::time::Instant::now();
    let cancelled = client
        .post(format!(
            "{base}/threads/{thread}/runs/{run_id}/cancel?wait=1"
        ))
        .send()
        .await
        .unwrap();
    assert!(cancelled.status().is_success(), "{}", cancelled.status());
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let ended: Value = client
        .get(format!("{base}/threads/{thread}/runs/{run_id}"))
        .json_answer()
        .await;
    assert_eq!(ended["status"], "interrupted", "{ended}");

    let deleted = client
        .delete(format!("{base}/threads/{thread}"))
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    let gone = client
        .get(format!("{base}/threads/{thread}"))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), reqwest::StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_api_server_without_workers_streams_a_run_a_worker_executes() {
    let Some(db) = test_database().await.unwrap() else {
        return;
    };
    // The API server runs nothing itself.
    let base = common::serve_on_loopback(server(&db.url, 0).await).await;
    let client = reqwest::Client::new();
    let thread: Value = client
        .post(format!("{base}/threads"))
        .json(&json!({}))
        .json_answer()
        .await;
    let thread = thread["thread_id"].as_str().unwrap().to_string();
    let run: Value = client
        .post(format!("{base}/threads/{thread}/runs"))
        .json(&json!({"assistant_id": "approval", "input": {"topic": "y", "auto_approve": true, "sleep_ms": 300}}))
        .json_answer()
        .await;
    let run_id = run["run_id"].as_str().unwrap().to_string();
    // Nothing runs it yet.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pending: Value = client
        .get(format!("{base}/threads/{thread}/runs/{run_id}"))
        .json_answer()
        .await;
    assert_eq!(pending["status"], "pending", "{pending}");

    // A worker (another server instance on the same database) takes it,
    // while a client follows its stream through the API server.
    let stream = tokio::spawn({
        let client = client.clone();
        let url = format!("{base}/threads/{thread}/runs/{run_id}/stream");
        async move { client.get(url).send().await.unwrap().text().await.unwrap() }
    });
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let worker = tokio::spawn(server(&db.url, 2).await.run_workers(async move {
        let _ = stopped.await;
    }));
    let body = tokio::time::timeout(Duration::from_secs(20), stream)
        .await
        .expect("the stream ended")
        .unwrap();
    let names: Vec<String> = events(&body).into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names.first().map(String::as_str),
        Some("metadata"),
        "{body}"
    );
    assert_eq!(names.last().map(String::as_str), Some("end"), "{body}");
    assert_eq!(
        names.iter().filter(|n| *n == "metadata").count(),
        1,
        "{body}"
    );
    let last_values = events(&body)
        .into_iter()
        .rfind(|(name, _)| name == "values")
        .unwrap()
        .1;
    assert_eq!(
        last_values["log"],
        json!(["plan", "approve", "act"]),
        "{body}"
    );
    let run: Value = client
        .get(format!("{base}/threads/{thread}/runs/{run_id}"))
        .json_answer()
        .await;
    assert_eq!(run["status"], "success", "{run}");
    let record: Value = client
        .get(format!("{base}/threads/{thread}"))
        .json_answer()
        .await;
    assert_eq!(record["status"], "idle", "{record}");
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), worker)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

/// A thread is `busy` while it has a run pending or running (as on the
/// Agent Server): read alone and searched by status, before a worker
/// takes its run, while it runs, and no more once the run is cancelled
/// while pending or has ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thread_with_a_pending_run_is_busy() {
    let Some(db) = test_database().await.unwrap() else {
        return;
    };
    // The API server runs nothing itself: its runs stay pending.
    let base = common::serve_on_loopback(server(&db.url, 0).await).await;
    let client = reqwest::Client::new();
    let new_thread = || async {
        let thread: Value = client
            .post(format!("{base}/threads"))
            .json(&json!({}))
            .json_answer()
            .await;
        thread["thread_id"].as_str().unwrap().to_string()
    };
    let (queued, quiet) = (new_thread().await, new_thread().await);
    let create_run = |sleep_ms: u64| {
        let (client, base, queued) = (client.clone(), base.clone(), queued.clone());
        async move {
            let run: Value = client
                .post(format!("{base}/threads/{queued}/runs"))
                .json(&json!({"assistant_id": "approval", "input": {"topic": "t", "auto_approve": true, "sleep_ms": sleep_ms}}))
                .json_answer()
                .await;
            run["run_id"].as_str().unwrap().to_string()
        }
    };
    let status = |thread: String| {
        let (client, base) = (client.clone(), base.clone());
        async move {
            let record: Value = client
                .get(format!("{base}/threads/{thread}"))
                .json_answer()
                .await;
            record["status"].as_str().unwrap().to_string()
        }
    };
    let search = |status: &'static str| common::thread_ids_with_status(&client, &base, status);
    let mut both = vec![queued.clone(), quiet.clone()];
    both.sort();

    // A pending run: its thread is busy, the other idle.
    let run_id = create_run(0).await;
    let run: Value = client
        .get(format!("{base}/threads/{queued}/runs/{run_id}"))
        .json_answer()
        .await;
    assert_eq!(run["status"], "pending", "{run}");
    assert_eq!(status(queued.clone()).await, "busy");
    assert_eq!(status(quiet.clone()).await, "idle");
    assert_eq!(search("busy").await, vec![queued.clone()]);
    assert_eq!(search("idle").await, vec![quiet.clone()]);

    // Its record patched meanwhile (read `busy`, written back): that
    // status is not kept once the run is gone.
    let patched: Value = client
        .patch(format!("{base}/threads/{queued}"))
        .json(&json!({"metadata": {"patched": true}}))
        .json_answer()
        .await;
    assert_eq!(patched["status"], "busy", "{patched}");

    // Cancelled while pending: idle again.
    let cancelled = client
        .post(format!("{base}/threads/{queued}/runs/{run_id}/cancel"))
        .send()
        .await
        .unwrap();
    assert!(cancelled.status().is_success(), "{}", cancelled.status());
    assert_eq!(status(queued.clone()).await, "idle");
    assert_eq!(search("busy").await, Vec::<String>::new());
    assert_eq!(search("idle").await, both);

    // Pending, then running on a worker: busy throughout; idle at its end.
    let run_id = create_run(1500).await;
    assert_eq!(search("busy").await, vec![queued.clone()]);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let worker = tokio::spawn(server(&db.url, 1).await.run_workers(async move {
        let _ = stopped.await;
    }));
    let run_url = format!("{base}/threads/{queued}/runs/{run_id}");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let run: Value = client.get(&run_url).json_answer().await;
        if run["status"] == "running" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "not taken: {run}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status(queued.clone()).await, "busy");
    assert_eq!(search("busy").await, vec![queued.clone()]);
    let ended: Value = client.get(format!("{run_url}/join")).json_answer().await;
    assert_eq!(ended["log"], json!(["plan", "approve", "act"]), "{ended}");
    assert_eq!(status(queued.clone()).await, "idle");
    assert_eq!(search("busy").await, Vec::<String>::new());
    assert_eq!(search("idle").await, both);
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), worker)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}
