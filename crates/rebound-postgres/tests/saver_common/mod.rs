//! Helpers shared by the saver's integration tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(dead_code)]

use rebound_graph::checkpoint::{
    CheckpointId, PendingWrite, StateBlob, StoredCheckpoint, WriteKind,
};
use rebound_postgres::testing::{test_database, TestDatabase};
use rebound_postgres::{PostgresOptions, PostgresSaver};

/// A fresh database and a saver on it, or None (the test skips).
pub async fn fresh() -> Option<(TestDatabase, PostgresSaver)> {
    let db = test_database().await.expect("a test database")?;
    let saver = connect(&db).await;
    Some((db, saver))
}

/// Another saver on `db` (another "process").
pub async fn connect(db: &TestDatabase) -> PostgresSaver {
    PostgresSaver::connect(&db.url, PostgresOptions::default())
        .await
        .expect("connect")
}

/// `n` increasing ids.
pub fn ids(n: usize) -> Vec<CheckpointId> {
    (0..n).map(|_| CheckpointId::new()).collect()
}

/// A delta checkpoint with recognisable bytes.
pub fn delta(
    thread: &str,
    id: CheckpointId,
    parent: Option<CheckpointId>,
    step: u64,
) -> StoredCheckpoint {
    StoredCheckpoint {
        thread_id: thread.to_string(),
        id,
        parent,
        step,
        state: StateBlob::Delta(format!("state of {thread} at {step}").into_bytes()),
        meta: format!("meta {step}").into_bytes(),
    }
}

/// A snapshot checkpoint with recognisable bytes.
pub fn snapshot(
    thread: &str,
    id: CheckpointId,
    parent: Option<CheckpointId>,
    step: u64,
) -> StoredCheckpoint {
    StoredCheckpoint {
        thread_id: thread.to_string(),
        id,
        parent,
        step,
        state: StateBlob::Snapshot(format!("full state of {thread} at {step}").into_bytes()),
        meta: b"{}".to_vec(),
    }
}

/// A pending write.
pub fn write(
    thread: &str,
    checkpoint: CheckpointId,
    node: &str,
    kind: WriteKind,
    key: &str,
    value: &[u8],
) -> PendingWrite {
    PendingWrite {
        thread_id: thread.to_string(),
        checkpoint,
        node: node.to_string(),
        kind,
        key: key.to_string(),
        value: value.to_vec(),
    }
}
