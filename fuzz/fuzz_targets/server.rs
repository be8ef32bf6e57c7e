//! The server on arbitrary requests: a real `rebound_server::Server` on
//! loopback (SQLite, a token, one worker) is sent raw HTTP requests built
//! from the input — a route, a path parameter, `Authorization` and
//! `Last-Event-ID` headers, a body. It must answer every one with a status
//! below 500 (or close a connection hyper refuses to read), and never
//! panic: libFuzzer's panic hook aborts on a panic in any thread, a
//! handler's included.
//!
//! The input: byte 0 chooses the route, byte 1 the flags (bit 0: the right
//! token, bit 1: send `Last-Event-ID`, bit 2: the real thread and run in
//! the path, bit 3: a JSON content type); the rest is split at `0xFF`
//! bytes into the path parameter, the `Last-Event-ID` value, the
//! `Authorization` value and the body.
#![no_main]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use rebound_graph::{CompiledGraph, NodeError, State, StateGraph, END, START};
use rebound_server::Server;
use serde::{Deserialize, Serialize};

const TOKEN: &str = "fuzz-token";

/// What the one graph keeps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
#[serde(default)]
struct Echo {
    topic: String,
    #[state(append)]
    said: Vec<String>,
}

fn graph() -> CompiledGraph<Echo> {
    let mut graph = StateGraph::<Echo>::new();
    graph
        .add_node("echo", |s: Arc<Echo>, _ctx| async move {
            Ok::<_, NodeError>(EchoUpdate::default().said(vec![s.topic.clone()]))
        })
        .add_edge(START, "echo")
        .add_edge("echo", END);
    graph.compile().unwrap_or_else(|e| panic!("the graph: {e}"))
}

/// The running server, a thread on it with one finished run.
struct Running {
    addr: SocketAddr,
    thread: String,
    run: String,
    _dir: tempfile::TempDir,
    _runtime: tokio::runtime::Runtime,
}

fn running() -> &'static Running {
    static RUNNING: OnceLock<Running> = OnceLock::new();
    RUNNING.get_or_init(|| {
        // libFuzzer's `main` runs instead of Rust's, which would have set
        // SIGPIPE to be ignored: a write to a connection the other side
        // closed must be an error (EPIPE), as in the real server, not the
        // end of the process.
        // SAFETY: setting a signal's disposition to SIG_IGN, before any
        // other thread of this target exists.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("a temp dir: {e}"));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("a runtime: {e}"));
        let server = Server::builder()
            .database(dir.path().join("state.db"))
            .graph("echo", graph())
            .token(Some(TOKEN.to_string()))
            .workers(1)
            .build()
            .unwrap_or_else(|e| panic!("the server: {e}"));
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap_or_else(|e| panic!("a port: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("the port: {e}"));
        runtime.spawn(server.serve(listener));
        let (_, thread) = send(addr, &request("POST", "/threads", true, &[], b"{}"));
        let thread = field(&thread, "thread_id");
        let body = br#"{"assistant_id": "echo", "input": {"topic": "seed"}}"#;
        let path = format!("/threads/{thread}/runs");
        let (_, run) = send(addr, &request("POST", &path, true, &[], body));
        let run = field(&run, "run_id");
        let join = format!("/threads/{thread}/runs/{run}/join");
        let (status, _) = send(addr, &request("GET", &join, true, &[], b""));
        assert_eq!(status, Some(200), "the seed run ends");
        Running {
            addr,
            thread,
            run,
            _dir: dir,
            _runtime: runtime,
        }
    })
}

/// `name`'s string value in a JSON answer's body.
fn field(answer: &[u8], name: &str) -> String {
    let text = String::from_utf8_lossy(answer);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
    let value: serde_json::Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {text}"));
    value[name]
        .as_str()
        .unwrap_or_else(|| panic!("no {name} in {text}"))
        .to_string()
}

/// A raw HTTP/1.1 request (the connection closed after it).
fn request(
    method: &str,
    path: &str,
    token: bool,
    headers: &[(&str, &[u8])],
    body: &[u8],
) -> Vec<u8> {
    let mut out = format!("{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n")
        .into_bytes();
    if token {
        out.extend(format!("authorization: Bearer {TOKEN}\r\n").as_bytes());
    }
    for (name, value) in headers {
        out.extend(name.as_bytes());
        out.extend(b": ");
        // A line break would start another header: not this header's test.
        out.extend(value.iter().filter(|b| **b != b'\r' && **b != b'\n'));
        out.extend(b"\r\n");
    }
    out.extend(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend(body);
    out
}

/// Sends `request` and reads the answer's head (and as much of its body as
/// comes within the read bound): the status, and the bytes read.
fn send(addr: SocketAddr, request: &[u8]) -> (Option<u16>, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect: {e}"));
    let bound = Some(Duration::from_secs(10));
    stream
        .set_read_timeout(bound)
        .and_then(|()| stream.set_write_timeout(bound))
        .unwrap_or_else(|e| panic!("timeouts: {e}"));
    // The server may answer (and close) before reading a refused body.
    let _ = stream.write_all(request);
    let mut answer = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                answer.extend_from_slice(&buffer[..n]);
                // A stream's head is enough: its events may go on.
                if answer.len() > 65_536 || is_stream_head(&answer) {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                panic!(
                    "no answer within 10 s to {:?}",
                    String::from_utf8_lossy(request)
                )
            }
            Err(_) => break,
        }
    }
    let status = answer
        .strip_prefix(b"HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| std::str::from_utf8(code).ok())
        .and_then(|code| code.parse().ok());
    (status, answer)
}

fn is_stream_head(answer: &[u8]) -> bool {
    answer.windows(4).any(|w| w == b"\r\n\r\n")
        && answer
            .windows(17)
            .any(|w| w.eq_ignore_ascii_case(b"text/event-stream"))
}

/// Routes: a method and a path with `{t}` (thread), `{r}` (run) and `{p}`
/// (the input's path parameter) to fill in.
const ROUTES: &[(&str, &str)] = &[
    ("POST", "/threads"),
    ("POST", "/threads/search"),
    ("POST", "/threads/count"),
    ("GET", "/threads/{t}"),
    ("PATCH", "/threads/{t}"),
    ("DELETE", "/threads/{p}"),
    ("GET", "/threads/{t}/state"),
    ("POST", "/threads/{t}/state"),
    ("POST", "/threads/{t}/state/checkpoint"),
    ("GET", "/threads/{t}/state/{p}"),
    ("POST", "/threads/{t}/copy"),
    ("GET", "/threads/{t}/history"),
    ("POST", "/threads/{t}/history"),
    ("GET", "/threads/{t}/runs"),
    ("POST", "/threads/{t}/runs"),
    ("POST", "/threads/{t}/runs/stream"),
    ("POST", "/threads/{t}/runs/wait"),
    ("GET", "/threads/{t}/runs/{r}"),
    ("GET", "/threads/{t}/runs/{r}/join"),
    ("GET", "/threads/{t}/runs/{r}/stream"),
    ("POST", "/threads/{t}/runs/{r}/cancel"),
    ("POST", "/runs/stream"),
    ("POST", "/runs/wait"),
    ("POST", "/runs"),
    ("POST", "/assistants/search"),
    ("POST", "/assistants/count"),
    ("GET", "/assistants/{p}"),
    ("GET", "/assistants/{p}/graph"),
    ("GET", "/assistants/{p}/schemas"),
    ("GET", "/info"),
    ("GET", "/ok"),
];

/// `bytes` as a path segment: percent-encoded but for unreserved bytes.
fn segment(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(*b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let running = running();
    let [route, flags, rest @ ..] = data else {
        return;
    };
    let mut parts = rest.splitn(4, |b| *b == 0xFF);
    let param = parts.next().unwrap_or_default();
    let last_event_id = parts.next().unwrap_or_default();
    let authorization = parts.next().unwrap_or_default();
    let body = parts.next().unwrap_or_default();
    let (method, template) = ROUTES[usize::from(*route) % ROUTES.len()];
    let real = flags & 4 != 0;
    let path = template
        .replace(
            "{t}",
            &if real {
                running.thread.clone()
            } else {
                segment(param)
            },
        )
        .replace(
            "{r}",
            &if real {
                running.run.clone()
            } else {
                segment(param)
            },
        )
        .replace("{p}", &segment(param));
    let mut headers: Vec<(&str, &[u8])> = Vec::new();
    if flags & 2 != 0 {
        headers.push(("last-event-id", last_event_id));
    }
    if flags & 1 == 0 && !authorization.is_empty() {
        headers.push(("authorization", authorization));
    }
    if flags & 8 != 0 {
        headers.push(("content-type", b"application/json"));
    }
    let raw = request(method, &path, flags & 1 != 0, &headers, body);
    let (status, answer) = send(running.addr, &raw);
    if let Some(status) = status {
        assert!(
            status < 500,
            "{status} for {:?}: {:?}",
            String::from_utf8_lossy(&raw),
            String::from_utf8_lossy(&answer)
        );
    }
});
