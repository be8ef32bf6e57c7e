//! Fencing with a `WriteGuard`: once a worker's lease is taken over, its
//! writes to the thread are refused and rolled back, whole batches
//! included; other threads, and the thread once unguarded, are unaffected.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod saver_common;

use std::sync::Arc;

use async_trait::async_trait;
use rebound_graph::checkpoint::{CheckpointError, Checkpointer, WriteKind};
use rebound_postgres::{PostgresError, WriteGuard};
use saver_common::{delta, fresh, ids, snapshot, write};

/// "Run `run` is still leased at `epoch`", against a `leases` table.
struct Lease {
    run: &'static str,
    epoch: i32,
    table: &'static str,
}

#[async_trait]
impl WriteGuard for Lease {
    async fn holds(&self, conn: &mut sqlx::PgConnection) -> Result<bool, sqlx::Error> {
        let sql = format!("SELECT epoch FROM {} WHERE run = $1 FOR SHARE", self.table);
        let epoch: Option<i32> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(self.run)
            .fetch_optional(conn)
            .await?;
        Ok(epoch == Some(self.epoch))
    }

    fn describe(&self) -> String {
        format!("run {} epoch {}", self.run, self.epoch)
    }
}

fn fenced(error: &CheckpointError) -> (String, String) {
    assert!(PostgresError::is_fenced(error), "{error:?}");
    match PostgresError::of(error) {
        Some(PostgresError::Fenced { thread_id, guard }) => (thread_id.clone(), guard.clone()),
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn a_lost_lease_fences_the_threads_writes() {
    let Some((_db, saver)) = fresh().await else {
        return;
    };
    let pool = saver.pool().clone();
    sqlx::query("CREATE TABLE leases (run TEXT PRIMARY KEY, epoch INT NOT NULL)")
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO leases VALUES ('r1', 1)")
        .execute(&pool)
        .await
        .unwrap();
    saver.guard_thread(
        "t",
        Arc::new(Lease {
            run: "r1",
            epoch: 1,
            table: "leases",
        }),
    );
    let ids = ids(6);

    // Held: writes land.
    let first = snapshot("t", ids[0], None, 0);
    let first_write = write("t", ids[0], "n", WriteKind::Journal, "k", b"v");
    saver
        .put(vec![first.clone()], vec![first_write.clone()])
        .await
        .unwrap();

    // Another worker reclaims the run.
    sqlx::query("UPDATE leases SET epoch = 2 WHERE run = 'r1'")
        .execute(&pool)
        .await
        .unwrap();
    let error = saver
        .put(
            vec![
                delta("t", ids[1], Some(ids[0]), 1),
                snapshot("u", ids[2], None, 0),
            ],
            vec![write("t", ids[1], "n", WriteKind::Update, "", b"late")],
        )
        .await
        .unwrap_err();
    assert_eq!(
        fenced(&error),
        ("t".to_string(), "run r1 epoch 1".to_string())
    );
    assert!(error.to_string().contains("run r1 epoch 1"), "{error}");
    // Nothing of the batch landed, not even the unguarded thread's part.
    assert_eq!(saver.get("t", None).await.unwrap(), Some(first.clone()));
    assert_eq!(saver.get("u", None).await.unwrap(), None);
    assert_eq!(saver.pending_writes("t", ids[1]).await.unwrap(), vec![]);

    let error = saver
        .put_writes(vec![write(
            "t",
            ids[0],
            "n",
            WriteKind::Journal,
            "k2",
            b"late",
        )])
        .await
        .unwrap_err();
    fenced(&error);
    assert_eq!(
        saver.pending_writes("t", ids[0]).await.unwrap(),
        vec![first_write.clone()]
    );

    // Other threads are not guarded.
    saver
        .put(vec![snapshot("u", ids[2], None, 0)], Vec::new())
        .await
        .unwrap();

    // A guard that cannot be checked fails the write, as a storage error.
    saver.guard_thread(
        "u",
        Arc::new(Lease {
            run: "r1",
            epoch: 2,
            table: "no_such_table",
        }),
    );
    let error = saver
        .put(vec![delta("u", ids[3], Some(ids[2]), 1)], Vec::new())
        .await
        .unwrap_err();
    assert!(
        matches!(PostgresError::of(&error), Some(PostgresError::Query(_))),
        "{error:?}"
    );
    assert!(!PostgresError::is_fenced(&error));
    assert_eq!(saver.get("u", Some(ids[3])).await.unwrap(), None);

    // The new holder's guard holds; without a guard, writes land too.
    saver.guard_thread(
        "t",
        Arc::new(Lease {
            run: "r1",
            epoch: 2,
            table: "leases",
        }),
    );
    saver
        .put(vec![delta("t", ids[4], Some(ids[0]), 1)], Vec::new())
        .await
        .unwrap();
    saver.unguard_thread("t");
    saver.unguard_thread("u");
    saver
        .put(vec![delta("t", ids[5], Some(ids[4]), 2)], Vec::new())
        .await
        .unwrap();
    saver
        .put(vec![delta("u", ids[3], Some(ids[2]), 1)], Vec::new())
        .await
        .unwrap();
    assert_eq!(saver.list("t", None, None).await.unwrap().len(), 3);
}
