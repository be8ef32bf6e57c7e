//! `rebound threads`: every thread of the state directory, newest first,
//! with its status.

use std::collections::BTreeMap;
use std::sync::Arc;

use rebound_graph::checkpoint::Checkpointer;

use serde_json::json;

use super::{flags, settings};
use crate::cli::GlobalArgs;
use crate::exit::Exit;
use crate::render::progress::cut;
use crate::render::{out, out_text};
use crate::store::StateDir;
use crate::threads::{now_ms, ThreadStore};
use crate::timefmt::ago;

/// One row of the list.
struct Row {
    thread_id: String,
    status: String,
    workflow: String,
    steps: Option<u64>,
    checkpoints: Option<u64>,
    updated_ms: u64,
    goal: String,
}

/// Lists the threads.
pub async fn threads(global: &GlobalArgs) -> anyhow::Result<Exit> {
    let settings = settings(&flags(global, None))?;
    let state = StateDir::new(&settings.state_dir);
    let rows = if state.exists() {
        rows(&state).await?
    } else {
        Vec::new()
    };
    if global.json {
        let list: Vec<_> = rows
            .iter()
            .map(|row| {
                json!({
                    "thread_id": row.thread_id,
                    "status": row.status,
                    "workflow": row.workflow,
                    "steps": row.steps,
                    "checkpoints": row.checkpoints,
                    "updated_ms": row.updated_ms,
                    "goal": row.goal,
                })
            })
            .collect();
        out(serde_json::to_string(&list)?);
        return Ok(Exit::Success);
    }
    if rows.is_empty() {
        out_text(format!(
            "no threads in {} yet; start one with `rebound run \"<goal>\"`",
            state.root().display()
        ));
        return Ok(Exit::Success);
    }
    let now = now_ms();
    let status_width = rows
        .iter()
        .map(|r| r.status.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 40);
    let id_width = rows
        .iter()
        .map(|r| r.thread_id.len())
        .max()
        .unwrap_or(6)
        .max(6);
    out_text(format!(
        "{:id_width$}  {:status_width$}  {:8}  {:>5}  {:9}  GOAL",
        "THREAD", "STATUS", "WORKFLOW", "STEPS", "UPDATED"
    ));
    for row in rows {
        out_text(format!(
            "{:id_width$}  {:status_width$}  {:8}  {:>5}  {:9}  {}",
            row.thread_id,
            cut(&row.status, status_width),
            row.workflow,
            row.steps
                .map(|s| s.to_string())
                .unwrap_or_else(|| "-".into()),
            ago(row.updated_ms, now),
            cut(row.goal.lines().next().unwrap_or_default(), 60)
        ));
    }
    Ok(Exit::Success)
}

/// The rows: every record, joined with the checkpoint store's threads
/// (threads with checkpoints but no record are listed too; a subgraph's
/// checkpoints, kept under a namespace of their parent thread, are not a
/// thread of their own).
async fn rows(state: &StateDir) -> anyhow::Result<Vec<Row>> {
    let saver = state.open()?;
    let records = ThreadStore::new(Arc::clone(&saver));
    let mut stored: BTreeMap<String, rebound_graph::checkpoint::ThreadSummary> = saver
        .threads()
        .await?
        .into_iter()
        .filter(|t| !rebound_graph::subgraph::is_subgraph_thread(&t.thread_id))
        .map(|t| (t.thread_id.clone(), t))
        .collect();
    let mut rows: Vec<Row> = Vec::new();
    for meta in records.all()? {
        let summary = stored.remove(&meta.thread_id);
        let holder = records.holder(&meta.thread_id)?;
        rows.push(Row {
            status: meta.status(holder),
            workflow: meta.workflow.to_string(),
            steps: summary.as_ref().map(|s| s.step),
            checkpoints: summary.as_ref().map(|s| s.checkpoints),
            updated_ms: meta
                .updated_ms
                .max(summary.map(|s| s.latest.created_ms()).unwrap_or(0)),
            goal: meta.goal,
            thread_id: meta.thread_id,
        });
    }
    for (thread_id, summary) in stored {
        let status = match records.holder(&thread_id)? {
            Some(pid) => format!("running (pid {pid})"),
            None => "unknown (not started by this CLI)".to_string(),
        };
        rows.push(Row {
            thread_id,
            status,
            workflow: "?".to_string(),
            steps: Some(summary.step),
            checkpoints: Some(summary.checkpoints),
            updated_ms: summary.latest.created_ms(),
            goal: String::new(),
        });
    }
    rows.sort_by(|a, b| {
        b.updated_ms
            .cmp(&a.updated_ms)
            .then_with(|| b.thread_id.cmp(&a.thread_id))
    });
    Ok(rows)
}
