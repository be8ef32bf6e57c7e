//! Why a workspace, its state or one of its threads cannot be used.

use std::path::PathBuf;

use rebound_agent::workflow::WorkflowKind;
use rebound_graph::checkpoint::CheckpointError;
use rebound_graph::{CompileError, GraphError};

use crate::config::ConfigError;

/// Why a workspace, its settings, its state directory, a thread or a model
/// cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// The configuration cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The state directory holds no database yet.
    #[error("no runs in {} yet (start one with `rebound run \"<goal>\"`, or pass --workspace / --state-dir)", .0.display())]
    NoRuns(PathBuf),
    /// Not something a thread id can be.
    #[error("{0:?} is not a thread id")]
    InvalidThreadId(String),
    /// The state directory has no record of the thread.
    #[error("unknown thread {thread:?} in {} (`rebound threads` lists them)", .state_dir.display())]
    UnknownThread {
        /// The id asked for.
        thread: String,
        /// The state directory searched.
        state_dir: PathBuf,
    },
    /// Another process runs the thread.
    #[error(
        "thread {thread} is running in process {pid}; wait for it, or stop it with Ctrl-C there"
    )]
    Running {
        /// The thread.
        thread: String,
        /// The process that holds it.
        pid: u32,
    },
    /// The thread's workspace directory is gone.
    #[error("the thread's workspace {} no longer exists", .0.display())]
    WorkspaceGone(PathBuf),
    /// The thread's record holds a value this version cannot use.
    #[error("the record of thread {thread} is unusable: {message}")]
    BadRecord {
        /// The thread.
        thread: String,
        /// What is wrong.
        message: String,
    },
    /// The model cannot be opened: a bad model string, a model file that
    /// is not installed, a build without the embedded model, a missing
    /// key. The message says what to do.
    #[error("{0}")]
    Model(String),
    /// A file or directory cannot be read or written.
    #[error("cannot {action} {}: {source}", .path.display())]
    Io {
        /// What was being done (`create the state directory`, `read`...).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The checkpoint database failed.
    #[error("{context}: {source}")]
    Database {
        /// What was being done.
        context: String,
        /// Why.
        #[source]
        source: CheckpointError,
    },
    /// The thread's workflow is one this version cannot run or read
    /// (`WorkflowKind` is `#[non_exhaustive]`).
    #[error("this version of rebound cannot run the {0} workflow")]
    Unsupported(WorkflowKind),
    /// The workflow's graph does not compile.
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// The engine refused or failed: an unknown checkpoint, nothing to
    /// resume, a state that no longer deserializes...
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// The thread cannot be held or released: another process runs it, or
    /// its lock cannot be written.
    #[error(transparent)]
    Held(CheckpointError),
    /// An approval cannot be asked (the terminal failed).
    #[error("cannot ask for the approval: {0}")]
    Ask(#[source] std::io::Error),
    /// An approval's answer cannot be encoded for the run.
    #[error("cannot encode the approval's answer: {0}")]
    Answer(#[source] serde_json::Error),
    /// A thread record cannot be encoded.
    #[error("cannot encode the record of thread {thread}: {source}")]
    Record {
        /// The thread.
        thread: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}

impl WorkspaceError {
    /// Whether the error is in what the user asked for (a bad setting, an
    /// unknown thread, a model that is not there) rather than a failure
    /// of the machine: the CLI's exit code 2.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            WorkspaceError::Config(_)
                | WorkspaceError::NoRuns(_)
                | WorkspaceError::InvalidThreadId(_)
                | WorkspaceError::UnknownThread { .. }
                | WorkspaceError::Running { .. }
                | WorkspaceError::WorkspaceGone(_)
                | WorkspaceError::BadRecord { .. }
                | WorkspaceError::Model(_)
                | WorkspaceError::Graph(
                    GraphError::UnknownCheckpoint { .. }
                        | GraphError::UnknownThread { .. }
                        | GraphError::NothingToResume { .. }
                )
        )
    }

    /// A [`WorkspaceError::Database`] error with what was being done.
    pub(crate) fn database(context: impl Into<String>) -> impl FnOnce(CheckpointError) -> Self {
        let context = context.into();
        move |source| WorkspaceError::Database { context, source }
    }

    /// A [`WorkspaceError::Io`] error with what was being done to `path`.
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| WorkspaceError::Io {
            action,
            path,
            source,
        }
    }
}
