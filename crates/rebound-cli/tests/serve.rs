//! `rebound serve` as a real process: it refuses an address off loopback
//! without a token, announces the port it bound, answers `/ok` and lists
//! its assistants, checks the bearer token, and stops on Ctrl-C with exit
//! code 0. No model is called: `openai:test` opens without the network.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{output_text, TestEnv};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::Value;

/// A running `rebound serve`, killed if a test fails before stopping it.
struct Served {
    child: Child,
    port: u16,
    /// stderr lines after the start line.
    stderr: mpsc::Receiver<String>,
}

impl Served {
    /// Starts `rebound serve --addr 127.0.0.1:0 --model openai:test` with
    /// `extra` arguments and `vars`, and waits for its start line.
    fn start(env: &TestEnv, extra: &[&str], vars: &[(&str, &str)]) -> Served {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("rebound"))
            .args(["serve", "--addr", "127.0.0.1:0", "--model", "openai:test"])
            .args(extra)
            .current_dir(env.ws())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(env.vars(None))
            .envs(vars.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (lines_tx, lines_rx) = mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                if lines_tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut served = Served {
            child,
            port: 0,
            stderr: lines_rx,
        };
        served.port = served.wait_for_port();
        served
    }

    /// The port of the start line, `rebound serve: http://127.0.0.1:PORT (...`.
    fn wait_for_port(&mut self) -> u16 {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut seen = Vec::new();
        while Instant::now() < deadline {
            let Ok(line) = self.stderr.recv_timeout(Duration::from_millis(100)) else {
                if let Some(status) = self.child.try_wait().unwrap() {
                    panic!("rebound serve exited ({status}): {}", seen.join("\n"));
                }
                continue;
            };
            if let Some(rest) = line.strip_prefix("rebound serve: http://127.0.0.1:") {
                let port = rest.split(' ').next().unwrap();
                return port.parse().unwrap_or_else(|e| panic!("{e}: {line}"));
            }
            seen.push(line);
        }
        panic!("no start line within 20 s: {}", seen.join("\n"));
    }

    /// Sends an HTTP/1.0 request (so the answer is not chunked) and returns
    /// its status and body.
    fn request(&self, method: &str, path: &str, headers: &[&str], body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut request = format!(
            "{method} {path} HTTP/1.0\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
            body.len()
        );
        for header in headers {
            request.push_str(header);
            request.push_str("\r\n");
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"));
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status: {head:?}"));
        (status, body.to_string())
    }

    /// Sends SIGINT.
    fn signal(&self) {
        let pid = Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        kill(pid, Signal::SIGINT).unwrap();
    }

    /// Waits for a stderr line containing `text`.
    fn wait_for_line(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(line) = self.stderr.recv_timeout(Duration::from_millis(100)) {
                if line.contains(text) {
                    return;
                }
            }
        }
        panic!("no line with {text:?} on stderr within 10 s");
    }

    /// Waits up to 10 s for the process to exit and returns its code.
    fn wait(mut self) -> Option<i32> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("rebound serve did not stop within 10 s");
    }

    /// Sends SIGINT and returns the exit code.
    fn interrupt(self) -> Option<i32> {
        self.signal();
        self.wait()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The graph ids `POST /assistants/search` lists.
fn graph_ids(body: &str) -> Vec<String> {
    let assistants: Value = serde_json::from_str(body).unwrap();
    let mut ids: Vec<String> = assistants
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {body}"))
        .iter()
        .map(|assistant| assistant["graph_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

#[test]
fn refuses_an_address_off_loopback_without_a_token() {
    let env = TestEnv::new();
    let output = env
        .rebound(None)
        .args(["serve", "--addr", "0.0.0.0:0", "--model", "openai:test"])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--token"), "{text}");
    assert!(!stderr.contains("rebound serve: http://"), "{text}");
}

#[test]
fn serves_the_workflows_and_stops_on_ctrl_c() {
    let env = TestEnv::new();
    let served = Served::start(&env, &[], &[]);
    assert_eq!(
        served.request("GET", "/ok", &[], ""),
        (200, r#"{"ok":true}"#.to_string())
    );
    let (status, body) = served.request("POST", "/assistants/search", &[], "{}");
    assert_eq!(status, 200, "{body}");
    assert_eq!(graph_ids(&body), ["pev", "reflect", "supervisor"]);
    assert_eq!(served.interrupt(), Some(0));
}

#[test]
fn sigterm_stops_it_like_ctrl_c() {
    let env = TestEnv::new();
    let served = Served::start(&env, &[], &[]);
    assert_eq!(served.request("GET", "/ok", &[], "").0, 200);
    let pid = nix::unistd::Pid::from_raw(i32::try_from(served.child.id()).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    served.wait_for_line("stopping");
    assert_eq!(served.wait(), Some(0));
}

#[test]
fn the_token_flag_guards_every_route_but_ok() {
    let env = TestEnv::new();
    let served = Served::start(&env, &["--token", "t"], &[]);
    assert_eq!(served.request("GET", "/ok", &[], "").0, 200);
    let (status, body) = served.request("POST", "/assistants/search", &[], "{}");
    assert_eq!(status, 401, "{body}");
    let (status, body) = served.request(
        "POST",
        "/assistants/search",
        &["authorization: Bearer wrong"],
        "{}",
    );
    assert_eq!(status, 401, "{body}");
    let (status, body) = served.request(
        "POST",
        "/assistants/search",
        &["authorization: Bearer t"],
        "{}",
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(graph_ids(&body), ["pev", "reflect", "supervisor"]);
    assert_eq!(served.interrupt(), Some(0));
}

#[test]
fn the_token_may_come_from_the_environment() {
    let env = TestEnv::new();
    let served = Served::start(&env, &[], &[("REBOUND_API_TOKEN", "from-env")]);
    let (status, body) = served.request("POST", "/threads/search", &[], "{}");
    assert_eq!(status, 401, "{body}");
    let (status, body) = served.request(
        "POST",
        "/assistants/search",
        &["authorization: Bearer from-env"],
        "{}",
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(served.interrupt(), Some(0));
}

#[test]
fn a_second_ctrl_c_stops_while_a_stream_is_open() {
    let env = TestEnv::new();
    // A model that takes the request and never answers: the run waits on it.
    let model = TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", model.local_addr().unwrap());
    let served = Served::start(&env, &[], &[("OPENAI_BASE_URL", &base_url)]);
    let mut stream = TcpStream::connect(("127.0.0.1", served.port)).unwrap();
    let body = r#"{"assistant_id":"pev","input":{"goal":"say hello"},"stream_mode":["events"]}"#;
    write!(
        stream,
        "POST /runs/stream HTTP/1.0\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    model.set_nonblocking(true).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let _model_call = loop {
        match model.accept() {
            Ok((connection, _)) => break connection,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("the run never called the model: {e}"),
        }
    };
    served.signal();
    served.wait_for_line("stopping (Ctrl-C or SIGTERM)");
    std::thread::sleep(Duration::from_millis(200));
    served.signal();
    assert_eq!(served.wait(), Some(0));
    drop(stream);
}

#[test]
fn a_run_with_a_bad_input_is_refused_naming_the_input_expected() {
    let env = TestEnv::new();
    let served = Served::start(&env, &[], &[]);
    let cases = [
        ("pev", r#"{"goal": 42}"#, r##"expected {"goal": "...""##),
        ("reflect", r#"{"goal": " "}"#, "the goal is empty"),
        (
            "supervisor",
            r#"{"goal": "x"}"#,
            r##"expected {"request": "..."}"##,
        ),
        ("supervisor", r#"{"request": ""}"#, "the request is empty"),
    ];
    for (assistant, input, expected) in cases {
        let body = format!(r#"{{"assistant_id": "{assistant}", "input": {input}}}"#);
        let (status, answer) = served.request("POST", "/runs/wait", &[], &body);
        assert_eq!(status, 422, "{answer}");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        let message = answer["detail"].as_str().unwrap_or_default();
        assert!(message.contains(expected), "{assistant} {input}: {answer}");
    }
    assert_eq!(served.interrupt(), Some(0));
}

#[test]
fn a_database_that_is_down_is_a_clear_error_without_the_password() {
    // A port nobody listens on: the connection is refused at every try.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://rebound:s3cret-pw@127.0.0.1:{port}/rebound");
    for command in [
        vec![
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--model",
            "openai:test",
            "--database",
            &url,
        ],
        vec!["worker", "--model", "openai:test", "--database", &url],
    ] {
        let started = std::time::Instant::now();
        let output = TestEnv::new()
            .rebound(None)
            .args(&command)
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        let text = output_text(&output);
        assert_ne!(output.status.code(), Some(0), "{text}");
        assert!(output.status.code().is_some(), "killed, not exited: {text}");
        assert!(!text.contains("s3cret-pw"), "the password leaked: {text}");
        assert!(
            text.contains("127.0.0.1"),
            "the database is not named: {text}"
        );
        assert!(!text.contains("panicked"), "{text}");
        assert!(!text.contains("rebound serve: http://"), "{text}");
        // It tried more than once (the database may be starting), then
        // gave up.
        assert!(
            started.elapsed() > Duration::from_millis(500),
            "{:?}",
            started.elapsed()
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }
}
