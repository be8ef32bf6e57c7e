//! The state directory (`.rebound/` by default): the checkpoint database
//! (with the CLI's per-thread records) and the artifacts (full command logs).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use rebound_sqlite::SqliteSaver;

use crate::threads::ThreadStore;

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
    pub fn create(&self) -> anyhow::Result<()> {
        for dir in [self.root.clone(), self.artifacts()] {
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

    /// Opens the checkpoint database, creating it when needed, and moves
    /// the thread records of earlier versions into it.
    pub fn open(&self) -> anyhow::Result<Arc<SqliteSaver>> {
        self.create()?;
        let saver = SqliteSaver::open_default(self.database())
            .with_context(|| format!("cannot open {}", self.database().display()))?;
        let saver = Arc::new(saver);
        ThreadStore::new(Arc::clone(&saver)).import_side_files(&self.legacy_threads())?;
        Ok(saver)
    }

    /// Opens the database for reading threads: an error saying there are
    /// no runs yet when it does not exist.
    pub fn open_existing(&self) -> anyhow::Result<Arc<SqliteSaver>> {
        if !self.exists() {
            return Err(crate::exit::usage(format!(
                "no runs in {} yet (start one with `rebound run \"<goal>\"`, or pass --workspace / --state-dir)",
                self.root.display()
            )));
        }
        self.open()
    }
}
