//! Driving a thread: streaming its events to the renderer, asking for
//! approvals on the terminal (or stopping with exit code 3), Ctrl-C, and
//! keeping the thread's record up to date. A session holds the thread's
//! lock from its start to its end, so the thread shows as running
//! throughout (prompts included) and no other process can run it.

use std::time::Instant;

use rebound_graph::checkpoint::CheckpointError;
use rebound_graph::{
    CancellationToken, CompiledGraph, GraphError, Input, Interrupt, RunConfig, RunOutcome,
};
use rebound_tools::approval::{ApprovalAnswer, ApprovalRequest};
use rebound_workspace::{RunState, ThreadMeta, ThreadStore};

use crate::exit::Exit;
use crate::render::{Ending, Renderer, RunEnd, RunInfo};
use crate::workflow::Workflow;

/// Everything a run of a thread needs besides its input.
pub struct Session<S: Workflow> {
    /// The workflow's graph, with the checkpointer.
    pub graph: CompiledGraph<S>,
    /// The thread's record.
    pub meta: ThreadMeta,
    /// Where records are saved.
    pub threads: ThreadStore,
    /// Where the run is shown.
    pub renderer: Box<dyn Renderer>,
    /// Whether approvals are asked on the terminal.
    pub interactive: bool,
    /// Cancelled by Ctrl-C.
    pub cancel: CancellationToken,
    /// The command that resumes the thread.
    pub resume: String,
    /// Whether this continues an earlier run.
    pub resumed: bool,
    /// The length of the plan the run starts with.
    pub plan_len: usize,
}

/// What came of asking the user.
pub enum Asked {
    /// An answer.
    Answer(ApprovalAnswer),
    /// No answer: the user cannot be asked, or stdin closed first. The run
    /// stays interrupted.
    NoAnswer,
    /// Ctrl-C first.
    Cancelled,
}

/// Asks about `request` on the terminal, off the async threads; Ctrl-C
/// (the token) ends the wait.
pub async fn ask(request: &ApprovalRequest, cancel: &CancellationToken) -> anyhow::Result<Asked> {
    let owned = request.clone();
    let task = tokio::task::spawn_blocking(move || crate::approve::ask(&owned));
    tokio::select! {
        result = task => Ok(match result?? {
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

/// The first approval request among `interrupts`.
pub fn first_approval(interrupts: &[Interrupt]) -> Option<(String, ApprovalRequest)> {
    interrupts.iter().find_map(|i| {
        ApprovalRequest::from_payload(&i.payload).map(|request| (i.id.clone(), request))
    })
}

/// The input that gives `answer` to the interrupt `id` and to no other
/// (the engine refuses a bare value when several wait).
pub fn answer_input<S>(id: String, answer: &ApprovalAnswer) -> anyhow::Result<Input<S>> {
    let value = serde_json::to_value(answer)?;
    Ok(Input::ResumeMap(std::collections::BTreeMap::from([(
        id, value,
    )])))
}

impl<S: Workflow> Session<S> {
    /// What the renderer shows first.
    fn info(&self) -> RunInfo {
        RunInfo {
            thread_id: self.meta.thread_id.clone(),
            workflow: self.meta.workflow,
            model: self.meta.model.clone(),
            goal: self.meta.goal.clone(),
            workspace: self.meta.workspace.clone(),
            resumed: self.resumed,
            plan_len: self.plan_len,
        }
    }

    /// Shows and records an ending without running (a resume that stops
    /// at once: non-interactive, nothing answered).
    pub fn end_now(&mut self, ending: Ending, started: Instant) -> anyhow::Result<Exit> {
        self.renderer.start(&self.info());
        self.finish(ending, started, false)
    }

    /// Runs the thread from `input` until it ends, answering approvals on
    /// the terminal when it can.
    pub async fn drive(self, input: Input<S>) -> anyhow::Result<Exit> {
        self.drive_answered(input, None).await
    }

    /// [`Session::drive`], showing first the answer (to an approval asked
    /// before the run) that `input` carries.
    pub async fn drive_answered(
        mut self,
        mut input: Input<S>,
        answered: Option<(&ApprovalRequest, &ApprovalAnswer)>,
    ) -> anyhow::Result<Exit> {
        let started = Instant::now();
        // The thread is this process's until the session ends, prompts
        // included: that is what shows it as running, and keeps other
        // processes from resuming or forking it meanwhile.
        let hold = self.threads.hold(&self.meta.thread_id)?;
        let previous = self.meta.clone();
        self.meta.running();
        self.threads.save(&self.meta)?;
        self.renderer.start(&self.info());
        if let Some((request, answer)) = answered {
            self.renderer.answered(request, answer);
        }
        loop {
            let config = RunConfig::new()
                .with_thread_id(self.meta.thread_id.clone())
                .with_cancellation(self.cancel.clone());
            let mut stream = self.graph.stream(input, config);
            while let Some(event) = stream.next_event().await {
                self.renderer.event(&rebound_protocol::Event::from(&event));
            }
            let ending = match stream.outcome().await {
                Ok(RunOutcome::Completed(state)) => Ending::Completed(state.summarize()),
                Ok(RunOutcome::Interrupted { interrupts, .. }) => {
                    match self.answer(&interrupts).await? {
                        Some((id, Asked::Answer(answer))) => {
                            input = answer_input(id, &answer)?;
                            continue;
                        }
                        Some((_, Asked::Cancelled)) => {
                            // Ctrl-C at the prompt: the run waits for its answer.
                            self.meta.ended(RunState::Interrupted, waiting(&interrupts));
                            self.threads.save(&self.meta)?;
                            let exit = self.finish(Ending::Cancelled, started, true);
                            hold.release()?;
                            return exit;
                        }
                        Some((_, Asked::NoAnswer)) | None => Ending::Interrupted(interrupts),
                    }
                }
                Err(GraphError::Cancelled { .. }) => Ending::Cancelled,
                Err(GraphError::Checkpoint(error @ CheckpointError::ThreadBusy { .. })) => {
                    self.threads.save(&previous)?;
                    return Err(error.into());
                }
                Err(error) => Ending::Failed(error.to_string()),
            };
            let exit = self.finish(ending, started, false);
            hold.release()?;
            return exit;
        }
    }

    /// Asks the user about the run's approval, when it can: the approval's
    /// interrupt id and what the user did; `None` when there was nothing to
    /// ask or nobody to ask.
    async fn answer(
        &mut self,
        interrupts: &[Interrupt],
    ) -> anyhow::Result<Option<(String, Asked)>> {
        let (id, request) = match first_approval(interrupts) {
            Some(found) if self.interactive => found,
            _ => return Ok(None),
        };
        let asked = ask(&request, &self.cancel).await?;
        if let Asked::Answer(answer) = &asked {
            self.renderer.answered(&request, answer);
        }
        Ok(Some((id, asked)))
    }

    /// Records the ending, shows it, and gives the exit code.
    fn finish(&mut self, ending: Ending, started: Instant, recorded: bool) -> anyhow::Result<Exit> {
        let (state, detail, exit) = match &ending {
            Ending::Completed(summary) if summary.stop_reason.is_finished() => (
                RunState::Finished,
                Some(summary.stop_reason.to_string()),
                if summary.stop_reason.is_verified() {
                    Exit::Success
                } else {
                    Exit::Unverified
                },
            ),
            Ending::Completed(summary) => (
                RunState::Stopped,
                Some(summary.stop_reason.to_string()),
                Exit::Stopped,
            ),
            Ending::Interrupted(interrupts) => (
                RunState::Interrupted,
                waiting(interrupts),
                Exit::Interrupted,
            ),
            Ending::Cancelled => (RunState::Cancelled, None, Exit::Cancelled),
            Ending::Failed(message) => (RunState::Failed, Some(message.clone()), Exit::Stopped),
        };
        if !recorded {
            self.meta.ended(state, detail);
            self.threads.save(&self.meta)?;
        }
        self.renderer.end(&RunEnd {
            thread_id: self.meta.thread_id.clone(),
            workflow: self.meta.workflow,
            ending,
            elapsed: started.elapsed(),
            exit,
            resume: self.resume.clone(),
        });
        Ok(exit)
    }
}

/// The command an interrupted run waits on, for its record.
fn waiting(interrupts: &[Interrupt]) -> Option<String> {
    first_approval(interrupts).map(|(_, request)| request.command)
}
