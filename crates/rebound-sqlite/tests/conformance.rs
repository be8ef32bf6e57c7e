//! The checkpointer conformance suite (`rebound-conformance`) on
//! [`SqliteSaver`]: each scenario gets its own temporary database file, and
//! a reopened store is the same file opened by a second saver. The suite
//! runs twice: with the saver's checkpoint cache (the default), and without
//! it, so that every answer also comes from SQLite itself.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use rebound_conformance::{Backend, Unavailable};
use rebound_graph::checkpoint::{CheckpointError, Checkpointer};
use rebound_sqlite::{SqliteOptions, SqliteSaver};

/// Fresh SQLite files in one temporary directory (removed with the backend).
struct SqliteBackend {
    dir: tempfile::TempDir,
    /// Each saver handed out, with the file it opened.
    opened: Mutex<Vec<(Arc<dyn Checkpointer>, PathBuf)>>,
    /// How each saver is opened.
    options: SqliteOptions,
}

impl SqliteBackend {
    fn path_of(&self, saver: &Arc<dyn Checkpointer>) -> Option<PathBuf> {
        let opened = self.opened.lock().unwrap_or_else(PoisonError::into_inner);
        opened
            .iter()
            .find(|(known, _)| std::ptr::addr_eq(Arc::as_ptr(known), Arc::as_ptr(saver)))
            .map(|(_, path)| path.clone())
    }

    fn open(&self, path: PathBuf) -> Result<Arc<dyn Checkpointer>, CheckpointError> {
        let saver: Arc<dyn Checkpointer> =
            Arc::new(SqliteSaver::open(&path, self.options.clone())?);
        self.opened
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((Arc::clone(&saver), path));
        Ok(saver)
    }
}

#[async_trait]
impl Backend for SqliteBackend {
    fn name(&self) -> &str {
        if self.options.cache_bytes == 0 {
            "sqlite without its cache"
        } else {
            "sqlite"
        }
    }

    async fn fresh(&self) -> Result<Arc<dyn Checkpointer>, CheckpointError> {
        let count = self
            .opened
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        self.open(self.dir.path().join(format!("store-{count}.db")))
    }

    async fn reopen(
        &self,
        saver: &Arc<dyn Checkpointer>,
    ) -> Result<Arc<dyn Checkpointer>, CheckpointError> {
        let path = self.path_of(saver).ok_or_else(|| {
            CheckpointError::Storage("reopen: that saver was not handed out by this backend".into())
        })?;
        self.open(path)
    }
}

/// A backend in a new temporary directory, one per scenario.
fn sqlite(options: SqliteOptions) -> Result<SqliteBackend, Unavailable> {
    let dir = tempfile::tempdir()
        .map_err(|error| Unavailable::new(format!("no temporary directory: {error}")))?;
    Ok(SqliteBackend {
        dir,
        opened: Mutex::new(Vec::new()),
        options,
    })
}

mod cached {
    use super::*;

    rebound_conformance::checkpointer_tests!(sqlite(SqliteOptions::default()));
}

mod uncached {
    use super::*;

    rebound_conformance::checkpointer_tests!(sqlite(SqliteOptions::default().with_cache_bytes(0)));
}
