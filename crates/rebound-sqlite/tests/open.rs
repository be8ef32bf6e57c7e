//! Opening: settings, schema versions, and files that are not ours.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{runtime, snapshot, temp_db, write};
use rebound_graph::checkpoint::{CheckpointError, CheckpointId, Checkpointer, WriteKind};
use rebound_sqlite::{SqliteOptions, SqliteSaver, Synchronous, SCHEMA_VERSION};

fn unusable(result: Result<SqliteSaver, CheckpointError>) -> (String, String) {
    match result {
        Err(CheckpointError::Unusable { location, reason }) => (location, reason),
        other => panic!("expected Unusable, got {other:?}"),
    }
}

#[test]
fn settings_are_applied_and_reported() {
    let db = temp_db();
    for (synchronous, level) in [(Synchronous::Normal, 1), (Synchronous::Full, 2)] {
        let options = SqliteOptions::default()
            .with_synchronous(synchronous)
            .with_busy_timeout(std::time::Duration::from_millis(1234));
        let saver = SqliteSaver::open(&db.path, options.clone()).unwrap();
        assert_eq!(saver.synchronous(), synchronous);
        assert_eq!(
            saver.synchronous().to_string(),
            ["normal", "full"][level as usize - 1]
        );
        assert_eq!(saver.options(), &options);
        assert_eq!(saver.path(), db.path.as_path());
        let applied = saver.applied_settings().unwrap();
        assert_eq!(applied.journal_mode, "wal");
        assert_eq!(applied.synchronous, level);
        assert_eq!(applied.busy_timeout_ms, 1234);
        assert_eq!(applied.schema_version, SCHEMA_VERSION);
        assert_eq!(applied.page_size, 2048);
    }
    // WAL is recorded in the file itself.
    let raw = rusqlite::Connection::open(&db.path).unwrap();
    let mode: String = raw
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn an_empty_file_becomes_a_rebound_database() {
    let db = temp_db();
    std::fs::write(&db.path, b"").unwrap();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    assert_eq!(
        saver.applied_settings().unwrap().schema_version,
        SCHEMA_VERSION
    );
}

#[test]
fn a_newer_schema_is_unusable() {
    let db = temp_db();
    drop(SqliteSaver::open_default(&db.path).unwrap());
    let raw = rusqlite::Connection::open(&db.path).unwrap();
    raw.execute(
        "UPDATE rebound_schema SET version = ?1",
        [SCHEMA_VERSION + 7],
    )
    .unwrap();
    drop(raw);
    let (location, reason) = unusable(SqliteSaver::open_default(&db.path));
    assert_eq!(location, db.path.display().to_string());
    assert!(
        reason.contains(&format!("schema version is {}", SCHEMA_VERSION + 7)),
        "{reason}"
    );
    assert!(
        reason.contains(&format!("up to version {SCHEMA_VERSION}")),
        "{reason}"
    );
    let shown = CheckpointError::Unusable { location, reason }.to_string();
    assert!(shown.contains("rebound.db"), "{shown}");
}

#[test]
fn files_that_are_not_sqlite_are_unusable_and_left_alone() {
    let db = temp_db();
    let garbage: Vec<u8> = (0..8192u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let text = b"name,value\nthreads,3\nthis is a CSV file, not a database\n".to_vec();
    for contents in [garbage, text] {
        std::fs::write(&db.path, &contents).unwrap();
        let (location, reason) = unusable(SqliteSaver::open_default(&db.path));
        assert_eq!(location, db.path.display().to_string());
        assert!(reason.contains("not an SQLite database"), "{reason}");
        assert_eq!(std::fs::read(&db.path).unwrap(), contents);
    }
}

#[test]
fn another_applications_database_is_unusable_and_left_alone() {
    let db = temp_db();
    let raw = rusqlite::Connection::open(&db.path).unwrap();
    raw.execute_batch("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada');")
        .unwrap();
    drop(raw);
    let (_, reason) = unusable(SqliteSaver::open_default(&db.path));
    assert!(
        reason.contains("another application") && reason.contains("users"),
        "{reason}"
    );
    // Not switched to WAL, not given our tables.
    let raw = rusqlite::Connection::open(&db.path).unwrap();
    let mode: String = raw
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete");
    let tables: i64 = raw
        .query_row(
            "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 1);
}

#[test]
fn a_missing_directory_is_unusable() {
    let db = temp_db();
    let (location, _) = unusable(SqliteSaver::open_default(
        db.dir.path().join("no/such/dir/x.db"),
    ));
    assert!(location.ends_with("x.db"));
}

#[test]
fn unreadable_rows_are_corrupt_not_panics() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let id = CheckpointId::new();
    runtime().block_on(async {
        saver
            .put(
                vec![snapshot("t", id, 0)],
                vec![write("t", id, "n", WriteKind::Journal, "k", b"v")],
            )
            .await
            .unwrap();
    });
    // Damage one column at a time through another connection, read through
    // the saver, then repair it.
    let raw = rusqlite::Connection::open(&db.path).unwrap();
    let cases = [
        (
            "UPDATE checkpoints SET state = 'text'",
            "UPDATE checkpoints SET state = X'00'",
        ),
        (
            "UPDATE checkpoints SET meta = 5",
            "UPDATE checkpoints SET meta = X'00'",
        ),
        (
            "UPDATE checkpoints SET kind = 7",
            "UPDATE checkpoints SET kind = 0",
        ),
        (
            "UPDATE checkpoints SET parent_gap = 'x'",
            "UPDATE checkpoints SET parent_gap = NULL",
        ),
        (
            "UPDATE checkpoints SET step = -1",
            "UPDATE checkpoints SET step = 0",
        ),
    ];
    for (damage, repair) in cases {
        raw.execute_batch(damage).unwrap();
        let results = runtime().block_on(async {
            [
                saver.get("t", None).await.map(|_| ()),
                saver.get("t", Some(id)).await.map(|_| ()),
                saver.list("t", None, None).await.map(|_| ()),
            ]
        });
        for result in results {
            assert!(
                matches!(result, Err(CheckpointError::Corrupt(_))),
                "{damage}: {result:?}"
            );
        }
        raw.execute_batch(repair).unwrap();
    }
    raw.execute_batch("UPDATE writes SET kind = 'bogus'")
        .unwrap();
    let result = runtime().block_on(saver.pending_writes("t", id));
    assert!(
        matches!(result, Err(CheckpointError::Corrupt(_))),
        "{result:?}"
    );
}

#[test]
fn a_cycle_of_parent_links_is_corrupt() {
    let db = temp_db();
    let saver = SqliteSaver::open_default(&db.path).unwrap();
    let (a, b) = (CheckpointId::new(), CheckpointId::new());
    runtime().block_on(async {
        saver
            .put(
                vec![
                    common::delta("t", a, Some(b), 1),
                    common::delta("t", b, Some(a), 2),
                ],
                Vec::new(),
            )
            .await
            .unwrap();
        let err = saver.get_chain("t", a).await.unwrap_err();
        assert!(
            matches!(&err, CheckpointError::Corrupt(m) if m.contains("cycle")),
            "{err:?}"
        );
    });
}

/// A file of schema version 1 (the previous release: no thread records)
/// opens, keeps its checkpoints and locks, and gains the thread records.
#[test]
fn a_version_1_file_is_migrated_and_keeps_its_data() {
    let db = temp_db();
    let id = CheckpointId::new();
    {
        let saver = SqliteSaver::open_default(&db.path).unwrap();
        runtime()
            .block_on(saver.put(vec![snapshot("old", id, 3)], Vec::new()))
            .unwrap();
    }
    // Take the file back to what version 1 wrote.
    let raw = rusqlite::Connection::open(&db.path).unwrap();
    raw.execute_batch(
        "DROP TABLE thread_records; UPDATE rebound_schema SET version = 1;
         INSERT INTO locks (thread, pid, acquired_at) VALUES ('old', 0, 0);",
    )
    .unwrap();
    drop(raw);
    assert_eq!(SCHEMA_VERSION, 2);

    let saver = SqliteSaver::open_default(&db.path).unwrap();
    assert_eq!(saver.applied_settings().unwrap().schema_version, 2);
    let stored = runtime().block_on(saver.get("old", None)).unwrap().unwrap();
    assert_eq!((stored.id, stored.step), (id, 3));
    // The old lock (of no live process) is still there, and does not count.
    let raw = rusqlite::Connection::open(&db.path).unwrap();
    let locks: i64 = raw
        .query_row("SELECT count(*) FROM locks", [], |r| r.get(0))
        .unwrap();
    assert_eq!(locks, 1);
    assert_eq!(saver.lock_holder("old").unwrap(), None);
    let record = rebound_sqlite::ThreadRecord::new("old", 5, serde_json::json!({}));
    saver.put_thread(&record).unwrap();
    assert_eq!(saver.get_thread("old").unwrap(), Some(record));
}
