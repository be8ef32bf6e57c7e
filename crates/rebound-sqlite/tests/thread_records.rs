//! Thread records: stored beside the checkpoints, with a status that says
//! "busy" exactly when a live process holds the thread's lock.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::{runtime, temp_db};
use rebound_graph::checkpoint::{CheckpointError, Checkpointer};
use rebound_sqlite::{SqliteSaver, SqliteSaverError, ThreadRecord, ThreadStatus};
use serde_json::json;

fn record(thread: &str, at: u64, status: ThreadStatus) -> ThreadRecord {
    ThreadRecord::new(
        thread,
        at,
        json!({"goal": format!("goal of {thread}"), "n": at}),
    )
    .with_status(status)
}

#[test]
fn records_round_trip_and_list_newest_first() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    assert_eq!(saver.get_thread("a").unwrap(), None);
    assert_eq!(saver.list_threads().unwrap(), Vec::new());
    let a = record("a", 10, ThreadStatus::Idle);
    let b = record("b", 20, ThreadStatus::Interrupted);
    let c = record("c", 15, ThreadStatus::Error);
    for r in [&a, &b, &c] {
        saver.put_thread(r).unwrap();
    }
    assert_eq!(saver.get_thread("b").unwrap(), Some(b.clone()));
    assert_eq!(saver.list_threads().unwrap(), vec![b.clone(), c, a.clone()]);

    // An update keeps the creation time and replaces the rest.
    let mut changed = record("a", 99, ThreadStatus::Interrupted);
    changed.metadata = json!({"goal": "another"});
    saver.put_thread(&changed).unwrap();
    let stored = saver.get_thread("a").unwrap().unwrap();
    assert_eq!(
        stored,
        ThreadRecord {
            created_ms: 10,
            ..changed
        }
    );
    assert_eq!(saver.list_threads().unwrap()[0].thread_id, "a");

    // An import never replaces an existing record.
    assert!(!saver
        .put_thread_if_absent(&record("b", 1, ThreadStatus::Idle))
        .unwrap());
    assert_eq!(saver.get_thread("b").unwrap(), Some(b));
    assert!(saver
        .put_thread_if_absent(&record("d", 1, ThreadStatus::Idle))
        .unwrap());
    assert_eq!(saver.list_threads().unwrap().len(), 4);

    // Another saver (another process) sees the same records.
    let other = SqliteSaver::open_default(&db.path).unwrap();
    assert_eq!(other.get_thread("a").unwrap(), Some(stored));
}

#[test]
fn metadata_must_be_an_object() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let mut bad = record("a", 1, ThreadStatus::Idle);
    bad.metadata = json!(["goal"]);
    let error = saver.put_thread(&bad).unwrap_err();
    let CheckpointError::Storage(source) = error else {
        panic!("expected a storage error, got {error:?}");
    };
    assert_eq!(
        source.downcast_ref::<SqliteSaverError>(),
        Some(&SqliteSaverError::MetadataNotObject {
            thread_id: "a".to_string(),
            found: "an array",
        })
    );
    assert_eq!(saver.get_thread("a").unwrap(), None);
}

#[test]
fn busy_comes_from_the_lock_only() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    // Recorded busy, but no process holds it: the run died.
    saver
        .put_thread(&record("crashed", 1, ThreadStatus::Busy))
        .unwrap();
    assert_eq!(saver.lock_holder("crashed").unwrap(), None);
    assert_eq!(
        saver.get_thread("crashed").unwrap().unwrap().status,
        ThreadStatus::Error
    );

    // Recorded idle, but a run of this process holds it: busy.
    saver
        .put_thread(&record("live", 2, ThreadStatus::Idle))
        .unwrap();
    let rt = runtime();
    rt.block_on(saver.acquire("live")).unwrap();
    assert_eq!(saver.lock_holder("live").unwrap(), Some(std::process::id()));
    let listed = saver.list_threads().unwrap();
    assert_eq!(listed[0].thread_id, "live");
    assert_eq!(listed[0].status, ThreadStatus::Busy);
    assert_eq!(listed[1].status, ThreadStatus::Error);
    rt.block_on(saver.release("live")).unwrap();
    assert_eq!(saver.lock_holder("live").unwrap(), None);
    assert_eq!(
        saver.get_thread("live").unwrap().unwrap().status,
        ThreadStatus::Idle
    );

    // A lock left by a process that has exited does not count.
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let raw = rusqlite::Connection::open(&db.path).unwrap();
    raw.execute(
        "INSERT INTO locks (thread, pid, acquired_at) VALUES ('crashed', ?1, 0)",
        [dead],
    )
    .unwrap();
    assert_eq!(saver.lock_holder("crashed").unwrap(), None);
    assert_eq!(
        saver.get_thread("crashed").unwrap().unwrap().status,
        ThreadStatus::Error
    );
}

#[test]
fn deleting_a_thread_removes_its_checkpoints_writes_and_record_only() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let rt = runtime();
    let ids = common::ids(4);
    for thread in ["gone", "kept"] {
        saver
            .put_thread(&record(thread, 1, ThreadStatus::Idle))
            .unwrap();
        rt.block_on(saver.put(
            vec![
                common::snapshot(thread, ids[0], 0),
                common::delta(thread, ids[1], Some(ids[0]), 1),
            ],
            vec![common::write(
                thread,
                ids[1],
                "n",
                rebound_graph::checkpoint::WriteKind::Journal,
                "k",
                b"v",
            )],
        ))
        .unwrap();
    }
    assert!(saver.delete_thread("gone").unwrap());
    assert!(
        !saver.delete_thread("gone").unwrap(),
        "nothing left to delete"
    );
    assert_eq!(saver.get_thread("gone").unwrap(), None);
    assert_eq!(rt.block_on(saver.get("gone", None)).unwrap(), None);
    assert!(rt
        .block_on(saver.pending_writes("gone", ids[1]))
        .unwrap()
        .is_empty());
    // The other thread is untouched.
    assert_eq!(
        rt.block_on(saver.get("kept", None)).unwrap().unwrap().id,
        ids[1]
    );
    assert_eq!(
        rt.block_on(saver.pending_writes("kept", ids[1]))
            .unwrap()
            .len(),
        1
    );
    // The name can be used again, from scratch.
    rt.block_on(saver.put(vec![common::snapshot("gone", ids[2], 0)], Vec::new()))
        .unwrap();
    let chain = rt.block_on(saver.get_chain("gone", ids[2])).unwrap();
    assert_eq!(chain.iter().map(|c| c.id).collect::<Vec<_>>(), [ids[2]]);
    // A second saver on the file (with its own cache of thread keys) agrees.
    let other = SqliteSaver::open_default(&db.path).unwrap();
    assert_eq!(
        rt.block_on(other.get("gone", None)).unwrap().unwrap().id,
        ids[2]
    );
}
