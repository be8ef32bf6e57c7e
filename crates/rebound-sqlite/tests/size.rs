//! The store is compact: the W3 benchmark's 6,858 checkpoints (pev at
//! N=2000, deltas of 50–70 bytes, metadata of 40–60) fit in 1 MiB, about
//! 150 bytes per checkpoint on disk.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{db_bytes, runtime, temp_db};
use rebound_graph::checkpoint::{CheckpointId, Checkpointer, StateBlob, StoredCheckpoint};
use rebound_sqlite::SqliteSaver;

const CHECKPOINTS: usize = 6_858;
const LIMIT: u64 = 1 << 20;

#[test]
fn w3_checkpoints_fit_in_one_mebibyte() {
    let db = temp_db();
    let rt = runtime();
    let saver = SqliteSaver::open_default(&db.path).expect("open");
    let mut parent = None;
    let mut payload_bytes = 0usize;
    rt.block_on(async {
        for step in 0..CHECKPOINTS {
            let id = CheckpointId::new();
            // Deltas of 50–70 bytes and metadata of 40–60 bytes, like pev's.
            let state: Vec<u8> = (0..50 + step % 21).map(|i| (i * 7 + step) as u8).collect();
            let meta: Vec<u8> = (0..40 + step % 21).map(|i| (i * 13 + step) as u8).collect();
            payload_bytes += state.len() + meta.len();
            let checkpoint = StoredCheckpoint {
                thread_id: "w3".to_string(),
                id,
                parent,
                step: step as u64,
                state: if step == 0 {
                    StateBlob::Snapshot(state)
                } else {
                    StateBlob::Delta(state)
                },
                meta,
            };
            saver.put(vec![checkpoint], Vec::new()).await.expect("put");
            parent = Some(id);
        }
        assert_eq!(
            saver.list("w3", None, None).await.expect("list").len(),
            CHECKPOINTS
        );
    });
    drop(saver);
    let bytes = db_bytes(&db.path);
    println!(
        "{CHECKPOINTS} checkpoints ({:.1} bytes of state+meta each): {bytes} bytes on disk, {:.1} bytes per checkpoint",
        payload_bytes as f64 / CHECKPOINTS as f64,
        bytes as f64 / CHECKPOINTS as f64
    );
    assert!(bytes <= LIMIT, "{bytes} bytes is more than {LIMIT}");
}
