//! `rebound show <thread> [--checkpoint ID]`: the thread's state at its
//! latest checkpoint or at one of them.

use rebound_graph::StateSnapshot;
use rebound_tools::approval::ApprovalRequest;
use rebound_workspace::{checkpoints, find_thread, FoundThread};
use serde_json::{json, Value};

use super::{checkpoint_id, flags, settings};
use crate::cli::{GlobalArgs, ShowArgs};
use crate::exit::Exit;
use crate::render::{out, out_text};
use crate::timefmt::utc;

/// Prints a thread's state.
pub async fn show(global: &GlobalArgs, args: ShowArgs) -> anyhow::Result<Exit> {
    let settings = settings(&flags(global, None))?;
    let found = find_thread(&settings.state_dir, &args.thread)?;
    let checkpoint = args.checkpoint.as_deref().map(checkpoint_id).transpose()?;
    let view = view(&found, checkpoints::snapshot(&found, checkpoint).await?);
    if global.json {
        out(serde_json::to_string(&view)?);
        return Ok(Exit::Success);
    }
    let meta = &found.meta;
    let field = |name: &str, value: &str| out_text(format!("{name:11} {value}"));
    field("thread", &format!("{} ({})", meta.thread_id, meta.workflow));
    field("goal", meta.goal.trim());
    field(
        "status",
        &meta.status(found.threads.holder(&meta.thread_id)?),
    );
    field("model", &meta.model);
    field("workspace", &meta.workspace.display().to_string());
    field(
        "checkpoint",
        &format!(
            "{} (step {}, {})",
            view["checkpoint_id"].as_str().unwrap_or_default(),
            view["step"],
            utc(view["created_ms"].as_u64().unwrap_or_default())
        ),
    );
    let next: Vec<&str> = view["next"]
        .as_array()
        .map(|n| n.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    field(
        "next",
        &if next.is_empty() {
            "END (the run ended here)".to_string()
        } else {
            next.join(", ")
        },
    );
    for interrupt in view["interrupts"].as_array().into_iter().flatten() {
        let text = match ApprovalRequest::from_payload(&interrupt["payload"]) {
            Some(request) => format!("approval of `{}` ({})", request.command, request.reason),
            None => interrupt.to_string(),
        };
        field("waiting", &text);
    }
    out_text("state:");
    out(serde_json::to_string_pretty(&view["state"])?);
    Ok(Exit::Success)
}

/// The snapshot as JSON: the checkpoint's facts and the state.
fn view(found: &FoundThread, snapshot: StateSnapshot<Value>) -> Value {
    json!({
        "thread_id": found.meta.thread_id,
        "workflow": found.meta.workflow,
        "checkpoint_id": snapshot.checkpoint_id.to_string(),
        "parent_id": snapshot.parent_id.map(|id| id.to_string()),
        "step": snapshot.step,
        "created_ms": snapshot.checkpoint_id.created_ms(),
        "next": snapshot.metadata.next,
        "interrupts": snapshot.interrupts,
        "state": snapshot.values,
    })
}
