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
    CompiledGraph, NodeError, RunConfig, RunOutcome, State, StateGraph, END, START,
};
use rebound_sqlite::{SqliteOptions, SqliteSaver, Synchronous};
use serde::{Deserialize, Serialize};

/// Supersteps of a whole run: each adds an item of `ITEM_BYTES`, so the
/// run needs far more room than the child is given.
const STEPS: u32 = 300;
const ITEM_BYTES: usize = 2_000;
/// What the child may write to any one file, in KiB (`ulimit -f`).
const LIMIT_KIB: u32 = 192;

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
enum Fault {
    /// No file may grow past [`LIMIT_KIB`]: writes fail with `EFBIG`.
    SizeLimit,
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
            Fault::SizeLimit => format!(
                "trap '' XFSZ; ulimit -f {LIMIT_KIB} && exec \"$0\" --exact {test_name} --nocapture --test-threads=1"
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
        "the child must end on its own, without a panic: {stdout}\n{stderr}"
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
    assert!(failed > 0, "the limit stopped some run: {ends:?}");

    // The file is whole.
    let raw = rusqlite::Connection::open(&db).unwrap();
    let integrity: String = raw
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
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
        let stopped = runtime.block_on(graph.get_state(&config(run))).unwrap();
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
            Fault::SizeLimit,
            "a_full_disk_stops_the_run_clearly_and_it_resumes_from_its_last_checkpoint",
        );
    }
}

#[test]
fn a_full_disk_during_group_commits_stops_each_run_clearly_and_each_resumes() {
    if !as_child() {
        fill_then_resume(
            8,
            Fault::SizeLimit,
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
