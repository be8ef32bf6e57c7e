//! The HTTP API over real HTTP on 127.0.0.1 with a real SQLite file:
//! streams, interrupts and resume, reconnects, double-texting, cancel,
//! errors and auth.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::JsonAnswer;

use std::time::Duration;

use rebound_server::{Server, ServerError};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::net::TcpListener;

/// A server on a free loopback port; its base URL.
struct Running {
    base: String,
    client: reqwest::Client,
    _dir: tempfile::TempDir,
}

async fn start() -> Running {
    start_with_workers(2).await
}

/// [`start`] with `workers` running runs at once.
async fn start_with_workers(workers: usize) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::builder()
        .database(dir.path().join("state.db"))
        .graph("approval", common::approval_graph())
        .workers(workers)
        .build()
        .unwrap();
    let base = common::serve_on_loopback(server).await;
    Running {
        base,
        client: reqwest::Client::new(),
        _dir: dir,
    }
}

impl Running {
    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        let response = self
            .client
            .post(format!("{}{path}", self.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let response = self
            .client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// Starts a run that works for 5 s, cancels it once it runs (`?wait=1`
    /// and `extra`), and returns its id.
    async fn cancel_a_slow_run(&self, thread: &str, topic: &str, extra: &str) -> String {
        let (_, run) = self
            .post(
                &format!("/threads/{thread}/runs"),
                json!({"assistant_id": "approval", "input": {"topic": topic, "auto_approve": true, "sleep_ms": 5000}}),
            )
            .await;
        let run_id = run["run_id"].as_str().unwrap().to_string();
        tokio::time::sleep(Duration::from_millis(300)).await;
        // While it runs, its thread is busy and the run running.
        let (_, record) = self.get(&format!("/threads/{thread}")).await;
        assert_eq!(record["status"], "busy", "{record}");
        let (_, running) = self.get(&format!("/threads/{thread}/runs/{run_id}")).await;
        assert_eq!(running["status"], "running", "{running}");
        let response = self
            .client
            .post(format!(
                "{}/threads/{thread}/runs/{run_id}/cancel?wait=1{extra}",
                self.base
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
        run_id
    }

    async fn thread(&self) -> String {
        let (status, thread) = self.post("/threads", json!({})).await;
        assert_eq!(status, StatusCode::OK, "{thread}");
        thread["thread_id"].as_str().unwrap().to_string()
    }

    /// A whole SSE response: (id, event, data) of each event.
    async fn stream(
        &self,
        path: &str,
        body: Option<Value>,
        last_event_id: Option<u64>,
    ) -> Vec<(u64, String, Value)> {
        let url = format!("{}{path}", self.base);
        let mut request = match body {
            Some(body) => self.client.post(url).json(&body),
            None => self.client.get(url),
        };
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id.to_string());
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert!(response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream"));
        parse_sse(&response.text().await.unwrap())
    }
}

fn parse_sse(text: &str) -> Vec<(u64, String, Value)> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let (mut id, mut event, mut data) = (0, String::new(), String::new());
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("id:") {
                id = v.trim().parse().unwrap();
            } else if let Some(v) = line.strip_prefix("event:") {
                event = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.trim_start());
            }
        }
        if !event.is_empty() {
            out.push((
                id,
                event,
                serde_json::from_str(&data).unwrap_or(Value::Null),
            ));
        }
    }
    out
}

fn names(events: &[(u64, String, Value)]) -> Vec<&str> {
    events.iter().map(|(_, e, _)| e.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_run_stops_at_the_interrupt_and_a_command_resumes_it() {
    let server = start().await;
    let thread = server.thread().await;
    let events = server
        .stream(
            &format!("/threads/{thread}/runs/stream"),
            Some(json!({"assistant_id": "approval", "input": {"topic": "deploy"}, "stream_mode": ["values", "updates"]})),
            None,
        )
        .await;
    assert_eq!(events[0].1, "metadata");
    assert_eq!(events.last().unwrap().1, "end");
    let ids: Vec<u64> = events.iter().map(|e| e.0).collect();
    assert_eq!(
        ids,
        (1..=ids.len() as u64).collect::<Vec<_>>(),
        "ids are 1, 2, 3..."
    );
    let updates: Vec<&Value> = events
        .iter()
        .filter(|e| e.1 == "updates")
        .map(|e| &e.2)
        .collect();
    assert_eq!(updates[0], &json!({"plan": {"log": ["plan"]}}));
    let interrupt = &updates.last().unwrap()["__interrupt__"][0];
    assert_eq!(interrupt["value"], json!({"question": "approve deploy?"}));

    let (_, state) = server.get(&format!("/threads/{thread}/state")).await;
    assert_eq!(state["next"], json!(["approve"]));
    assert_eq!(state["interrupts"][0]["id"], interrupt["id"]);
    assert_eq!(state["values"]["log"], json!(["plan"]));
    let (_, record) = server.get(&format!("/threads/{thread}")).await;
    assert_eq!(record["status"], "interrupted");
    assert_eq!(record["metadata"]["graph_id"], "approval");

    let events = server
        .stream(
            &format!("/threads/{thread}/runs/stream"),
            Some(json!({"assistant_id": "approval", "command": {"resume": "yes"}})),
            None,
        )
        .await;
    let last_values = events.iter().rev().find(|e| e.1 == "values").unwrap();
    assert_eq!(last_values.2["log"], json!(["plan", "approve", "act"]));
    assert_eq!(last_values.2["answer"], "yes");
    let (_, record) = server.get(&format!("/threads/{thread}")).await;
    assert_eq!(record["status"], "idle");

    let (status, history) = server
        .post(&format!("/threads/{thread}/history"), json!({"limit": 100}))
        .await;
    assert_eq!(status, StatusCode::OK);
    let history = history.as_array().unwrap();
    assert!(history.len() >= 4, "{history:?}");
    assert_eq!(
        history[0]["values"]["log"],
        json!(["plan", "approve", "act"])
    );
    assert_eq!(history[0]["next"], json!([]));
    // Newest first: each one's parent is the next one.
    assert_eq!(
        history[0]["parent_checkpoint"]["checkpoint_id"],
        history[1]["checkpoint"]["checkpoint_id"]
    );

    // A copy has the same history and goes its own way.
    let (status, copy) = server
        .post(&format!("/threads/{thread}/copy"), json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{copy}");
    let copy_id = copy["thread_id"].as_str().unwrap();
    assert_ne!(copy_id, thread);
    assert_eq!(copy["values"]["log"], json!(["plan", "approve", "act"]));
    let (_, copied) = server
        .post(
            &format!("/threads/{copy_id}/history"),
            json!({"limit": 100}),
        )
        .await;
    assert_eq!(
        copied,
        Value::Array(history.to_vec())
            .to_string()
            .replace(thread.as_str(), copy_id)
            .parse::<Value>()
            .unwrap()
    );
    let (status, _) = server
        .post(
            &format!("/threads/{copy_id}/runs/wait"),
            json!({"assistant_id": "approval", "input": {"auto_approve": true}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, original) = server.get(&format!("/threads/{thread}/state")).await;
    assert_eq!(
        original["values"]["log"],
        json!(["plan", "approve", "act"]),
        "the original is untouched"
    );

    let (status, runs) = server.get(&format!("/threads/{thread}/runs")).await;
    assert_eq!(status, StatusCode::OK);
    let statuses: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    // A run that stops at an interrupt succeeded (the Agent Server's rule):
    // its thread is the one that waits.
    assert_eq!(statuses, ["success", "success"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnect_with_last_event_id_gets_every_later_event_once() {
    let server = start().await;
    let thread = server.thread().await;
    let (status, run) = server
        .post(
            &format!("/threads/{thread}/runs"),
            json!({"assistant_id": "approval", "input": {"topic": "x", "auto_approve": true, "sleep_ms": 200}, "stream_mode": ["values", "updates", "events"]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{run}");
    let run_id = run["run_id"].as_str().unwrap();
    let path = format!("/threads/{thread}/runs/{run_id}/stream");
    let all = server.stream(&path, None, None).await;
    assert!(all.len() > 10, "{:?}", names(&all));
    assert_eq!(all[0].1, "metadata");
    assert_eq!(all.last().unwrap().1, "end");
    for cut in [1, 5, all.len() as u64 - 1] {
        let rest = server.stream(&path, None, Some(cut)).await;
        assert_eq!(rest, all[cut as usize..].to_vec(), "after {cut}");
    }
    // The engine's events carry the run's own id.
    let started = all.iter().find(|e| e.2["event"] == "run_started").unwrap();
    assert_eq!(started.2["run_id"], run_id);
    let only_values = server
        .stream(&format!("{path}?stream_mode=values"), None, None)
        .await;
    assert!(only_values
        .iter()
        .all(|e| ["metadata", "values", "end"].contains(&e.1.as_str())));
    let (_, joined) = server
        .get(&format!("/threads/{thread}/runs/{run_id}/join"))
        .await;
    assert_eq!(joined["log"], json!(["plan", "approve", "act"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_wait_returns_the_final_state_and_stateless_runs_leave_no_thread() {
    let server = start().await;
    let thread = server.thread().await;
    let (status, values) = server
        .post(
            &format!("/threads/{thread}/runs/wait"),
            json!({"assistant_id": "approval", "input": {"topic": "x"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(values["log"], json!(["plan"]));
    assert_eq!(
        values["__interrupt__"][0]["value"]["question"],
        "approve x?"
    );

    let (status, values) = server
        .post(
            "/runs/wait",
            json!({"assistant_id": "approval", "input": {"topic": "y", "auto_approve": true}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{values}");
    assert_eq!(values["log"], json!(["plan", "approve", "act"]));
    let (_, threads) = server.post("/threads/search", json!({"limit": 100})).await;
    assert_eq!(
        threads.as_array().unwrap().len(),
        1,
        "only the first thread: {threads}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn double_texting_rejects_enqueues_or_interrupts() {
    let server = start().await;
    let thread = server.thread().await;
    let slow = json!({"assistant_id": "approval", "input": {"topic": "slow", "auto_approve": true, "sleep_ms": 3000}});
    let (_, first) = server
        .post(&format!("/threads/{thread}/runs"), slow.clone())
        .await;
    let first_id = first["run_id"].as_str().unwrap().to_string();

    let mut reject = slow.clone();
    reject["multitask_strategy"] = json!("reject");
    let (status, body) = server
        .post(&format!("/threads/{thread}/runs"), reject)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("busy"));

    let (_, queued) = server
        .post(
            &format!("/threads/{thread}/runs"),
            json!({"assistant_id": "approval", "input": {"auto_approve": true}}),
        )
        .await;
    let queued_id = queued["run_id"].as_str().unwrap().to_string();
    assert_eq!(queued["status"], "pending");

    let (_, interrupting) = server
        .post(
            &format!("/threads/{thread}/runs"),
            json!({"assistant_id": "approval", "input": {"auto_approve": true}, "multitask_strategy": "interrupt"}),
        )
        .await;
    let interrupting_id = interrupting["run_id"].as_str().unwrap();
    let (_, done) = server
        .get(&format!("/threads/{thread}/runs/{interrupting_id}/join"))
        .await;
    assert!(done["log"].as_array().unwrap().len() >= 3, "{done}");
    for (id, expected) in [
        (&first_id, "interrupted"),
        (&queued_id, "interrupted"),
        (&interrupting_id.to_string(), "success"),
    ] {
        let (_, run) = server.get(&format!("/threads/{thread}/runs/{id}")).await;
        assert_eq!(run["status"], expected, "{run}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_a_running_run_and_rollback_undoes_it() {
    let server = start().await;
    let thread = server.thread().await;
    let run_id = server.cancel_a_slow_run(&thread, "x", "").await;
    let (_, run) = server
        .get(&format!("/threads/{thread}/runs/{run_id}"))
        .await;
    assert_eq!(run["status"], "interrupted");

    // A second run, rolled back: the thread is as before it.
    let (_, before) = server.get(&format!("/threads/{thread}/state")).await;
    let run_id = server
        .cancel_a_slow_run(&thread, "y", "&action=rollback")
        .await;
    let (status, _) = server
        .get(&format!("/threads/{thread}/runs/{run_id}"))
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "a rolled back run is deleted"
    );
    let (_, after) = server.get(&format!("/threads/{thread}/state")).await;
    assert_eq!(after["values"], before["values"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_clear_errors() {
    let server = start().await;
    let thread = server.thread().await;
    let url = format!("{}/threads/{thread}/runs", server.base);
    let send = |body: String| {
        let client = server.client.clone();
        let url = url.clone();
        async move {
            let response = client
                .post(url)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .unwrap();
            let status = response.status();
            (
                status,
                response.json::<Value>().await.unwrap_or(Value::Null),
            )
        }
    };
    let (status, body) = send("{not json".into()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        body["detail"].as_str().unwrap().contains("not valid JSON"),
        "{body}"
    );

    let (status, body) = send(json!({"assistant_id": "approval", "inptu": {}}).to_string()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body["detail"].as_str().unwrap().contains("inptu"), "{body}");

    let (status, body) =
        send(json!({"assistant_id": "approval", "command": {"resume": 1, "goto": 5}}).to_string())
            .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        body["detail"].as_str().unwrap().contains("command.goto"),
        "{body}"
    );

    let (status, body) = send(json!({"assistant_id": "nope"}).to_string()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body["detail"].as_str().unwrap().contains("nope"), "{body}");

    let (status, body) =
        send(json!({"assistant_id": "approval", "stream_mode": "messages"}).to_string()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");

    let (status, body) =
        send(json!({"assistant_id": "approval", "command": {"resume": "yes"}}).to_string()).await;
    assert_eq!(status, StatusCode::CONFLICT, "nothing to resume: {body}");

    // A body past the limit is refused unread, and its connection is
    // closed: the next request (on the same client) must not reuse it.
    let response = server
        .client
        .post(&url)
        .header("content-type", "application/json")
        .body(format!(
            "{{\"assistant_id\": \"{}\"}}",
            "x".repeat(3 * 1024 * 1024)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(response.headers()["connection"], "close");

    let (status, body) = server
        .get("/threads/00000000-0000-0000-0000-000000000000")
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, _) = server.get(&format!("/threads/{thread}/runs/nope")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = server
        .get(&format!("/threads/{thread}/state/00000000000000ff"))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A wrong input type is refused with the field named, before a run.
    let (status, body) =
        send(json!({"assistant_id": "approval", "input": {"topic": 5}}).to_string()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body["detail"].as_str().unwrap().contains("topic"), "{body}");
    // A run that fails anyway (an update the graph rejects when it merges:
    // goto nowhere) fails with its error recorded, not a panic.
    let (_, values) = server
        .post(
            &format!("/threads/{thread}/runs/wait"),
            json!({"assistant_id": "approval", "input": {"topic": "t"}}),
        )
        .await;
    assert_eq!(values["log"], json!(["plan"]));
    let events = server
        .stream(
            &format!("/threads/{thread}/runs/stream"),
            Some(json!({"assistant_id": "approval", "command": {"goto": "nowhere"}})),
            None,
        )
        .await;
    let error = events
        .iter()
        .find(|e| e.1 == "error")
        .expect("an error event");
    assert!(
        error.2["message"].as_str().unwrap().contains("nowhere"),
        "{error:?}"
    );
    let (_, runs) = server.get(&format!("/threads/{thread}/runs")).await;
    assert_eq!(runs[0]["status"], "error");
    let run_id = runs[0]["run_id"].as_str().unwrap();
    let (_, joined) = server
        .get(&format!("/threads/{thread}/runs/{run_id}/join"))
        .await;
    assert!(
        joined["__error__"]["message"]
            .as_str()
            .unwrap()
            .contains("nowhere"),
        "{joined}"
    );
    let (_, record) = server.get(&format!("/threads/{thread}")).await;
    assert_eq!(record["status"], "error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assistants_are_listed_with_their_graph() {
    let server = start().await;
    let (status, list) = server.post("/assistants/search", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list[0]["graph_id"], "approval");
    let id = list[0]["assistant_id"].as_str().unwrap();
    let (_, graph) = server.get(&format!("/assistants/{id}/graph")).await;
    let edges: Vec<(String, String)> = graph["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["source"].as_str().unwrap().into(),
                e["target"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(edges[0], ("__start__".to_string(), "plan".to_string()));
    assert!(edges.contains(&("act".to_string(), "__end__".to_string())));
    let (_, mermaid) = server
        .get("/assistants/approval/graph?format=mermaid")
        .await;
    assert!(mermaid["mermaid"]
        .as_str()
        .unwrap()
        .contains("plan --> approve"));
    let (status, openapi) = server.get("/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    assert!(openapi["paths"]["/threads/{thread_id}/runs/stream"]["post"].is_object());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_guards_every_route_but_ok_and_is_required_off_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let build = |token: Option<&str>| {
        Server::builder()
            .database(dir.path().join("state.db"))
            .graph("approval", common::approval_graph())
            .token(token.map(str::to_string))
            .build()
            .unwrap()
    };
    let open = TcpListener::bind("0.0.0.0:0").await.unwrap();
    let refused = build(None).serve(open).await;
    assert!(
        matches!(refused, Err(ServerError::TokenRequired { .. })),
        "{refused:?}"
    );

    let base = common::serve_on_loopback(build(Some("s3cret"))).await;
    // One server per database: a second one is refused, naming the first.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let second = Server::builder()
        .database(dir.path().join("state.db"))
        .graph("approval", common::approval_graph())
        .build();
    let error = second
        .err()
        .expect("a second server on the same database is refused");
    assert!(
        error.to_string().contains("another rebound server"),
        "{error}"
    );
    let client = reqwest::Client::new();
    let status = |r: reqwest::Response| r.status();
    assert_eq!(
        status(client.get(format!("{base}/ok")).send().await.unwrap()),
        StatusCode::OK
    );
    assert_eq!(
        status(client.get(format!("{base}/info")).send().await.unwrap()),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        status(
            client
                .get(format!("{base}/info"))
                .bearer_auth("wrong")
                .send()
                .await
                .unwrap()
        ),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        status(
            client
                .get(format!("{base}/info"))
                .bearer_auth("s3cret")
                .send()
                .await
                .unwrap()
        ),
        StatusCode::OK
    );
    // langgraph-sdk's `api_key=` sends x-api-key; the scheme's case is free.
    for (name, value) in [("x-api-key", "s3cret"), ("authorization", "bearer s3cret")] {
        let response = client
            .get(format!("{base}/info"))
            .header(name, value)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{name}");
    }
    let response = client
        .get(format!("{base}/info"))
        .header("x-api-key", "nope")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_disconnects_mid_stream_leaves_the_run_going() {
    let server = start().await;
    let thread = server.thread().await;
    let mut response = server
        .client
        .post(format!("{}/threads/{thread}/runs/stream", server.base))
        .json(&json!({"assistant_id": "approval", "input": {"auto_approve": true, "sleep_ms": 400}, "stream_mode": ["values"]}))
        .send()
        .await
        .unwrap();
    let first = response.chunk().await.unwrap().unwrap();
    let first = String::from_utf8_lossy(&first).to_string();
    assert!(first.contains("event: metadata"), "{first}");
    let run_id = first
        .split("\"run_id\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_string();
    drop(response);
    let (status, values) = server
        .get(&format!("/threads/{thread}/runs/{run_id}/join"))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(values["log"], json!(["plan", "approve", "act"]));
    let (_, run) = server
        .get(&format!("/threads/{thread}/runs/{run_id}"))
        .await;
    assert_eq!(run["status"], "success");

    // Unless it asked for the run to stop with it.
    let mut response = server
        .client
        .post(format!("{}/threads/{thread}/runs/stream", server.base))
        .json(&json!({"assistant_id": "approval", "input": {"sleep_ms": 3000}, "on_disconnect": "cancel"}))
        .send()
        .await
        .unwrap();
    let first = String::from_utf8_lossy(&response.chunk().await.unwrap().unwrap()).to_string();
    let run_id = first
        .split("\"run_id\":\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    drop(response);
    let (_, _) = server
        .get(&format!("/threads/{thread}/runs/{run_id}/join"))
        .await;
    let (_, run) = server
        .get(&format!("/threads/{thread}/runs/{run_id}"))
        .await;
    assert_eq!(run["status"], "interrupted", "{run}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_documented_route_is_served() {
    let server = start().await;
    let (_, openapi) = server.get("/openapi.json").await;
    let paths = openapi["paths"].as_object().unwrap();
    assert!(paths.len() >= 28, "{}", paths.len());
    for (path, operations) in paths {
        let concrete = path
            .replace("{assistant_id}", "approval")
            .replace("{thread_id}", "no-such-thread")
            .replace("{run_id}", "no-such-run")
            .replace("{checkpoint_id}", "00000000000000ff");
        for method in operations.as_object().unwrap().keys() {
            let request = server.client.request(
                method.to_uppercase().parse().unwrap(),
                format!("{}{concrete}", server.base),
            );
            let request = if method == "get" || method == "delete" {
                request
            } else {
                request.json(&json!({"assistant_id": "no-such-assistant"}))
            };
            let response = request.send().await.unwrap();
            let status = response.status();
            let body = response.text().await.unwrap();
            assert!(
                !body.contains("no such route") && status != StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path}: {status} {body}"
            );
        }
    }
    let run = &paths["/threads/{thread_id}/runs/wait"]["post"];
    let schema = &run["requestBody"]["content"]["application/json"]["schema"];
    assert!(
        schema["properties"]["multitask_strategy"].is_object(),
        "{schema}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_can_update_the_state_and_choose_the_next_node() {
    let server = start().await;
    let thread = server.thread().await;
    let (_, values) = server
        .post(
            &format!("/threads/{thread}/runs/wait"),
            json!({"assistant_id": "approval", "input": {"topic": "x"}}),
        )
        .await;
    assert_eq!(values["log"], json!(["plan"]));
    // Instead of answering: write a field and go past `approve` to `act`.
    let (status, values) = server
        .post(
            &format!("/threads/{thread}/runs/wait"),
            json!({"assistant_id": "approval", "command": {"update": {"topic": "changed"}, "goto": "act"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{values}");
    assert_eq!(values["topic"], "changed", "{values}");
    assert_eq!(
        values["log"],
        json!(["plan", "act"]),
        "approve was skipped: {values}"
    );

    // A goto naming no node is a clear error, and the thread stays usable.
    let thread = server.thread().await;
    server
        .post(
            &format!("/threads/{thread}/runs/wait"),
            json!({"assistant_id": "approval", "input": {"topic": "y"}}),
        )
        .await;
    let (status, values) = server
        .post(
            &format!("/threads/{thread}/runs/wait"),
            json!({"assistant_id": "approval", "command": {"goto": "nowhere"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let message = values["__error__"]["message"].as_str().unwrap();
    assert!(message.contains("nowhere"), "{values}");
    let (_, state) = server.get(&format!("/threads/{thread}/state")).await;
    assert_eq!(
        state["next"],
        json!(["approve"]),
        "the last good checkpoint survives"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rollback_run_replaces_the_running_one_and_undoes_it() {
    let server = start().await;
    let thread = server.thread().await;
    let (_, first) = server
        .post(
            &format!("/threads/{thread}/runs"),
            json!({"assistant_id": "approval", "input": {"topic": "first", "auto_approve": true, "sleep_ms": 3000}}),
        )
        .await;
    let first_id = first["run_id"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, second) = server
        .post(
            &format!("/threads/{thread}/runs"),
            json!({"assistant_id": "approval", "input": {"topic": "second", "auto_approve": true}, "multitask_strategy": "rollback"}),
        )
        .await;
    let second_id = second["run_id"].as_str().unwrap();
    let (_, values) = server
        .get(&format!("/threads/{thread}/runs/{second_id}/join"))
        .await;
    // The first run left nothing: the second started from an empty thread.
    assert_eq!(values["topic"], "second");
    assert_eq!(values["log"], json!(["plan", "approve", "act"]), "{values}");
    let (status, _) = server
        .get(&format!("/threads/{thread}/runs/{first_id}"))
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "a rolled back run is deleted"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_is_off_unless_origins_are_configured() {
    let dir = tempfile::tempdir().unwrap();
    let mut bases = Vec::new();
    for (name, origins) in [
        ("off", vec![]),
        ("on", vec!["http://app.example".to_string()]),
    ] {
        let server = Server::builder()
            .database(dir.path().join(format!("{name}.db")))
            .graph("approval", common::approval_graph())
            .cors_origins(origins)
            .build()
            .unwrap();
        bases.push(common::serve_on_loopback(server).await);
    }
    let client = reqwest::Client::new();
    let preflight = |base: &str| {
        client
            .request(reqwest::Method::OPTIONS, format!("{base}/threads"))
            .header("Origin", "http://app.example")
            .header("Access-Control-Request-Method", "POST")
            .send()
    };
    let off = preflight(&bases[0]).await.unwrap();
    assert!(off.headers().get("access-control-allow-origin").is_none());
    let on = preflight(&bases[1]).await.unwrap();
    assert_eq!(
        on.headers()["access-control-allow-origin"],
        "http://app.example"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_server_ends_its_streams_and_its_runs_go_on_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("state.db");
    let serve = |db: std::path::PathBuf| async move {
        let server = Server::builder()
            .database(db)
            .graph("approval", common::approval_graph())
            .build()
            .unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(server.serve_with_shutdown(listener, async move {
            let _ = stopped.await;
        }));
        (base, stop, task)
    };
    let client = reqwest::Client::new();
    let (base, stop, task) = serve(db.clone()).await;
    let thread: Value = client
        .post(format!("{base}/threads"))
        .json(&json!({}))
        .json_answer()
        .await;
    let thread = thread["thread_id"].as_str().unwrap().to_string();
    let mut stream = client
        .post(format!("{base}/threads/{thread}/runs/stream"))
        .json(
            &json!({"assistant_id": "approval", "input": {"auto_approve": true, "sleep_ms": 4000}}),
        )
        .send()
        .await
        .unwrap();
    let first = String::from_utf8_lossy(&stream.chunk().await.unwrap().unwrap()).to_string();
    let run_id = first
        .split("\"run_id\":\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    let started = std::time::Instant::now();
    stop.send(()).unwrap();
    // The open stream ends, and the server stops well before the run would.
    while stream.chunk().await.unwrap().is_some() {}
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );

    // Nothing recorded it as ended: the next server runs it to the end.
    let (base, _stop, _task) = serve(db).await;
    let values: Value = client
        .get(format!("{base}/threads/{thread}/runs/{run_id}/join"))
        .json_answer()
        .await;
    assert_eq!(values["log"], json!(["plan", "approve", "act"]), "{values}");
    let run: Value = client
        .get(format!("{base}/threads/{thread}/runs/{run_id}"))
        .json_answer()
        .await;
    assert_eq!(run["status"], "success");
    assert_eq!(run["attempt"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_durability_keeps_every_checkpoint_and_an_unknown_one_is_refused() {
    let server = start().await;
    let mut histories = Vec::new();
    for durability in ["sync", "async", "exit"] {
        let thread = server.thread().await;
        let (status, values) = server
            .post(
                &format!("/threads/{thread}/runs/wait"),
                json!({"assistant_id": "approval", "durability": durability,
                       "input": {"topic": durability, "auto_approve": true}}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{durability}: {values}");
        assert_eq!(
            values["log"],
            json!(["plan", "approve", "act"]),
            "{durability}"
        );
        let (status, history) = server
            .post(&format!("/threads/{thread}/history"), json!({"limit": 100}))
            .await;
        assert_eq!(status, StatusCode::OK, "{history}");
        let steps: Vec<i64> = history
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["metadata"]["step"].as_i64().unwrap())
            .collect();
        histories.push(steps);
    }
    // Batched commits store the same checkpoints as one commit per step.
    assert_eq!(histories[0], histories[1]);
    assert_eq!(histories[0], histories[2]);
    assert!(histories[0].len() >= 4, "{histories:?}");

    let thread = server.thread().await;
    let (status, error) = server
        .post(
            &format!("/threads/{thread}/runs"),
            json!({"assistant_id": "approval", "durability": "eventually", "input": {"topic": "x"}}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{error}");
    assert!(
        error["detail"].as_str().unwrap().contains("durability"),
        "{error}"
    );
}

#[tokio::test]
async fn a_thread_with_a_pending_run_is_busy_and_idle_again_once_it_is_cancelled() {
    // One worker, kept busy by a slow run: the next runs stay pending.
    let api = start_with_workers(1).await;
    let (_, queued) = api.post("/threads", json!({})).await;
    let (_, quiet) = api.post("/threads", json!({})).await;
    let (queued, quiet) = (
        queued["thread_id"].as_str().unwrap().to_string(),
        quiet["thread_id"].as_str().unwrap().to_string(),
    );
    let search =
        |status: &'static str| common::thread_ids_with_status(&api.client, &api.base, status);
    let mut both = vec![queued.clone(), quiet.clone()];
    both.sort();
    assert_eq!(search("idle").await, both);
    let (code, slow) = api
        .post(
            "/runs",
            json!({"assistant_id": "approval", "input": {"topic": "t", "auto_approve": true, "sleep_ms": 3000}}),
        )
        .await;
    assert_eq!(code, StatusCode::OK, "{slow}");
    let slow_thread = slow["thread_id"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while api
        .get(&format!(
            "/threads/{slow_thread}/runs/{}",
            slow["run_id"].as_str().unwrap()
        ))
        .await
        .1["status"]
        != "running"
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the slow run did not start"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let (code, run) = api
        .post(
            &format!("/threads/{queued}/runs"),
            json!({"assistant_id": "approval", "input": {"topic": "t", "auto_approve": true}}),
        )
        .await;
    assert_eq!(code, StatusCode::OK, "{run}");
    assert_eq!(run["status"], "pending", "{run}");
    let run_id = run["run_id"].as_str().unwrap();
    assert_eq!(
        api.get(&format!("/threads/{queued}")).await.1["status"],
        "busy"
    );
    assert_eq!(
        api.get(&format!("/threads/{quiet}")).await.1["status"],
        "idle"
    );
    let mut busy = vec![queued.clone(), slow_thread.clone()];
    busy.sort();
    assert_eq!(search("busy").await, busy);
    assert_eq!(search("idle").await, vec![quiet.clone()]);

    // Patched while pending (read busy, written back): busy is not kept.
    let response = api
        .client
        .patch(format!("{}/threads/{queued}", api.base))
        .json(&json!({"metadata": {"patched": true}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let patched: Value = response.json().await.unwrap();
    assert_eq!(patched["status"], "busy", "{patched}");

    // Cancelled while pending: idle again, not an error.
    let (code, cancelled) = api
        .post(
            &format!("/threads/{queued}/runs/{run_id}/cancel"),
            json!({}),
        )
        .await;
    assert!(code.is_success(), "{code} {cancelled}");
    let (_, thread) = api.get(&format!("/threads/{queued}")).await;
    assert_eq!(thread["status"], "idle", "{thread}");
    assert_eq!(thread["metadata"]["patched"], true, "{thread}");
    assert_eq!(search("busy").await, vec![slow_thread]);
    assert_eq!(search("idle").await, both);
}
