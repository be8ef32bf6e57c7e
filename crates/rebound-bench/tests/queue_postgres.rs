//! `queue-postgres` at a small size against a real PostgreSQL server (the
//! one of `REBOUND_POSTGRES_URL`, else a throwaway cluster of
//! `rebound_postgres::testing`): 200 runs through 2 worker processes, and
//! its one JSON line. Skipped, saying why, without PostgreSQL, unless
//! `REBOUND_REQUIRE_POSTGRES=1`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use serde_json::Value;

#[test]
fn queue_postgres_runs_every_run_through_two_worker_processes() {
    let url = match rebound_postgres::testing::admin_url() {
        Ok(url) => url,
        Err(reason) => {
            assert!(
                std::env::var("REBOUND_REQUIRE_POSTGRES").as_deref() != Ok("1"),
                "REBOUND_REQUIRE_POSTGRES=1 but no PostgreSQL: {reason}"
            );
            eprintln!("skipped: no PostgreSQL ({reason}); run scripts/postgres install");
            return;
        }
    };
    let output = Command::new(env!("CARGO_BIN_EXE_rebound-bench"))
        .args(["queue-postgres", "--url", &url, "--runs", "200"])
        .args([
            "--workers",
            "2",
            "--concurrency",
            "4",
            "--runs-per-thread",
            "2",
        ])
        .output()
        .expect("run rebound-bench");
    assert!(
        output.status.success(),
        "queue-postgres failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("utf-8 output");
    assert_eq!(stdout.lines().count(), 1, "exactly one line: {stdout}");
    let line: Value = serde_json::from_str(&stdout).expect("a JSON line");

    assert_eq!(line["workload"], "queue-postgres", "{line}");
    assert_eq!(line["runs"], 200, "{line}");
    assert_eq!(line["node_steps"], 600, "{line}");
    assert_eq!(line["workers"], 2, "{line}");
    assert_eq!(line["concurrency"], 4, "{line}");
    assert_eq!(line["runs_per_thread"], 2, "{line}");
    assert_eq!(line["succeeded"], 200, "{line}");
    assert_eq!(line["failed"], 0, "{line}");
    assert_eq!(line["verified"], true, "{line}");
    assert_eq!(line["postgres"], "--url", "{line}");
    for field in ["wall_s", "runs_per_s", "enqueue_s"] {
        assert!(line[field].as_f64().unwrap() > 0.0, "{field}: {line}");
    }
    // Every run was claimed, by claims of one run or more, each timed; a
    // run whose lease ran out on a loaded machine is claimed once more.
    let claims = line["claims"].as_u64().unwrap();
    let empty = line["claims_empty"].as_u64().unwrap();
    let reclaimed = line["reclaimed"].as_u64().unwrap();
    assert!(
        claims > empty && claims - empty <= 200 + reclaimed,
        "{line}"
    );
    let per_claim = line["runs_per_busy_claim"].as_f64().unwrap();
    assert!(per_claim >= 1.0, "{line}");
    let (p50, p99) = (
        line["claim_p50_ms"].as_f64().unwrap(),
        line["claim_p99_ms"].as_f64().unwrap(),
    );
    assert!(0.0 < p50 && p50 <= p99, "{line}");
    let (busy_p50, busy_p99) = (
        line["claim_busy_p50_ms"].as_f64().unwrap(),
        line["claim_busy_p99_ms"].as_f64().unwrap(),
    );
    assert!(0.0 < busy_p50 && busy_p50 <= busy_p99, "{line}");
}
