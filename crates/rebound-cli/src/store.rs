//! The state directory (`.rebound/` by default): the checkpoint database,
//! the artifacts (full command logs) and the CLI's per-thread records.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use rebound_graph::checkpoint::Checkpointer;
use rebound_sqlite::SqliteSaver;

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

    /// Where the per-thread records go.
    pub fn threads(&self) -> PathBuf {
        self.root.join("threads")
    }

    /// Whether it holds a database yet.
    pub fn exists(&self) -> bool {
        self.database().is_file()
    }

    /// Creates the directories, with a `.gitignore` that keeps the state out
    /// of the workspace's repository.
    pub fn create(&self) -> anyhow::Result<()> {
        for dir in [self.root.clone(), self.artifacts(), self.threads()] {
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create the state directory {}", dir.display()))?;
        }
        let ignore = self.root.join(".gitignore");
        if !ignore.exists() {
            std::fs::write(&ignore, "# rebound's run state\n*\n")
                .with_context(|| format!("cannot write {}", ignore.display()))?;
        }
        Ok(())
    }

    /// Opens the checkpoint database, creating it when needed.
    pub fn open(&self) -> anyhow::Result<Arc<dyn Checkpointer>> {
        self.create()?;
        let saver = SqliteSaver::open_default(self.database())
            .with_context(|| format!("cannot open {}", self.database().display()))?;
        Ok(Arc::new(saver))
    }

    /// Opens the database for reading threads: an error saying there are
    /// no runs yet when it does not exist.
    pub fn open_existing(&self) -> anyhow::Result<Arc<dyn Checkpointer>> {
        if !self.exists() {
            return Err(crate::exit::usage(format!(
                "no runs in {} yet (start one with `rebound run \"<goal>\"`, or pass --workspace / --state-dir)",
                self.root.display()
            )));
        }
        self.open()
    }
}
