//! How long an approval decision takes: the median of 10,000 calls of
//! `ApprovalPolicy::assess` for each of a few typical command lines (the
//! target is 50 µs). Run it in release:
//!
//! ```sh
//! cargo run --release -p rebound-tools --example approval_speed
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use rebound_tools::approval::{hardened_command, ApprovalMode, ApprovalPolicy};

const CALLS: usize = 10_000;

const LINES: &[&str] = &[
    "cargo test && git status",
    "python3 -m unittest -q",
    "ls -la | grep foo",
    "sed -i 's/a/b/' x.py",
    "grep -rn foo src | head -20",
    "cat <<EOF\n$(rm -rf /)\nEOF",
];

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

fn main() {
    let policy = ApprovalPolicy::new(ApprovalMode::OnRisk);
    let mut all = Vec::with_capacity(CALLS * LINES.len());
    println!("median of {CALLS} calls of `assess`:");
    for line in LINES {
        let mut times = Vec::with_capacity(CALLS);
        for _ in 0..CALLS {
            let start = Instant::now();
            black_box(policy.assess(black_box(line)));
            times.push(start.elapsed());
        }
        all.extend_from_slice(&times);
        let verdict = policy.assess(line);
        println!(
            "  {:>8.1} µs  {:<32} {:?}",
            median(times).as_secs_f64() * 1e6,
            format!("{line:?}"),
            verdict.action()
        );
    }
    println!("  {:>8.1} µs  all of them", median(all).as_secs_f64() * 1e6);
    let mut times = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let start = Instant::now();
        black_box(hardened_command(black_box("cargo test && git status")));
        times.push(start.elapsed());
    }
    println!(
        "  {:>8.1} µs  `hardened_command` of \"cargo test && git status\"",
        median(times).as_secs_f64() * 1e6
    );
}
