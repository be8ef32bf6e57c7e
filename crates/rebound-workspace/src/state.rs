//! The state directory (`.rebound/` by default): the checkpoint database
//! (with the per-thread records) and the artifacts (full command logs).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rebound_graph::checkpoint::Checkpointer;
use rebound_sqlite::SqliteSaver;

use crate::error::WorkspaceError;
use crate::threads::{valid_thread_id, ThreadMeta, ThreadStore};

/// The layout of a state directory.
#[derive(Debug, Clone)]
pub struct StateDir {
    root: PathBuf,
}

impl StateDir {
    /// The state directory at `root` (not created yet).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        StateDir { root: root.into() }
    }

    /// Its root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The SQLite checkpoint database.
    pub fn database(&self) -> PathBuf {
        self.root.join("state.db")
    }

    /// Where full command logs go.
    pub fn artifacts(&self) -> PathBuf {
        self.root.join("artifacts")
    }

    /// Where earlier versions kept the per-thread records, one JSON file
    /// each (now imported into the database when found).
    pub fn legacy_threads(&self) -> PathBuf {
        self.root.join("threads")
    }

    /// Whether it holds a database yet.
    pub fn exists(&self) -> bool {
        self.database().is_file()
    }

    /// Creates the directories, with a `.gitignore` that keeps the state out
    /// of the workspace's repository.
    pub fn create(&self) -> Result<(), WorkspaceError> {
        for dir in [self.root.clone(), self.artifacts()] {
            std::fs::create_dir_all(&dir)
                .map_err(WorkspaceError::io("create the state directory", &dir))?;
        }
        let ignore = self.root.join(".gitignore");
        if !ignore.exists() {
            std::fs::write(&ignore, "# rebound's run state\n*\n")
                .map_err(WorkspaceError::io("write", &ignore))?;
        }
        Ok(())
    }

    /// Opens the checkpoint database, creating it when needed, and moves
    /// the thread records of earlier versions into it.
    pub fn open(&self) -> Result<Arc<SqliteSaver>, WorkspaceError> {
        self.create()?;
        let saver = SqliteSaver::open_default(self.database()).map_err(
            WorkspaceError::database(format!("cannot open {}", self.database().display())),
        )?;
        let saver = Arc::new(saver);
        ThreadStore::new(Arc::clone(&saver)).import_side_files(&self.legacy_threads())?;
        Ok(saver)
    }

    /// Opens the database for reading threads: an error saying there are
    /// no runs yet when it does not exist.
    pub fn open_existing(&self) -> Result<Arc<SqliteSaver>, WorkspaceError> {
        if !self.exists() {
            return Err(WorkspaceError::NoRuns(self.root.clone()));
        }
        self.open()
    }
}

/// A thread found in a state directory, with what reading or running it
/// needs.
pub struct FoundThread {
    /// Its record.
    pub meta: ThreadMeta,
    /// The checkpoint store.
    pub saver: Arc<dyn Checkpointer>,
    /// The state directory.
    pub state: StateDir,
    /// The records and locks of the threads.
    pub threads: ThreadStore,
}

/// Finds `thread` in the state directory `state_dir`: an invalid id, a
/// directory with no runs and an unknown thread are each their own error.
pub fn find_thread(state_dir: &Path, thread: &str) -> Result<FoundThread, WorkspaceError> {
    if !valid_thread_id(thread) {
        return Err(WorkspaceError::InvalidThreadId(thread.to_string()));
    }
    let state = StateDir::new(state_dir);
    let store = state.open_existing()?;
    let threads = ThreadStore::new(Arc::clone(&store));
    let Some(meta) = threads.load(thread)? else {
        return Err(WorkspaceError::UnknownThread {
            thread: thread.to_string(),
            state_dir: state.root().to_path_buf(),
        });
    };
    Ok(FoundThread {
        meta,
        saver: store,
        state,
        threads,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::threads::RunState;
    use rebound_agent::workflow::WorkflowKind;

    #[test]
    fn a_thread_is_found_by_id_and_each_miss_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let state_dir = dir.path().join(".rebound");
        let missing = find_thread(&state_dir, "run-1").err().unwrap();
        assert!(matches!(missing, WorkspaceError::NoRuns(_)), "{missing}");
        assert!(missing.is_usage());
        let bad = find_thread(&state_dir, "../x").err().unwrap();
        assert!(matches!(bad, WorkspaceError::InvalidThreadId(_)), "{bad}");

        let state = StateDir::new(&state_dir);
        let threads = ThreadStore::new(state.open().unwrap());
        let mut meta = ThreadMeta::new(
            "run-1".to_string(),
            WorkflowKind::Pev,
            "fix it",
            dir.path(),
            "local:qwen2.5-coder-1.5b",
        );
        meta.ended(RunState::Stopped, Some("max iterations (3)".to_string()));
        threads.save(&meta).unwrap();
        assert!(state_dir.join(".gitignore").is_file());

        let found = find_thread(&state_dir, "run-1").unwrap();
        assert_eq!(found.meta, meta);
        assert_eq!(found.meta.status(None), "stopped: max iterations (3)");
        let unknown = find_thread(&state_dir, "run-2").err().unwrap();
        assert!(
            unknown.to_string().contains("unknown thread \"run-2\""),
            "{unknown}"
        );
    }
}
