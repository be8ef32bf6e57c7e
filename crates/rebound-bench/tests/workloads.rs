//! Runs every workload of the benchmark binary at a small size and checks
//! its one JSON line: the fields of WORKLOADS.md §2 and `verified: true`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use serde_json::Value;

fn run(args: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_rebound-bench"))
        .args(args)
        .output()
        .expect("run rebound-bench");
    assert!(
        output.status.success(),
        "rebound-bench {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("utf-8 output");
    assert_eq!(stdout.lines().count(), 1, "exactly one line: {stdout}");
    let line: Value = serde_json::from_str(&stdout).expect("a JSON line");
    for field in [
        "workload",
        "node_steps",
        "wall_s",
        "us_per_step",
        "peak_rss_mb",
        "db_bytes",
        "verified",
    ] {
        assert!(line.get(field).is_some(), "{field} missing from {line}");
    }
    assert_eq!(line["verified"], Value::Bool(true), "{line}");
    line
}

#[test]
fn reference_loop_matches_the_spec() {
    let line = run(&["ref", "--n", "500"]);
    assert_eq!(line["node_steps"], 1714);
}

#[test]
fn steps_runs_the_expected_node_count() {
    let line = run(&["steps", "--n", "50"]);
    assert_eq!(line["node_steps"], 172);
    assert!(line["stream_events"].as_u64().unwrap() > 2 * 172);
}

#[test]
fn steps_mem_keeps_a_checkpoint_per_superstep() {
    let line = run(&["steps-mem", "--n", "50"]);
    assert_eq!(line["checkpoints"], 173, "{line}");
    let batched = run(&["steps-mem", "--n", "50", "--durability", "batched"]);
    assert_eq!(batched["durability"], "batched");
}

#[test]
fn steps_sqlite_reports_its_settings_and_file_size() {
    let line = run(&["steps-sqlite", "--n", "50", "--synchronous", "full"]);
    assert_eq!(line["sqlite_synchronous"], "full");
    assert_eq!(line["checkpoints"], 173);
    assert!(line["db_bytes"].as_u64().unwrap() > 0);
    let batched = run(&["steps-sqlite", "--n", "50", "--durability", "batched"]);
    assert!(batched["commits"].as_u64().unwrap() < 173, "{batched}");
}

#[test]
fn concurrent_runs_all_verify() {
    let line = run(&["concurrent", "--k", "50"]);
    assert_eq!(line["node_steps"], 50 * 69);
    let multi = run(&["concurrent", "--k", "50", "--runtime", "multi-thread"]);
    assert_eq!(multi["runtime"], "multi_thread");
}

#[test]
fn concurrent_sqlite_groups_commits() {
    let line = run(&["concurrent-sqlite", "--k", "20"]);
    assert_eq!(line["node_steps"], 20 * 69);
    assert!(
        line["commits"].as_u64().unwrap() < line["checkpoints"].as_u64().unwrap(),
        "{line}"
    );
}

#[test]
fn resume_in_a_child_process_finishes_the_run() {
    let line = run(&["resume", "--n", "400"]);
    assert_eq!(line["workload"], "resume");
    assert_eq!(
        line["node_steps"], 685,
        "the resumed remainder (WORKLOADS.md W5)"
    );
    assert!(line["resume_latency_ms"].as_f64().unwrap() > 0.0);
    assert!(line["db_bytes"].as_u64().unwrap() >= line["db_bytes_at_stop"].as_u64().unwrap());
}

#[test]
fn checkpoint_workloads_without_a_store_say_what_is_wrong() {
    let output = Command::new(env!("CARGO_BIN_EXE_rebound-bench"))
        .args(["resume-child", "--n", "20"])
        .output()
        .expect("run rebound-bench");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--db"));
}

#[test]
fn send_runs_one_superstep_of_k_sends() {
    let line = run(&["send", "--k", "50"]);
    assert_eq!(line["workload"], "send");
    assert_eq!(line["k"], 50);
    assert_eq!(line["node_steps"], 51);
    assert!(line["total_us"].as_f64().unwrap() > 0.0, "{line}");
    assert!(
        line["no_checkpointer_total_us"].as_f64().unwrap() > 0.0,
        "{line}"
    );
}

/// The admin URL of a PostgreSQL server for `steps-postgres`
/// (REBOUND_POSTGRES_URL, else a throwaway cluster that lives as long as
/// this test process), or `None` (printed) when there is none and
/// REBOUND_REQUIRE_POSTGRES is not 1.
fn postgres_url() -> Option<String> {
    match rebound_postgres::testing::admin_url() {
        Ok(url) => Some(url),
        Err(reason) => {
            assert!(
                std::env::var("REBOUND_REQUIRE_POSTGRES").as_deref() != Ok("1"),
                "REBOUND_REQUIRE_POSTGRES=1 but no PostgreSQL is available: {reason}"
            );
            eprintln!("skipped: no PostgreSQL ({reason}); run scripts/postgres install");
            None
        }
    }
}

#[test]
fn steps_postgres_verifies_and_reports_its_settings_and_table_sizes() {
    let Some(url) = postgres_url() else {
        return;
    };
    let line = run(&["steps-postgres", "--n", "20", "--url", &url]);
    assert_eq!(line["workload"], "steps-postgres-sync");
    assert_eq!(line["node_steps"], 69);
    assert_eq!(line["checkpoints"], 70, "{line}");
    assert!(line["db_bytes"].as_u64().unwrap() > 0, "{line}");
    assert!(line["synchronous_commit"].is_string(), "{line}");
    assert!(line["fsync"].is_string(), "{line}");
    assert_eq!(line["put_calls"], 70, "one write per checkpoint: {line}");
    let batched = run(&[
        "steps-postgres",
        "--n",
        "20",
        "--url",
        &url,
        "--durability",
        "batched",
    ]);
    assert_eq!(batched["workload"], "steps-postgres-batched");
    assert_eq!(batched["checkpoints"], 70, "{batched}");
    assert!(batched["put_calls"].as_u64().unwrap() < 70, "{batched}");
}
