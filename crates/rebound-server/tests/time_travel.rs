//! Time travel over real HTTP on 127.0.0.1 with a real SQLite file:
//! `POST /threads/{id}/state` with a `checkpoint_id` the thread has moved
//! on from forks it, and the fork asks that checkpoint's question again
//! instead of reusing the answer given there.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use rebound_server::Server;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A client of a server on a free loopback port (and the directory of
/// its database).
struct Client {
    base: String,
    http: reqwest::Client,
    _dir: tempfile::TempDir,
}

impl Client {
    async fn start() -> Client {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::builder()
            .database(dir.path().join("state.db"))
            .graph("approval", common::approval_graph())
            .build()
            .unwrap();
        Client {
            base: common::serve_on_loopback(server).await,
            http: reqwest::Client::new(),
            _dir: dir,
        }
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        (response.status(), response.json().await.unwrap())
    }

    async fn get(&self, path: &str) -> Value {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.unwrap()
    }

    /// `POST /threads/{thread}/runs/wait` with `body`: the run's values.
    async fn wait(&self, thread: &str, body: Value) -> Value {
        let (status, values) = self
            .post(&format!("/threads/{thread}/runs/wait"), body)
            .await;
        assert_eq!(status, StatusCode::OK, "{values}");
        values
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_update_at_a_past_checkpoint_asks_the_question_again() {
    let client = Client::start().await;
    let (_, thread) = client.post("/threads", json!({})).await;
    let thread = thread["thread_id"].as_str().unwrap().to_string();
    let asked = client
        .wait(
            &thread,
            json!({"assistant_id": "approval", "input": {"topic": "deploy"}}),
        )
        .await;
    assert_eq!(
        asked["__interrupt__"][0]["value"]["question"],
        "approve deploy?"
    );
    let done = client
        .wait(
            &thread,
            json!({"assistant_id": "approval", "command": {"resume": "yes"}}),
        )
        .await;
    assert_eq!(done["log"], json!(["plan", "approve", "act"]));
    assert_eq!(done["answer"], "yes");

    // Back to where `approve` asked, with another topic.
    let (_, history) = client
        .post(&format!("/threads/{thread}/history"), json!({"limit": 100}))
        .await;
    let asked_at = history
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["next"] == json!(["approve"]))
        .unwrap()["checkpoint"]["checkpoint_id"]
        .clone();
    let (status, forked) = client
        .post(
            &format!("/threads/{thread}/state"),
            json!({"values": {"topic": "rollout"}, "checkpoint_id": asked_at}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{forked}");
    let state = client.get(&format!("/threads/{thread}/state")).await;
    assert_eq!(
        state["checkpoint"]["checkpoint_id"],
        forked["checkpoint"]["checkpoint_id"]
    );
    assert_eq!(state["parent_checkpoint"]["checkpoint_id"], asked_at);
    assert_eq!(state["next"], json!(["approve"]));
    assert_eq!(state["values"]["topic"], "rollout");
    assert_eq!(state["interrupts"], json!([]), "the answer stayed behind");

    // Resumed: the question again, about the new topic.
    let again = client
        .wait(&thread, json!({"assistant_id": "approval"}))
        .await;
    assert_eq!(
        again["__interrupt__"][0]["value"]["question"],
        "approve rollout?"
    );
    assert_eq!(again["answer"], Value::Null);
    let record = client.get(&format!("/threads/{thread}")).await;
    assert_eq!(record["status"], "interrupted");
    let done = client
        .wait(
            &thread,
            json!({"assistant_id": "approval", "command": {"resume": "no"}}),
        )
        .await;
    assert_eq!(done["answer"], "no");
    assert_eq!(done["log"], json!(["plan", "approve", "act"]));
}
