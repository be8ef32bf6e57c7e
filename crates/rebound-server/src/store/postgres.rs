//! [`PostgresStore`]: the server's store on PostgreSQL, shared by any
//! number of API servers and workers (`rebound serve --database
//! postgres://…`, `rebound worker`).
//!
//! Threads, runs and events are `rebound_postgres::queue`'s tables; the
//! checkpoints are [`PostgresSaver`]'s. A run is claimed under a lease
//! whose epoch fences every write its worker makes: the events, its end,
//! and (through [`Store::fence`]) its checkpoints. A worker that lost its
//! lease (paused past it, cut off) writes nothing more; the reaper of any
//! process gives its run to another worker.
//!
//! Unlike SQLite's, the writes of [`Store::apply`] are not one transaction:
//! each is its own atomic statement, in order (a run's events, then its
//! end). A fenced write whose lease is gone is dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use rebound_postgres::queue::{
    self, CancelAction, CancelOutcome, EventRow, Lease, NewRun, Notification, QueueConfig,
    QueueError, RunQueue, RunRow, ThreadRow, ThreadSearch,
};
use rebound_postgres::PostgresSaver;
use tokio::sync::broadcast;

use super::{
    CancelKind, Heartbeat, MultitaskStrategy, RunRecord, RunStatus, Store, StoreError, StoreNotice,
    StoredEvent, ThreadQuery, ThreadRecord, Write,
};

/// The server's store on PostgreSQL.
pub struct PostgresStore {
    queue: RunQueue,
    saver: Arc<PostgresSaver>,
    /// This process's name as a lease owner (host, pid and a random part).
    owner: String,
    /// The leases of the runs this process claimed and has not ended.
    leases: Mutex<HashMap<String, Lease>>,
    notices: broadcast::Sender<StoreNotice>,
}

fn database(error: impl std::fmt::Display) -> StoreError {
    StoreError::Database(error.to_string())
}

fn queue_error(error: QueueError) -> StoreError {
    match error {
        QueueError::Corrupt { what, detail } => StoreError::Corrupt { what, detail },
        other => database(other),
    }
}

impl PostgresStore {
    /// The store over `saver`'s database (its pool is shared), with
    /// `config`'s leases. Starts listening for the notifications of other
    /// processes (new runs, ended runs, new events).
    pub async fn open(saver: Arc<PostgresSaver>, config: QueueConfig) -> Result<Self, StoreError> {
        let queue = RunQueue::new(saver.pool().clone(), config);
        let (notices, _) = broadcast::channel(1024);
        let listener = queue.listen().await.map_err(queue_error)?;
        tokio::spawn(forward_notifications(listener, notices.clone()));
        Ok(PostgresStore {
            queue,
            saver,
            owner: format!(
                "{}:{}:{}",
                hostname(),
                std::process::id(),
                uuid::Uuid::new_v4().simple()
            ),
            leases: Mutex::default(),
            notices,
        })
    }

    /// The checkpointer sharing the database.
    pub fn saver(&self) -> &Arc<PostgresSaver> {
        &self.saver
    }

    fn leases(&self) -> std::sync::MutexGuard<'_, HashMap<String, Lease>> {
        self.leases.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The lease this process holds on `run_id` under `epoch`.
    fn lease(&self, run_id: &str, epoch: u64) -> Option<Lease> {
        self.leases()
            .get(run_id)
            .filter(|lease| is_epoch(lease, epoch))
            .cloned()
    }

    /// [`PostgresStore::lease`], forgotten: the run ends here or is given
    /// back (a lease of another epoch is forgotten too, being stale).
    fn take_lease(&self, run_id: &str, epoch: u64) -> Option<Lease> {
        self.leases()
            .remove(run_id)
            .filter(|lease| is_epoch(lease, epoch))
    }

    async fn apply_one(&self, write: &Write) -> Result<(), StoreError> {
        match write {
            Write::Enqueue(run) => {
                self.queue
                    .enqueue(&NewRun {
                        run_id: run.run_id.clone(),
                        thread_id: run.thread_id.clone(),
                        assistant_id: run.assistant_id.clone(),
                        multitask_strategy: run.multitask_strategy.as_str().to_string(),
                        metadata: run.metadata.clone(),
                        kwargs: run.kwargs.clone(),
                    })
                    .await
                    .map_err(queue_error)?;
            }
            Write::Event { .. } => {}
            Write::RunEnd { .. } => self.end(write).await?,
            Write::BaseCheckpoint {
                run_id,
                epoch,
                checkpoint,
            } => {
                if let Some(lease) = self.lease(run_id, *epoch) {
                    self.queue
                        .set_base_checkpoint(&lease, checkpoint)
                        .await
                        .map_err(queue_error)?;
                }
            }
            Write::ThreadStatus {
                thread_id, status, ..
            } => {
                self.queue
                    .set_thread_status(thread_id, *status)
                    .await
                    .map_err(queue_error)?;
            }
        }
        Ok(())
    }

    /// Records a run's end ([`Write::RunEnd`]) with its last events, in
    /// one transaction, under its lease (dropped, and logged, when the
    /// lease is gone).
    async fn end(&self, write: &Write) -> Result<(), StoreError> {
        let Write::RunEnd {
            run_id,
            epoch,
            status,
            error,
            thread_status,
            events,
            ..
        } = write
        else {
            return Ok(());
        };
        let Some(lease) = self.take_lease(run_id, *epoch) else {
            tracing::warn!(%run_id, epoch, "no lease on the run: its end is not recorded");
            return Ok(());
        };
        let ended = self
            .queue
            .finish_with_events(
                &lease,
                &events.iter().map(event_row).collect::<Vec<_>>(),
                *status,
                error.as_deref(),
                *thread_status,
            )
            .await
            .map_err(queue_error)?;
        if !ended {
            tracing::warn!(%run_id, epoch, "the run's lease was lost: its end is not recorded");
        }
        Ok(())
    }

    /// Appends a run's queued events under its lease (dropped, and logged,
    /// when the lease is gone).
    async fn append(
        &self,
        run_id: &str,
        epoch: u64,
        events: &[EventRow],
    ) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let Some(lease) = self.lease(run_id, epoch) else {
            tracing::warn!(%run_id, epoch, "no lease on the run: its events are dropped");
            return Ok(());
        };
        if !self
            .queue
            .append_events(&lease, events)
            .await
            .map_err(queue_error)?
        {
            tracing::warn!(%run_id, epoch, "the run's lease was lost: its events are dropped");
        }
        Ok(())
    }
}

/// Passes the database's notifications on to the server's tasks.
async fn forward_notifications(
    mut listener: queue::Notifications,
    notices: broadcast::Sender<StoreNotice>,
) {
    loop {
        let notice = match listener.recv().await {
            Ok(Notification::RunQueued { .. }) | Ok(Notification::RunEnded { .. }) => {
                StoreNotice::Runs
            }
            Ok(Notification::Events { run_id, .. }) => StoreNotice::Events(run_id),
            Ok(Notification::Reconnected) => StoreNotice::Missed,
            Err(error) => {
                tracing::warn!(%error, "listening to the database failed; polling meanwhile");
                tokio::time::sleep(Duration::from_secs(1)).await;
                StoreNotice::Missed
            }
        };
        // Nobody listening is fine.
        let _ = notices.send(notice);
    }
}

fn is_epoch(lease: &Lease, epoch: u64) -> bool {
    u64::try_from(lease.epoch).ok() == Some(epoch)
}

fn event_row(event: &StoredEvent) -> EventRow {
    EventRow {
        seq: i64::try_from(event.seq).unwrap_or(i64::MAX),
        event: event.event.clone(),
        data: event.data.clone(),
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "host".to_string())
}

fn to_ms(value: i64) -> u64 {
    u64::try_from(value).unwrap_or_default()
}

fn record_of(row: RunRow) -> Result<RunRecord, StoreError> {
    let corrupt = |detail: String| StoreError::Corrupt {
        what: "run",
        detail,
    };
    Ok(RunRecord {
        status: row.status,
        multitask_strategy: MultitaskStrategy::parse(&row.multitask_strategy)
            .ok_or_else(|| corrupt(format!("unknown strategy {:?}", row.multitask_strategy)))?,
        created_ms: to_ms(row.created_ms),
        updated_ms: to_ms(row.updated_ms),
        attempt: u32::try_from(row.attempt).unwrap_or_default(),
        epoch: u64::try_from(row.epoch).unwrap_or_default(),
        run_id: row.run_id,
        thread_id: row.thread_id,
        assistant_id: row.assistant_id,
        metadata: row.metadata,
        kwargs: row.kwargs,
        base_checkpoint: row.base_checkpoint,
        error: row.error,
    })
}

fn records_of(rows: Vec<RunRow>) -> Result<Vec<RunRecord>, StoreError> {
    rows.into_iter().map(record_of).collect()
}

fn thread_record(row: ThreadRow) -> Result<ThreadRecord, StoreError> {
    let status = row.status;
    let mut record = ThreadRecord::new(row.thread_id, to_ms(row.created_ms), row.metadata);
    record.updated_ms = to_ms(row.updated_ms);
    record.status = status;
    Ok(record)
}

fn thread_row(record: &ThreadRecord) -> Result<ThreadRow, StoreError> {
    Ok(ThreadRow {
        thread_id: record.thread_id.clone(),
        created_ms: i64::try_from(record.created_ms).unwrap_or(i64::MAX),
        updated_ms: i64::try_from(record.updated_ms).unwrap_or(i64::MAX),
        status: record.status,
        metadata: record.metadata.clone(),
    })
}

fn storage(error: rebound_graph::checkpoint::CheckpointError) -> StoreError {
    database(error)
}

#[async_trait]
impl Store for PostgresStore {
    async fn create_thread(&self, record: &ThreadRecord) -> Result<bool, StoreError> {
        self.queue
            .create_thread(&thread_row(record)?)
            .await
            .map_err(queue_error)
    }

    async fn put_thread(&self, record: &ThreadRecord) -> Result<(), StoreError> {
        self.queue
            .put_thread(&thread_row(record)?)
            .await
            .map_err(queue_error)
    }

    async fn get_thread(&self, thread_id: &str) -> Result<Option<ThreadRecord>, StoreError> {
        self.queue
            .get_thread(thread_id)
            .await
            .map_err(queue_error)?
            .map(thread_record)
            .transpose()
    }

    async fn delete_thread(&self, thread_id: &str) -> Result<bool, StoreError> {
        let had_record = self
            .queue
            .delete_thread(thread_id)
            .await
            .map_err(queue_error)?;
        let had_checkpoints = self.saver.delete_thread(thread_id).await.map_err(storage)?;
        Ok(had_record || had_checkpoints)
    }

    async fn delete_checkpoints(&self, thread_id: &str) -> Result<(), StoreError> {
        self.saver
            .delete_thread(thread_id)
            .await
            .map(|_| ())
            .map_err(storage)
    }

    async fn copy_thread(&self, from: &str, record: &ThreadRecord) -> Result<(), StoreError> {
        self.saver
            .copy_thread(from, &record.thread_id)
            .await
            .map_err(storage)?;
        self.put_thread(record).await
    }

    async fn search_threads(&self, query: &ThreadQuery) -> Result<Vec<ThreadRecord>, StoreError> {
        let rows = self
            .queue
            .search_threads(&ThreadSearch {
                metadata: serde_json::Value::Object(query.metadata.clone()),
                status: query.status,
                limit: i64::try_from(query.limit).unwrap_or(i64::MAX),
                offset: i64::try_from(query.offset).unwrap_or(i64::MAX),
            })
            .await
            .map_err(queue_error)?;
        rows.into_iter().map(thread_record).collect()
    }

    async fn claim_runs(&self, limit: usize) -> Result<Vec<RunRecord>, StoreError> {
        let leases = self
            .queue
            .claim(&self.owner, limit)
            .await
            .map_err(queue_error)?;
        let mut runs = Vec::with_capacity(leases.len());
        for lease in leases {
            let run = record_of(lease.run.clone())?;
            self.leases().insert(lease.run_id.clone(), lease);
            runs.push(run);
        }
        Ok(runs)
    }

    async fn cancel_pending(&self, run_id: &str) -> Result<bool, StoreError> {
        // Only a pending run is cancelled here; a running one is left to
        // `request_cancel`, which says how.
        match self.queue.get_run(run_id).await.map_err(queue_error)? {
            Some(row) if row.status == queue::RunStatus::Pending => {
                let outcome = self
                    .queue
                    .request_cancel(run_id, CancelAction::Interrupt)
                    .await
                    .map_err(queue_error)?;
                Ok(outcome == CancelOutcome::Cancelled)
            }
            _ => Ok(false),
        }
    }

    async fn get_run(&self, run_id: &str) -> Result<Option<RunRecord>, StoreError> {
        self.queue
            .get_run(run_id)
            .await
            .map_err(queue_error)?
            .map(record_of)
            .transpose()
    }

    async fn list_runs(
        &self,
        thread_id: &str,
        status: Option<RunStatus>,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<RunRecord>, StoreError> {
        let rows = self
            .queue
            .list_runs(
                thread_id,
                status,
                i64::try_from(limit).unwrap_or(i64::MAX),
                i64::try_from(offset).unwrap_or(i64::MAX),
            )
            .await
            .map_err(queue_error)?;
        records_of(rows)
    }

    async fn active_runs(&self, thread_id: &str) -> Result<Vec<RunRecord>, StoreError> {
        records_of(
            self.queue
                .active_runs(thread_id)
                .await
                .map_err(queue_error)?,
        )
    }

    async fn delete_run(&self, run_id: &str) -> Result<bool, StoreError> {
        self.leases().remove(run_id);
        self.queue.delete_run(run_id).await.map_err(queue_error)
    }

    async fn requeue_running(&self) -> Result<Vec<RunRecord>, StoreError> {
        // Other processes' runs are theirs: the reaper requeues those whose
        // lease expires.
        Ok(Vec::new())
    }

    async fn apply(&self, writes: &[Write]) -> Result<(), StoreError> {
        // Consecutive events of one run go in one append.
        let mut events: Vec<EventRow> = Vec::new();
        let mut of: Option<(String, u64)> = None;
        for write in writes {
            if let Write::Event {
                run_id,
                epoch,
                event,
            } = write
            {
                let same = of.as_ref().is_some_and(|(r, e)| r == run_id && e == epoch);
                if !same {
                    if let Some((r, e)) = of.take() {
                        self.append(&r, e, &events).await?;
                    }
                    events.clear();
                    of = Some((run_id.clone(), *epoch));
                }
                events.push(event_row(event));
                continue;
            }
            if let Some((r, e)) = of.take() {
                self.append(&r, e, &events).await?;
            }
            events.clear();
            self.apply_one(write).await?;
        }
        if let Some((r, e)) = of.take() {
            self.append(&r, e, &events).await?;
        }
        Ok(())
    }

    async fn read_events(&self, run_id: &str, after: u64) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = self
            .queue
            .read_events(run_id, i64::try_from(after).unwrap_or(i64::MAX))
            .await
            .map_err(queue_error)?;
        Ok(rows
            .into_iter()
            .map(|row| StoredEvent {
                seq: to_ms(row.seq),
                event: row.event,
                data: row.data,
            })
            .collect())
    }

    fn lease_ttl(&self) -> Option<Duration> {
        Some(self.queue.config().lease_ttl)
    }

    async fn heartbeat(&self, run_id: &str, epoch: u64) -> Result<Heartbeat, StoreError> {
        let Some(lease) = self.lease(run_id, epoch) else {
            return Ok(Heartbeat::Lost);
        };
        Ok(
            match self.queue.heartbeat(&lease).await.map_err(queue_error)? {
                queue::Heartbeat::Held { cancel } => Heartbeat::Held {
                    cancel: cancel.map(|action| match action {
                        CancelAction::Rollback => CancelKind::Rollback,
                        _ => CancelKind::Interrupt,
                    }),
                },
                queue::Heartbeat::Lost => Heartbeat::Lost,
            },
        )
    }

    async fn check_lease(&self, run_id: &str, epoch: u64) -> Result<bool, StoreError> {
        match self.lease(run_id, epoch) {
            Some(lease) => self.queue.check_lease(&lease).await.map_err(queue_error),
            None => Ok(false),
        }
    }

    async fn request_cancel(&self, run_id: &str, action: CancelKind) -> Result<(), StoreError> {
        let action = match action {
            CancelKind::Interrupt => CancelAction::Interrupt,
            CancelKind::Rollback => CancelAction::Rollback,
        };
        self.queue
            .request_cancel(run_id, action)
            .await
            .map(|_| ())
            .map_err(queue_error)
    }

    async fn reap(&self) -> Result<(), StoreError> {
        let report = self.queue.reap().await.map_err(queue_error)?;
        for run_id in &report.requeued {
            tracing::info!(%run_id, "a run whose lease expired is queued again");
        }
        for run_id in &report.failed {
            tracing::warn!(%run_id, "a run whose lease expired too often has failed");
        }
        Ok(())
    }

    async fn requeue(&self, run_id: &str, epoch: u64) -> Result<(), StoreError> {
        if let Some(lease) = self.take_lease(run_id, epoch) {
            self.queue.requeue(&lease).await.map_err(queue_error)?;
        }
        Ok(())
    }

    async fn retry(&self, run_id: &str, epoch: u64) -> Result<bool, StoreError> {
        // Kept until the run is given back: a run that cannot be retried
        // records its end under it.
        let Some(lease) = self.lease(run_id, epoch) else {
            return Ok(false);
        };
        let given_back = self.queue.retry(&lease).await.map_err(queue_error)?;
        if given_back {
            self.take_lease(run_id, epoch);
        }
        Ok(given_back)
    }

    fn fence(&self, run: &RunRecord) {
        if let Some(lease) = self.lease(&run.run_id, run.epoch) {
            self.saver
                .guard_thread(&run.thread_id, Arc::new(lease.guard()));
        }
    }

    fn unfence(&self, thread_id: &str) {
        self.saver.unguard_thread(thread_id);
    }

    fn notices(&self) -> Option<broadcast::Receiver<StoreNotice>> {
        Some(self.notices.subscribe())
    }
}
