//! One run per thread, within a process and across processes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::{runtime, snapshot, temp_db};
use rebound_graph::checkpoint::{CheckpointError, CheckpointId, Checkpointer};
use rebound_sqlite::SqliteSaver;

const CHILD_DB: &str = "REBOUND_SQLITE_LOCK_CHILD_DB";

fn holder(result: Result<(), CheckpointError>) -> String {
    match result {
        Err(CheckpointError::ThreadBusy { holder, .. }) => holder,
        other => panic!("expected ThreadBusy, got {other:?}"),
    }
}

fn lock_row(path: &std::path::Path, thread: &str, pid: u32) {
    let raw = rusqlite::Connection::open(path).unwrap();
    raw.execute(
        "INSERT OR REPLACE INTO locks (thread, pid, acquired_at) VALUES (?1, ?2, 0)",
        rusqlite::params![thread, pid],
    )
    .unwrap();
}

fn lock_holder_pid(path: &std::path::Path, thread: &str) -> Option<u32> {
    let raw = rusqlite::Connection::open(path).unwrap();
    raw.query_row("SELECT pid FROM locks WHERE thread = ?1", [thread], |r| {
        r.get(0)
    })
    .ok()
}

#[test]
fn a_thread_runs_once_at_a_time_in_a_process() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let other_saver = SqliteSaver::open_default(&db.path).unwrap();
    runtime().block_on(async {
        saver.acquire("t").await.unwrap();
        assert!(holder(saver.acquire("t").await).contains("this process"));
        // Another saver of the same process is a second run too.
        assert!(holder(other_saver.acquire("t").await).contains("this process"));
        // Other threads are independent.
        other_saver.acquire("u").await.unwrap();
        saver.release("t").await.unwrap();
        other_saver.acquire("t").await.unwrap();
        // Releasing what one does not hold is harmless.
        saver.release("nobody").await.unwrap();
    });
    assert_eq!(lock_holder_pid(&db.path, "t"), Some(std::process::id()));
    // Dropping a saver releases what it still holds.
    drop(other_saver);
    assert_eq!(lock_holder_pid(&db.path, "t"), None);
    runtime().block_on(saver.acquire("t")).unwrap();
}

#[test]
fn a_lock_of_a_process_that_has_exited_is_taken_over() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    lock_row(&db.path, "t", dead);
    runtime().block_on(saver.acquire("t")).unwrap();
    assert_eq!(lock_holder_pid(&db.path, "t"), Some(std::process::id()));
}

#[test]
fn a_lock_of_a_live_process_is_respected_until_it_dies() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let mut child = Command::new("sleep").arg("30").spawn().unwrap();
    lock_row(&db.path, "t", child.id());
    let rt = runtime();
    assert_eq!(
        holder(rt.block_on(saver.acquire("t"))),
        format!("process {}", child.id())
    );
    child.kill().unwrap();
    child.wait().unwrap();
    rt.block_on(saver.acquire("t")).unwrap();
}

/// The child side of the next test (the test binary run again on that one
/// test, with [`CHILD_DB`] set): acquires "shared", stores a checkpoint,
/// says so, and waits to be killed.
fn hold_lock_until_killed(path: &str) {
    let saver = SqliteSaver::open_default(path).unwrap();
    runtime().block_on(async {
        saver.acquire("shared").await.unwrap();
        let checkpoint = snapshot("shared", CheckpointId::new(), 0);
        saver
            .put(vec![checkpoint.clone()], Vec::new())
            .await
            .unwrap();
        println!("READY {}", checkpoint.id);
    });
    std::thread::sleep(std::time::Duration::from_secs(60));
}

/// A real second process holds a thread; it is killed with SIGKILL (no
/// chance to release), and the thread is taken over.
#[test]
fn a_killed_process_lock_is_taken_over() {
    if let Ok(path) = std::env::var(CHILD_DB) {
        hold_lock_until_killed(&path);
        return;
    }
    let db = temp_db();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_killed_process_lock_is_taken_over",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DB, &db.path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let id = loop {
        let line = lines.next().expect("child exited early").unwrap();
        if let Some(id) = line.split_whitespace().skip_while(|w| *w != "READY").nth(1) {
            break id.parse::<CheckpointId>().unwrap();
        }
    };
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let rt = runtime();
    assert_eq!(
        holder(rt.block_on(saver.acquire("shared"))),
        format!("process {}", child.id())
    );
    // The other process's commit is visible here.
    assert_eq!(
        rt.block_on(saver.get("shared", None))
            .unwrap()
            .map(|c| c.id),
        Some(id)
    );

    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    rt.block_on(saver.acquire("shared")).unwrap();
    assert_eq!(
        lock_holder_pid(&db.path, "shared"),
        Some(std::process::id())
    );
}

/// An application's hold keeps a thread claimed across runs: the runs
/// through the same saver use it, other savers and processes are kept off,
/// and the lock goes when the hold is released.
#[test]
fn a_hold_keeps_the_thread_across_runs() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let other = SqliteSaver::open_default(&db.path).unwrap();
    let rt = runtime();
    let hold = saver.hold_thread("t").unwrap();
    assert_eq!(hold.thread_id(), "t");
    assert_eq!(lock_holder_pid(&db.path, "t"), Some(std::process::id()));
    assert!(matches!(
        saver.hold_thread("t"),
        Err(CheckpointError::ThreadBusy { .. })
    ));
    for _ in 0..2 {
        rt.block_on(saver.acquire("t")).unwrap();
        // One run at a time, still.
        assert!(holder(rt.block_on(saver.acquire("t"))).contains("this process"));
        assert!(holder(rt.block_on(other.acquire("t"))).contains("this process"));
        rt.block_on(saver.release("t")).unwrap();
        // Between runs, the thread stays claimed.
        assert_eq!(saver.lock_holder("t").unwrap(), Some(std::process::id()));
        assert!(holder(rt.block_on(other.acquire("t"))).contains("this process"));
    }
    hold.release().unwrap();
    assert_eq!(lock_holder_pid(&db.path, "t"), None);
    assert_eq!(saver.lock_holder("t").unwrap(), None);

    // Released while a run is under way: the run's release ends the lock.
    let hold = saver.hold_thread("t").unwrap();
    rt.block_on(saver.acquire("t")).unwrap();
    drop(hold);
    assert_eq!(lock_holder_pid(&db.path, "t"), Some(std::process::id()));
    rt.block_on(saver.release("t")).unwrap();
    assert_eq!(lock_holder_pid(&db.path, "t"), None);
    other.hold_thread("t").unwrap().release().unwrap();
    assert_eq!(lock_holder_pid(&db.path, "t"), None);
}
