//! Queueing runs and claiming them.
//!
//! A claim is one statement: a CTE picks the oldest claimable runs and
//! locks them with `FOR UPDATE SKIP LOCKED` (concurrent claimers pass over
//! each other's picks instead of waiting), then the `UPDATE` marks them
//! running under a new lease (and their threads busy). A run is claimable when it is pending, its
//! backoff is over, its thread has no running run and no older pending run
//! (so a claim takes at most one run per thread, in FIFO order, and a
//! requeued run, which keeps its `seq`, stays ahead of its thread's later
//! runs).
//!
//! Why two claimers never run two runs of one thread: each checks the
//! thread's other runs in its own snapshot. Whichever pending run a claimer
//! sees first on a thread blocks every later one; the only gap is two
//! enqueues committing out of `seq` order while two claimers' snapshots
//! straddle them. The partial unique index `rebound_runs (thread_id) WHERE
//! status = 'running'` closes it: the second claimer's `UPDATE` fails with
//! a unique violation (after the first commits), its whole claim rolls
//! back, and it claims again.

use super::config::millis;
use super::rows::{decode_run, run_columns};
use super::{Lease, NewRun, QueueError, RunQueue, RunRow};

/// How many times a claim that hit the one-running-run-per-thread
/// backstop is tried again before it returns nothing.
const CLAIM_RETRIES: usize = 3;

const ENQUEUE: &str = concat!(
    "WITH r AS (
        INSERT INTO rebound_runs
            (run_id, thread_id, assistant_id, status, multitask_strategy, metadata, kwargs)
        VALUES ($1, $2, $3, 'pending', $4, $5::jsonb, $6::jsonb)
        RETURNING *
    )
    SELECT ",
    run_columns!(),
    ", pg_notify('rebound_runs', 'queued:' || r.run_id) FROM r"
);

const CLAIM: &str = concat!(
    "WITH picked AS (
        SELECT c.seq FROM rebound_runs c
        WHERE c.status = 'pending'
          AND c.available_at <= now()
          AND NOT EXISTS (SELECT 1 FROM rebound_runs x
                          WHERE x.thread_id = c.thread_id AND x.status = 'running')
          AND NOT EXISTS (SELECT 1 FROM rebound_runs y
                          WHERE y.thread_id = c.thread_id AND y.status = 'pending'
                            AND y.seq < c.seq)
        ORDER BY c.seq
        LIMIT $2
        FOR UPDATE OF c SKIP LOCKED
    ),
    claimed AS (
        UPDATE rebound_runs r
        SET status = 'running', owner = $1, epoch = r.epoch + 1, attempt = r.attempt + 1,
            lease_expires_at = now() + $3::float8 * interval '1 millisecond', updated_at = now()
        FROM picked
        WHERE r.seq = picked.seq AND r.status = 'pending'
        RETURNING r.*
    ),
    busy AS (
        UPDATE rebound_threads t SET status = 'busy', updated_at = now()
        FROM claimed WHERE t.thread_id = claimed.thread_id
    )
    SELECT ",
    run_columns!(),
    " FROM claimed r"
);

impl RunQueue {
    /// Queues a run (`pending`, created now by the database's clock) and
    /// announces it on [`super::RUNS_CHANNEL`] at commit. Tried again when
    /// its connection was lost; a try after one that was lost and finds
    /// the run's id taken answers with the run the lost try queued.
    pub async fn enqueue(&self, run: &NewRun) -> Result<RunRow, QueueError> {
        let (metadata, kwargs) = (run.metadata.to_string(), run.kwargs.to_string());
        let mut tries = 0;
        let queued = self
            .retrying(|| {
                tries += 1;
                async {
                    Ok(sqlx::query(ENQUEUE)
                        .bind(&run.run_id)
                        .bind(&run.thread_id)
                        .bind(&run.assistant_id)
                        .bind(&run.multitask_strategy)
                        .bind(&metadata)
                        .bind(&kwargs)
                        .fetch_one(&self.pool)
                        .await?)
                }
            })
            .await;
        match queued {
            Ok(row) => decode_run(&row),
            Err(QueueError::Database(error)) if tries > 1 && is_unique_violation(&error) => {
                match self.get_run(&run.run_id).await? {
                    Some(queued) => Ok(queued),
                    None => Err(error.into()),
                }
            }
            Err(error) => Err(error),
        }
    }

    /// Takes up to `limit` runs for the worker `owner`, oldest first (see
    /// the module's notes): each gets a new lease (its epoch incremented,
    /// its attempt counted, held for [`super::QueueConfig::lease_ttl`]).
    /// A run whose `cancel_requested` is set was asked to stop before this
    /// claim: carry that out first.
    pub async fn claim(&self, owner: &str, limit: usize) -> Result<Vec<Lease>, QueueError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let ttl = millis(self.config.lease_ttl);
        let mut tries = 0;
        let rows = loop {
            let claimed = sqlx::query(CLAIM)
                .bind(owner)
                .bind(limit)
                .bind(ttl)
                .fetch_all(&self.pool)
                .await;
            match claimed {
                Ok(rows) => break rows,
                Err(error) if is_unique_violation(&error) && tries < CLAIM_RETRIES => {
                    // Raced another claim on one thread: claim again.
                    tries += 1;
                }
                Err(error) if is_unique_violation(&error) => return Ok(Vec::new()),
                Err(error) => return Err(error.into()),
            }
        };
        let mut leases = rows
            .iter()
            .map(|row| decode_run(row).map(Lease::from_run))
            .collect::<Result<Vec<_>, _>>()?;
        leases.sort_by_key(|lease| lease.run.seq);
        Ok(leases)
    }
}

/// Whether `error` is a unique violation (SQLSTATE 23505).
fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(e) if e.code().as_deref() == Some("23505"))
}
