//! What goes in comes back: checkpoints, pending writes, listing, threads,
//! across savers and reopenings.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{delta, ids, runtime, snapshot, temp_db, write};
use rebound_graph::checkpoint::{
    CheckpointError, CheckpointId, Checkpointer, StateBlob, StoredCheckpoint, WriteKind,
};
use rebound_sqlite::{SqliteSaver, SqliteSaverError};

/// A snapshot then `n - 1` deltas, each the child of the one before.
fn chain(thread: &str, ids: &[CheckpointId]) -> Vec<StoredCheckpoint> {
    ids.iter()
        .enumerate()
        .map(|(step, &id)| {
            if step == 0 {
                snapshot(thread, id, 0)
            } else {
                delta(thread, id, Some(ids[step - 1]), step as u64)
            }
        })
        .collect()
}

#[test]
fn checkpoints_and_writes_round_trip() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let ids = ids(3);
    let mut stored = chain("t", &ids);
    // Empty blobs and a large one (several overflow pages) come back as they were.
    stored[1].meta = Vec::new();
    stored[1].state = StateBlob::Delta(Vec::new());
    stored[2].state = StateBlob::Delta((0..100_000u32).map(|i| (i % 251) as u8).collect());
    let writes = vec![
        write(
            "t",
            ids[2],
            "executor",
            WriteKind::Journal,
            "call-0",
            b"result 0",
        ),
        write("t", ids[2], "executor", WriteKind::Update, "", b"{\"x\":1}"),
        write("t", ids[2], "reviewer", WriteKind::Interrupt, "0", b""),
    ];
    runtime().block_on(async {
        saver
            .put(stored.clone(), writes[..1].to_vec())
            .await
            .unwrap();
        saver.put_writes(writes[1..].to_vec()).await.unwrap();

        for checkpoint in &stored {
            assert_eq!(
                saver.get("t", Some(checkpoint.id)).await.unwrap().as_ref(),
                Some(checkpoint)
            );
        }
        assert_eq!(
            saver.get("t", None).await.unwrap().as_ref(),
            Some(&stored[2])
        );
        assert_eq!(saver.pending_writes("t", ids[2]).await.unwrap(), writes);
        assert_eq!(saver.pending_writes("t", ids[1]).await.unwrap(), vec![]);

        assert_eq!(
            saver.get("t", Some(CheckpointId::new())).await.unwrap(),
            None
        );
        assert_eq!(saver.get("nobody", None).await.unwrap(), None);
        assert_eq!(
            saver.pending_writes("nobody", ids[0]).await.unwrap(),
            vec![]
        );
        // An empty put stores nothing and commits nothing.
        let before = saver.stats();
        saver.put(Vec::new(), Vec::new()).await.unwrap();
        assert_eq!(saver.stats(), before);
    });
    let stats = saver.stats();
    assert_eq!(
        (stats.puts, stats.commits, stats.checkpoints, stats.writes),
        (2, 2, 3, 3)
    );
}

#[test]
fn pending_writes_keep_write_order_across_calls() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let ids = ids(2);
    runtime().block_on(async {
        saver.put(chain("t", &ids), Vec::new()).await.unwrap();
        let mut expected = Vec::new();
        for i in 0..10 {
            // Alternate nodes and keys so that no column sorts them by accident.
            let w = write(
                "t",
                ids[1],
                ["b", "a"][i % 2],
                WriteKind::Journal,
                &format!("k{}", 9 - i),
                &[i as u8],
            );
            expected.push(w.clone());
            saver.put_writes(vec![w]).await.unwrap();
        }
        // A write against another checkpoint does not mix in.
        saver
            .put_writes(vec![write(
                "t",
                ids[0],
                "x",
                WriteKind::Update,
                "",
                b"other",
            )])
            .await
            .unwrap();
        assert_eq!(saver.pending_writes("t", ids[1]).await.unwrap(), expected);
        assert_eq!(saver.pending_writes("t", ids[0]).await.unwrap().len(), 1);
    });
}

#[test]
fn list_goes_newest_first_with_before_and_limit() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let ids = ids(10);
    let stored = chain("t", &ids);
    runtime().block_on(async {
        saver.put(stored.clone(), Vec::new()).await.unwrap();
        let newest_first: Vec<StoredCheckpoint> = stored.iter().rev().cloned().collect();
        assert_eq!(saver.list("t", None, None).await.unwrap(), newest_first);
        assert_eq!(
            saver.list("t", None, Some(3)).await.unwrap(),
            newest_first[..3]
        );
        assert_eq!(
            saver.list("t", Some(ids[5]), None).await.unwrap(),
            newest_first[5..]
        );
        assert_eq!(
            saver.list("t", Some(ids[5]), Some(2)).await.unwrap(),
            newest_first[5..7]
        );
        assert_eq!(saver.list("t", Some(ids[0]), None).await.unwrap(), vec![]);
        assert_eq!(saver.list("t", None, Some(0)).await.unwrap(), vec![]);
        assert_eq!(
            saver
                .list("t", Some(CheckpointId::from_u64(u64::MAX)), Some(1))
                .await
                .unwrap(),
            newest_first[..1]
        );
        assert_eq!(saver.list("nobody", None, None).await.unwrap(), vec![]);
    });
}

#[test]
fn threads_are_listed_most_recently_updated_first_with_counts() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    runtime().block_on(async {
        let mut a = ids(2);
        saver.put(chain("a", &a), Vec::new()).await.unwrap();
        let b = ids(1);
        saver.put(chain("b", &b), Vec::new()).await.unwrap();
        // "a" moves ahead again; "c" has pending writes only and is not listed.
        a.push(CheckpointId::new());
        saver
            .put(vec![delta("a", a[2], Some(a[1]), 2)], Vec::new())
            .await
            .unwrap();
        saver
            .put_writes(vec![write(
                "c",
                CheckpointId::new(),
                "n",
                WriteKind::Journal,
                "k",
                b"v",
            )])
            .await
            .unwrap();

        let threads = saver.threads().await.unwrap();
        let summary: Vec<(&str, CheckpointId, u64, u64, &[u8])> = threads
            .iter()
            .map(|t| {
                (
                    t.thread_id.as_str(),
                    t.latest,
                    t.step,
                    t.checkpoints,
                    t.meta.as_slice(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                ("a", a[2], 2, 3, b"meta 2".as_slice()),
                ("b", b[0], 0, 1, b"{}".as_slice())
            ]
        );
    });
}

#[test]
fn many_threads_share_one_file() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let threads: Vec<String> = (0..300).map(|i| format!("thread-{i}")).collect();
    runtime().block_on(async {
        let mut chains = Vec::new();
        for round in 0..5 {
            for (t, name) in threads.iter().enumerate() {
                if round == 0 {
                    chains.push(Vec::new());
                }
                let id = CheckpointId::new();
                let parent = chains[t].last().map(|c: &StoredCheckpoint| c.id);
                let checkpoint = delta(name, id, parent, round);
                chains[t].push(checkpoint.clone());
                saver.put(vec![checkpoint], Vec::new()).await.unwrap();
            }
        }
        for (t, name) in threads.iter().enumerate() {
            let listed = saver.list(name, None, None).await.unwrap();
            let expected: Vec<StoredCheckpoint> = chains[t].iter().rev().cloned().collect();
            assert_eq!(listed, expected, "{name}");
        }
        let summaries = saver.threads().await.unwrap();
        assert_eq!(summaries.len(), 300);
        assert!(summaries.iter().all(|s| s.checkpoints == 5));
        // The last thread written in the last round is the most recent.
        assert_eq!(summaries[0].thread_id, "thread-299");
    });
}

#[test]
fn reopening_sees_everything() {
    let db = temp_db();
    let ids = ids(4);
    let stored = chain("t", &ids);
    let writes = vec![write("t", ids[3], "n", WriteKind::Journal, "k", b"v")];
    runtime().block_on(async {
        let saver = SqliteSaver::open_default(&db.path).unwrap();
        saver.put(stored.clone(), writes.clone()).await.unwrap();
    });
    runtime().block_on(async {
        let saver = SqliteSaver::open_default(&db.path).unwrap();
        let newest_first: Vec<StoredCheckpoint> = stored.iter().rev().cloned().collect();
        assert_eq!(saver.list("t", None, None).await.unwrap(), newest_first);
        assert_eq!(saver.pending_writes("t", ids[3]).await.unwrap(), writes);
        assert_eq!(saver.threads().await.unwrap().len(), 1);
    });
}

#[test]
fn two_savers_on_one_file_see_each_others_commits() {
    let db = temp_db();
    let first = SqliteSaver::open_default(&db.path).unwrap();
    let second = SqliteSaver::open_default(&db.path).unwrap();
    runtime().block_on(async {
        let mut expected = Vec::new();
        for i in 0..20 {
            let (writer, reader) = if i % 2 == 0 {
                (&first, &second)
            } else {
                (&second, &first)
            };
            let checkpoint = delta(
                "shared",
                CheckpointId::new(),
                expected.last().map(|c: &StoredCheckpoint| c.id),
                i,
            );
            writer
                .put(vec![checkpoint.clone()], Vec::new())
                .await
                .unwrap();
            expected.push(checkpoint.clone());
            assert_eq!(reader.get("shared", None).await.unwrap(), Some(checkpoint));
        }
        expected.reverse();
        assert_eq!(first.list("shared", None, None).await.unwrap(), expected);
    });
}

#[test]
fn ids_beyond_sqlite_integers_are_errors_not_panics() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let huge = CheckpointId::from_u64(u64::MAX);
    runtime().block_on(async {
        let err = saver
            .put(vec![snapshot("t", huge, 0)], Vec::new())
            .await
            .unwrap_err();
        let CheckpointError::Storage(source) = err else {
            panic!("{err:?}")
        };
        assert_eq!(
            source.downcast_ref::<SqliteSaverError>(),
            Some(&SqliteSaverError::OutOfRange {
                what: "checkpoint id",
                value: u64::MAX
            })
        );
        assert_eq!(saver.get("t", Some(huge)).await.unwrap(), None);
        assert_eq!(saver.get("t", None).await.unwrap(), None);
    });
}

/// A saver keeps the checkpoints it wrote or read in memory; another
/// connection's commit to the file (another process) empties that cache,
/// so the first saver reads what the second wrote or deleted, never a stale
/// copy.
#[test]
fn another_savers_writes_and_deletes_are_seen_through_the_cache() {
    let db = temp_db();
    let first = SqliteSaver::open_default(&db.path).unwrap();
    let second = SqliteSaver::open_default(&db.path).unwrap();
    let ids = ids(3);
    let stored = chain("t", &ids);
    runtime().block_on(async {
        first.put(stored[..2].to_vec(), Vec::new()).await.unwrap();
        // Read twice: the second answer comes from the cache.
        for _ in 0..2 {
            assert_eq!(
                first.get("t", None).await.unwrap().as_ref(),
                Some(&stored[1])
            );
            assert_eq!(
                first.list("t", None, Some(1)).await.unwrap(),
                [stored[1].clone()]
            );
            assert_eq!(
                first.get_chain("t", ids[1]).await.unwrap(),
                [stored[1].clone(), stored[0].clone()]
            );
        }
        // This saver's own write moves its latest.
        first.put(stored[2..].to_vec(), Vec::new()).await.unwrap();
        assert_eq!(
            first.get("t", None).await.unwrap().as_ref(),
            Some(&stored[2])
        );

        // Another connection writes a newer checkpoint, then deletes all.
        let newer = delta("t", CheckpointId::new(), Some(ids[2]), 3);
        second.put(vec![newer.clone()], Vec::new()).await.unwrap();
        assert_eq!(first.get("t", None).await.unwrap().as_ref(), Some(&newer));
        assert_eq!(first.list("t", None, Some(1)).await.unwrap(), [newer]);
        second.delete_thread("t").unwrap();
        assert_eq!(first.get("t", None).await.unwrap(), None);
        assert_eq!(first.get("t", Some(ids[0])).await.unwrap(), None);
        assert!(first.get_chain("t", ids[2]).await.is_err());
    });
}
