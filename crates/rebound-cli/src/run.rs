//! Driving a thread on the terminal: its events to the renderer,
//! approvals asked on the terminal (or the run stops with exit code 3),
//! Ctrl-C. Running the thread and keeping its record is
//! [`rebound_workspace::drive`].

use std::time::Instant;

use rebound_graph::{CancellationToken, Input};
use rebound_tools::approval::{ApprovalAnswer, ApprovalRequest};
use rebound_workspace::drive::{Asked, Ending, ThreadRun, Watcher};

use crate::exit::Exit;
use crate::render::{Renderer, RunEnd, RunInfo};
use crate::workflow::Workflow;

/// A thread's run, and how it is shown.
pub struct Session<S: Workflow> {
    /// The run itself.
    pub run: ThreadRun<S>,
    /// Where the run is shown.
    pub renderer: Box<dyn Renderer>,
    /// Whether approvals are asked on the terminal.
    pub interactive: bool,
    /// The command that resumes the thread.
    pub resume: String,
    /// Whether this continues an earlier run.
    pub resumed: bool,
    /// The length of the plan the run starts with.
    pub plan_len: usize,
}

/// Asks about `request` on the terminal, off the async threads; Ctrl-C
/// (the token) ends the wait.
pub async fn ask(request: &ApprovalRequest, cancel: &CancellationToken) -> std::io::Result<Asked> {
    let owned = request.clone();
    let task = tokio::task::spawn_blocking(move || crate::approve::ask(&owned));
    tokio::select! {
        result = task => Ok(match result.map_err(std::io::Error::other)?? {
            Some(answer) => Asked::Answer(answer),
            None => Asked::NoAnswer,
        }),
        () = cancel.cancelled() => Ok(Asked::Cancelled),
    }
}

/// Cancels `cancel` on the first Ctrl-C (the run stops at its next await
/// and keeps its checkpoints); a second Ctrl-C exits at once with 130.
pub fn cancel_on_ctrl_c(cancel: CancellationToken) {
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_err() {
            return;
        }
        eprintln!("\nCtrl-C: stopping the run and saving it (Ctrl-C again to quit at once)");
        cancel.cancel();
        if tokio::signal::ctrl_c().await.is_ok() {
            std::process::exit(i32::from(Exit::Cancelled.code()));
        }
    });
}

/// The renderer as the run's watcher, asking on the terminal when it can.
struct Terminal<'a> {
    renderer: &'a mut dyn Renderer,
    interactive: bool,
}

impl Watcher for Terminal<'_> {
    fn event(&mut self, event: &rebound_protocol::Event) {
        self.renderer.event(event);
    }

    fn ask(
        &mut self,
        request: &ApprovalRequest,
        cancel: &CancellationToken,
    ) -> impl std::future::Future<Output = std::io::Result<Asked>> + Send {
        let (interactive, request, cancel) = (self.interactive, request.clone(), cancel.clone());
        async move {
            if interactive {
                ask(&request, &cancel).await
            } else {
                Ok(Asked::NoAnswer)
            }
        }
    }

    fn answered(&mut self, request: &ApprovalRequest, answer: &ApprovalAnswer) {
        self.renderer.answered(request, answer);
    }
}

/// The exit code of a run that ended so.
pub fn exit_of(ending: &Ending) -> Exit {
    match ending {
        Ending::Completed(summary) if summary.stop_reason.is_verified() => Exit::Success,
        Ending::Completed(summary) if summary.stop_reason.is_finished() => Exit::Unverified,
        Ending::Completed(_) | Ending::Failed(_) => Exit::Stopped,
        Ending::Interrupted(_) => Exit::Interrupted,
        Ending::Cancelled => Exit::Cancelled,
    }
}

impl<S: Workflow> Session<S> {
    /// What the renderer shows first.
    fn info(&self) -> RunInfo {
        let meta = &self.run.meta;
        RunInfo {
            thread_id: meta.thread_id.clone(),
            workflow: meta.workflow,
            model: meta.model.clone(),
            goal: meta.goal.clone(),
            workspace: meta.workspace.clone(),
            resumed: self.resumed,
            plan_len: self.plan_len,
        }
    }

    /// Shows and records an ending without running (a resume that stops
    /// at once: non-interactive, nothing answered).
    pub fn end_now(mut self, ending: Ending) -> anyhow::Result<Exit> {
        let info = self.info();
        self.renderer.start(&info);
        self.run.end_now(&ending)?;
        Ok(show_end(
            self.renderer.as_mut(),
            &info,
            self.resume,
            ending,
            Instant::now(),
        ))
    }

    /// Runs the thread from `input` until it ends, answering approvals on
    /// the terminal when it can.
    pub async fn drive(self, input: Input<S>) -> anyhow::Result<Exit> {
        self.drive_answered(input, None).await
    }

    /// [`Session::drive`], showing first the answer (to an approval asked
    /// before the run) that `input` carries.
    pub async fn drive_answered(
        self,
        input: Input<S>,
        answered: Option<(&ApprovalRequest, &ApprovalAnswer)>,
    ) -> anyhow::Result<Exit> {
        let started = Instant::now();
        let info = self.info();
        let Session {
            run,
            mut renderer,
            interactive,
            resume,
            ..
        } = self;
        renderer.start(&info);
        if let Some((request, answer)) = answered {
            renderer.answered(request, answer);
        }
        let mut terminal = Terminal {
            renderer: renderer.as_mut(),
            interactive,
        };
        let ending = run.drive(input, &mut terminal).await?;
        Ok(show_end(renderer.as_mut(), &info, resume, ending, started))
    }
}

/// Shows how the run of `info` ended, and gives its exit code.
fn show_end(
    renderer: &mut dyn Renderer,
    info: &RunInfo,
    resume: String,
    ending: Ending,
    started: Instant,
) -> Exit {
    let exit = exit_of(&ending);
    renderer.end(&RunEnd {
        thread_id: info.thread_id.clone(),
        workflow: info.workflow,
        ending,
        elapsed: started.elapsed(),
        exit,
        resume,
    });
    exit
}
