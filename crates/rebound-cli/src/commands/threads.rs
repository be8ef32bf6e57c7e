//! `rebound threads`: every thread of the state directory, newest first,
//! with its status.

use rebound_workspace::listing::list_threads;
use rebound_workspace::threads::now_ms;
use rebound_workspace::StateDir;

use super::{flags, settings};
use crate::cli::GlobalArgs;
use crate::exit::Exit;
use crate::render::progress::cut;
use crate::render::{out, out_text};
use crate::timefmt::ago;

/// Lists the threads.
pub async fn threads(global: &GlobalArgs) -> anyhow::Result<Exit> {
    let settings = settings(&flags(global, None))?;
    let state = StateDir::new(&settings.state_dir);
    let rows = list_threads(&state).await?;
    if global.json {
        out(serde_json::to_string(&rows)?);
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
