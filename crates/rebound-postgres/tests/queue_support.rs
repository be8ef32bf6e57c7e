//! Helpers shared by the `queue_*` tests (included with `#[path]`; as a
//! test target of its own it has no tests).
#![allow(dead_code)]

use std::time::Duration;

use rebound_postgres::migrate::migrate;
use rebound_postgres::queue::{NewRun, QueueConfig, RunQueue};
use rebound_postgres::testing::test_database;
use sqlx::postgres::PgPoolOptions;

/// What the tests return.
pub type TestResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// A queue on a fresh, migrated database, or `None` (printed) without
/// PostgreSQL.
pub async fn queue(
    config: QueueConfig,
) -> Result<Option<RunQueue>, Box<dyn std::error::Error + Send + Sync>> {
    let Some(db) = test_database().await? else {
        return Ok(None);
    };
    let pool = PgPoolOptions::new()
        .max_connections(20)
        .connect(&db.url)
        .await?;
    migrate(&pool).await?;
    Ok(Some(RunQueue::new(pool, config)))
}

/// Short leases and backoffs, so that tests are fast.
pub fn fast() -> QueueConfig {
    QueueConfig {
        lease_ttl: Duration::from_millis(300),
        max_attempts: 3,
        backoff_base: Duration::from_millis(50),
        backoff_cap: Duration::from_secs(1),
    }
}

/// A run to queue.
pub fn new_run(run_id: &str, thread_id: &str) -> NewRun {
    NewRun {
        run_id: run_id.to_string(),
        thread_id: thread_id.to_string(),
        assistant_id: "agent".to_string(),
        multitask_strategy: "enqueue".to_string(),
        metadata: serde_json::json!({"n": run_id}),
        kwargs: serde_json::json!({"input": {"goal": "x"}}),
    }
}

/// The run ids of `leases`.
pub fn ids(leases: &[rebound_postgres::queue::Lease]) -> Vec<&str> {
    leases.iter().map(|l| l.run_id.as_str()).collect()
}
