//! Helpers shared by the integration tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use rebound_graph::checkpoint::{
    CheckpointId, PendingWrite, StateBlob, StoredCheckpoint, WriteKind,
};

/// A temporary directory and a database path inside it.
pub struct TempDb {
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
}

pub fn temp_db() -> TempDb {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("rebound.db");
    TempDb { dir, path }
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
pub fn snapshot(thread: &str, id: CheckpointId, step: u64) -> StoredCheckpoint {
    StoredCheckpoint {
        thread_id: thread.to_string(),
        id,
        parent: None,
        step,
        state: StateBlob::Snapshot(format!("full state of {thread}").into_bytes()),
        meta: b"{}".to_vec(),
    }
}

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

/// `n` increasing ids.
pub fn ids(n: usize) -> Vec<CheckpointId> {
    (0..n).map(|_| CheckpointId::new()).collect()
}

/// The database's size on disk: the file plus any WAL left beside it.
pub fn db_bytes(path: &Path) -> u64 {
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    size(path) + size(Path::new(&wal))
}

/// A current-thread runtime, like the benchmark's.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// Appends `n` as a line to `log`: the side effect the kill and disk-fault
/// tests journal. Returns the file, for a caller that syncs it.
pub fn append_line(log: &Path, n: u32) -> std::fs::File {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    writeln!(file, "{n}").unwrap();
    file
}

/// The numbers [`append_line`] wrote to `log`, in order (none when it is
/// missing).
pub fn log_lines(log: &Path) -> Vec<u32> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}
