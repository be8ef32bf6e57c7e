//! Group commit: concurrent `put`s share one transaction.
//!
//! A caller of [`submit`] queues its batch with a oneshot channel for the
//! result. If no leader is active it becomes the leader: it yields so that
//! other runs that are ready can queue theirs (a lone run yields once; while
//! the queue keeps growing it yields again, up to [`MAX_YIELDS`] times, since
//! a runtime polls only so many tasks before it comes back to a yielded
//! one), then drains the whole queue, writes everything drained in one
//! transaction, answers every waiter, and repeats until the queue is empty.
//! Whether the queue is empty and the release of the leadership are decided
//! under the queue lock that callers take to queue, so no batch is ever left
//! behind.
//!
//! The leadership is the value [`Leadership`]: dropping it does the leader's
//! work, synchronously. A leader cancelled while it yields therefore still
//! writes what is queued. A leader that has served [`MAX_ROUNDS`] rounds
//! while others kept queueing hands the leadership to the oldest waiter, so
//! that its own run is not held up for ever on a multi-threaded runtime; a
//! leadership that reaches a waiter which is already gone is dropped inside
//! the channel, which again does the work.
//!
//! This file and `saver.rs` use each other on purpose: the saver submits
//! its batches here, and the leader writes them through the saver's shared
//! state (`Shared::lock_queue`, `Shared::write_batches`). They are one
//! concern, the saver's write path, in two files for length; a trait
//! between them would only hide the same call.

use std::collections::VecDeque;
use std::sync::Arc;

use rebound_graph::checkpoint::CheckpointError;
use tokio::sync::oneshot;

use crate::error::SqliteSaverError;
use crate::saver::Shared;
use crate::store::Batch;

/// How many times a leader yields, at most, waiting for the queue to stop
/// growing. A lone run yields once.
const MAX_YIELDS: usize = 64;

/// How many transactions a leader commits before handing the leadership to
/// a waiting caller (reached only when callers queue while it writes).
const MAX_ROUNDS: usize = 8;

/// The batches waiting to be written.
#[derive(Default)]
pub(crate) struct Queue {
    entries: VecDeque<Entry>,
    /// Whether a leader is active (or a [`Leadership`] is on its way to one).
    leader: bool,
}

struct Entry {
    batch: Batch,
    reply: oneshot::Sender<Reply>,
}

/// What a waiter receives.
enum Reply {
    /// Its batch was written, or failed.
    Done(Result<(), CheckpointError>),
    /// It is the leader now; its batch is queued again, with its result to
    /// come on the receiver.
    Lead(Leadership, oneshot::Receiver<Reply>),
}

/// The group-commit leadership. Dropping it writes the queue until it is
/// empty (or hands the leadership on).
pub(crate) struct Leadership {
    shared: Option<Arc<Shared>>,
}

impl Leadership {
    /// Gives the leadership up without doing the leader's work (for a
    /// leadership handed back by a failed send, whose sender goes on leading).
    fn disarm(mut self) {
        self.shared = None;
    }
}

impl Drop for Leadership {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            lead(&shared);
        }
    }
}

/// Stores `batch` atomically, in a transaction shared with the batches that
/// other callers queue at the same time.
pub(crate) async fn submit(shared: &Arc<Shared>, batch: Batch) -> Result<(), CheckpointError> {
    let (reply, mut result) = oneshot::channel();
    let leadership = {
        let mut queue = shared.lock_queue();
        queue.entries.push_back(Entry { batch, reply });
        if queue.leader {
            None
        } else {
            queue.leader = true;
            Some(Leadership {
                shared: Some(Arc::clone(shared)),
            })
        }
    };
    if let Some(leadership) = leadership {
        gather(shared).await;
        drop(leadership);
    }
    loop {
        match (&mut result).await {
            Ok(Reply::Done(outcome)) => return outcome,
            Ok(Reply::Lead(leadership, next)) => {
                result = next;
                gather(shared).await;
                drop(leadership);
            }
            Err(_) => return Err(SqliteSaverError::NoResult.into()),
        }
    }
}

/// Lets the other runs that are ready queue their batches: yields until a
/// yield adds nothing to the queue (or [`MAX_YIELDS`] times).
async fn gather(shared: &Shared) {
    let mut queued = shared.lock_queue().entries.len();
    for _ in 0..MAX_YIELDS {
        tokio::task::yield_now().await;
        let now = shared.lock_queue().entries.len();
        if now == queued {
            return;
        }
        queued = now;
    }
}

/// The leader's work: write the queue, round after round, until it is empty.
fn lead(shared: &Arc<Shared>) {
    let mut rounds = 0;
    loop {
        let entries = {
            let mut queue = shared.lock_queue();
            if queue.entries.is_empty() {
                queue.leader = false;
                return;
            }
            if rounds >= MAX_ROUNDS {
                if let Some(oldest) = queue.entries.pop_front() {
                    let (reply, result) = oneshot::channel();
                    queue.entries.push_front(Entry {
                        batch: oldest.batch,
                        reply,
                    });
                    drop(queue);
                    let leadership = Leadership {
                        shared: Some(Arc::clone(shared)),
                    };
                    match oldest.reply.send(Reply::Lead(leadership, result)) {
                        Ok(()) => return,
                        // That caller is gone: keep leading.
                        Err(returned) => {
                            if let Reply::Lead(leadership, _) = returned {
                                leadership.disarm();
                            }
                            rounds = 0;
                            continue;
                        }
                    }
                }
            }
            std::mem::take(&mut queue.entries)
        };
        rounds += 1;
        let (batches, replies): (Vec<Batch>, Vec<oneshot::Sender<Reply>>) = entries
            .into_iter()
            .map(|entry| (entry.batch, entry.reply))
            .unzip();
        let outcomes = shared.write_batches(&batches);
        for (reply, outcome) in replies.into_iter().zip(outcomes) {
            // A waiter that is gone (its run was cancelled) needs no answer.
            let _ = reply.send(Reply::Done(outcome));
        }
    }
}
