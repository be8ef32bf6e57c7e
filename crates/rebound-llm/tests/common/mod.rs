//! A tiny HTTP/1.1 server on 127.0.0.1 for the provider tests: it answers
//! each request with the next scripted [`Reply`] and records what it got.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The fake key the tests use; it must never show in an error.
pub const FAKE_KEY: &str = "sk-test-FAKEKEY-0123456789";

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The request line's path.
    pub path: String,
    /// The headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body, as JSON.
    pub body: serde_json::Value,
    /// When it arrived.
    pub at: Instant,
}

impl Recorded {
    /// The value of header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// How the server answers one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A whole body with a status and extra headers.
    Body {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Server-Sent Events, each written separately; with `stall`, the
    /// connection then stays open and silent instead of closing.
    Events { events: Vec<String>, stall: bool },
}

impl Reply {
    /// A JSON body.
    pub fn json(status: u16, value: serde_json::Value) -> Self {
        Reply::raw(status, &value.to_string())
    }

    /// Any body.
    pub fn raw(status: u16, body: &str) -> Self {
        Reply::Body {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    /// Adds a header (for [`Reply::Body`]).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Reply::Body { headers, .. } = &mut self {
            headers.push((name.to_string(), value.to_string()));
        }
        self
    }

    /// SSE events from `data:` payloads (and optional `event:` names).
    pub fn sse<'a>(events: impl IntoIterator<Item = (Option<&'a str>, String)>) -> Self {
        Reply::Events {
            events: events
                .into_iter()
                .map(|(name, data)| match name {
                    Some(name) => format!("event: {name}\ndata: {data}\n\n"),
                    None => format!("data: {data}\n\n"),
                })
                .collect(),
            stall: false,
        }
    }

    /// The same events, then silence on an open connection.
    pub fn stalled(self) -> Self {
        match self {
            Reply::Events { events, .. } => Reply::Events {
                events,
                stall: true,
            },
            other => other,
        }
    }
}

/// A running test server.
pub struct TestServer {
    /// Its address.
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl TestServer {
    /// Starts a server answering with `replies` in order (then 500s).
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(std::collections::VecDeque::from(replies)));
        let recorded = requests.clone();
        tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let recorded = recorded.clone();
                let replies = replies.clone();
                tokio::spawn(async move {
                    serve(socket, recorded, replies).await;
                });
            }
        });
        TestServer { addr, requests }
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

async fn serve(
    mut socket: TcpStream,
    recorded: Arc<Mutex<Vec<Recorded>>>,
    replies: Arc<Mutex<std::collections::VecDeque<Reply>>>,
) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    recorded.lock().unwrap().push(request);
    let reply = replies.lock().unwrap().pop_front();
    let reply = reply.unwrap_or_else(|| Reply::raw(500, "no reply scripted"));
    match reply {
        Reply::Body {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
            let _ = socket.shutdown().await;
        }
        Reply::Events { events, stall } => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
            let _ = socket.write_all(head.as_bytes()).await;
            for event in events {
                let _ = socket.write_all(event.as_bytes()).await;
                let _ = socket.flush().await;
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            if stall {
                tokio::time::sleep(Duration::from_secs(30)).await;
            }
            let _ = socket.shutdown().await;
        }
    }
}

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let at = Instant::now();
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let path = lines.next()?.split(' ').nth(1)?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Recorded {
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
        at,
    })
}
