//! Checkpoint bytes on disk: a real SQLite file, written by a real run,
//! with one stored value overwritten by arbitrary bytes, is read back
//! through the graph's public API (`get_state`, `history`, a resume): an
//! error, never a panic, and no allocation past libFuzzer's RSS bound.
//!
//! The input: byte 0 chooses the column (a checkpoint's state, its
//! metadata, its parent link, step or kind, or a pending write's value),
//! byte 1 which row (the thread's record too), byte 2 whether the rest goes in as a blob, as text or
//! as an integer (its first 8 bytes); the rest is the value. SQLite keeps
//! any type in any column of these tables, so a damaged file can hold any
//! of them.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use rebound_graph::{CompiledGraph, NodeError, RunConfig, State, StateGraph, END, START};
use rebound_sqlite::SqliteSaver;
use rusqlite::types::Value;
use serde::{Deserialize, Serialize};

/// A small agent-like state: a counter, an appended list (stored as
/// deltas), and the answer to an interrupt.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Notes {
    count: u32,
    #[state(append)]
    items: Vec<String>,
    answer: Option<String>,
}

/// `add` three times (each journals a call), then `ask` waits for an answer.
fn graph(db: &Path) -> Result<CompiledGraph<Notes>, String> {
    let mut graph = StateGraph::<Notes>::new();
    graph
        .add_node("add", |s: Arc<Notes>, ctx| async move {
            let n = s.count;
            let item = ctx
                .journal("item", async move { format!("item {n}") })
                .await?;
            Ok::<_, NodeError>(NotesUpdate::default().count(n + 1).items(vec![item]))
        })
        .add_node("ask", |_s: Arc<Notes>, ctx| async move {
            let answer: String = ctx.interrupt("who approves?")?;
            Ok::<_, NodeError>(NotesUpdate::default().answer(Some(answer)))
        })
        .add_edge(START, "add")
        .add_conditional_edges(
            "add",
            |s: &Notes| if s.count < 3 { "add" } else { "ask" },
            ["add", "ask"],
        )
        .add_edge("ask", END);
    let saver = SqliteSaver::open_default(db).map_err(|e| e.to_string())?;
    Ok(graph
        .compile()
        .map_err(|e| e.to_string())?
        .with_checkpointer(Arc::new(saver)))
}

fn config() -> RunConfig {
    RunConfig::new().with_thread_id("fuzzed")
}

/// The database a real run wrote (stopped at its interrupt), made once.
struct Template {
    _dir: tempfile::TempDir,
    db: PathBuf,
    work: PathBuf,
    runtime: tokio::runtime::Runtime,
}

fn template() -> &'static Template {
    static TEMPLATE: OnceLock<Template> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("a temp dir: {e}"));
        let db = dir.path().join("template.db");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("a runtime: {e}"));
        runtime.block_on(async {
            let graph = graph(&db).unwrap_or_else(|e| panic!("the graph: {e}"));
            let outcome = graph
                .run(Notes::default(), config())
                .await
                .unwrap_or_else(|e| panic!("the template run: {e}"));
            assert!(outcome.is_interrupted(), "the template run stops to ask");
        });
        // Everything in the main file, so that copying it copies it all.
        rusqlite::Connection::open(&db)
            .and_then(|c| c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);"))
            .unwrap_or_else(|e| panic!("the template's checkpoint: {e}"));
        if let Some(seeds) = std::env::var_os("REBOUND_FUZZ_SEEDS") {
            write_seeds(&db, Path::new(&seeds));
        }
        Template {
            work: dir.path().join("work.db"),
            _dir: dir,
            db,
            runtime,
        }
    })
}

const COLUMNS: &[(&str, &str)] = &[
    ("checkpoints", "state"),
    ("checkpoints", "meta"),
    ("checkpoints", "parent_gap"),
    ("checkpoints", "step"),
    ("checkpoints", "kind"),
    ("checkpoints_by_time", "state"),
    ("checkpoints_by_time", "meta"),
    ("writes", "value"),
    ("writes", "kind"),
    ("writes", "node"),
    ("threads", "base"),
    ("threads", "name"),
];

/// Writes the template's own values, one input per column and row (the
/// value as a blob, or an integer as its 8 bytes), into `dir`: the seed
/// corpus, made with `REBOUND_FUZZ_SEEDS=fuzz/corpus/checkpoint` set.
fn write_seeds(db: &Path, dir: &Path) {
    let connection = rusqlite::Connection::open(db).unwrap_or_else(|e| panic!("{e}"));
    for (index, (table, column)) in COLUMNS.iter().enumerate() {
        let sql = format!("SELECT {column} FROM {table} ORDER BY {}", key_of(table));
        let mut statement = connection.prepare(&sql).unwrap_or_else(|e| panic!("{e}"));
        let values: Vec<Value> = statement
            .query_map([], |row| row.get(0))
            .and_then(|rows| rows.collect())
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        for (row, value) in values.into_iter().enumerate().take(4) {
            let (form, bytes) = match value {
                Value::Integer(n) => (2u8, n.to_le_bytes().to_vec()),
                Value::Text(text) => (1, text.into_bytes()),
                Value::Blob(bytes) => (0, bytes),
                Value::Null | Value::Real(_) => continue,
            };
            let mut input = vec![index as u8, row as u8, form];
            input.extend(bytes);
            std::fs::write(dir.join(format!("{table}-{column}-{row}")), input)
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// The key columns of `table`, in key order (every table here is WITHOUT
/// ROWID, but for `threads`).
fn key_of(table: &str) -> &'static str {
    match table {
        "writes" => "thread, checkpoint, seq",
        "checkpoints" => "thread, id",
        "threads" => "id",
        _ => "id, thread",
    }
}

/// Writes `data`'s value into the chosen column of the chosen row of the
/// working copy; `false` when the input chooses nothing.
fn damage(work: &Path, data: &[u8]) -> bool {
    let [column, row, form, rest @ ..] = data else {
        return false;
    };
    let (table, column) = COLUMNS[usize::from(*column) % COLUMNS.len()];
    let value = match form % 3 {
        0 => Value::Blob(rest.to_vec()),
        1 => Value::Text(String::from_utf8_lossy(rest).into_owned()),
        _ => {
            let mut bytes = [0u8; 8];
            let n = rest.len().min(8);
            bytes[..n].copy_from_slice(&rest[..n]);
            Value::Integer(i64::from_le_bytes(bytes))
        }
    };
    let connection =
        rusqlite::Connection::open(work).unwrap_or_else(|e| panic!("the working copy: {e}"));
    let key = key_of(table);
    let sql = format!(
        "UPDATE {table} SET {column} = ?1 WHERE ({key}) IN \
         (SELECT {key} FROM {table} ORDER BY {key} LIMIT 1 OFFSET ?2 % max(1, (SELECT COUNT(*) FROM {table})))"
    );
    connection
        .execute(&sql, rusqlite::params![value, i64::from(*row)])
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    true
}

fuzz_target!(|data: &[u8]| {
    let template = template();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", template.work.display()));
    }
    std::fs::copy(&template.db, &template.work).unwrap_or_else(|e| panic!("a copy: {e}"));
    if !damage(&template.work, data) {
        return;
    }
    template.runtime.block_on(async {
        // The saver may refuse the file: that is an error, as promised.
        let Ok(graph) = graph(&template.work) else {
            return;
        };
        let _ = graph.get_state(&config()).await;
        let _ = graph.history(&config(), None, None).await;
        let _ = graph.resume_with(serde_json::json!("fuzz"), config()).await;
    });
});
