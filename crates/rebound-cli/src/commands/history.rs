//! `rebound history <thread>`: the thread's checkpoints, oldest first, with
//! the node that ran, where it routed and why, and when.

use rebound_graph::CheckpointInfo;
use rebound_workspace::checkpoints::{self, leads_to, made_by};
use rebound_workspace::find_thread;
use serde_json::json;

use super::{flags, settings};
use crate::cli::{GlobalArgs, HistoryArgs};
use crate::exit::Exit;
use crate::render::progress::cut;
use crate::render::{out, out_text};
use crate::timefmt::utc;

/// Prints a thread's checkpoints.
pub async fn history(global: &GlobalArgs, args: HistoryArgs) -> anyhow::Result<Exit> {
    let settings = settings(&flags(global, None))?;
    let found = find_thread(&settings.state_dir, &args.thread)?;
    let checkpoints = checkpoints::history(&found, args.limit).await?;
    if global.json {
        let rows: Vec<_> = checkpoints.iter().map(row_json).collect();
        out(serde_json::to_string(&rows)?);
        return Ok(Exit::Success);
    }
    out_text(format!(
        "thread {} ({}): {} checkpoints, oldest first",
        found.meta.thread_id,
        found.meta.workflow,
        checkpoints.len()
    ));
    out_text(format!(
        "{:16}  {:>4}  {:23}  {:16}  {:16}  REASON",
        "CHECKPOINT", "STEP", "TIME", "NODE", "NEXT"
    ));
    for info in &checkpoints {
        let line = format!(
            "{:16}  {:>4}  {:23}  {:16}  {:16}  {}",
            info.checkpoint_id.to_string(),
            info.step,
            utc(info.checkpoint_id.created_ms()),
            cut(&made_by(info), 16),
            cut(&leads_to(info), 16),
            info.metadata.reasons.join("; ")
        );
        out_text(line.trim_end());
    }
    Ok(Exit::Success)
}

fn row_json(info: &CheckpointInfo) -> serde_json::Value {
    json!({
        "checkpoint_id": info.checkpoint_id.to_string(),
        "parent_id": info.parent_id.map(|id| id.to_string()),
        "step": info.step,
        "created_ms": info.checkpoint_id.created_ms(),
        "node": made_by(info),
        "ran": info.metadata.ran,
        "next": info.metadata.next,
        "sends": info.metadata.sends.len(),
        "abandoned": info.metadata.abandoned,
        "reasons": info.metadata.reasons,
        "duration_us": info.metadata.duration_us,
        "snapshot": info.snapshot,
        "state_bytes": info.state_bytes,
    })
}
