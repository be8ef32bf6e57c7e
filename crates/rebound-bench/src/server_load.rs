//! `server-load`: a load client for any server that speaks the Agent Server
//! API (LangGraph's `langgraph dev`, or rebound's own server), so the two can
//! be measured side by side with the same client.
//!
//! ```text
//! rebound-bench server-load --url http://127.0.0.1:2024 --assistant bench \
//!     [--clients 64] [--runs 20000 | --seconds 10] [--mode wait|stream|mixed] \
//!     [--token T] [--timeout-s 60] [--server-pid PID [--sample-every S [--warmup-s 300]]] \
//!     [--new-thread-every N] [--runtime multi-thread]
//! ```
//!
//! First it creates one thread per client (`POST /threads` with `{}`), then
//! every client loops on its own thread until `--runs` runs have been started
//! in total (default: 20,000 in `wait` mode, one per client in `stream` mode)
//! or `--seconds` have passed:
//!
//! - `--mode wait`: `POST /threads/{id}/runs/wait` with
//!   `{"assistant_id": ID, "input": {}}`; a run counts when the answer is
//!   HTTP 200 with a JSON object as its body. The latency is the whole request.
//! - `--mode stream`: `POST /threads/{id}/runs/stream` with
//!   `{"assistant_id": ID, "input": {}, "stream_mode": ["values"]}`, read to
//!   its `end` event or EOF. A run counts when the answer is HTTP 200, has at
//!   least one `values` event and no `error` event. `first_event_*` is the
//!   time from sending the request until the first event (LangGraph's is
//!   `metadata`) has arrived and been parsed: the "first event" figure.
//!   `first_body_byte_*` is the time until any byte of the body, SSE comments
//!   included, so it is earlier when a server sends heartbeat comments before
//!   its first event (LangGraph does). `p50_ms`/`p99_ms` are whole streams.
//!
//! - `--mode mixed`: the even clients `wait`, the odd ones `stream` (a
//!   soak of both).
//!
//! `--token T` sends `Authorization: Bearer T`. `--server-pid PID` samples the
//! server's resident memory (`/proc/PID/status`, every 50 ms) during the load
//! and reports its peak; with `--sample-every S`, also its memory and open
//! files every S seconds (`server_curve`: `[seconds, resident MB, anonymous
//! MB, open files]`) and
//! their growth from the first sample after `--warmup-s` to the last (see
//! `server_memory.rs`). The client raises its own open-file limit to fit
//! `--clients` connections, or says why it can't. A client that sees 10 errors
//! in a row stops (`gave_up_clients`). The output is one JSON line; `runs`
//! counts successful runs only, `runs_per_s` is `runs / seconds`.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use eventsource_stream::{EventStreamError, Eventsource};
use futures_util::{stream, StreamExt};
use serde_json::{json, Value};

use crate::rss::peak_rss_mb;
use crate::server_memory;
use crate::workloads::round;

/// Runs started in total in `wait` mode when neither `--runs` nor `--seconds` is given.
const DEFAULT_WAIT_RUNS: u64 = 20_000;
/// A client stops after this many errors in a row.
const MAX_CONSECUTIVE_ERRORS: u32 = 10;
/// How many distinct error messages the report keeps.
const MAX_ERROR_SAMPLES: usize = 5;
/// How many threads are created at once before the load starts.
const THREAD_CREATION_CONCURRENCY: usize = 64;

/// Which endpoint `server-load` drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LoadMode {
    /// `POST /threads/{id}/runs/wait`.
    Wait,
    /// `POST /threads/{id}/runs/stream` with `stream_mode: ["values"]`.
    Stream,
    /// Half the clients `wait`, the other half `stream` (a soak of both).
    Mixed,
}

impl LoadMode {
    fn name(self) -> &'static str {
        match self {
            LoadMode::Wait => "wait",
            LoadMode::Stream => "stream",
            LoadMode::Mixed => "mixed",
        }
    }
}

/// The flags of the `server-load` workload (ignored by the others, except
/// `--url`, which `steps-postgres` reads too).
#[derive(Debug, Clone, clap::Args)]
pub struct ServerLoadArgs {
    /// `server-load`: base URL of the Agent Server, e.g. http://127.0.0.1:2024.
    /// `steps-postgres`: the PostgreSQL server, postgres://user:password@host:port/db
    /// (a user that may create databases; default: REBOUND_POSTGRES_URL, else a
    /// throwaway local cluster).
    #[arg(long)]
    pub url: Option<String>,
    /// `server-load`: the assistant id (or graph id) to run.
    #[arg(long)]
    pub assistant: Option<String>,
    /// `server-load`: concurrent clients, each on its own thread.
    #[arg(long, default_value_t = 64)]
    pub clients: usize,
    /// `server-load`: runs to start in total (default: 20000 in wait mode, one per client in stream mode).
    #[arg(long, conflicts_with = "seconds")]
    pub runs: Option<u64>,
    /// `server-load`: start runs for this many seconds instead of a fixed number.
    #[arg(long)]
    pub seconds: Option<f64>,
    /// `server-load`: which endpoint to drive.
    #[arg(long, value_enum, default_value = "wait")]
    pub mode: LoadMode,
    /// `server-load`: sent as `Authorization: Bearer <token>`.
    #[arg(long)]
    pub token: Option<String>,
    /// `server-load`: timeout of one request, whole stream included, in seconds.
    #[arg(long, default_value_t = 60.0)]
    pub timeout_s: f64,
    /// `server-load`: pid of the server, whose resident memory is sampled during the load.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// `server-load` with `--server-pid`: also report the server's memory and
    /// open files every this many seconds (a soak's curve).
    #[arg(long)]
    pub sample_every: Option<f64>,
    /// `server-load` with `--sample-every`: the growth of memory and open
    /// files is reported from the first sample at or after this many seconds.
    #[arg(long, default_value_t = 300.0)]
    pub warmup_s: f64,
    /// `server-load`: each client starts a new thread after this many runs
    /// on one (default: one thread per client for the whole load). A
    /// thread's state holds every run's output, so a long load on fixed
    /// threads measures ever larger states; a soak bounds them this way.
    #[arg(long)]
    pub new_thread_every: Option<u64>,
}

/// When the clients stop starting runs.
#[derive(Debug, Clone, Copy)]
enum Budget {
    /// After this many runs have been started in total.
    Runs(u64),
    /// After this long since the load started.
    Time(Duration),
}

/// What the clients share while the load runs.
struct Shared {
    budget: Budget,
    started: Instant,
    tickets: AtomicU64,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

impl Shared {
    fn may_start_run(&self) -> bool {
        match self.budget {
            Budget::Runs(total) => self.tickets.fetch_add(1, Ordering::Relaxed) < total,
            Budget::Time(limit) => self.started.elapsed() < limit,
        }
    }

    fn enter(&self) {
        let now = self.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
        self.max_in_flight.fetch_max(now, Ordering::Relaxed);
    }

    fn leave(&self) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The server, the assistant and the HTTP client every request goes through.
struct Target {
    http: reqwest::Client,
    base: String,
    assistant: String,
}

/// What one client measured.
#[derive(Default)]
struct Tally {
    latencies_ms: Vec<f64>,
    first_body_byte_ms: Vec<f64>,
    first_event_ms: Vec<f64>,
    events: u64,
    errors: u64,
    error_samples: Vec<String>,
    gave_up: bool,
}

impl Tally {
    fn record_error(&mut self, error: &anyhow::Error) {
        self.errors += 1;
        let message = format!("{error:#}");
        if self.error_samples.len() < MAX_ERROR_SAMPLES && !self.error_samples.contains(&message) {
            self.error_samples.push(message);
        }
    }

    fn merge(&mut self, other: Tally) {
        self.latencies_ms.extend(other.latencies_ms);
        self.first_body_byte_ms.extend(other.first_body_byte_ms);
        self.first_event_ms.extend(other.first_event_ms);
        self.events += other.events;
        self.errors += other.errors;
        for message in other.error_samples {
            if self.error_samples.len() < MAX_ERROR_SAMPLES
                && !self.error_samples.contains(&message)
            {
                self.error_samples.push(message);
            }
        }
        self.gave_up |= other.gave_up;
    }
}

/// What one successful stream measured.
struct StreamTimes {
    first_body_byte: Duration,
    first_event: Duration,
    events: u64,
}

/// Runs the `server-load` workload and returns its JSON line.
pub async fn server_load(args: &ServerLoadArgs) -> Result<Value> {
    let Some(url) = args.url.as_deref() else {
        bail!("server-load needs --url (e.g. --url http://127.0.0.1:2024)");
    };
    let Some(assistant) = args.assistant.clone() else {
        bail!("server-load needs --assistant (an assistant id or graph id)");
    };
    if args.clients == 0 {
        bail!("--clients must be at least 1");
    }
    if args.new_thread_every == Some(0) {
        bail!("--new-thread-every must be at least 1");
    }
    let budget = match (args.runs, args.seconds) {
        (_, Some(seconds)) if !(seconds.is_finite() && seconds > 0.0) => {
            bail!("--seconds must be a positive number, not {seconds}")
        }
        (_, Some(seconds)) => Budget::Time(Duration::from_secs_f64(seconds)),
        (Some(runs), None) => Budget::Runs(runs),
        (None, None) => Budget::Runs(match args.mode {
            LoadMode::Wait => DEFAULT_WAIT_RUNS,
            LoadMode::Stream | LoadMode::Mixed => args.clients as u64,
        }),
    };
    let sample_every = match args.sample_every {
        Some(s) if !(s.is_finite() && s > 0.0) => {
            bail!("--sample-every must be a positive number of seconds, not {s}")
        }
        Some(_) if args.server_pid.is_none() => {
            bail!("--sample-every samples the server: it needs --server-pid")
        }
        Some(s) => Some(Duration::from_secs_f64(s)),
        None => None,
    };
    if !(args.warmup_s.is_finite() && args.warmup_s >= 0.0) {
        bail!(
            "--warmup-s must be a number of seconds, not {}",
            args.warmup_s
        );
    }
    let fd_limit = raise_open_file_limit(args.clients)?;
    let target = Arc::new(Target {
        http: http_client(args)?,
        base: url.trim_end_matches('/').to_owned(),
        assistant,
    });

    let threads = create_threads(&target, args.clients).await?;

    let sampler = args
        .server_pid
        .map(|pid| server_memory::Sampler::start(pid, sample_every));
    let shared = Arc::new(Shared {
        budget,
        started: Instant::now(),
        tickets: AtomicU64::new(0),
        in_flight: AtomicUsize::new(0),
        max_in_flight: AtomicUsize::new(0),
    });
    let mut clients = Vec::with_capacity(threads.len());
    for (i, thread_id) in threads.into_iter().enumerate() {
        let target = Arc::clone(&target);
        let shared = Arc::clone(&shared);
        let streams = match args.mode {
            LoadMode::Wait => false,
            LoadMode::Stream => true,
            LoadMode::Mixed => i % 2 == 1,
        };
        clients.push(tokio::spawn(client_loop(
            target,
            shared,
            thread_id,
            streams,
            args.new_thread_every,
        )));
    }
    let mut total = Tally::default();
    let mut gave_up_clients = 0u64;
    for client in clients {
        let tally = client.await.context("a load client panicked")?;
        gave_up_clients += u64::from(tally.gave_up);
        total.merge(tally);
    }
    let seconds = shared.started.elapsed().as_secs_f64();
    let server = match sampler {
        Some(sampler) => Some(sampler.finish().await?),
        None => None,
    };

    let runs = total.latencies_ms.len() as u64;
    if runs == 0 {
        let first = total
            .error_samples
            .first()
            .cloned()
            .unwrap_or_else(|| "no run was started".to_owned());
        bail!(
            "no run succeeded against {} ({} errors); first error: {first}",
            target.base,
            total.errors
        );
    }
    let mut line = json!({
        "workload": "server-load",
        "mode": args.mode.name(),
        "url": target.base,
        "assistant": target.assistant,
        "clients": args.clients,
        "runs": runs,
        "errors": total.errors,
        "gave_up_clients": gave_up_clients,
        "seconds": round(seconds, 3),
        "runs_per_s": round(runs as f64 / seconds, 1),
        "p50_ms": round(percentile(&mut total.latencies_ms, 0.50), 3),
        "p99_ms": round(percentile(&mut total.latencies_ms, 0.99), 3),
        "max_in_flight": shared.max_in_flight.load(Ordering::Relaxed),
        "client_peak_rss_mb": round(peak_rss_mb(), 1),
        "client_open_file_limit": fd_limit,
        "server_peak_rss_mb": null,
        "error_samples": total.error_samples,
    });
    if let (Some(server), Value::Object(fields)) = (&server, &mut line) {
        fields.extend(server.report(Duration::from_secs_f64(args.warmup_s)));
    }
    if args.mode != LoadMode::Wait {
        if let Value::Object(fields) = &mut line {
            fields.extend([
                (
                    "first_body_byte_p50_ms".to_owned(),
                    json!(round(percentile(&mut total.first_body_byte_ms, 0.50), 3)),
                ),
                (
                    "first_body_byte_p99_ms".to_owned(),
                    json!(round(percentile(&mut total.first_body_byte_ms, 0.99), 3)),
                ),
                (
                    "first_event_p50_ms".to_owned(),
                    json!(round(percentile(&mut total.first_event_ms, 0.50), 3)),
                ),
                (
                    "first_event_p99_ms".to_owned(),
                    json!(round(percentile(&mut total.first_event_ms, 0.99), 3)),
                ),
                ("events".to_owned(), json!(total.events)),
            ]);
        }
    }
    Ok(line)
}

/// The pooled HTTP/1.1 client shared by every load client.
fn http_client(args: &ServerLoadArgs) -> Result<reqwest::Client> {
    if !(args.timeout_s.is_finite() && args.timeout_s > 0.0) {
        bail!("--timeout-s must be a positive number");
    }
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(token) = &args.token {
        let value = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))
            .context("--token is not a valid header value")?;
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    reqwest::Client::builder()
        .default_headers(headers)
        .pool_max_idle_per_host(args.clients)
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs_f64(args.timeout_s))
        .build()
        .context("building the HTTP client")
}

/// Creates `count` threads, a few at a time, and returns their ids.
async fn create_threads(target: &Target, count: usize) -> Result<Vec<String>> {
    let created: Vec<Result<String>> = stream::iter(0..count)
        .map(|_| create_thread(target))
        .buffer_unordered(THREAD_CREATION_CONCURRENCY)
        .collect()
        .await;
    created.into_iter().collect()
}

/// One `POST /threads`: the new thread's id.
async fn create_thread(target: &Target) -> Result<String> {
    let url = format!("{}/threads", target.base);
    let response = target
        .http
        .post(&url)
        .json(&json!({}))
        .send()
        .await
        .with_context(|| format!("POST {url} (is the server running?)"))?;
    let thread = checked_json(response, &url).await?;
    match thread.get("thread_id").and_then(Value::as_str) {
        Some(id) => Ok(id.to_owned()),
        None => bail!("POST {url} answered without a thread_id: {thread}"),
    }
}

/// The JSON body of a response, or an error naming its status and the start of its body.
pub(crate) async fn checked_json(response: reqwest::Response, url: &str) -> Result<Value> {
    let status = response.status();
    let body = response
        .bytes()
        .await
        .with_context(|| format!("reading the answer of {url}"))?;
    if status != reqwest::StatusCode::OK {
        let text = String::from_utf8_lossy(&body);
        let text: String = text.chars().take(200).collect();
        bail!("{url} answered HTTP {status}: {text}");
    }
    serde_json::from_slice(&body)
        .with_context(|| format!("{url} answered something other than JSON"))
}

/// One client: runs on its own thread until the budget is spent, with
/// `runs/stream` when `streams`, else `runs/wait`; a new thread after
/// `new_thread_every` runs, when given.
async fn client_loop(
    target: Arc<Target>,
    shared: Arc<Shared>,
    mut thread_id: String,
    streams: bool,
    new_thread_every: Option<u64>,
) -> Tally {
    let mut tally = Tally::default();
    let mut consecutive_errors = 0u32;
    let mut on_thread = 0u64;
    while shared.may_start_run() {
        if new_thread_every.is_some_and(|most| on_thread >= most) {
            match create_thread(&target).await {
                Ok(id) => {
                    thread_id = id;
                    on_thread = 0;
                }
                // Counted; the client goes on with its thread and tries
                // again before its next run.
                Err(error) => tally.record_error(&error),
            }
        }
        on_thread += 1;
        let started = Instant::now();
        shared.enter();
        let outcome = if streams {
            stream_run(&target, &thread_id, started).await.map(Some)
        } else {
            wait_run(&target, &thread_id).await.map(|()| None)
        };
        shared.leave();
        match outcome {
            Ok(times) => {
                consecutive_errors = 0;
                tally.latencies_ms.push(millis(started.elapsed()));
                if let Some(times) = times {
                    tally.first_body_byte_ms.push(millis(times.first_body_byte));
                    tally.first_event_ms.push(millis(times.first_event));
                    tally.events += times.events;
                }
            }
            Err(error) => {
                tally.record_error(&error);
                consecutive_errors += 1;
                if consecutive_errors >= MAX_CONSECUTIVE_ERRORS {
                    tally.gave_up = true;
                    break;
                }
            }
        }
    }
    tally
}

/// One `runs/wait`: HTTP 200 with a JSON object as its body.
async fn wait_run(target: &Target, thread_id: &str) -> Result<()> {
    let url = format!("{}/threads/{thread_id}/runs/wait", target.base);
    let response = target
        .http
        .post(&url)
        .json(&json!({ "assistant_id": target.assistant, "input": {} }))
        .send()
        .await
        .with_context(|| format!("POST {url}"))?;
    let value = checked_json(response, &url).await?;
    if !value.is_object() {
        bail!("{url} answered {value}, not a JSON object");
    }
    Ok(())
}

/// One `runs/stream`, read to its `end` event or EOF.
async fn stream_run(target: &Target, thread_id: &str, started: Instant) -> Result<StreamTimes> {
    let url = format!("{}/threads/{thread_id}/runs/stream", target.base);
    let response = target
        .http
        .post(&url)
        .header(reqwest::header::ACCEPT, "text/event-stream")
        .json(&json!({
            "assistant_id": target.assistant,
            "input": {},
            "stream_mode": ["values"],
        }))
        .send()
        .await
        .with_context(|| format!("POST {url}"))?;
    if response.status() != reqwest::StatusCode::OK {
        let status = response.status();
        checked_json(response, &url).await?;
        bail!("{url} answered HTTP {status}");
    }
    let first_body_byte = OnceLock::new();
    let mut first_event = None;
    let mut events = 0u64;
    let mut values = 0u64;
    let mut sse = response
        .bytes_stream()
        .inspect(|chunk| {
            if first_body_byte.get().is_none() && matches!(chunk, Ok(bytes) if !bytes.is_empty()) {
                let _ = first_body_byte.set(started.elapsed());
            }
        })
        .eventsource();
    while let Some(event) = sse.next().await {
        let event = event
            .map_err(|error| match error {
                EventStreamError::Transport(error) => anyhow::Error::new(error),
                other => anyhow::anyhow!("{other}"),
            })
            .with_context(|| format!("reading the event stream of {url}"))?;
        first_event.get_or_insert_with(|| started.elapsed());
        events += 1;
        match event.event.as_str() {
            "values" => values += 1,
            "error" => bail!("{url} streamed an error event: {}", event.data),
            "end" => break,
            _ => {}
        }
    }
    drop(sse);
    let (Some(first_body_byte), Some(first_event)) = (first_body_byte.get().copied(), first_event)
    else {
        bail!("{url} ended its stream without an event");
    };
    if values == 0 {
        bail!("{url} streamed {events} events but no `values` event");
    }
    Ok(StreamTimes {
        first_body_byte,
        first_event,
        events,
    })
}

/// Raises this process's soft open-file limit so `clients` connections fit,
/// and returns the limit in force.
#[allow(unsafe_code)] // getrlimit/setrlimit have no safe wrapper in std; they only read and write the struct we own.
fn raise_open_file_limit(clients: usize) -> Result<u64> {
    let needed = (clients as u64).saturating_mul(2).saturating_add(256);
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        bail!(
            "getrlimit(RLIMIT_NOFILE) failed: {}",
            std::io::Error::last_os_error()
        );
    }
    if limit.rlim_cur >= needed {
        return Ok(limit.rlim_cur);
    }
    let minimum = (clients as u64).saturating_add(64);
    if limit.rlim_max < minimum {
        bail!(
            "{clients} clients need about {needed} open files but the hard limit is {}; raise it (ulimit -Hn) or use fewer --clients",
            limit.rlim_max
        );
    }
    let raised = libc::rlimit {
        rlim_cur: needed.min(limit.rlim_max),
        rlim_max: limit.rlim_max,
    };
    // SAFETY: `raised` is a valid rlimit whose soft limit does not exceed the hard one.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
        bail!(
            "could not raise the open-file limit to {}: {}",
            raised.rlim_cur,
            std::io::Error::last_os_error()
        );
    }
    Ok(raised.rlim_cur)
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// The nearest-rank percentile `p` (0..=1) of `values`, NaN when empty.
fn percentile(values: &mut [f64], p: f64) -> f64 {
    crate::workloads::percentile(values, p).unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    use tokio::net::{TcpListener, TcpStream};

    /// A loopback stand-in for an Agent Server that knows the assistant
    /// `bench`: `POST /threads`, `runs/wait` and `runs/stream`.
    async fn fake_server() -> String {
        fake_server_counting(Arc::new(AtomicUsize::new(0))).await
    }

    /// [`fake_server`], counting the threads it makes in `threads`.
    async fn fake_server_counting(threads: Arc<AtomicUsize>) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, Arc::clone(&threads)));
            }
        });
        format!("http://{address}/")
    }

    /// Answers the requests of one keep-alive connection.
    async fn serve(socket: TcpStream, threads: Arc<AtomicUsize>) {
        let mut reader = BufReader::new(socket);
        loop {
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).await.unwrap_or(0) == 0 {
                return;
            }
            let mut length = 0;
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).await.unwrap_or(0) == 0 {
                    return;
                }
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap();
                    }
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).await.unwrap();
            let body: Value = serde_json::from_slice(&body).unwrap();
            let path = request_line.split_whitespace().nth(1).unwrap_or_default();
            let known = body["assistant_id"] == "bench";
            let (status, content_type, payload) = match path {
                "/threads" => {
                    threads.fetch_add(1, Ordering::Relaxed);
                    ("200 OK", "application/json", r#"{"thread_id":"t"}"#)
                }
                _ if !known => ("404 Not Found", "text/plain", "no such assistant"),
                _ if path.ends_with("/runs/wait") => (
                    "200 OK",
                    "application/json",
                    r#"{"count":3,"log":["plan","act","review"]}"#,
                ),
                _ if path.ends_with("/runs/stream") => (
                    "200 OK",
                    "text/event-stream",
                    ": heartbeat\n\nevent: metadata\ndata: {\"run_id\":\"r\"}\n\nevent: values\ndata: {\"count\":1}\n\nevent: end\ndata: null\n\n",
                ),
                _ => ("404 Not Found", "text/plain", "no such route"),
            };
            let response = format!(
                "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n{payload}",
                payload.len()
            );
            if reader
                .get_mut()
                .write_all(response.as_bytes())
                .await
                .is_err()
            {
                return;
            }
        }
    }

    fn args(url: String, assistant: &str, mode: LoadMode) -> ServerLoadArgs {
        ServerLoadArgs {
            url: Some(url),
            assistant: Some(assistant.to_owned()),
            clients: 4,
            runs: None,
            seconds: None,
            mode,
            token: Some("secret".to_owned()),
            timeout_s: 10.0,
            server_pid: Some(std::process::id()),
            sample_every: None,
            warmup_s: 300.0,
            new_thread_every: None,
        }
    }

    #[tokio::test]
    async fn wait_mode_counts_every_run() {
        let mut args = args(fake_server().await, "bench", LoadMode::Wait);
        args.runs = Some(50);
        let line = server_load(&args).await.unwrap();
        assert_eq!(line["workload"], "server-load");
        assert_eq!(line["mode"], "wait");
        assert_eq!(line["runs"], 50);
        assert_eq!(line["errors"], 0);
        assert_eq!(line["clients"], 4);
        assert!(line["p50_ms"].as_f64().unwrap() <= line["p99_ms"].as_f64().unwrap());
        assert!(line["runs_per_s"].as_f64().unwrap() > 0.0);
        assert!(line["server_peak_rss_mb"].as_f64().unwrap() > 0.0);
        assert!(line.get("first_event_p50_ms").is_none(), "{line}");
    }

    #[tokio::test]
    async fn stream_mode_times_the_first_event() {
        let mut args = args(fake_server().await, "bench", LoadMode::Stream);
        args.clients = 16;
        let line = server_load(&args).await.unwrap();
        assert_eq!(line["mode"], "stream");
        assert_eq!(line["runs"], 16, "one stream per client by default: {line}");
        assert_eq!(line["errors"], 0);
        assert_eq!(line["events"], 16 * 3);
        let first_body_byte = line["first_body_byte_p50_ms"].as_f64().unwrap();
        let first_event = line["first_event_p50_ms"].as_f64().unwrap();
        assert!(first_body_byte <= first_event, "{line}");
    }

    #[tokio::test]
    async fn mixed_mode_waits_and_streams_and_samples_a_curve() {
        let mut args = args(fake_server().await, "bench", LoadMode::Mixed);
        args.seconds = Some(0.5);
        args.sample_every = Some(0.1);
        args.warmup_s = 0.2;
        let line = server_load(&args).await.unwrap();
        assert_eq!(line["mode"], "mixed");
        assert_eq!(line["errors"], 0, "{line}");
        let runs = line["runs"].as_u64().unwrap();
        let streamed = line["events"].as_u64().unwrap() / 3;
        assert!(streamed > 0 && streamed < runs, "both kinds ran: {line}");
        assert!(
            line["server_curve"].as_array().unwrap().len() >= 5,
            "{line}"
        );
        assert!(
            line["server_rss_growth_after_warmup_pct"].is_number(),
            "{line}"
        );
    }

    #[tokio::test]
    async fn new_thread_every_makes_new_threads() {
        let threads = Arc::new(AtomicUsize::new(0));
        let url = fake_server_counting(Arc::clone(&threads)).await;
        let mut args = args(url, "bench", LoadMode::Wait);
        args.clients = 1;
        args.runs = Some(10);
        args.new_thread_every = Some(3);
        let line = server_load(&args).await.unwrap();
        assert_eq!(line["runs"], 10);
        assert_eq!(line["errors"], 0, "{line}");
        // The first thread, then a new one before runs 4, 7 and 10.
        assert_eq!(threads.load(Ordering::Relaxed), 4);
    }

    #[tokio::test]
    async fn a_curve_needs_the_servers_pid() {
        let mut args = args(fake_server().await, "bench", LoadMode::Wait);
        args.server_pid = None;
        args.sample_every = Some(1.0);
        let error = format!("{:#}", server_load(&args).await.unwrap_err());
        assert!(error.contains("--server-pid"), "{error}");
    }

    #[tokio::test]
    async fn seconds_bound_the_load() {
        let mut args = args(fake_server().await, "bench", LoadMode::Wait);
        args.seconds = Some(0.2);
        let line = server_load(&args).await.unwrap();
        assert!(line["runs"].as_u64().unwrap() > 0);
        assert!(line["seconds"].as_f64().unwrap() < 5.0, "{line}");
    }

    #[tokio::test]
    async fn an_unknown_assistant_fails_with_the_servers_answer() {
        let mut args = args(fake_server().await, "nope", LoadMode::Wait);
        args.runs = Some(8);
        let error = format!("{:#}", server_load(&args).await.unwrap_err());
        assert!(error.contains("no run succeeded"), "{error}");
        assert!(error.contains("404"), "{error}");
        assert!(error.contains("no such assistant"), "{error}");
    }

    #[tokio::test]
    async fn a_closed_port_says_the_server_is_not_running() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        let args = args(format!("http://{address}"), "bench", LoadMode::Wait);
        let error = format!("{:#}", server_load(&args).await.unwrap_err());
        assert!(error.contains("is the server running?"), "{error}");
    }

    #[test]
    fn percentile_is_nearest_rank() {
        let mut values: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(percentile(&mut values, 0.50), 50.0);
        assert_eq!(percentile(&mut values, 0.99), 99.0);
        assert_eq!(percentile(&mut values, 1.0), 100.0);
        assert_eq!(percentile(&mut [7.0], 0.99), 7.0);
        assert!(percentile(&mut [], 0.5).is_nan());
    }
}
