//! Listening: what other processes announce with `NOTIFY`.
//!
//! Notifications are a fast path, not a guarantee: PostgreSQL drops them
//! for a listener whose connection was lost. The listener reconnects (and
//! says so with [`Notification::Reconnected`]); whoever follows a run's
//! events or waits for work also polls ([`super::RunQueue::read_events`],
//! [`super::RunQueue::claim`]) so that nothing missed is lost.

use sqlx::postgres::{PgListener, PgPoolOptions};

use super::{QueueError, RunQueue, EVENTS_CHANNEL, RUNS_CHANNEL};

/// One announcement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notification {
    /// A run was queued, or queued again (requeued, reaped): claim.
    RunQueued {
        /// The run.
        run_id: String,
    },
    /// A run ended (finished, cancelled while pending, failed by the
    /// reaper): its thread may run its next run.
    RunEnded {
        /// The run.
        run_id: String,
    },
    /// Events were appended to a run's log, up to `last_seq` (committed).
    Events {
        /// The run.
        run_id: String,
        /// The seq of the batch's last event.
        last_seq: i64,
    },
    /// The connection was lost and is back: notifications sent meanwhile
    /// are gone, so poll whatever is being followed.
    Reconnected,
}

/// A stream of [`Notification`]s on a connection of its own.
#[derive(Debug)]
pub struct Notifications {
    listener: PgListener,
}

impl RunQueue {
    /// Listens to [`RUNS_CHANNEL`] and [`EVENTS_CHANNEL`] on a dedicated
    /// connection (not one of the queue's pool), which reconnects when
    /// lost.
    pub async fn listen(&self) -> Result<Notifications, QueueError> {
        let options = (*self.pool.connect_options()).clone();
        let pool = PgPoolOptions::new()
            .max_connections(1)
            .max_lifetime(None)
            .idle_timeout(None)
            .connect_with(options)
            .await?;
        let mut listener = PgListener::connect_with(&pool).await?;
        listener.ignore_pool_close_event(true);
        listener.listen_all([RUNS_CHANNEL, EVENTS_CHANNEL]).await?;
        Ok(Notifications { listener })
    }
}

impl Notifications {
    /// The next notification. An error means the connection could not be
    /// re-established this time: call again to retry (and poll meanwhile).
    pub async fn recv(&mut self) -> Result<Notification, QueueError> {
        loop {
            let Some(received) = self.listener.try_recv().await? else {
                return Ok(Notification::Reconnected);
            };
            if let Some(notification) = parse(received.channel(), received.payload()) {
                return Ok(notification);
            }
        }
    }
}

/// The notification `payload` on `channel` announces, if it is one of ours.
fn parse(channel: &str, payload: &str) -> Option<Notification> {
    if channel == EVENTS_CHANNEL {
        let (run_id, last_seq) = payload.rsplit_once(':')?;
        return Some(Notification::Events {
            run_id: run_id.to_string(),
            last_seq: last_seq.parse().ok()?,
        });
    }
    if channel == RUNS_CHANNEL {
        let (kind, run_id) = payload.split_once(':')?;
        let run_id = run_id.to_string();
        return match kind {
            "queued" => Some(Notification::RunQueued { run_id }),
            "ended" => Some(Notification::RunEnded { run_id }),
            _ => None,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{parse, Notification};

    #[test]
    fn parses_the_payloads_the_queue_sends() {
        assert_eq!(
            parse("rebound_run_events", "run:with:colons:12"),
            Some(Notification::Events {
                run_id: "run:with:colons".to_string(),
                last_seq: 12
            })
        );
        assert_eq!(
            parse("rebound_runs", "queued:r1"),
            Some(Notification::RunQueued {
                run_id: "r1".to_string()
            })
        );
        assert_eq!(
            parse("rebound_runs", "ended:r:2"),
            Some(Notification::RunEnded {
                run_id: "r:2".to_string()
            })
        );
        assert_eq!(parse("rebound_runs", "other"), None);
        assert_eq!(parse("elsewhere", "queued:r1"), None);
    }
}
