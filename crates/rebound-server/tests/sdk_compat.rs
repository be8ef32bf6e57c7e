//! LangGraph's own Python client drives a live rebound server: threads, runs,
//! SSE streams, an interrupt and its resume, history, join, cancel, a
//! `Last-Event-ID` reconnect and a 404 (tests/sdk/compat.py, whose
//! expectations were checked against LangGraph's own server first).
//!
//! The client lives in the venv that `scripts/sdk-venv` makes, at
//! `$REBOUND_SDK_VENV` or `~/.cache/rebound/sdk-venv`. Without it the test
//! says so and passes, unless `REBOUND_REQUIRE_SDK=1` (as on CI), when it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use rebound_server::Server;
use tokio::net::TcpListener;
use tokio::process::Command;

/// How long compat.py may take; it needs a few seconds.
const SDK_TIMEOUT: Duration = Duration::from_secs(120);

/// The venv's python, found as `scripts/sdk-venv` makes it.
fn sdk_python() -> PathBuf {
    let venv = match env::var_os("REBOUND_SDK_VENV") {
        Some(venv) if !venv.is_empty() => PathBuf::from(venv),
        _ => {
            let home = env::var_os("HOME").expect("HOME is set");
            Path::new(&home).join(".cache/rebound/sdk-venv")
        }
    };
    venv.join("bin").join("python")
}

fn sdk_required() -> bool {
    env::var("REBOUND_REQUIRE_SDK").is_ok_and(|v| v == "1")
}

fn report(output: &Output) -> String {
    format!(
        "compat.py exited with {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_langgraph_python_sdk_drives_the_server() {
    let python = sdk_python();
    if !python.exists() {
        assert!(
            !sdk_required(),
            "REBOUND_REQUIRE_SDK=1 but {} is missing: run scripts/sdk-venv",
            python.display()
        );
        eprintln!(
            "skipped: run scripts/sdk-venv ({} is missing)",
            python.display()
        );
        return;
    }

    let dir = tempfile::tempdir().unwrap();
    let server = Server::builder()
        .database(dir.path().join("state.db"))
        .graph("approval", common::approval_graph())
        .workers(2)
        .build()
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = tokio::spawn(server.serve(listener));

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sdk/compat.py");
    let child = Command::new(&python)
        .arg(&script)
        .arg(format!("http://{addr}"))
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        // httpx honours proxy variables: loopback must never go through one.
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", python.display()));
    // On timeout the child is dropped, which kills it.
    let output = tokio::time::timeout(SDK_TIMEOUT, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("compat.py did not finish in {SDK_TIMEOUT:?}"))
        .unwrap();

    assert!(
        !serving.is_finished(),
        "the server stopped during the test: {:?}",
        serving.await
    );
    serving.abort();
    assert!(output.status.success(), "{}", report(&output));
    println!("{}", String::from_utf8_lossy(&output.stdout));
}
