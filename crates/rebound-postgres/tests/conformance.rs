//! The checkpointer conformance suite (`rebound-conformance`) on
//! [`PostgresSaver`]: each store is a new database in the test cluster, and
//! a reopened store is a second saver connected to the same database.

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use rebound_conformance::{Backend, Unavailable};
use rebound_graph::checkpoint::{CheckpointError, Checkpointer};
use rebound_postgres::testing::test_database;
use rebound_postgres::{PostgresOptions, PostgresSaver};

/// Fresh databases in the test cluster.
struct PostgresBackend {
    /// Each saver handed out, with the URL of its database.
    opened: Mutex<Vec<(Arc<dyn Checkpointer>, String)>>,
}

impl PostgresBackend {
    fn url_of(&self, saver: &Arc<dyn Checkpointer>) -> Option<String> {
        let opened = self.opened.lock().unwrap_or_else(PoisonError::into_inner);
        opened
            .iter()
            .find(|(known, _)| std::ptr::addr_eq(Arc::as_ptr(known), Arc::as_ptr(saver)))
            .map(|(_, url)| url.clone())
    }

    async fn open(&self, url: String) -> Result<Arc<dyn Checkpointer>, CheckpointError> {
        let options = PostgresOptions::default()
            .with_max_connections(4)
            .with_lock_connections(8);
        let saver: Arc<dyn Checkpointer> = Arc::new(PostgresSaver::connect(&url, options).await?);
        self.opened
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((Arc::clone(&saver), url));
        Ok(saver)
    }
}

#[async_trait]
impl Backend for PostgresBackend {
    fn name(&self) -> &str {
        "postgres"
    }

    async fn fresh(&self) -> Result<Arc<dyn Checkpointer>, CheckpointError> {
        let db = test_database()
            .await
            .map_err(|e| CheckpointError::Storage(Box::new(e)))?
            .ok_or_else(|| CheckpointError::Storage("PostgreSQL went away".into()))?;
        self.open(db.url).await
    }

    async fn reopen(
        &self,
        saver: &Arc<dyn Checkpointer>,
    ) -> Result<Arc<dyn Checkpointer>, CheckpointError> {
        let url = self.url_of(saver).ok_or_else(|| {
            CheckpointError::Storage("reopen: that saver was not handed out by this backend".into())
        })?;
        self.open(url).await
    }
}

/// A backend on the test cluster, or why there is none (a failure instead
/// when `REBOUND_REQUIRE_POSTGRES=1`).
fn postgres() -> Result<PostgresBackend, Unavailable> {
    match rebound_postgres::testing::admin_url() {
        Ok(_) => Ok(PostgresBackend {
            opened: Mutex::new(Vec::new()),
        }),
        Err(reason) if std::env::var("REBOUND_REQUIRE_POSTGRES").is_ok_and(|v| v == "1") => {
            panic!("REBOUND_REQUIRE_POSTGRES=1 but PostgreSQL is not available: {reason}")
        }
        Err(reason) => Err(Unavailable::new(format!("no PostgreSQL: {reason}"))),
    }
}

rebound_conformance::checkpointer_tests!(postgres());
