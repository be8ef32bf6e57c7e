//! `rebound resume <thread>`: continue after an approval stop, Ctrl-C or a
//! crash.

use std::sync::Arc;

use rebound_agent::pev::PevState;
use rebound_agent::reflect::ReflectState;
use rebound_graph::{CancellationToken, Input, RunConfig};
use rebound_tools::approval::ApprovalAnswer;
use rebound_workspace::drive::{answer_input, first_approval, Asked, Ending};
use rebound_workspace::resume::{open_to_resume, Resumable, ResumeOverrides};
use rebound_workspace::{process_env, FoundThread, Settings, ThreadRun};

use super::{flags, resume_command};
use crate::cli::{GlobalArgs, ResumeArgs};
use crate::exit::{usage, Exit};
use crate::run::{ask, cancel_on_ctrl_c, Session};
use crate::workflow::{Workflow, WorkflowKind};

/// The answer the flags give, if any.
fn flag_answer(args: &ResumeArgs) -> Option<ApprovalAnswer> {
    if args.approve {
        Some(ApprovalAnswer::Approve)
    } else if args.approve_all {
        Some(ApprovalAnswer::ApproveAll)
    } else {
        args.deny.as_ref().map(ApprovalAnswer::deny)
    }
}

/// Continues a thread.
pub async fn resume(global: &GlobalArgs, args: ResumeArgs) -> anyhow::Result<Exit> {
    let mut settings =
        crate::gate::settings_for_run(global, &flags(global, Some(&args.overrides)))?;
    let overrides = ResumeOverrides {
        approval: args.overrides.approval.is_some(),
        model: args.overrides.model.clone(),
    };
    let Resumable { found, tools } =
        open_to_resume(&mut settings, &args.thread, &overrides, &process_env)?;
    let resume = Resume {
        global,
        args: &args,
        settings: &settings,
    };
    let exit = match found.meta.workflow {
        WorkflowKind::Pev => resume.go::<PevState>(found, &tools.deps).await,
        WorkflowKind::Reflect => resume.go::<ReflectState>(found, &tools.deps).await,
        other => Err(crate::workflow::unsupported(other)),
    };
    tools.shutdown().await;
    exit
}

struct Resume<'a> {
    global: &'a GlobalArgs,
    args: &'a ResumeArgs,
    settings: &'a Settings,
}

impl Resume<'_> {
    async fn go<S: Workflow>(
        self,
        found: FoundThread,
        deps: &Arc<rebound_agent::AgentDeps>,
    ) -> anyhow::Result<Exit> {
        let thread = self.args.thread.clone();
        let graph = S::build(Arc::clone(deps))?.with_checkpointer(found.saver);
        let snapshot = graph
            .get_state(&RunConfig::new().with_thread_id(thread.clone()))
            .await
            .map_err(rebound_workspace::WorkspaceError::from)?;
        if snapshot.metadata.is_finished() {
            return Err(usage(format!(
                "thread {thread} has ended ({}); nothing to resume. `rebound history {thread}` lists its checkpoints, and `rebound fork {thread} --checkpoint <id>` branches from one",
                found.meta.status(found.threads.holder(&thread)?)
            )));
        }
        let cancel = CancellationToken::new();
        cancel_on_ctrl_c(cancel.clone());
        let session = Session {
            run: ThreadRun {
                graph,
                meta: found.meta,
                threads: found.threads,
                cancel: cancel.clone(),
            },
            renderer: crate::render::for_stdout(self.global.json),
            interactive: crate::approve::can_ask(self.global.no_input),
            resume: resume_command(&thread, self.global, self.settings),
            resumed: true,
            plan_len: snapshot.values.plan_len(),
        };
        let answer = flag_answer(self.args);
        let Some((id, request)) = first_approval(&snapshot.interrupts) else {
            if answer.is_some() {
                return Err(usage(format!(
                    "thread {thread} is not waiting for an approval; resume it without --approve/--deny"
                )));
            }
            return session.drive(Input::Resume).await;
        };
        let answer = match answer {
            Some(answer) => answer,
            None if session.interactive => match ask(&request, &cancel).await? {
                Asked::Answer(answer) => answer,
                Asked::NoAnswer => {
                    return session.end_now(Ending::Interrupted(snapshot.interrupts))
                }
                Asked::Cancelled => return Ok(Exit::Cancelled),
            },
            None => return session.end_now(Ending::Interrupted(snapshot.interrupts)),
        };
        let input = answer_input(id, &answer)?;
        session
            .drive_answered(input, Some((&request, &answer)))
            .await
    }
}
