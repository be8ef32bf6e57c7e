//! [`Lease`], a worker's hold on a run, and [`LeaseGuard`], the lease as a
//! [`WriteGuard`], so that the checkpointer's writes are fenced like the
//! queue's own (`lease.rs` has the queue's fenced writes).

use async_trait::async_trait;

use super::RunRow;
use crate::guard::WriteGuard;

/// A worker's hold on a run, from [`RunQueue::claim`].
#[derive(Debug, Clone, PartialEq)]
pub struct Lease {
    /// The run as claimed (status `running`).
    pub run: RunRow,
    /// The run.
    pub run_id: String,
    /// Its thread.
    pub thread_id: String,
    /// The worker that claimed it.
    pub owner: String,
    /// The claim's epoch: what fences every write made under this lease.
    pub epoch: i64,
}

impl Lease {
    /// The lease of a run just claimed.
    pub(crate) fn from_run(run: RunRow) -> Self {
        Lease {
            run_id: run.run_id.clone(),
            thread_id: run.thread_id.clone(),
            owner: run.owner.clone().unwrap_or_default(),
            epoch: run.epoch,
            run,
        }
    }

    /// The guard that fences the checkpointer's writes with this lease.
    pub fn guard(&self) -> LeaseGuard {
        LeaseGuard::new(self.run_id.clone(), self.epoch)
    }
}

/// Holds while run `run_id` is running under the lease of epoch `epoch`.
/// The checkpointer checks it inside each checkpoint write's transaction;
/// it reads the run's row `FOR SHARE`, so a reaper, a cancel or a claim
/// cannot move the run between the check and the write's commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseGuard {
    /// The run.
    pub run_id: String,
    /// Its lease's epoch.
    pub epoch: i64,
}

const HOLDS: &str = "SELECT 1 FROM rebound_runs
    WHERE run_id = $1 AND epoch = $2 AND status = 'running'
    FOR SHARE";

impl LeaseGuard {
    /// The guard of the lease `epoch` on `run_id`.
    pub fn new(run_id: impl Into<String>, epoch: i64) -> Self {
        LeaseGuard {
            run_id: run_id.into(),
            epoch,
        }
    }
}

#[async_trait]
impl WriteGuard for LeaseGuard {
    async fn holds(&self, conn: &mut sqlx::PgConnection) -> Result<bool, sqlx::Error> {
        let row = sqlx::query(HOLDS)
            .bind(&self.run_id)
            .bind(self.epoch)
            .fetch_optional(&mut *conn)
            .await?;
        Ok(row.is_some())
    }

    fn describe(&self) -> String {
        format!("the lease of run {} at epoch {}", self.run_id, self.epoch)
    }
}
