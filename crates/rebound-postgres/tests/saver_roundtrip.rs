//! What goes in comes back, exactly as from `MemorySaver`: the same
//! operations on both savers give the same whole answers (checkpoints,
//! chains, listings, pending writes, threads); duplicate ids are refused
//! with the whole batch rolled back; concurrent puts all land.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod saver_common;

use std::sync::Arc;

use rebound_graph::checkpoint::{
    CheckpointId, Checkpointer, MemorySaver, PendingWrite, StateBlob, StoredCheckpoint,
    ThreadSummary, WriteKind,
};
use rebound_postgres::PostgresError;
use saver_common::{delta, fresh, ids, snapshot, write};

/// Everything a reader can observe after [`scenario`].
#[derive(Debug, PartialEq)]
struct Observed {
    latest: Vec<Option<StoredCheckpoint>>,
    by_id: Vec<Option<StoredCheckpoint>>,
    chains: Vec<Result<Vec<StoredCheckpoint>, String>>,
    lists: Vec<Vec<StoredCheckpoint>>,
    writes: Vec<Vec<PendingWrite>>,
    threads: Vec<ThreadSummary>,
}

/// The batches: two threads with snapshots, deltas, a fork and a later
/// snapshot; blobs empty and large; writes in several calls, some of them
/// for a thread with no checkpoint; an empty put.
fn batches(ids: &[CheckpointId]) -> Vec<(Vec<StoredCheckpoint>, Vec<PendingWrite>)> {
    let mut a1 = delta("a", ids[1], Some(ids[0]), 1);
    a1.meta = Vec::new();
    a1.state = StateBlob::Delta(Vec::new());
    let mut a2 = delta("a", ids[2], Some(ids[1]), 2);
    a2.state = StateBlob::Delta((0..100_000u32).map(|i| (i % 251) as u8).collect());
    vec![
        (
            vec![snapshot("a", ids[0], None, 0), a1, a2],
            vec![
                write("a", ids[2], "executor", WriteKind::Journal, "call-0", b"r0"),
                write("a", ids[2], "executor", WriteKind::Update, "", b"{\"x\":1}"),
            ],
        ),
        (
            vec![
                snapshot("b", ids[3], None, 0),
                delta("b", ids[4], Some(ids[3]), 1),
            ],
            vec![write("b", ids[4], "n", WriteKind::Interrupt, "0", b"")],
        ),
        (
            Vec::new(),
            vec![
                write("a", ids[2], "reviewer", WriteKind::Interrupt, "0", b"ask"),
                write(
                    "a",
                    ids[2],
                    "executor",
                    WriteKind::Journal,
                    "call-0",
                    b"r0 again",
                ),
                write("c", ids[9], "solo", WriteKind::Resume, "0", b"yes"),
            ],
        ),
        (Vec::new(), Vec::new()),
        // A fork of `a` from ids[1], then a snapshot and a delta over it.
        (
            vec![
                delta("a", ids[5], Some(ids[1]), 2),
                snapshot("a", ids[6], Some(ids[5]), 3),
                delta("a", ids[7], Some(ids[6]), 4),
            ],
            vec![write("a", ids[5], "executor", WriteKind::Update, "", b"{}")],
        ),
        // A delta whose parent is not stored (its chain is broken).
        (vec![delta("b", ids[8], Some(ids[9]), 7)], Vec::new()),
    ]
}

async fn scenario(saver: &dyn Checkpointer, ids: &[CheckpointId]) -> Observed {
    for (checkpoints, writes) in batches(ids) {
        if checkpoints.is_empty() && !writes.is_empty() {
            saver.put_writes(writes).await.unwrap();
        } else {
            saver.put(checkpoints, writes).await.unwrap();
        }
    }
    let threads = ["a", "b", "c", "nobody"];
    let mut observed = Observed {
        latest: Vec::new(),
        by_id: Vec::new(),
        chains: Vec::new(),
        lists: Vec::new(),
        writes: Vec::new(),
        threads: saver.threads().await.unwrap(),
    };
    // ids[10] is never stored; the largest id cannot be.
    let huge = CheckpointId::from_u64(u64::MAX);
    for thread in threads {
        observed.latest.push(saver.get(thread, None).await.unwrap());
        for &id in ids.iter().chain([&huge]) {
            observed
                .by_id
                .push(saver.get(thread, Some(id)).await.unwrap());
            observed
                .chains
                .push(saver.get_chain(thread, id).await.map_err(|e| e.to_string()));
            observed
                .writes
                .push(saver.pending_writes(thread, id).await.unwrap());
            for limit in [None, Some(0), Some(1), Some(2)] {
                observed
                    .lists
                    .push(saver.list(thread, Some(id), limit).await.unwrap());
            }
        }
        for limit in [None, Some(1), Some(3), Some(100)] {
            observed
                .lists
                .push(saver.list(thread, None, limit).await.unwrap());
        }
    }
    observed
}

#[tokio::test]
async fn every_answer_is_memory_savers_answer() {
    let Some((_db, postgres)) = fresh().await else {
        return;
    };
    let ids = ids(11);
    let expected = scenario(&MemorySaver::new(), &ids).await;
    let found = scenario(&postgres, &ids).await;
    // Spot checks that the scenario covers what it means to.
    assert_eq!(expected.threads.len(), 2, "{:?}", expected.threads);
    assert!(expected.chains.iter().any(|c| c.is_err()));
    assert!(expected
        .chains
        .iter()
        .any(|c| c.as_ref().is_ok_and(|c| c.len() == 3)));
    same("latest", &found.latest, &expected.latest);
    same("by_id", &found.by_id, &expected.by_id);
    same("chains", &found.chains, &expected.chains);
    same("lists", &found.lists, &expected.lists);
    same("writes", &found.writes, &expected.writes);
    same("threads", &found.threads, &expected.threads);
    assert!(found == expected);
}

/// Fails naming the first differing element (whole answers can be large).
fn same<T: PartialEq + std::fmt::Debug>(what: &str, found: &[T], expected: &[T]) {
    assert_eq!(found.len(), expected.len(), "{what}: number of answers");
    if let Some(i) = (0..found.len()).find(|&i| found[i] != expected[i]) {
        let show = |v: &T| {
            let text = format!("{v:?}");
            text.chars().take(2_000).collect::<String>()
        };
        panic!(
            "{what}[{i}] differs:\n postgres: {}\n   memory: {}",
            show(&found[i]),
            show(&expected[i])
        );
    }
}

#[tokio::test]
async fn a_duplicate_id_is_refused_and_its_batch_rolled_back() {
    let Some((_db, saver)) = fresh().await else {
        return;
    };
    let ids = ids(3);
    saver
        .put(vec![snapshot("t", ids[0], None, 0)], Vec::new())
        .await
        .unwrap();

    // Against a stored checkpoint: nothing of the batch lands.
    let error = saver
        .put(
            vec![
                delta("t", ids[1], Some(ids[0]), 1),
                snapshot("t", ids[0], None, 0),
            ],
            vec![write("t", ids[1], "n", WriteKind::Update, "", b"x")],
        )
        .await
        .unwrap_err();
    match PostgresError::of(&error) {
        Some(PostgresError::DuplicateCheckpoint { thread_id, id }) => {
            assert_eq!((thread_id.as_str(), *id), ("t", ids[0]));
        }
        other => panic!("expected a duplicate checkpoint, got {other:?} ({error})"),
    }
    assert_eq!(saver.get("t", Some(ids[1])).await.unwrap(), None);
    assert_eq!(saver.pending_writes("t", ids[1]).await.unwrap(), vec![]);
    assert_eq!(saver.list("t", None, None).await.unwrap().len(), 1);

    // Twice in one batch.
    let twice = delta("t", ids[2], Some(ids[0]), 1);
    let error = saver
        .put(vec![twice.clone(), twice], Vec::new())
        .await
        .unwrap_err();
    assert!(
        matches!(
            PostgresError::of(&error),
            Some(PostgresError::DuplicateCheckpoint { id, .. }) if *id == ids[2]
        ),
        "{error}"
    );
    assert_eq!(saver.get("t", Some(ids[2])).await.unwrap(), None);

    // An id that does not fit a BIGINT is refused before anything is sent.
    let error = saver
        .put(
            vec![snapshot("t", CheckpointId::from_u64(u64::MAX), None, 0)],
            Vec::new(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            PostgresError::of(&error),
            Some(PostgresError::OutOfRange {
                what: "checkpoint id",
                ..
            })
        ),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_puts_from_32_tasks_all_land() {
    let Some((_db, saver)) = fresh().await else {
        return;
    };
    let saver = Arc::new(saver);
    const TASKS: usize = 32;
    const PUTS: usize = 20;
    let tasks: Vec<_> = (0..TASKS)
        .map(|task| {
            let saver = Arc::clone(&saver);
            tokio::spawn(async move {
                let thread = format!("run-{task}");
                let mut parent = None;
                let mut stored = Vec::new();
                for step in 0..PUTS {
                    let id = CheckpointId::after(parent);
                    let checkpoint = if step == 0 {
                        snapshot(&thread, id, None, 0)
                    } else {
                        delta(&thread, id, parent, step as u64)
                    };
                    let writes = vec![
                        write(&thread, id, "n", WriteKind::Journal, "k", &[step as u8]),
                        write(&thread, id, "n", WriteKind::Update, "", b"u"),
                    ];
                    saver
                        .put(vec![checkpoint.clone()], writes.clone())
                        .await
                        .unwrap();
                    parent = Some(id);
                    stored.push((checkpoint, writes));
                }
                (thread, stored)
            })
        })
        .collect();
    let mut all = Vec::new();
    for task in tasks {
        all.push(task.await.unwrap());
    }
    let threads = saver.threads().await.unwrap();
    assert_eq!(threads.len(), TASKS);
    for (thread, stored) in all {
        let mut listed = saver.list(&thread, None, None).await.unwrap();
        listed.reverse();
        let checkpoints: Vec<_> = stored.iter().map(|(c, _)| c.clone()).collect();
        assert_eq!(listed, checkpoints);
        for (checkpoint, writes) in &stored {
            assert_eq!(
                &saver.pending_writes(&thread, checkpoint.id).await.unwrap(),
                writes
            );
        }
        let last = stored.last().unwrap().0.id;
        assert_eq!(saver.get_chain(&thread, last).await.unwrap().len(), PUTS);
        let summary = threads.iter().find(|t| t.thread_id == thread).unwrap();
        assert_eq!((summary.latest, summary.checkpoints), (last, PUTS as u64));
    }
}
