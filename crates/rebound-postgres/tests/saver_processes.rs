//! Several savers (processes) on one database: they see the same threads,
//! one run per thread holds across them, and a holder that goes away (its
//! connection terminated, its saver dropped, its process killed with
//! SIGKILL) frees the thread.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod saver_common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rebound_graph::checkpoint::{CheckpointError, Checkpointer};
use rebound_postgres::{PostgresError, PostgresSaver};
use saver_common::{connect, delta, fresh, ids, snapshot};

/// Tries `acquire` until it succeeds, for at most `within`.
async fn acquire_within(saver: &PostgresSaver, thread: &str, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        match saver.acquire(thread).await {
            Ok(()) => return,
            Err(CheckpointError::ThreadBusy { .. }) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(error) => panic!("the thread was not freed within {within:?}: {error}"),
        }
    }
}

fn busy_holder(result: Result<(), CheckpointError>) -> String {
    match result {
        Err(CheckpointError::ThreadBusy { holder, .. }) => holder,
        other => panic!("expected ThreadBusy, got {other:?}"),
    }
}

#[tokio::test]
async fn two_savers_share_threads_and_one_run_per_thread_holds_across_them() {
    let Some((db, a)) = fresh().await else {
        return;
    };
    let b = connect(&db).await;
    let ids = ids(2);
    let stored = vec![
        snapshot("t", ids[0], None, 0),
        delta("t", ids[1], Some(ids[0]), 1),
    ];
    a.put(stored.clone(), Vec::new()).await.unwrap();
    assert_eq!(b.threads().await.unwrap(), a.threads().await.unwrap());
    assert_eq!(b.get("t", None).await.unwrap().as_ref(), Some(&stored[1]));
    assert_eq!(
        b.get_chain("t", ids[1]).await.unwrap(),
        vec![stored[1].clone(), stored[0].clone()]
    );

    a.acquire("t").await.unwrap();
    let holder = busy_holder(b.acquire("t").await);
    assert!(
        holder.contains(&format!("rebound pid {}", std::process::id())),
        "the holder names the process: {holder}"
    );
    assert_eq!(
        busy_holder(a.acquire("t").await),
        "another run in this process"
    );
    // Other threads are free.
    b.acquire("u").await.unwrap();
    busy_holder(a.acquire("u").await);

    a.release("t").await.unwrap();
    b.acquire("t").await.unwrap();
    busy_holder(a.acquire("t").await);
    b.release("t").await.unwrap();
    b.release("u").await.unwrap();
    a.acquire("t").await.unwrap();
    a.acquire("u").await.unwrap();
    // Releasing a thread not held is a no-op, as with MemorySaver.
    b.release("t").await.unwrap();
    busy_holder(b.acquire("t").await);
}

#[tokio::test]
async fn a_holder_whose_connection_dies_frees_the_thread() {
    let Some((db, a)) = fresh().await else {
        return;
    };
    let b = connect(&db).await;
    let c = connect(&db).await;
    a.acquire("t").await.unwrap();
    busy_holder(b.acquire("t").await);

    // The holding session is lost (network, server restart, admin).
    let terminated: Vec<bool> = sqlx::query_scalar(
        "SELECT pg_terminate_backend(pid) FROM pg_locks
         WHERE locktype = 'advisory' AND granted
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .fetch_all(b.pool())
    .await
    .unwrap();
    assert_eq!(terminated, vec![true]);
    acquire_within(&b, "t", Duration::from_secs(10)).await;

    // The old holder does not know yet; its next write goes through the
    // lost session, and is refused rather than landing beside b's.
    let ids = ids(2);
    let lost = a
        .put(vec![snapshot("t", ids[0], None, 0)], Vec::new())
        .await
        .unwrap_err();
    assert!(
        matches!(
            PostgresError::of(&lost),
            Some(PostgresError::LockLost { thread_id, .. }) if thread_id == "t"
        ),
        "{lost}"
    );
    assert!(
        lost.to_string()
            .contains("the session holding its lock was lost"),
        "{lost}"
    );
    assert_eq!(b.get("t", None).await.unwrap(), None);
    let stored = snapshot("t", ids[1], None, 0);
    b.put(vec![stored.clone()], Vec::new()).await.unwrap();
    assert_eq!(b.get("t", None).await.unwrap(), Some(stored));

    // The old holder's release does not fail, and frees nothing of b's.
    a.release("t").await.unwrap();
    busy_holder(c.acquire("t").await);
    // Its saver can claim the thread again once b lets go.
    b.release("t").await.unwrap();
    a.acquire("t").await.unwrap();
}

#[tokio::test]
async fn a_dropped_saver_frees_its_threads() {
    let Some((db, a)) = fresh().await else {
        return;
    };
    let b = connect(&db).await;
    a.acquire("t").await.unwrap();
    busy_holder(b.acquire("t").await);
    drop(a);
    acquire_within(&b, "t", Duration::from_secs(10)).await;
}

const CHILD_TEST: &str = "a_killed_holder_process_frees_the_thread";

#[tokio::test]
async fn a_killed_holder_process_frees_the_thread() {
    if let Ok(url) = std::env::var("REBOUND_PG_HOLDER_URL") {
        // The child: hold the thread, say so, and wait to be killed.
        let saver = PostgresSaver::connect(&url, Default::default())
            .await
            .unwrap();
        saver.acquire("t").await.unwrap();
        println!("held");
        tokio::time::sleep(Duration::from_secs(120)).await;
        return;
    }
    let Some((db, b)) = fresh().await else {
        return;
    };
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", CHILD_TEST, "--nocapture", "--test-threads=1"])
        .env("REBOUND_PG_HOLDER_URL", &db.url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let held = tokio::task::spawn_blocking(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .any(|line| line.contains("held"))
    });
    assert!(
        tokio::time::timeout(Duration::from_secs(30), held)
            .await
            .unwrap()
            .unwrap(),
        "the child did not take the thread"
    );
    busy_holder(b.acquire("t").await);

    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    acquire_within(&b, "t", Duration::from_secs(10)).await;
}

#[tokio::test]
async fn stores_in_two_schemas_of_one_database_are_separate() {
    let Some((db, public)) = fresh().await else {
        return;
    };
    let mut savers = Vec::new();
    for schema in ["store_one", "store_two"] {
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
            .execute(public.pool())
            .await
            .unwrap();
        let url = format!("{}?options=-c%20search_path%3D{schema}", db.url);
        let saver = PostgresSaver::connect(&url, Default::default())
            .await
            .unwrap();
        savers.push(saver);
    }
    let ids = ids(1);
    savers[0]
        .put(vec![snapshot("t", ids[0], None, 0)], Vec::new())
        .await
        .unwrap();
    assert_eq!(savers[0].threads().await.unwrap().len(), 1);
    assert_eq!(savers[1].threads().await.unwrap(), vec![]);
    assert_eq!(public.threads().await.unwrap(), vec![]);
    // One run per thread per store: the same thread name in another store is free.
    savers[0].acquire("t").await.unwrap();
    savers[1].acquire("t").await.unwrap();
    public.acquire("t").await.unwrap();
    let again = connect(&db).await;
    busy_holder(again.acquire("t").await);
}

#[tokio::test]
async fn a_cancelled_acquire_leaves_the_thread_free() {
    let Some((db, a)) = fresh().await else {
        return;
    };
    let b = connect(&db).await;
    // Dropped at its first wait, and again a little later (after the lock
    // may have been taken): neither leaves a claim behind.
    for wait in [
        Duration::ZERO,
        Duration::from_micros(500),
        Duration::from_millis(2),
    ] {
        if let Ok(finished) = tokio::time::timeout(wait, a.acquire("t")).await {
            // Not cancelled after all: it holds the thread.
            finished.unwrap();
            a.release("t").await.unwrap();
        }
        acquire_within(&a, "t", Duration::from_secs(5)).await;
        a.release("t").await.unwrap();
        acquire_within(&b, "t", Duration::from_secs(5)).await;
        b.release("t").await.unwrap();
    }
}
