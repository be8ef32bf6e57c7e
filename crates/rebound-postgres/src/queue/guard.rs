//! [`LeaseGuard`]: a run's lease as a [`WriteGuard`], so that the
//! checkpointer's writes are fenced like the queue's own.

use async_trait::async_trait;

use crate::guard::WriteGuard;

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
