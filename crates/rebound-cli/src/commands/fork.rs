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

use rebound_workspace::checkpoints::{self, Forked};
use rebound_workspace::find_thread;
use serde_json::json;

use super::{checkpoint_id, flags, resume_command, settings};
use crate::cli::{ForkArgs, GlobalArgs};
use crate::exit::{usage, Exit};
use crate::render::out;

/// Branches a thread.
pub async fn fork(global: &GlobalArgs, args: ForkArgs) -> anyhow::Result<Exit> {
    let settings = settings(&flags(global, None))?;
    let mut found = find_thread(&settings.state_dir, &args.thread)?;
    if let Some(pid) = found.threads.holder(&args.thread)? {
        return Err(usage(format!(
            "thread {} is running in process {pid}; fork it once that run has stopped",
            args.thread
        )));
    }
    let from = checkpoint_id(&args.checkpoint)?;
    let Forked {
        checkpoint_id: new,
        next,
    } = checkpoints::fork(&mut found, from).await?;
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
