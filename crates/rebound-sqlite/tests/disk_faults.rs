//! Disk faults under a real run: the run's process may write no file past
//! a size (`ulimit -f`, with `SIGXFSZ` ignored, so a write past it fails
//! with `EFBIG` as on a full file system), or its `fsync` starts failing
//! with `EIO` (a shim preloaded into it, built here with `cc`). The run must stop with a clear
//! error, never a panic; the database must pass `PRAGMA integrity_check`;
//! every checkpoint the run went on from must be in it; and the run must
//! resume from its last good checkpoint, once the space is back, to the
//! same end as a run that never failed, repeating no journaled effect but
//! the one whose record the fault stopped.
//!
//! One run alone, and eight at once (their checkpoints then share group
//! commits, and a failed group fails each of its runs). The test runs
//! itself as the child (as `kill_resume.rs` does): with
//! `REBOUND_DISK_CHILD_DB` set it runs the graphs and prints how each
//! ended.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use rebound_graph::{
    CompiledGraph, GraphError, NodeError, RunConfig, RunOutcome, State, StateGraph, END, START,
};
use rebound_sqlite::{SqliteOptions, SqliteSaver, Synchronous};
use serde::{Deserialize, Serialize};

/// Supersteps of a whole run: each adds an item of `ITEM_BYTES`, so the
/// run needs far more room than the child is given.
const STEPS: u32 = 300;
const ITEM_BYTES: usize = 2_000;
/// What the child may write to any one file, in KiB (`ulimit -f`), in
/// the single tests.
const LIMIT_KIB: u32 = 192;
/// Faults a soak injects unless `REBOUND_DISK_FAULTS` says (CI's share; a
/// run here took 1,000).
const SOAK_FAULTS: usize = 6;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Filling {
    count: u32,
    #[state(append)]
    items: Vec<String>,
}

fn graph(saver: Arc<SqliteSaver>, log: PathBuf) -> CompiledGraph<Filling> {
    let mut graph = StateGraph::<Filling>::new();
    graph
        .add_node("fill", move |s: Arc<Filling>, ctx| {
            let log = log.clone();
            async move {
                let n = s.count;
                // The side effect: one line per step, through the journal.
                ctx.journal("append", async {
                    common::append_line(&log, n);
                })
                .await?;
                let item = format!("{n:04}{}", "x".repeat(ITEM_BYTES - 4));
                Ok::<_, NodeError>(FillingUpdate::default().count(n + 1).items(vec![item]))
            }
        })
        .add_edge(START, "fill")
        .add_conditional_edges(
            "fill",
            |s: &Filling| if s.count < STEPS { "fill" } else { END },
            ["fill", END],
        );
    graph.compile().unwrap().with_checkpointer(saver)
}

fn config(run: usize) -> RunConfig {
    RunConfig::new().with_thread_id(format!("filling-{run}"))
}

fn log_of(dir: &Path, run: usize) -> PathBuf {
    dir.join(format!("effects-{run}.log"))
}

/// The child: `runs` runs at once on one saver (so their checkpoints go
/// through group commits), under the limit; prints how each ended.
fn child(db: &Path, dir: &Path, runs: usize) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Under a failing fsync the commits must wait for the disk (`full`),
    // or a commit would not call it.
    let options = match std::env::var("REBOUND_DISK_CHILD_SYNC").as_deref() {
        Ok("full") => SqliteOptions::default().with_synchronous(Synchronous::Full),
        _ => SqliteOptions::default(),
    };
    let saver = Arc::new(SqliteSaver::open(db, options).unwrap());
    runtime.block_on(async {
        let mut tasks = Vec::new();
        for run in 0..runs {
            let graph = graph(Arc::clone(&saver), log_of(dir, run));
            tasks.push(tokio::spawn(async move {
                graph.invoke(Filling::default(), config(run)).await
            }));
        }
        for (run, task) in tasks.into_iter().enumerate() {
            match task.await.unwrap() {
                Ok(state) => println!("CHILD-END {run} completed at {}", state.count),
                Err(error) => println!("CHILD-END {run} error: {error}"),
            }
        }
    });
}

/// How the child's disk fails.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// No file may grow past this many KiB: writes fail with `EFBIG`.
    SizeLimit { kib: u32 },
    /// `fsync` and `fdatasync` fail with `EIO` after this many calls (a
    /// shim preloaded into the child), and commits call them.
    FailedSync { after: u32 },
}

/// Builds the preloaded shim whose `fsync` and `fdatasync` fail with `EIO`
/// after `REBOUND_FAIL_SYNC_AFTER` calls (with the C compiler the crate's
/// own build uses).
fn sync_shim(dir: &Path) -> PathBuf {
    let source = dir.join("failsync.c");
    std::fs::write(
        &source,
        r#"#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
static long calls;
static int fail(void) {
    const char *after = getenv("REBOUND_FAIL_SYNC_AFTER");
    return after && __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) > atol(after);
}
int fsync(int fd) {
    if (fail()) { errno = EIO; return -1; }
    return (int)syscall(SYS_fsync, fd);
}
int fdatasync(int fd) {
    if (fail()) { errno = EIO; return -1; }
    return (int)syscall(SYS_fdatasync, fd);
}
"#,
    )
    .unwrap();
    let shim = dir.join("failsync.so");
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".to_string()))
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&shim)
        .arg(&source)
        .status()
        .expect("a C compiler (cc), as the bundled SQLite's build needs");
    assert!(status.success(), "the shim did not build");
    shim
}

/// Runs the child with `runs` runs under `fault`, checks the file and
/// every run as the module doc says.
fn fill_then_resume(runs: usize, fault: Fault, test_name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("full.db");
    let exe = std::env::current_exe().unwrap();
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(match fault {
            // `trap '' XFSZ`: an ignored signal stays ignored across exec,
            // so a write past the limit fails with EFBIG instead of
            // killing the child.
            Fault::SizeLimit { kib } => format!(
                "trap '' XFSZ; ulimit -f {kib} && exec \"$0\" --exact {test_name} --nocapture --test-threads=1"
            ),
            Fault::FailedSync { .. } => {
                format!("exec \"$0\" --exact {test_name} --nocapture --test-threads=1")
            }
        })
        .arg(&exe)
        .env("REBOUND_DISK_CHILD_DB", &db)
        .env("REBOUND_DISK_CHILD_RUNS", runs.to_string());
    if let Fault::FailedSync { after } = fault {
        command
            .env("LD_PRELOAD", sync_shim(dir.path()))
            .env("REBOUND_FAIL_SYNC_AFTER", after.to_string())
            .env("REBOUND_DISK_CHILD_SYNC", "full");
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{fault:?}: the child must end on its own, without a panic: {stdout}\n{stderr}"
    );
    let ends: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split_once("CHILD-END ").map(|(_, end)| end))
        .collect();
    assert_eq!(ends.len(), runs, "every run ended: {stdout}\n{stderr}");
    let mut failed = 0;
    for end in &ends {
        if end.contains("completed") {
            continue;
        }
        failed += 1;
        assert!(
            end.contains("full.db: cannot write the database: the disk is full or failing")
                && end.contains("resume the thread"),
            "a clear error naming the disk: {end}"
        );
    }
    assert!(failed > 0, "{fault:?} stopped some run: {ends:?}");

    // The file is whole.
    let raw = rusqlite::Connection::open(&db).unwrap();
    let integrity: String = raw
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok", "{fault:?}");
    drop(raw);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let saver = Arc::new(SqliteSaver::open_default(&db).unwrap());
    for run in 0..runs {
        let log = log_of(dir.path(), run);
        let graph = graph(Arc::clone(&saver), log.clone());
        let before_resume = common::log_lines(&log);
        let stopped = match runtime.block_on(graph.get_state(&config(run))) {
            Ok(stopped) => stopped,
            // The disk filled before the run's first checkpoint (its
            // input): nothing of it was saved, so nothing of it ran, and
            // it starts again.
            Err(GraphError::UnknownThread { .. }) => {
                assert!(
                    before_resume.is_empty(),
                    "run {run}: effects without a checkpoint"
                );
                let done = runtime
                    .block_on(graph.invoke(Filling::default(), config(run)))
                    .unwrap();
                assert_eq!(done.count, STEPS);
                assert_eq!(common::log_lines(&log), (0..STEPS).collect::<Vec<_>>());
                continue;
            }
            Err(error) => panic!("run {run}: {error}"),
        };
        // Every checkpoint the run went on from is in the file: the node
        // that wrote effect line n had seen the checkpoint with count n.
        if let Some(&last_effect) = before_resume.last() {
            assert!(
                stopped.values.count >= last_effect,
                "run {run}: step {last_effect} ran, so its checkpoint was saved; \
                 the file's last has count {}",
                stopped.values.count
            );
        }
        assert_eq!(stopped.values.items.len(), stopped.values.count as usize);
        // Space is back (this process has no limit): the run resumes from
        // its last good checkpoint to the end of a run without the fault.
        let done = if stopped.values.count == STEPS {
            stopped.values
        } else {
            let outcome = runtime.block_on(graph.resume(config(run))).unwrap();
            let RunOutcome::Completed(done) = outcome else {
                panic!("run {run}: expected completion, got {outcome:?}");
            };
            done
        };
        assert_eq!(done.count, STEPS);
        let numbers: Vec<u32> = done.items.iter().map(|i| i[..4].parse().unwrap()).collect();
        assert_eq!(
            numbers,
            (0..STEPS).collect::<Vec<_>>(),
            "run {run}: every step once"
        );
        // Each effect once, but the one whose journal record the fault
        // stopped (it ran; its record could not be saved): it may run again.
        let mut effects = common::log_lines(&log);
        let repeated: Vec<u32> = effects
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect();
        assert!(
            repeated.is_empty()
                || Some(&repeated[0]) == before_resume.last() && repeated.len() == 1,
            "run {run}: only the effect at the fault may repeat: {repeated:?}"
        );
        effects.dedup();
        assert_eq!(effects, (0..STEPS).collect::<Vec<_>>(), "run {run}");
    }
}

/// The process is the child when the parent said so.
fn as_child() -> bool {
    let Ok(db) = std::env::var("REBOUND_DISK_CHILD_DB") else {
        return false;
    };
    let runs = std::env::var("REBOUND_DISK_CHILD_RUNS")
        .unwrap()
        .parse()
        .unwrap();
    let db = PathBuf::from(db);
    child(&db, db.parent().unwrap(), runs);
    true
}

#[test]
fn a_full_disk_stops_the_run_clearly_and_it_resumes_from_its_last_checkpoint() {
    if !as_child() {
        fill_then_resume(
            1,
            Fault::SizeLimit { kib: LIMIT_KIB },
            "a_full_disk_stops_the_run_clearly_and_it_resumes_from_its_last_checkpoint",
        );
    }
}

#[test]
fn a_full_disk_during_group_commits_stops_each_run_clearly_and_each_resumes() {
    if !as_child() {
        fill_then_resume(
            8,
            Fault::SizeLimit { kib: LIMIT_KIB },
            "a_full_disk_during_group_commits_stops_each_run_clearly_and_each_resumes",
        );
    }
}

#[test]
fn a_failed_fsync_stops_the_run_clearly_and_it_resumes_from_its_last_checkpoint() {
    if !as_child() {
        fill_then_resume(
            1,
            Fault::FailedSync { after: 40 },
            "a_failed_fsync_stops_the_run_clearly_and_it_resumes_from_its_last_checkpoint",
        );
    }
}

/// Many faults, each in a child of its own: a size limit anywhere from
/// 48 to 560 KiB (the fault lands in a page write, a WAL append, a
/// checkpoint of the WAL...) or an fsync failing after 12 to 250 calls,
/// with 1 to 8 runs sharing the saver; seeded, so a failure names its
/// case and repeats. Each case is checked as the single tests are: a
/// clear error, `PRAGMA integrity_check` ok, every checkpoint run from
/// kept, each run resumed to the end with its effects once.
/// `REBOUND_DISK_FAULTS=1000 cargo test --release -p rebound-sqlite --test
/// disk_faults soak -- --nocapture` is the long soak.
#[test]
fn a_disk_fault_soak_never_corrupts_the_database() {
    const NAME: &str = "a_disk_fault_soak_never_corrupts_the_database";
    if as_child() {
        return;
    }
    let faults: usize = std::env::var("REBOUND_DISK_FAULTS")
        .map(|n| n.parse().expect("REBOUND_DISK_FAULTS is a number"))
        .unwrap_or(SOAK_FAULTS);
    // A small LCG: the cases are the same on every machine.
    let mut seed: u64 = 0x5eed_d15c;
    let mut next = |below: u64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % below
    };
    let started = std::time::Instant::now();
    for case in 0..faults {
        let runs = 1 + next(8) as usize;
        let fault = if next(2) == 0 {
            Fault::SizeLimit {
                kib: 48 + next(513) as u32,
            }
        } else {
            Fault::FailedSync {
                after: 12 + next(239) as u32,
            }
        };
        eprintln!("case {case}: {runs} run(s), {fault:?}");
        fill_then_resume(runs, fault, NAME);
    }
    eprintln!(
        "{faults} faults injected in {:.1} s, no database corrupted",
        started.elapsed().as_secs_f64()
    );
}
