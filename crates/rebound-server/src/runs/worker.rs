//! Workers: take queued runs from the store, run them, stream their events
//! and record how they ended.
//!
//! A run found `running` at start (the server was killed during it) is
//! queued again by [`crate::Server::serve`]; when a worker takes it, it
//! continues from the thread's latest checkpoint if the run had moved the
//! thread past the checkpoint it started from (its journaled calls are
//! replayed, not repeated), and starts over otherwise.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rebound_graph::checkpoint::{CheckpointError, CheckpointId};
use rebound_graph::{GraphError, ResumeCommand, RunConfig, StreamModes};
use rebound_protocol::records::ThreadStatus;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::hub::RunChannel;
use super::parts::{interrupt_update, interrupts_json, parts};
use super::{GotoBody, RunKwargs, StreamMode};
use crate::app::{App, Assistant, CancelAction};
use crate::assistant::{RunEnd, RunInput};
use crate::error::ApiError;
use crate::store::{CancelKind, Heartbeat, RunRecord, RunStatus, StoredEvent, Write};

/// How long an idle worker sleeps before looking at the queue again even
/// without being woken (a run queued by another process).
const IDLE_POLL: Duration = Duration::from_millis(500);

/// The most runs one claim takes.
const CLAIM_BATCH: usize = 32;

/// Takes and runs queued runs until the server shuts down. A worker that
/// finds no run claimed and waiting claims as many as there are idle
/// workers (one transaction), runs the first and leaves the rest to the
/// others.
pub(crate) async fn worker_loop(app: Arc<App>) {
    loop {
        if app.shutdown.is_cancelled() {
            return;
        }
        let notified = app.queue.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if let Some(run) = next_run(&app).await {
            run_isolated(&app, run).await;
            continue;
        }
        app.claimed.idle(1);
        tokio::select! {
            () = &mut notified => {}
            () = tokio::time::sleep(IDLE_POLL) => {}
            () = app.shutdown.cancelled() => {}
        }
        app.claimed.idle(-1);
    }
}

/// A run claimed earlier and not taken yet, or the first of a new claim.
async fn next_run(app: &App) -> Option<RunRecord> {
    if let Some(run) = app.claimed.take() {
        return Some(run);
    }
    let wanted = (app.claimed.idle_count() + 1).min(CLAIM_BATCH);
    match app.store.claim_runs(wanted).await {
        Ok(runs) => {
            let mut runs = runs.into_iter();
            let first = runs.next();
            for run in runs {
                app.claimed.give(run);
                app.queue.notify_one();
            }
            first
        }
        Err(error) => {
            tracing::error!(%error, "claiming runs failed");
            None
        }
    }
}

/// Runs `run` on a task of its own: a bug that panics fails the run, not
/// the worker.
async fn run_isolated(app: &Arc<App>, run: RunRecord) {
    let run_id = run.run_id.clone();
    let (epoch, thread_id) = (run.epoch, run.thread_id.clone());
    let (_flight, earlier) = app.attempts.begin(&run_id, epoch);
    if let Some(earlier) = earlier {
        stop_earlier_attempt(app, &run, &earlier).await;
    }
    let task = tokio::spawn({
        let app = Arc::clone(app);
        async move { execute(&app, run).await }
    });
    if let Err(panic) = task.await {
        tracing::error!(%run_id, %panic, "a run's worker panicked");
        app.store.unfence(&thread_id);
        app.writer.write(Write::RunEnd {
            run_id: run_id.clone(),
            epoch,
            status: RunStatus::Error,
            error: Some("the server failed on this run (a bug: see its log)".to_string()),
            thread_id,
            thread_status: ThreadStatus::Error,
            at_ms: crate::time::now_ms(),
            events: Vec::new(),
        });
        if let Err(error) = app.writer.flush().await {
            tracing::error!(%error, %run_id, "recording a failed run failed");
        }
        app.end_run(&run_id);
    }
}

/// Stops this process's earlier attempt of `run`, which lost the run's
/// lease (this claim has a later epoch) and has not stopped yet, and waits
/// for it to stop: its thread, live channel and cancellation are then
/// free for this attempt. The wait is bounded by a third of the lease (the
/// new claim's heartbeats have not started): an attempt that has not
/// stopped by then is left to stop alone, and this one goes on (and is
/// given back if it finds the thread still held).
async fn stop_earlier_attempt(app: &App, run: &RunRecord, earlier: &CancellationToken) {
    if let Some(handle) = app.local_cancel(&run.run_id) {
        handle.cancel(CancelAction::LeaseLost);
    }
    let bound = app.store.lease_ttl().map_or(Duration::ZERO, |ttl| ttl / 3);
    let started = std::time::Instant::now();
    if tokio::time::timeout(bound, earlier.cancelled())
        .await
        .is_err()
    {
        tracing::warn!(run_id = %run.run_id, epoch = run.epoch, "the run's earlier attempt here has not stopped: going on beside it");
    } else {
        tracing::info!(run_id = %run.run_id, epoch = run.epoch, waited = ?started.elapsed(), "the run's earlier attempt here stopped");
    }
}

/// A run's stream as it is being written: the live channel, the store.
struct Emitter<'a> {
    app: &'a App,
    run_id: &'a str,
    /// The claim the run's events are written under.
    epoch: u64,
    channel: Arc<RunChannel>,
    seq: u64,
}

impl Emitter<'_> {
    /// Emits an event: stored (through the writer) and live.
    fn emit(&mut self, event: &str, data: &Value) {
        let stored = self.next(event, data);
        self.app.writer.write(Write::Event {
            run_id: self.run_id.to_string(),
            epoch: self.epoch,
            event: stored.clone(),
        });
        self.channel.push(stored);
    }

    /// The run's next event, numbered, neither stored nor sent yet.
    fn next(&mut self, event: &str, data: &Value) -> StoredEvent {
        self.seq += 1;
        StoredEvent {
            seq: self.seq,
            event: event.to_string(),
            data: data.to_string(),
        }
    }
}

/// Runs one claimed run to its end and records it.
async fn execute(app: &App, run: RunRecord) {
    if app.shutdown.is_cancelled() {
        // Taken as the server stops: left `running`, queued again at the
        // next start.
        return;
    }
    let channel = app.hub.open(&run.run_id);
    let seq = last_seq(app, &run).await;
    let mut emitter = Emitter {
        app,
        run_id: &run.run_id,
        epoch: run.epoch,
        channel: Arc::clone(&channel),
        seq,
    };
    // Registered before anything is streamed: a stop or a cancel that
    // follows the first event finds the run.
    let handle = app.cancel_handle(&run.run_id);
    app.store.fence(&run);
    let heartbeat = app.store.lease_ttl().map(|ttl| {
        tokio::spawn(heartbeat_loop(
            Arc::clone(&app.store),
            run.run_id.clone(),
            run.epoch,
            ttl,
            handle.clone(),
        ))
    });
    emitter.emit(
        "metadata",
        &json!({ "run_id": run.run_id, "attempt": run.attempt }),
    );
    let kwargs = serde_json::from_value::<RunKwargs>(run.kwargs.clone())
        .map_err(|error| format!("the stored run cannot be read: {error}"));
    let outcome = match &kwargs {
        Err(message) => Err(message.clone()),
        Ok(kwargs) => match app.assistant(&run.assistant_id) {
            Err(error) => Err(error.detail),
            Ok(assistant) => Ok(run_graph(app, &run, kwargs, assistant, &mut emitter).await),
        },
    };
    let kwargs = kwargs.unwrap_or_default();
    if let Some(heartbeat) = heartbeat {
        heartbeat.abort();
    }
    app.store.unfence(&run.thread_id);
    let action = handle.action();
    let cancelled = handle.token.is_cancelled();
    if cancelled && matches!(action, CancelAction::Shutdown | CancelAction::LeaseLost) {
        // Nothing recorded: the run stays `running`, is queued again (at
        // the next start, or by the reaper once its claim expires) and
        // continues from its last checkpoint. What it emitted so far is
        // stored (a lost claim's writes are refused).
        let _ = app.writer.flush().await;
        if action == CancelAction::Shutdown {
            // A shared store gives it to another worker at once.
            if let Err(error) = app.store.requeue(&run.run_id, run.epoch).await {
                tracing::warn!(%error, run_id = %run.run_id, "giving a run back failed: its lease will expire");
            }
        }
        app.end_run(&run.run_id);
        return;
    }
    if let Ok(Err(error)) = &outcome {
        if !cancelled && passing(error) && give_back(app, &run, error).await {
            return;
        }
    }
    let (status, thread_status, result, failure) = ending(outcome, &kwargs, &mut emitter);
    channel.set_result(result);
    let end = emitter.next("end", &Value::Null);
    if cancelled && action == CancelAction::Rollback {
        // Everything before `end` is stored before the run is deleted.
        if let Err(error) = app.writer.flush().await {
            record_failed(&run, error.into());
        }
        if let Err(e) = rollback(app, &run).await {
            record_failed(&run, e);
        }
    } else {
        let thread_status = if cancelled {
            cancelled_thread_status(app, &run).await
        } else {
            thread_status
        };
        let ended = Ended {
            status,
            failure,
            thread_status,
            end: (!kwargs.delete_thread).then(|| end.clone()),
        };
        record_end(app, &run, ended).await;
    }
    // `end` reaches the live stream once the run's status is recorded: a
    // client that sees the stream end and asks for the run finds it ended
    // (the SDK reconnects to a run it finds still running).
    channel.push(end);
    if kwargs.delete_thread {
        if let Err(error) = app.store.delete_thread(&run.thread_id).await {
            record_failed(&run, error.into());
        }
    }
    app.end_run(&run.run_id);
    app.queue.notify_one();
}

/// The last event a run stored before (a resumed run's: its events go on
/// from there), or 0.
async fn last_seq(app: &App, run: &RunRecord) -> u64 {
    if run.attempt <= 1 {
        return 0;
    }
    match app.store.read_events(&run.run_id, 0).await {
        Ok(events) => events.last().map_or(0, |e| e.seq),
        Err(error) => {
            tracing::error!(%error, run_id = %run.run_id, "reading a resumed run's events failed");
            0
        }
    }
}

/// What a run that was not stopped from outside ended as: its status, its
/// thread's, its result and its error; the closing parts are emitted (an
/// interrupted run's last `updates` and `values`, an error).
fn ending(
    outcome: Result<Result<RunEnd, GraphError>, String>,
    kwargs: &RunKwargs,
    emitter: &mut Emitter<'_>,
) -> (RunStatus, ThreadStatus, Value, Option<String>) {
    match outcome {
        Err(message) => failed(emitter, "RunError", message),
        Ok(Ok(RunEnd::Completed(values))) => (RunStatus::Success, ThreadStatus::Idle, values, None),
        Ok(Ok(RunEnd::Interrupted(mut values, interrupts))) => {
            // As the Agent Server does: the run succeeded (it did what it
            // could); the thread waits. The last `values` part carries the
            // interrupts too.
            if kwargs.stream_mode.contains(&StreamMode::Updates) {
                emitter.emit("updates", &interrupt_update(&interrupts));
            }
            if let Value::Object(map) = &mut values {
                map.insert("__interrupt__".to_string(), interrupts_json(&interrupts));
            }
            if kwargs.stream_mode.contains(&StreamMode::Values) {
                emitter.emit("values", &values);
            }
            (RunStatus::Success, ThreadStatus::Interrupted, values, None)
        }
        Ok(Err(GraphError::Cancelled { .. })) => (
            RunStatus::Interrupted,
            ThreadStatus::Idle,
            Value::Null,
            None,
        ),
        Ok(Err(error)) => failed(emitter, error_name(&error), error.to_string()),
    }
}

/// How a run ended, for its record.
struct Ended {
    status: RunStatus,
    failure: Option<String>,
    thread_status: ThreadStatus,
    /// The `end` event, stored with the record (none when the thread goes).
    end: Option<StoredEvent>,
}

/// Records the run's status, its thread's and its last event in one
/// commit (shared with other runs ending at the same time).
async fn record_end(app: &App, run: &RunRecord, ended: Ended) {
    app.writer.write(Write::RunEnd {
        run_id: run.run_id.clone(),
        epoch: run.epoch,
        status: ended.status,
        error: ended.failure,
        thread_id: run.thread_id.clone(),
        thread_status: ended.thread_status,
        at_ms: crate::time::now_ms(),
        events: ended.end.into_iter().collect(),
    });
    if let Err(error) = app.writer.flush().await {
        record_failed(run, error.into());
    }
}

/// Logs that recording a run's end failed.
fn record_failed(run: &RunRecord, error: ApiError) {
    tracing::error!(%error, run_id = %run.run_id, "recording a run's end failed");
}

/// Extends a running run's claim every third of `ttl` until aborted; a
/// cancel asked for elsewhere, or the claim lost, cancels the run (a lost
/// claim stops it without recording anything: it runs elsewhere now).
async fn heartbeat_loop(
    store: Arc<dyn crate::store::Store>,
    run_id: String,
    epoch: u64,
    ttl: Duration,
    handle: crate::app::CancelHandle,
) {
    let period = ttl / 3;
    let mut held_at = std::time::Instant::now();
    loop {
        tokio::time::sleep(period).await;
        let stop = match store.heartbeat(&run_id, epoch).await {
            Ok(Heartbeat::Held { cancel: None }) => {
                held_at = std::time::Instant::now();
                continue;
            }
            Ok(Heartbeat::Held {
                cancel: Some(CancelKind::Interrupt),
            }) => CancelAction::Interrupt,
            Ok(Heartbeat::Held {
                cancel: Some(CancelKind::Rollback),
            }) => CancelAction::Rollback,
            Ok(Heartbeat::Lost) => {
                tracing::warn!(%run_id, epoch, "the run's claim was lost: stopping it");
                CancelAction::LeaseLost
            }
            // A database that does not answer: try again until the claim
            // would have expired, then the claim is as good as lost.
            Err(error) if held_at.elapsed() < ttl => {
                tracing::warn!(%error, %run_id, "a heartbeat failed");
                continue;
            }
            Err(error) => {
                tracing::warn!(%error, %run_id, epoch, "no heartbeat for a whole lease: stopping the run");
                CancelAction::LeaseLost
            }
        };
        handle.cancel(stop);
        return;
    }
}

/// A failed run: its `error` event, its statuses, the result waiting
/// clients get (`__error__`) and the message kept with the run.
fn failed(
    emitter: &mut Emitter<'_>,
    kind: &str,
    message: String,
) -> (RunStatus, ThreadStatus, Value, Option<String>) {
    let error = json!({"error": kind, "message": message});
    emitter.emit("error", &error);
    (
        RunStatus::Error,
        ThreadStatus::Error,
        json!({ "__error__": error }),
        Some(message),
    )
}

/// Undoes what a cancelled run wrote to its thread, then deletes the run.
async fn rollback(app: &App, run: &RunRecord) -> Result<(), ApiError> {
    let base = app
        .store
        .get_run(&run.run_id)
        .await?
        .and_then(|r| r.base_checkpoint)
        .unwrap_or_default();
    if base.is_empty() {
        app.store.delete_checkpoints(&run.thread_id).await?;
    } else {
        let assistant = app.assistant(&run.assistant_id)?;
        let id = base
            .parse()
            .map_err(|_| ApiError::internal(format!("stored checkpoint id {base:?} is invalid")))?;
        let config = RunConfig::new()
            .with_thread_id(run.thread_id.as_str())
            .with_checkpoint_id(id);
        assistant
            .graph
            .update_state(&config, json!({}), Some(rebound_graph::COPY))
            .await?;
    }
    app.store.delete_run(&run.run_id).await?;
    app.writer.write(Write::ThreadStatus {
        thread_id: run.thread_id.clone(),
        status: ThreadStatus::Idle,
        at_ms: crate::time::now_ms(),
    });
    Ok(app.writer.flush().await?)
}

/// The thread's status after a cancelled run: interrupted if an interrupt
/// waits, else idle.
async fn cancelled_thread_status(app: &App, run: &RunRecord) -> ThreadStatus {
    let Ok(assistant) = app.assistant(&run.assistant_id) else {
        return ThreadStatus::Idle;
    };
    let config = RunConfig::new().with_thread_id(run.thread_id.as_str());
    match assistant.graph.get_state(&config).await {
        Ok(view) if !view.interrupts.is_empty() => ThreadStatus::Interrupted,
        _ => ThreadStatus::Idle,
    }
}

/// Whether a run failed for something that passes, not for the run: its
/// checkpoint store failed (a connection ended, the database restarting),
/// or its thread was still held by an earlier attempt of this process (a
/// worker resumed after its lease lapsed, whose old attempt has not
/// stopped yet).
fn passing(error: &GraphError) -> bool {
    let checkpoint = match error {
        GraphError::Checkpoint(error) => Some(error),
        GraphError::Node { source, .. } => source.downcast_ref::<CheckpointError>(),
        _ => None,
    };
    matches!(
        checkpoint,
        Some(CheckpointError::Storage(_) | CheckpointError::ThreadBusy { .. })
    )
}

/// Gives a run whose attempt failed for something that passes back to a
/// shared queue for another attempt after a backoff: `true` when it is
/// given back (or its lease is gone: the reaper has it), `false` when it
/// ends here with its error (its attempts are spent, or its store is one
/// server's).
async fn give_back(app: &App, run: &RunRecord, error: &GraphError) -> bool {
    // What the attempt emitted stays (the next one goes on after it).
    let _ = app.writer.flush().await;
    match app.store.retry(&run.run_id, run.epoch).await {
        Ok(false) => return false,
        Ok(true) => {
            tracing::warn!(%error, run_id = %run.run_id, attempt = run.attempt, "a run's attempt failed for its store or thread: queued again");
        }
        Err(store) => {
            // The store is away too: the lease lapses and the reaper
            // queues the run again.
            tracing::warn!(%error, %store, run_id = %run.run_id, "a run's attempt failed and cannot be given back: its lease will lapse");
        }
    }
    app.end_run(&run.run_id);
    app.queue.notify_one();
    true
}

/// The error's kind, as the `error` event names it.
fn error_name(error: &GraphError) -> &'static str {
    match error {
        GraphError::Node { .. } => "NodeError",
        GraphError::RecursionLimit { .. } => "GraphRecursionError",
        GraphError::BadInput { .. } | GraphError::UnknownNode { .. } => "InvalidInput",
        GraphError::NothingToResume { .. }
        | GraphError::AmbiguousResume { .. }
        | GraphError::UnknownInterrupt { .. } => "InvalidResume",
        GraphError::Checkpoint(_) => "CheckpointError",
        _ => "GraphError",
    }
}

/// Runs the graph for `run`, streaming its parts; how the graph ended.
async fn run_graph(
    app: &App,
    run: &RunRecord,
    kwargs: &RunKwargs,
    assistant: &Assistant,
    emitter: &mut Emitter<'_>,
) -> Result<RunEnd, GraphError> {
    let graph = Arc::clone(&assistant.graph);
    let thread = RunConfig::new().with_thread_id(run.thread_id.as_str());
    let head = graph.head(&thread).await?;
    let head_id = head.as_ref().map(|h| h.checkpoint_id.to_string());
    let moved_on = run.attempt > 1
        && run.base_checkpoint.is_some()
        && head_id.as_deref().unwrap_or("") != run.base_checkpoint.as_deref().unwrap_or("");
    if run.attempt <= 1 || run.base_checkpoint.is_none() {
        // Durable before the run writes its first checkpoint (a commit
        // shared with other runs' writes).
        app.writer.write(Write::BaseCheckpoint {
            run_id: run.run_id.clone(),
            epoch: run.epoch,
            checkpoint: head_id.clone().unwrap_or_default(),
        });
        app.writer
            .flush()
            .await
            .map_err(|error| GraphError::Checkpoint(CheckpointError::Storage(Box::new(error))))?;
    }
    if moved_on && head.as_ref().is_some_and(|h| h.metadata.is_finished()) {
        // The run had finished when the server stopped, before it was
        // recorded.
        let view = graph.get_state(&thread).await?;
        return Ok(RunEnd::Completed(view.values));
    }
    let modes = &kwargs.stream_mode;
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let mut config = thread
        .clone()
        .with_run_id(
            uuid::Uuid::parse_str(&run.run_id)
                .map(rebound_graph::RunId::from)
                .unwrap_or_default(),
        )
        .with_cancellation(app.cancel_handle(&run.run_id).token)
        .with_events(sender)
        .with_stream_modes(StreamModes {
            values: modes.contains(&StreamMode::Values),
            updates: modes.contains(&StreamMode::Updates),
        });
    config = config.with_durability(kwargs.durability.engine());
    if app.store.lease_ttl().is_some() {
        // Before each external effect: is the run still ours? A refusal
        // stops the run as a lost lease does (nothing of its end is
        // recorded: the reaper gives it to a worker that holds it), not as
        // a failure of the run.
        let (store, run_id, epoch) = (Arc::clone(&app.store), run.run_id.clone(), run.epoch);
        let handle = app.cancel_handle(&run.run_id);
        config = config.with_effect_gate(rebound_graph::EffectGate::new(move || {
            let (store, run_id, handle) = (Arc::clone(&store), run_id.clone(), handle.clone());
            async move {
                let refused = match store.check_lease(&run_id, epoch).await {
                    Ok(true) => return Ok(()),
                    Ok(false) => format!("this worker lost the lease of run {run_id} (epoch {epoch}): another worker has it"),
                    Err(error) => format!("the lease of run {run_id} cannot be confirmed: {error}"),
                };
                tracing::warn!(%run_id, epoch, reason = %refused, "an effect was refused: stopping the run");
                handle.cancel(CancelAction::LeaseLost);
                Err(refused)
            }
        }));
    }
    if let Some(limit) = kwargs.recursion_limit {
        config = config.with_recursion_limit(limit);
    }
    if !kwargs.interrupt_before.is_empty() {
        config = config.with_interrupt_before(kwargs.interrupt_before.clone());
    }
    if !kwargs.interrupt_after.is_empty() {
        config = config.with_interrupt_after(kwargs.interrupt_after.clone());
    }
    let input = if moved_on {
        RunInput::Resume
    } else {
        if let Some(id) = &kwargs.checkpoint_id {
            let id: CheckpointId = id.parse().map_err(|_| GraphError::UnknownCheckpoint {
                thread_id: run.thread_id.clone(),
                checkpoint: id.clone(),
            })?;
            config = config.with_checkpoint_id(id);
        }
        match (&kwargs.command, &kwargs.input) {
            (Some(command), _) => {
                // Answers by interrupt id need the ids waiting.
                let latest = match &command.resume {
                    Some(Value::Object(_)) if head.is_some() => {
                        Some(graph.get_state(&thread).await?)
                    }
                    _ => None,
                };
                RunInput::Command(resume_command(command, latest.as_ref()))
            }
            (None, Some(input)) if head.is_some() => RunInput::Update(input.clone()),
            (None, Some(input)) => RunInput::Start(input.clone()),
            (None, None) => RunInput::Resume,
        }
    };
    let task = tokio::spawn(async move { graph.run(input, config).await });
    while let Some(event) = receiver.recv().await {
        for (name, data) in parts(&event, modes) {
            emitter.emit(name, &data);
        }
    }
    match task.await {
        Ok(result) => result,
        Err(join) => Err(GraphError::BadInput {
            reason: format!("the run's task failed: {join}"),
        }),
    }
}

/// The engine's command for a `command` body: an object `resume` whose
/// keys are all waiting interrupts' ids answers each by id.
fn resume_command(
    command: &super::CommandBody,
    latest: Option<&crate::assistant::StateView>,
) -> ResumeCommand {
    let waiting: Vec<&str> = latest
        .map(|v| v.interrupts.iter().map(|i| i.id.as_str()).collect())
        .unwrap_or_default();
    let mut out = ResumeCommand {
        update: command.update.clone(),
        goto: command.goto.clone().map(|goto| match goto {
            GotoBody::One(node) => vec![node],
            GotoBody::Many(nodes) => nodes,
        }),
        ..ResumeCommand::default()
    };
    match &command.resume {
        Some(Value::Object(map))
            if !map.is_empty() && map.keys().all(|k| waiting.contains(&k.as_str())) =>
        {
            out.resume_map = map
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<BTreeMap<_, _>>();
        }
        other => out.resume = other.clone(),
    }
    out
}
