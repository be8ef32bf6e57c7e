//! `rebound fork <thread> --checkpoint ID`: branch the thread from an
//! earlier checkpoint. The branch's first checkpoint copies that one's
//! state and becomes the thread's latest; `rebound resume` continues from
//! it (the checkpoints after the fork point stay in the history).
//!
//! A fork of a checkpoint the thread has moved on from asks the questions
//! asked there again (an approval answered on the old branch is asked
//! anew), and keeps what must not be done twice: a command already run
//! and journaled there is not run again. Forking the thread's latest
//! checkpoint keeps its answers too. (`CompiledGraph::update_state` has
//! the rule.)

use rebound_agent::pev::PevState;
use rebound_agent::reflect::ReflectState;
use rebound_graph::checkpoint::CheckpointId;
use rebound_graph::{RunConfig, State};
use serde_json::json;

use super::FoundThread;
use super::{checkpoint_id, find_thread, flags, inert_graph, resume_command, settings, user_error};
use crate::cli::{ForkArgs, GlobalArgs};
use crate::exit::{usage, Exit};
use crate::render::out;
use crate::threads::RunState;
use crate::workflow::{Workflow, WorkflowKind};

/// Branches a thread.
pub async fn fork(global: &GlobalArgs, args: ForkArgs) -> anyhow::Result<Exit> {
    let settings = settings(&flags(global, None))?;
    let mut found = find_thread(&settings, &args.thread)?;
    if let Some(pid) = found.threads.holder(&args.thread)? {
        return Err(usage(format!(
            "thread {} is running in process {pid}; fork it once that run has stopped",
            args.thread
        )));
    }
    let from = checkpoint_id(&args.checkpoint)?;
    let (new, next) = match found.meta.workflow {
        WorkflowKind::Pev => branch::<PevState>(&found, from).await?,
        WorkflowKind::Reflect => branch::<ReflectState>(&found, from).await?,
        other => return Err(crate::workflow::unsupported(other)),
    };
    found
        .meta
        .ended(RunState::Forked, Some(format!("checkpoint {from}")));
    found.threads.save(&found.meta)?;
    let resume = resume_command(&args.thread, global, &settings);
    if global.json {
        out(json!({
            "thread_id": args.thread,
            "from": from.to_string(),
            "checkpoint_id": new.to_string(),
            "next": next,
            "resume": resume,
        }));
        return Ok(Exit::Success);
    }
    out(format!(
        "forked thread {} at checkpoint {from}: new checkpoint {new}",
        args.thread
    ));
    if next.is_empty() {
        out("that checkpoint is the end of a run: there is nothing to resume from it");
    } else {
        out(format!("next: {}", next.join(", ")));
        out(format!("continue with: {resume}"));
    }
    Ok(Exit::Success)
}

/// Saves the branch's first checkpoint; returns it and its next nodes.
async fn branch<S: Workflow>(
    found: &FoundThread,
    from: CheckpointId,
) -> anyhow::Result<(CheckpointId, Vec<String>)> {
    let graph = inert_graph::<S>(&found.meta.workspace, found.saver.clone())?;
    let config = RunConfig::new()
        .with_thread_id(found.meta.thread_id.clone())
        .with_checkpoint_id(from);
    let new = graph
        .update_state(&config, <S as State>::Update::default(), None)
        .await
        .map_err(user_error)?;
    let latest = graph
        .get_state(&RunConfig::new().with_thread_id(found.meta.thread_id.clone()))
        .await
        .map_err(user_error)?;
    Ok((new, latest.metadata.next))
}
