//! `rebound history <thread>`: the thread's checkpoints, oldest first, with
//! the node that ran, where it routed and why, and when.

use rebound_graph::checkpoint::CheckpointSource;
use rebound_graph::CheckpointInfo;
use rebound_workspace::{checkpoints, find_thread};
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
            cut(&node(info), 16),
            cut(&next(info), 16),
            info.metadata.reasons.join("; ")
        );
        out_text(line.trim_end());
    }
    Ok(Exit::Success)
}

/// What made the checkpoint: the nodes that ran, `(input)` or `(fork)`.
fn node(info: &CheckpointInfo) -> String {
    match info.metadata.source {
        CheckpointSource::Input => "(input)".to_string(),
        CheckpointSource::Fork => "(replay)".to_string(),
        CheckpointSource::Update if info.metadata.ran.iter().all(|n| n == "__update__") => {
            "(fork)".to_string()
        }
        _ => match &info.metadata.abandoned {
            // An update as another node: what it left behind is told.
            Some(abandoned) if !abandoned.next.is_empty() => format!(
                "{} (abandoned {})",
                info.metadata.ran.join(", "),
                abandoned.next.join(", ")
            ),
            _ => info.metadata.ran.join(", "),
        },
    }
}

/// Where the run goes from it: the next nodes and the tasks sent to
/// nodes (`summarize (3 sent)`), or END.
fn next(info: &CheckpointInfo) -> String {
    if info.metadata.is_finished() {
        return "END".to_string();
    }
    let mut sent: Vec<(&str, usize)> = Vec::new();
    for send in &info.metadata.sends {
        match sent.iter_mut().find(|(node, _)| *node == send.node()) {
            Some((_, count)) => *count += 1,
            None => sent.push((send.node(), 1)),
        }
    }
    let mut next: Vec<String> = info.metadata.next.clone();
    next.extend(
        sent.iter()
            .map(|(node, count)| format!("{node} ({count} sent)")),
    );
    next.join(", ")
}

fn row_json(info: &CheckpointInfo) -> serde_json::Value {
    json!({
        "checkpoint_id": info.checkpoint_id.to_string(),
        "parent_id": info.parent_id.map(|id| id.to_string()),
        "step": info.step,
        "created_ms": info.checkpoint_id.created_ms(),
        "node": node(info),
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

#[cfg(test)]
mod tests {
    use super::*;
    use rebound_graph::checkpoint::{Abandoned, CheckpointId, CheckpointMetadata};

    fn info(metadata: CheckpointMetadata) -> CheckpointInfo {
        CheckpointInfo {
            checkpoint_id: CheckpointId::new(),
            parent_id: None,
            step: 3,
            metadata,
            snapshot: false,
            state_bytes: 0,
        }
    }

    #[test]
    fn sent_tasks_are_counted_by_node_after_the_next_nodes() {
        let row = info(CheckpointMetadata {
            source: CheckpointSource::Loop,
            ran: vec!["split".to_string()],
            next: vec!["join".to_string()],
            sends: vec![
                rebound_graph::Send::new("summarize", "a"),
                rebound_graph::Send::new("summarize", "b"),
                rebound_graph::Send::new("count", 1),
            ],
            ..CheckpointMetadata::default()
        });
        assert_eq!(next(&row), "join, summarize (2 sent), count (1 sent)");
        assert_eq!(node(&row), "split");
    }

    #[test]
    fn an_update_as_another_node_names_what_it_abandoned() {
        let row = info(CheckpointMetadata {
            source: CheckpointSource::Update,
            ran: vec!["a".to_string()],
            abandoned: Some(Abandoned {
                next: vec!["ask".to_string()],
                sends: 0,
                writes: 2,
            }),
            ..CheckpointMetadata::default()
        });
        assert_eq!(node(&row), "a (abandoned ask)");
    }
}
