//! `rebound run "<goal>"`: a new thread.

use std::sync::Arc;

use rebound_agent::pev::PevState;
use rebound_agent::reflect::ReflectState;
use rebound_graph::checkpoint::Checkpointer;
use rebound_graph::{CancellationToken, Input};

use rebound_workspace::threads::new_thread_id;
use rebound_workspace::{
    process_env, RunParts, Settings, ThreadMeta, ThreadRun, ThreadStore, Tools,
};

use super::{flags, resume_command};
use crate::cli::{GlobalArgs, RunArgs};
use crate::exit::{usage, Exit};
use crate::run::{cancel_on_ctrl_c, Session};
use crate::workflow::{Workflow, WorkflowKind};

/// Runs the agent on a goal, in a new thread.
pub async fn run(global: &GlobalArgs, args: RunArgs) -> anyhow::Result<Exit> {
    if args.goal.trim().is_empty() {
        return Err(usage(
            "the goal is empty: say what the agent should achieve",
        ));
    }
    let mut flags = flags(global, Some(&args.overrides));
    flags.workflow = args.workflow;
    flags.max_iters = args.max_iters;
    let settings = crate::gate::settings_for_run(global, &flags)?;
    let RunParts { store, tools, .. } = RunParts::open(&settings, &process_env)?;
    let checks = rebound_agent::checks::resolve(
        &args.checks,
        &settings.checks,
        args.goal.trim(),
        &settings.workspace,
    );
    let mut meta = ThreadMeta::new(
        new_thread_id(),
        settings.workflow,
        args.goal.trim(),
        &settings.workspace,
        &settings.model,
    );
    meta.approval = Some(settings.approval.as_str().to_string());
    let resume = resume_command(&meta.thread_id, global, &settings);
    let start = Start {
        settings: &settings,
        saver: Arc::clone(&store) as Arc<dyn Checkpointer>,
        threads: ThreadStore::new(store),
        meta,
        resume,
        global,
        checks,
    };
    let exit = match settings.workflow {
        WorkflowKind::Pev => start.go::<PevState>(&tools).await,
        WorkflowKind::Reflect => start.go::<ReflectState>(&tools).await,
        other => Err(crate::workflow::unsupported(other)),
    };
    tools.shutdown().await;
    exit
}

/// A new thread, ready to start.
struct Start<'a> {
    settings: &'a Settings,
    saver: Arc<dyn Checkpointer>,
    threads: ThreadStore,
    meta: ThreadMeta,
    resume: String,
    global: &'a GlobalArgs,
    checks: Vec<rebound_agent::checks::Check>,
}

impl Start<'_> {
    async fn go<S: Workflow>(self, tools: &Tools) -> anyhow::Result<Exit> {
        let graph = S::build(Arc::clone(&tools.deps))?.with_checkpointer(self.saver);
        let cancel = CancellationToken::new();
        cancel_on_ctrl_c(cancel.clone());
        let input = S::start(&self.meta.goal, &self.settings.agent.budget, self.checks);
        let session = Session {
            run: ThreadRun {
                graph,
                meta: self.meta,
                threads: self.threads,
                cancel,
            },
            renderer: crate::render::for_stdout(self.global.json),
            interactive: crate::approve::can_ask(self.global.no_input),
            resume: self.resume,
            resumed: false,
            plan_len: 0,
        };
        session.drive(Input::State(input)).await
    }
}
