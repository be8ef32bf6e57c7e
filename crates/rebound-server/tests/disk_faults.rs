//! The server's store on a full disk: a real server process that may write
//! no file past a size (`ulimit -f`, `SIGXFSZ` ignored, so writes fail with
//! `EFBIG` as on a full file system) is sent runs until its writes fail.
//! Every request gets an HTTP answer — a run's result, or an error that
//! names the disk — never a dropped connection; the server stays up; and
//! once it is restarted with room, the database passes `PRAGMA
//! integrity_check` and every run it reported done is there, done, with
//! the state and the events it reported.
//!
//! The test runs itself as the server (as `rebound-sqlite`'s
//! `disk_faults.rs` does): with `REBOUND_DISK_SERVER_DB` set it serves.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::JsonAnswer;
use rebound_server::Server;
use serde_json::{json, Value};

const TEST_NAME: &str = "a_full_disk_gets_clear_answers_and_loses_no_run_reported_done";
/// What the server process may write to any one file, in KiB.
const LIMIT_KIB: u32 = 768;
/// The size of each run's topic: every checkpoint and `values` event
/// carries it.
const TOPIC_BYTES: usize = 6_000;

fn server(db: &Path) -> Server {
    Server::builder()
        .database(db)
        .graph("approval", common::approval_graph())
        .workers(1)
        .build()
        .unwrap()
}

/// An HTTP/1.0 request: the answer's status and body, or `None` when the
/// connection ended without one.
fn request(port: u16, method: &str, path: &str, body: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "{method} {path} HTTP/1.0\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body.as_bytes()).ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, body.to_string()))
}

/// The last lines of the server's log.
fn server_log(dir: &Path) -> String {
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// The JSON of an answer that must be one.
fn json_of(answer: &(u16, String)) -> Value {
    serde_json::from_str(&answer.1).unwrap_or_else(|e| panic!("{e}: {answer:?}"))
}

#[test]
fn a_full_disk_gets_clear_answers_and_loses_no_run_reported_done() {
    if let Ok(db) = std::env::var("REBOUND_DISK_SERVER_DB") {
        // The server, under the limit: it writes its port, then serves,
        // logging what fails to stderr (a file the parent shows).
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let port = listener.local_addr().unwrap().port();
            println!("SERVER-PORT {port}");
            server(Path::new(&db)).serve(listener).await.unwrap();
        });
        return;
    }

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("state.db");
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {LIMIT_KIB} && exec \"$0\" --exact {TEST_NAME} --nocapture --test-threads=1"
        ))
        .arg(std::env::current_exe().unwrap())
        .env("REBOUND_DISK_SERVER_DB", &db)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.path().join("server.log")).unwrap())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    let port: u16 = loop {
        assert!(Instant::now() < deadline, "no port: {seen}");
        let mut buffer = [0u8; 256];
        let n = stdout.read(&mut buffer).unwrap();
        assert!(n > 0, "the server ended: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buffer[..n]));
        if let Some(rest) = seen.split("SERVER-PORT ").nth(1) {
            if let Some((port, _)) = rest.split_once('\n') {
                break port.trim().parse().unwrap();
            }
        }
    };

    // Runs until the disk has refused several requests, or left runs it
    // took waiting: each is created, then watched until it ends.
    let mut done = Vec::new();
    let mut waiting = Vec::new();
    let mut refused = Vec::new();
    for n in 0..400 {
        if refused.len() >= 3 || waiting.len() >= 2 {
            break;
        }
        let answer = |what: &str, answer: Option<(u16, String)>| {
            answer.unwrap_or_else(|| {
                panic!(
                    "run {n}, {what}: the connection ended without an answer; the server's log:\n{}",
                    server_log(dir.path())
                )
            })
        };
        let created = answer("POST /threads", request(port, "POST", "/threads", "{}"));
        if created.0 != 200 {
            refused.push(created);
            continue;
        }
        let thread = json_of(&created)["thread_id"].as_str().unwrap().to_string();
        let topic = format!("{n:04}{}", "t".repeat(TOPIC_BYTES));
        let body =
            json!({"assistant_id": "approval", "input": {"topic": topic, "auto_approve": true}});
        let path = format!("/threads/{thread}/runs");
        let run = answer("POST runs", request(port, "POST", &path, &body.to_string()));
        if run.0 != 200 {
            refused.push(run);
            continue;
        }
        let run_id = json_of(&run)["run_id"].as_str().unwrap().to_string();
        let deadline = Instant::now() + Duration::from_secs(5);
        let status = loop {
            let path = format!("/threads/{thread}/runs/{run_id}");
            let record = answer("GET run", request(port, "GET", &path, ""));
            let status = json_of(&record)["status"].as_str().unwrap().to_string();
            if status == "success" || status == "error" || Instant::now() > deadline {
                break status;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        match status.as_str() {
            "success" => {
                let path = format!("/threads/{thread}/state");
                let state = answer("GET state", request(port, "GET", &path, ""));
                let values = json_of(&state)["values"].clone();
                assert_eq!(values["log"], json!(["plan", "approve", "act"]), "run {n}");
                done.push((thread, values));
            }
            // A run that failed for the disk ends with its error, or
            // (when its end cannot be written either) waits in the queue.
            "error" => {}
            _ => waiting.push(thread),
        }
    }
    eprintln!(
        "{} runs done, {} waiting, {} requests refused",
        done.len(),
        waiting.len(),
        refused.len()
    );
    assert!(done.len() >= 3, "some runs fit: {} done", done.len());
    assert!(
        !refused.is_empty() || !waiting.is_empty(),
        "the disk stopped something"
    );
    for (status, body) in &refused {
        assert_eq!(*status, 503, "{body}");
        assert!(
            body.contains("the disk is full or failing"),
            "an answer that names the disk: {body}"
        );
    }
    // Still up: reads need no room.
    assert_eq!(request(port, "GET", "/ok", "").map(|a| a.0), Some(200));
    child.kill().unwrap();
    child.wait().unwrap();

    // With room again: a whole file, and every run reported done is done.
    let raw = rusqlite::Connection::open(&db).unwrap();
    let integrity: String = raw
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    drop(raw);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let base = common::serve_on_loopback(server(&db)).await;
        let client = reqwest::Client::new();
        for (thread, values) in &done {
            let state: Value = client
                .get(format!("{base}/threads/{thread}/state"))
                .json_answer()
                .await;
            assert_eq!(&state["values"], values, "thread {thread}");
            let runs: Value = client
                .get(format!("{base}/threads/{thread}/runs"))
                .json_answer()
                .await;
            assert_eq!(runs[0]["status"], "success", "thread {thread}: {runs}");
            let run = runs[0]["run_id"].as_str().unwrap();
            let stream = client
                .get(format!("{base}/threads/{thread}/runs/{run}/stream"))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            assert!(
                stream.contains("event: values") && stream.contains("\"act\""),
                "thread {thread}: its events: {stream}"
            );
        }
        // A run the disk left waiting was taken, so it runs once there is
        // room: the restarted server's queue finishes it.
        for thread in &waiting {
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                let runs: Value = client
                    .get(format!("{base}/threads/{thread}/runs"))
                    .json_answer()
                    .await;
                if runs[0]["status"] == "success" {
                    break;
                }
                assert!(Instant::now() < deadline, "thread {thread}: {runs}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    });
}
