//! Shared set-up of the CLI tests: a scripted OpenAI-compatible server on
//! 127.0.0.1, a home and a workspace in temp dirs, and the `rebound`
//! binary with an environment that does not leak the user's.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

/// The fake key the tests use.
pub const FAKE_KEY: &str = "sk-test-FAKEKEY-0123456789abcdef";

/// A scripted OpenAI-compatible server: each POST gets the next answer.
pub struct FakeModel {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
    replies: Arc<Mutex<VecDeque<Value>>>,
}

impl FakeModel {
    /// Starts a server answering with `answers` (chat completion bodies)
    /// in order, then 500s.
    pub fn start(answers: Vec<Value>) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(VecDeque::from(answers)));
        let (recorded, queue) = (requests.clone(), replies.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (recorded, queue) = (recorded.clone(), queue.clone());
                std::thread::spawn(move || serve(stream, &recorded, &queue));
            }
        });
        FakeModel {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            requests,
            replies,
        }
    }

    /// The request bodies received so far.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }

    /// Answers not yet given.
    pub fn remaining(&self) -> usize {
        self.replies.lock().unwrap().len()
    }
}

fn serve(stream: TcpStream, recorded: &Mutex<Vec<Value>>, queue: &Mutex<VecDeque<Value>>) {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    recorded
        .lock()
        .unwrap()
        .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
    let reply = queue.lock().unwrap().pop_front();
    let (status, body) = match reply {
        Some(body) => ("200 OK", body.to_string()),
        None => (
            "500 Internal Server Error",
            json!({"error": {"message": "no answer scripted"}}).to_string(),
        ),
    };
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.flush();
}

/// A chat completion whose message is `content`.
pub fn answer(content: &str) -> Value {
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "test",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    })
}

/// A plan answer: steps with optional commands.
pub fn plan(steps: &[(&str, Option<&str>)]) -> Value {
    let steps: Vec<Value> = steps
        .iter()
        .map(|(description, command)| match command {
            Some(command) => json!({"description": description, "command": command}),
            None => json!({"description": description}),
        })
        .collect();
    answer(&json!({ "steps": steps }).to_string())
}

/// A review answer.
pub fn review(verdict: &str, reason: &str) -> Value {
    answer(&json!({"verdict": verdict, "reason": reason, "fix_suggestions": []}).to_string())
}

/// A temp home (config, cache) and a temp workspace.
pub struct TestEnv {
    /// The home directory.
    pub home: tempfile::TempDir,
    /// The workspace.
    pub workspace: tempfile::TempDir,
}

impl TestEnv {
    /// A fresh home and workspace.
    pub fn new() -> TestEnv {
        TestEnv {
            home: tempfile::tempdir().unwrap(),
            workspace: tempfile::tempdir().unwrap(),
        }
    }

    /// The workspace path.
    pub fn ws(&self) -> &Path {
        self.workspace.path()
    }

    /// The user config file path (under the temp home).
    pub fn user_config(&self) -> PathBuf {
        self.home
            .path()
            .join("config")
            .join("rebound")
            .join("config.toml")
    }

    /// Writes the workspace's `rebound.toml`.
    pub fn workspace_config(&self, text: &str) {
        std::fs::write(self.ws().join("rebound.toml"), text).unwrap();
    }

    /// Writes the user config.
    pub fn write_user_config(&self, text: &str) {
        let path = self.user_config();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The environment `rebound` runs with: the temp home, no user
    /// settings, and the fake model's URL when given.
    pub fn vars(&self, model: Option<&FakeModel>) -> Vec<(String, String)> {
        let home = self.home.path();
        let mut vars = vec![
            ("HOME".to_string(), home.display().to_string()),
            (
                "XDG_CONFIG_HOME".to_string(),
                home.join("config").display().to_string(),
            ),
            (
                "XDG_CACHE_HOME".to_string(),
                home.join("cache").display().to_string(),
            ),
            ("OPENAI_API_KEY".to_string(), FAKE_KEY.to_string()),
            ("NO_COLOR".to_string(), "1".to_string()),
            ("RUST_BACKTRACE".to_string(), "0".to_string()),
        ];
        if let Some(model) = model {
            vars.push(("OPENAI_BASE_URL".to_string(), model.base_url.clone()));
        }
        vars
    }

    /// `rebound` in the workspace, with [`TestEnv::vars`].
    pub fn rebound(&self, model: Option<&FakeModel>) -> assert_cmd::Command {
        let mut command = assert_cmd::Command::cargo_bin("rebound").unwrap();
        command.current_dir(self.ws()).env_clear();
        if let Ok(path) = std::env::var("PATH") {
            command.env("PATH", path);
        }
        command.envs(self.vars(model));
        command.timeout(Duration::from_secs(120));
        command
    }

    /// Runs `goal` with `--json` on `model`, checks that it finished
    /// unverified (exit 4: the fake model's finish has no check behind it),
    /// and returns its thread id.
    pub fn run_unverified(&self, model: &FakeModel, goal: &str) -> String {
        let output = self
            .rebound(Some(model))
            .args(TestEnv::run_args(goal, &["--json"]))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(4), "{}", output_text(&output));
        thread_id(&json_lines(&output.stdout))
    }

    /// `rebound run <goal> --model openai:test --json` arguments.
    pub fn run_args<'a>(goal: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec!["run", goal, "--model", "openai:test"];
        args.extend_from_slice(extra);
        args
    }
}

/// The JSON lines of `stdout`, each parsed.
pub fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

/// The `summary` object of a `--json` run's last line.
pub fn summary(lines: &[Value]) -> Value {
    lines
        .last()
        .and_then(|line| line.get("summary"))
        .cloned()
        .unwrap_or_else(|| panic!("the last line is not a summary: {:?}", lines.last()))
}

/// The thread id a `--json` run reports.
pub fn thread_id(lines: &[Value]) -> String {
    summary(lines)["thread_id"].as_str().unwrap().to_string()
}

/// stdout and stderr, for assertion messages.
pub fn output_text(output: &std::process::Output) -> String {
    format!(
        "exit: {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
