//! Concurrent puts share transactions, each batch stays atomic, and a bad
//! batch fails alone.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::{delta, runtime, snapshot, temp_db, write};
use rebound_graph::checkpoint::{
    CheckpointError, CheckpointId, Checkpointer, StoredCheckpoint, WriteKind,
};
use rebound_sqlite::{SqliteSaver, SqliteSaverError};

fn duplicate_of(err: &CheckpointError) -> Option<(String, CheckpointId)> {
    match err {
        CheckpointError::Storage(source) => match source.downcast_ref::<SqliteSaverError>() {
            Some(SqliteSaverError::DuplicateCheckpoint { thread_id, id }) => {
                Some((thread_id.clone(), *id))
            }
            _ => None,
        },
        _ => None,
    }
}

#[test]
fn concurrent_puts_all_land_in_few_commits() {
    let db = temp_db();
    let saver = Arc::new(SqliteSaver::open_default(&db.path).unwrap());
    runtime().block_on(async {
        let tasks: Vec<_> = (0..200)
            .map(|i| {
                let saver = Arc::clone(&saver);
                tokio::spawn(async move {
                    let checkpoint = snapshot(&format!("t{i}"), CheckpointId::new(), 0);
                    saver
                        .put(vec![checkpoint.clone()], Vec::new())
                        .await
                        .map(|()| checkpoint)
                })
            })
            .collect();
        let mut stored = Vec::new();
        for task in tasks {
            stored.push(task.await.unwrap().unwrap());
        }
        for checkpoint in &stored {
            assert_eq!(
                saver
                    .get(&checkpoint.thread_id, None)
                    .await
                    .unwrap()
                    .as_ref(),
                Some(checkpoint)
            );
        }
        assert_eq!(saver.threads().await.unwrap().len(), 200);
    });
    let stats = saver.stats();
    assert_eq!((stats.puts, stats.checkpoints), (200, 200));
    assert!(stats.commits < stats.puts, "{stats:?}");
    println!("200 concurrent puts: {stats:?}");
}

/// Many runs of many steps at once, like the W4b benchmark: their group
/// commits go to the time-ordered table, a single run's to the per-thread
/// one, and reads see one history either way, also after reopening.
#[test]
fn concurrent_runs_keep_their_histories() {
    const RUNS: usize = 50;
    const STEPS: u64 = 20;
    let db = temp_db();
    let saver = Arc::new(SqliteSaver::open_default(&db.path).unwrap());
    let rt = runtime();
    let mut histories: Vec<Vec<StoredCheckpoint>> = rt.block_on(async {
        let runs: Vec<_> = (0..RUNS)
            .map(|run| {
                let saver = Arc::clone(&saver);
                tokio::spawn(async move {
                    let thread = format!("run-{run}");
                    let mut history: Vec<StoredCheckpoint> = Vec::new();
                    for step in 0..STEPS {
                        let checkpoint = delta(
                            &thread,
                            CheckpointId::new(),
                            history.last().map(|c| c.id),
                            step,
                        );
                        let writes = vec![write(
                            &thread,
                            checkpoint.id,
                            "node",
                            WriteKind::Journal,
                            "k",
                            &[step as u8],
                        )];
                        saver.put(vec![checkpoint.clone()], writes).await.unwrap();
                        history.push(checkpoint);
                    }
                    history
                })
            })
            .collect();
        let mut histories = Vec::new();
        for run in runs {
            histories.push(run.await.unwrap());
        }
        histories
    });
    let stats = saver.stats();
    assert!(stats.commits * 4 < stats.puts, "{stats:?}");

    // One run alone continues thread run-0: these go to the per-thread table.
    rt.block_on(async {
        for step in STEPS..STEPS + 3 {
            let checkpoint = delta(
                "run-0",
                CheckpointId::new(),
                histories[0].last().map(|c| c.id),
                step,
            );
            saver
                .put(vec![checkpoint.clone()], Vec::new())
                .await
                .unwrap();
            histories[0].push(checkpoint);
        }
    });

    let check = |saver: &SqliteSaver| {
        rt.block_on(async {
            for (run, history) in histories.iter().enumerate() {
                let thread = format!("run-{run}");
                let newest_first: Vec<StoredCheckpoint> = history.iter().rev().cloned().collect();
                assert_eq!(saver.list(&thread, None, None).await.unwrap(), newest_first);
                assert_eq!(
                    saver.get(&thread, None).await.unwrap().as_ref(),
                    history.last()
                );
                let middle = history[10].id;
                assert_eq!(
                    saver.get(&thread, Some(middle)).await.unwrap().as_ref(),
                    Some(&history[10])
                );
                assert_eq!(
                    saver.list(&thread, Some(middle), Some(3)).await.unwrap(),
                    newest_first[history.len() - 10..][..3]
                );
                assert_eq!(
                    saver
                        .pending_writes(&thread, history[5].id)
                        .await
                        .unwrap()
                        .len(),
                    1
                );
            }
            let threads = saver.threads().await.unwrap();
            assert_eq!(threads.len(), RUNS);
            assert_eq!(threads[0].thread_id, "run-0");
            assert_eq!(threads[0].checkpoints, STEPS + 3);
            assert_eq!(threads[0].latest, histories[0].last().unwrap().id);
        })
    };
    check(&saver);
    drop(saver);
    check(&SqliteSaver::open_default(&db.path).unwrap());
}

#[test]
fn a_batch_is_stored_whole_or_not_at_all() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    runtime().block_on(async {
        let first = snapshot("t", CheckpointId::new(), 0);
        saver.put(vec![first.clone()], Vec::new()).await.unwrap();

        // A new checkpoint, a write, then one whose id is already stored.
        let new = delta("t", CheckpointId::new(), Some(first.id), 1);
        let again = delta("t", first.id, None, 2);
        let writes = vec![write("t", new.id, "n", WriteKind::Journal, "k", b"v")];
        let err = saver
            .put(vec![new.clone(), again], writes)
            .await
            .unwrap_err();
        assert_eq!(
            duplicate_of(&err),
            Some(("t".to_string(), first.id)),
            "{err:?}"
        );
        assert_eq!(saver.get("t", Some(new.id)).await.unwrap(), None);
        assert_eq!(saver.pending_writes("t", new.id).await.unwrap(), vec![]);
        assert_eq!(
            saver.list("t", None, None).await.unwrap(),
            vec![first.clone()]
        );

        // The same id twice within one batch fails just the same.
        let twice = delta("t", CheckpointId::new(), Some(first.id), 1);
        let err = saver
            .put(vec![twice.clone(), twice.clone()], Vec::new())
            .await
            .unwrap_err();
        assert_eq!(duplicate_of(&err), Some(("t".to_string(), twice.id)));
        assert_eq!(saver.get("t", None).await.unwrap(), Some(first));
    });
}

#[test]
fn a_failing_batch_in_a_group_fails_alone() {
    let db = temp_db();
    let saver = Arc::new(SqliteSaver::open_default(&db.path).unwrap());
    runtime().block_on(async {
        let existing = snapshot("victim", CheckpointId::new(), 0);
        saver.put(vec![existing.clone()], Vec::new()).await.unwrap();
        let commits_before = saver.stats().commits;

        let tasks: Vec<_> = (0..40)
            .map(|i| {
                let saver = Arc::clone(&saver);
                let checkpoint = if i == 7 {
                    delta("victim", existing.id, None, 1) // a duplicate id
                } else {
                    snapshot(&format!("t{i}"), CheckpointId::new(), 0)
                };
                tokio::spawn(async move {
                    (
                        checkpoint.clone(),
                        saver.put(vec![checkpoint], Vec::new()).await,
                    )
                })
            })
            .collect();
        for (i, task) in tasks.into_iter().enumerate() {
            let (checkpoint, result) = task.await.unwrap();
            if i == 7 {
                assert_eq!(
                    duplicate_of(&result.unwrap_err()),
                    Some(("victim".to_string(), existing.id))
                );
            } else {
                result.unwrap();
                assert_eq!(
                    saver.get(&checkpoint.thread_id, None).await.unwrap(),
                    Some(checkpoint)
                );
            }
        }
        assert_eq!(saver.get("victim", None).await.unwrap(), Some(existing));
        let commits = saver.stats().commits - commits_before;
        assert!(commits < 10, "{commits} commits for 39 good puts");
    });
}

/// A checkpoint id is unique per thread whichever table holds it: a group
/// commit (time-ordered table) then a single put (per-thread table) of the
/// same id, and the other way round.
#[test]
fn duplicates_are_caught_across_both_tables() {
    let db = temp_db();
    let saver = Arc::new(SqliteSaver::open_default(&db.path).unwrap());
    runtime().block_on(async {
        let grouped: Vec<StoredCheckpoint> = (0..32)
            .map(|i| snapshot(&format!("g{i}"), CheckpointId::new(), 0))
            .collect();
        let tasks: Vec<_> = grouped
            .iter()
            .cloned()
            .map(|checkpoint| {
                let saver = Arc::clone(&saver);
                tokio::spawn(async move { saver.put(vec![checkpoint], Vec::new()).await })
            })
            .collect();
        for task in tasks {
            task.await.unwrap().unwrap();
        }
        let err = saver
            .put(vec![grouped[3].clone()], Vec::new())
            .await
            .unwrap_err();
        assert_eq!(duplicate_of(&err), Some(("g3".to_string(), grouped[3].id)));

        let single = snapshot("g0", CheckpointId::new(), 1);
        saver.put(vec![single.clone()], Vec::new()).await.unwrap();
        let tasks: Vec<_> = (0..32)
            .map(|i| {
                let saver = Arc::clone(&saver);
                let checkpoint = if i == 0 {
                    single.clone()
                } else {
                    snapshot(&format!("h{i}"), CheckpointId::new(), 0)
                };
                tokio::spawn(async move { saver.put(vec![checkpoint], Vec::new()).await })
            })
            .collect();
        let results: Vec<_> = futures_results(tasks).await;
        assert_eq!(
            duplicate_of(results[0].as_ref().unwrap_err()),
            Some(("g0".to_string(), single.id))
        );
        assert!(results[1..].iter().all(Result::is_ok));
        assert_eq!(saver.list("g0", None, None).await.unwrap().len(), 2);
    });
}

async fn futures_results(
    tasks: Vec<tokio::task::JoinHandle<Result<(), CheckpointError>>>,
) -> Vec<Result<(), CheckpointError>> {
    let mut out = Vec::new();
    for task in tasks {
        out.push(task.await.unwrap());
    }
    out
}

/// A leader cancelled while it waits for others to queue still writes what
/// is queued, and gives the leadership up.
#[test]
fn a_cancelled_leader_still_writes_the_queue() {
    let db = temp_db();
    let saver = Arc::new(SqliteSaver::open_default(&db.path).unwrap());
    runtime().block_on(async {
        let checkpoint = snapshot("cancelled", CheckpointId::new(), 0);
        let leader = {
            let saver = Arc::clone(&saver);
            let checkpoint = checkpoint.clone();
            tokio::spawn(async move { saver.put(vec![checkpoint], Vec::new()).await })
        };
        // Let it queue its batch, become the leader and yield; then cancel it.
        tokio::task::yield_now().await;
        leader.abort();
        let outcome = leader.await;
        assert!(
            outcome.as_ref().is_err_and(|e| e.is_cancelled()),
            "{outcome:?}"
        );
        assert_eq!(
            saver.get("cancelled", None).await.unwrap(),
            Some(checkpoint)
        );
        // Nobody is left holding the leadership: later puts complete.
        let later = snapshot("later", CheckpointId::new(), 0);
        saver.put(vec![later.clone()], Vec::new()).await.unwrap();
        assert_eq!(saver.get("later", None).await.unwrap(), Some(later));
    });
}

/// On a multi-threaded runtime callers queue while a leader writes; every
/// put still completes with its own result.
#[test]
fn puts_from_many_worker_threads_all_complete() {
    let db = temp_db();
    let saver = Arc::new(SqliteSaver::open_default(&db.path).unwrap());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .build()
        .unwrap();
    rt.block_on(async {
        let tasks: Vec<_> = (0..64)
            .map(|run| {
                let saver = Arc::clone(&saver);
                tokio::spawn(async move {
                    let thread = format!("w{run}");
                    let mut parent = None;
                    for step in 0..30 {
                        let checkpoint = delta(&thread, CheckpointId::new(), parent, step);
                        parent = Some(checkpoint.id);
                        saver.put(vec![checkpoint], Vec::new()).await.unwrap();
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        for run in 0..64 {
            assert_eq!(
                saver
                    .list(&format!("w{run}"), None, None)
                    .await
                    .unwrap()
                    .len(),
                30
            );
        }
    });
    assert_eq!(saver.stats().checkpoints, 64 * 30);
}

/// `get_chain` follows parent links across both tables (group commits and
/// single puts) back to the nearest snapshot, and reports a missing link.
#[test]
fn chains_cross_both_tables() {
    let db = temp_db();
    let saver = Arc::new(SqliteSaver::open_default(&db.path).unwrap());
    runtime().block_on(async {
        // 20 runs at once, 3 steps each: snapshot, delta, delta (time-ordered table).
        let tasks: Vec<_> = (0..20)
            .map(|run| {
                let saver = Arc::clone(&saver);
                tokio::spawn(async move {
                    let thread = format!("c{run}");
                    let mut history: Vec<StoredCheckpoint> = Vec::new();
                    for step in 0..3 {
                        let id = CheckpointId::new();
                        let checkpoint = match history.last() {
                            None => snapshot(&thread, id, 0),
                            Some(parent) => delta(&thread, id, Some(parent.id), step),
                        };
                        saver
                            .put(vec![checkpoint.clone()], Vec::new())
                            .await
                            .unwrap();
                        history.push(checkpoint);
                    }
                    history
                })
            })
            .collect();
        let mut history = Vec::new();
        for (run, task) in tasks.into_iter().enumerate() {
            let h = task.await.unwrap();
            if run == 0 {
                history = h;
            }
        }
        // Two more deltas of c0 on their own (per-thread table).
        for step in 3..5 {
            let checkpoint = delta(
                "c0",
                CheckpointId::new(),
                history.last().map(|c| c.id),
                step,
            );
            saver
                .put(vec![checkpoint.clone()], Vec::new())
                .await
                .unwrap();
            history.push(checkpoint);
        }
        let newest_first: Vec<StoredCheckpoint> = history.iter().rev().cloned().collect();
        assert_eq!(
            saver.get_chain("c0", history[4].id).await.unwrap(),
            newest_first
        );
        assert_eq!(
            saver.get_chain("c0", history[1].id).await.unwrap(),
            newest_first[3..]
        );
        assert_eq!(
            saver.get_chain("c0", history[0].id).await.unwrap(),
            newest_first[4..]
        );

        // A delta whose parent is not stored: the chain is broken.
        let orphan_parent = CheckpointId::new();
        let orphan = delta("c0", CheckpointId::new(), Some(orphan_parent), 9);
        saver.put(vec![orphan.clone()], Vec::new()).await.unwrap();
        let err = saver.get_chain("c0", orphan.id).await.unwrap_err();
        assert!(
            matches!(&err, CheckpointError::Corrupt(m) if m.contains(&orphan_parent.to_string())),
            "{err:?}"
        );
        assert!(matches!(
            saver.get_chain("c0", CheckpointId::new()).await,
            Err(CheckpointError::Corrupt(_))
        ));
        assert!(matches!(
            saver.get_chain("nobody", history[0].id).await,
            Err(CheckpointError::Corrupt(_))
        ));
    });
}
