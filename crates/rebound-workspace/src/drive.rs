//! Running a thread to its end and keeping its record: the part of
//! `rebound run` and `rebound resume` that is not the terminal.
//!
//! A [`ThreadRun`] holds the thread's lock from its start to its end, so
//! the thread shows as running throughout (approval prompts included) and
//! no other process can run it. What the run shows and how an approval is
//! asked is the caller's [`Watcher`].

use std::collections::BTreeMap;
use std::future::Future;

use rebound_agent::workflow::Workflow;
use rebound_agent::RunSummary;
use rebound_graph::checkpoint::CheckpointError;
use rebound_graph::{
    CancellationToken, CompiledGraph, GraphError, Input, Interrupt, RunConfig, RunOutcome,
};
use rebound_tools::approval::{ApprovalAnswer, ApprovalRequest};

use crate::threads::{RunState, ThreadMeta, ThreadStore};
use crate::WorkspaceError;

/// How a run ended.
#[derive(Debug, Clone)]
pub enum Ending {
    /// It reached END: finished, or stopped without finishing.
    Completed(RunSummary),
    /// It waits for approvals.
    Interrupted(Vec<Interrupt>),
    /// It was cancelled (Ctrl-C).
    Cancelled,
    /// The engine failed.
    Failed(String),
}

impl Ending {
    /// What the thread's record says of this ending: its state and the
    /// detail shown beside it (the stop reason, the command waiting, the
    /// error).
    pub fn record(&self) -> (RunState, Option<String>) {
        match self {
            Ending::Completed(summary) if summary.stop_reason.is_finished() => {
                (RunState::Finished, Some(summary.stop_reason.to_string()))
            }
            Ending::Completed(summary) => {
                (RunState::Stopped, Some(summary.stop_reason.to_string()))
            }
            Ending::Interrupted(interrupts) => (RunState::Interrupted, waiting(interrupts)),
            Ending::Cancelled => (RunState::Cancelled, None),
            Ending::Failed(message) => (RunState::Failed, Some(message.clone())),
        }
    }
}

/// What came of asking for an approval.
#[derive(Debug, Clone)]
pub enum Asked {
    /// An answer.
    Answer(ApprovalAnswer),
    /// No answer: nobody can be asked, or the input closed first. The run
    /// stays interrupted.
    NoAnswer,
    /// The run was cancelled while it waited.
    Cancelled,
}

/// What a run is shown on, and who answers its approvals.
pub trait Watcher {
    /// One of the run's events.
    fn event(&mut self, event: &rebound_protocol::Event);

    /// Asks for an answer to `request`; `cancel` is the run's token, which
    /// should end the wait. A watcher that cannot ask answers
    /// [`Asked::NoAnswer`] at once.
    fn ask(
        &mut self,
        request: &ApprovalRequest,
        cancel: &CancellationToken,
    ) -> impl Future<Output = std::io::Result<Asked>> + Send;

    /// The answer to `request` that the run goes on with (asked, or given
    /// before the run).
    fn answered(&mut self, request: &ApprovalRequest, answer: &ApprovalAnswer);
}

/// A thread about to run: its graph (with the checkpointer), its record,
/// where records are saved, and the token that cancels it.
pub struct ThreadRun<S: Workflow> {
    /// The workflow's graph, with the checkpointer.
    pub graph: CompiledGraph<S>,
    /// The thread's record.
    pub meta: ThreadMeta,
    /// Where records are saved.
    pub threads: ThreadStore,
    /// Cancels the run at its next await; its checkpoints stay.
    pub cancel: CancellationToken,
}

impl<S: Workflow> ThreadRun<S> {
    /// Records `ending` without running (a resume that stops at once:
    /// nobody to ask, nothing answered).
    pub fn end_now(&mut self, ending: &Ending) -> Result<(), WorkspaceError> {
        let (state, detail) = ending.record();
        self.meta.ended(state, detail);
        self.threads.save(&self.meta)
    }

    /// Runs the thread from `input` until it ends (approvals asked through
    /// `watcher` as they come), records the ending and returns it. The
    /// thread is held from the start: another process running it meanwhile
    /// is an error, and its record is left as it was.
    pub async fn drive(
        mut self,
        mut input: Input<S>,
        watcher: &mut impl Watcher,
    ) -> Result<Ending, WorkspaceError> {
        let hold = self
            .threads
            .hold(&self.meta.thread_id)
            .map_err(WorkspaceError::Held)?;
        let previous = self.meta.clone();
        self.meta.running();
        self.threads.save(&self.meta)?;
        let ending = loop {
            let config = RunConfig::new()
                .with_thread_id(self.meta.thread_id.clone())
                .with_cancellation(self.cancel.clone());
            let mut stream = self.graph.stream(input, config);
            while let Some(event) = stream.next_event().await {
                watcher.event(&rebound_protocol::Event::from(&event));
            }
            match stream.outcome().await {
                Ok(RunOutcome::Completed(state)) => break Ending::Completed(state.summarize()),
                Ok(RunOutcome::Interrupted { interrupts, .. }) => {
                    let Some((id, request)) = first_approval(&interrupts) else {
                        break Ending::Interrupted(interrupts);
                    };
                    let asked = watcher
                        .ask(&request, &self.cancel)
                        .await
                        .map_err(WorkspaceError::Ask)?;
                    match asked {
                        Asked::Answer(answer) => {
                            watcher.answered(&request, &answer);
                            input = answer_input(id, &answer)?;
                        }
                        Asked::Cancelled => {
                            // Cancelled at the prompt: the run still waits
                            // for its answer.
                            self.meta.ended(RunState::Interrupted, waiting(&interrupts));
                            self.threads.save(&self.meta)?;
                            hold.release().map_err(WorkspaceError::Held)?;
                            return Ok(Ending::Cancelled);
                        }
                        Asked::NoAnswer => break Ending::Interrupted(interrupts),
                    }
                }
                Err(GraphError::Cancelled { .. }) => break Ending::Cancelled,
                Err(GraphError::Checkpoint(error @ CheckpointError::ThreadBusy { .. })) => {
                    self.threads.save(&previous)?;
                    return Err(WorkspaceError::Held(error));
                }
                Err(error) => break Ending::Failed(error.to_string()),
            }
        };
        self.end_now(&ending)?;
        hold.release().map_err(WorkspaceError::Held)?;
        Ok(ending)
    }
}

/// The first approval request among `interrupts`, with its interrupt's id.
pub fn first_approval(interrupts: &[Interrupt]) -> Option<(String, ApprovalRequest)> {
    interrupts.iter().find_map(|i| {
        ApprovalRequest::from_payload(&i.payload).map(|request| (i.id.clone(), request))
    })
}

/// The input that gives `answer` to the interrupt `id` and to no other
/// (the engine refuses a bare value when several wait).
pub fn answer_input<S>(id: String, answer: &ApprovalAnswer) -> Result<Input<S>, WorkspaceError> {
    let value = serde_json::to_value(answer).map_err(WorkspaceError::Answer)?;
    Ok(Input::ResumeMap(BTreeMap::from([(id, value)])))
}

/// The command an interrupted run waits on, for its record.
fn waiting(interrupts: &[Interrupt]) -> Option<String> {
    first_approval(interrupts).map(|(_, request)| request.command)
}
