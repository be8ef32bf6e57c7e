//! `rebound show <thread> [--checkpoint ID]`: the thread's state at its
//! latest checkpoint or at one of them.

use rebound_agent::pev::PevState;
use rebound_agent::reflect::ReflectState;
use rebound_graph::{RunConfig, StateSnapshot};
use rebound_tools::approval::ApprovalRequest;
use serde_json::{json, Value};

use super::{checkpoint_id, find_thread, flags, inert_graph, settings, user_error, FoundThread};
use crate::cli::{GlobalArgs, ShowArgs};
use crate::exit::Exit;
use crate::render::{out, out_text};
use crate::timefmt::utc;
use crate::workflow::{Workflow, WorkflowKind};

/// Prints a thread's state.
pub async fn show(global: &GlobalArgs, args: ShowArgs) -> anyhow::Result<Exit> {
    let settings = settings(&flags(global, None))?;
    let found = find_thread(&settings, &args.thread)?;
    let view = match found.meta.workflow {
        WorkflowKind::Pev => view::<PevState>(&found, &args).await?,
        WorkflowKind::Reflect => view::<ReflectState>(&found, &args).await?,
        other => return Err(crate::workflow::unsupported(other)),
    };
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
async fn view<S: Workflow>(found: &FoundThread, args: &ShowArgs) -> anyhow::Result<Value> {
    let graph = inert_graph::<S>(&found.meta.workspace, found.saver.clone())?;
    let mut config = RunConfig::new().with_thread_id(args.thread.clone());
    if let Some(id) = &args.checkpoint {
        config = config.with_checkpoint_id(checkpoint_id(id)?);
    }
    let snapshot: StateSnapshot<S> = graph.get_state(&config).await.map_err(user_error)?;
    Ok(json!({
        "thread_id": args.thread,
        "workflow": found.meta.workflow,
        "checkpoint_id": snapshot.checkpoint_id.to_string(),
        "parent_id": snapshot.parent_id.map(|id| id.to_string()),
        "step": snapshot.step,
        "created_ms": snapshot.checkpoint_id.created_ms(),
        "next": snapshot.metadata.next,
        "interrupts": snapshot.interrupts,
        "state": serde_json::to_value(&snapshot.values)?,
    }))
}
