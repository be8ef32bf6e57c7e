//! What rebound records about each thread, beside its checkpoints: the
//! workflow (to rebuild the right graph on resume), the goal, the model,
//! and how the last run on it ended. Kept in the checkpoint database as the
//! metadata of the thread's [`ThreadRecord`]; whether a thread is running
//! is the database's lock alone ([`ThreadStore::holder`]).
//!
//! Earlier versions kept one JSON file per thread in `<state>/threads/`;
//! [`ThreadStore::import_side_files`] moves those into the database.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use rebound_agent::workflow::WorkflowKind;
use rebound_graph::checkpoint::CheckpointError;
use rebound_sqlite::{SqliteSaver, ThreadHold, ThreadRecord, ThreadStatus};
use serde::{Deserialize, Serialize};

use crate::error::WorkspaceError;

/// How the last run on a thread ended, as far as its record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// A run started and has not recorded its end: it is running (when a
    /// live process holds the thread's lock) or it crashed.
    Running,
    /// The goal was reached.
    Finished,
    /// It stopped without reaching the goal (budget, max iterations, error).
    Stopped,
    /// It waits for an approval.
    Interrupted,
    /// Ctrl-C stopped it; it can be resumed.
    Cancelled,
    /// The engine failed (a node error); it can be resumed from its last
    /// good checkpoint.
    Failed,
    /// `rebound fork` branched it from an earlier checkpoint.
    Forked,
}

impl RunState {
    /// The thread status the database records for it.
    fn status(self) -> ThreadStatus {
        match self {
            RunState::Running => ThreadStatus::Busy,
            RunState::Finished | RunState::Stopped | RunState::Cancelled | RunState::Forked => {
                ThreadStatus::Idle
            }
            RunState::Interrupted => ThreadStatus::Interrupted,
            RunState::Failed => ThreadStatus::Error,
        }
    }
}

/// rebound's record of one thread. (Its serde form is also the format of
/// the side files of earlier versions, which carried a `pid` as well.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadMeta {
    /// The thread id.
    pub thread_id: String,
    /// Its workflow.
    pub workflow: WorkflowKind,
    /// The goal.
    pub goal: String,
    /// The workspace the agent works in.
    pub workspace: PathBuf,
    /// The model string of the last run.
    pub model: String,
    /// The approval mode of the last run (a resume keeps it unless told
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// When the record last changed.
    pub updated_ms: u64,
    /// How the last run ended.
    pub state: RunState,
    /// The stop reason or error, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// rebound's fields in a [`ThreadRecord`]'s metadata.
#[derive(Debug, Serialize, Deserialize)]
struct Metadata {
    workflow: WorkflowKind,
    goal: String,
    workspace: PathBuf,
    model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    approval: Option<String>,
    run_state: RunState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// A new thread id: `run-` and 15 hex digits (milliseconds, then random),
/// so ids sort by creation time.
pub fn new_thread_id() -> String {
    format!("run-{:011x}{:04x}", now_ms(), fastrand::u16(..))
}

/// Whether `id` is usable as a thread id (and a file name).
pub fn valid_thread_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl ThreadMeta {
    /// The record of a new thread, about to run.
    pub fn new(
        thread_id: String,
        workflow: WorkflowKind,
        goal: &str,
        workspace: &Path,
        model: &str,
    ) -> Self {
        let now = now_ms();
        ThreadMeta {
            thread_id,
            workflow,
            goal: goal.to_string(),
            workspace: workspace.to_path_buf(),
            model: model.to_string(),
            approval: None,
            created_ms: now,
            updated_ms: now,
            state: RunState::Running,
            detail: None,
        }
    }

    /// Marks the thread as running.
    pub fn running(&mut self) {
        self.state = RunState::Running;
        self.detail = None;
        self.updated_ms = now_ms();
    }

    /// Records how the run ended.
    pub fn ended(&mut self, state: RunState, detail: Option<String>) {
        self.state = state;
        self.detail = detail;
        self.updated_ms = now_ms();
    }

    /// The status in words, given the process holding the thread's lock
    /// (see [`ThreadStore::holder`]): `running (pid 12)`,
    /// `crashed (resumable)`, `stopped: max iterations (3)`...
    pub fn status(&self, holder: Option<u32>) -> String {
        let detail = self.detail.as_deref().unwrap_or_default();
        match (holder, self.state) {
            (Some(pid), _) => format!("running (pid {pid})"),
            (None, RunState::Running) => "crashed (resumable)".to_string(),
            (None, RunState::Finished) if detail.is_empty() => "finished".to_string(),
            (None, RunState::Finished) => detail.to_string(),
            (None, RunState::Stopped) => format!("stopped: {detail}"),
            (None, RunState::Interrupted) => "interrupted: awaiting approval".to_string(),
            (None, RunState::Cancelled) => "cancelled (resumable)".to_string(),
            (None, RunState::Failed) => format!("failed (resumable): {detail}"),
            (None, RunState::Forked) => format!("forked from {detail} (resumable)"),
        }
    }

    /// The record the database keeps.
    fn to_record(&self) -> Result<ThreadRecord, WorkspaceError> {
        let metadata = serde_json::to_value(Metadata {
            workflow: self.workflow,
            goal: self.goal.clone(),
            workspace: self.workspace.clone(),
            model: self.model.clone(),
            approval: self.approval.clone(),
            run_state: self.state,
            detail: self.detail.clone(),
        })
        .map_err(|source| WorkspaceError::Record {
            thread: self.thread_id.clone(),
            source,
        })?;
        Ok(ThreadRecord {
            thread_id: self.thread_id.clone(),
            created_ms: self.created_ms,
            updated_ms: self.updated_ms,
            status: self.state.status(),
            metadata,
        })
    }

    /// rebound's record in a database record; `None` for a record rebound
    /// did not write.
    fn from_record(record: ThreadRecord) -> Option<Self> {
        let metadata: Metadata = serde_json::from_value(record.metadata).ok()?;
        Some(ThreadMeta {
            thread_id: record.thread_id,
            workflow: metadata.workflow,
            goal: metadata.goal,
            workspace: metadata.workspace,
            model: metadata.model,
            approval: metadata.approval,
            created_ms: record.created_ms,
            updated_ms: record.updated_ms,
            state: metadata.run_state,
            detail: metadata.detail,
        })
    }
}

/// The thread records of a state directory's database.
#[derive(Debug, Clone)]
pub struct ThreadStore {
    saver: Arc<SqliteSaver>,
}

impl ThreadStore {
    /// The records in `saver`'s database.
    pub fn new(saver: Arc<SqliteSaver>) -> Self {
        ThreadStore { saver }
    }

    /// The record of `thread_id`, if rebound has one.
    pub fn load(&self, thread_id: &str) -> Result<Option<ThreadMeta>, WorkspaceError> {
        let record = self
            .saver
            .get_thread(thread_id)
            .map_err(WorkspaceError::database(format!(
                "cannot read the record of thread {thread_id}"
            )))?;
        Ok(record.and_then(ThreadMeta::from_record))
    }

    /// Saves a record.
    pub fn save(&self, meta: &ThreadMeta) -> Result<(), WorkspaceError> {
        self.saver
            .put_thread(&meta.to_record()?)
            .map_err(WorkspaceError::database(format!(
                "cannot save the record of thread {}",
                meta.thread_id
            )))
    }

    /// Every record rebound wrote, the most recently updated first.
    pub fn all(&self) -> Result<Vec<ThreadMeta>, WorkspaceError> {
        let records = self
            .saver
            .list_threads()
            .map_err(WorkspaceError::database("cannot list the thread records"))?;
        Ok(records
            .into_iter()
            .filter_map(ThreadMeta::from_record)
            .collect())
    }

    /// The live process running `thread_id` (holding its lock), if any.
    pub fn holder(&self, thread_id: &str) -> Result<Option<u32>, WorkspaceError> {
        self.saver
            .lock_holder(thread_id)
            .map_err(WorkspaceError::database(format!(
                "cannot read the lock of thread {thread_id}"
            )))
    }

    /// Claims `thread_id` for this process until the guard drops, across
    /// the runs of a session (and the prompts between them). Fails with
    /// [`CheckpointError::ThreadBusy`] when another live process runs it.
    pub fn hold(&self, thread_id: &str) -> Result<ThreadHold, CheckpointError> {
        self.saver.hold_thread(thread_id)
    }

    /// Moves the side files of earlier versions (`<id>.json` in `dir`) into
    /// the database: each is imported unless the thread already has a
    /// record there, then renamed to `<id>.json.imported`. Files that are
    /// not a thread record are left as they are. Returns how many records
    /// were imported.
    pub fn import_side_files(&self, dir: &Path) -> Result<usize, WorkspaceError> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(WorkspaceError::io("read", dir)(e)),
        };
        let mut imported = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            let Some(id) = name.strip_suffix(".json") else {
                continue;
            };
            if !valid_thread_id(id) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(meta) = serde_json::from_str::<ThreadMeta>(&text) else {
                continue;
            };
            if meta.thread_id != id {
                continue;
            }
            if self
                .saver
                .put_thread_if_absent(&meta.to_record()?)
                .map_err(WorkspaceError::database(format!(
                    "cannot import {}",
                    path.display()
                )))?
            {
                imported += 1;
            }
            let done = dir.join(format!("{name}.imported"));
            std::fs::rename(&path, &done).map_err(WorkspaceError::io("rename", &path))?;
        }
        Ok(imported)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn store(dir: &Path) -> ThreadStore {
        ThreadStore::new(Arc::new(
            SqliteSaver::open_default(dir.join("state.db")).unwrap(),
        ))
    }

    #[test]
    fn ids_are_valid_and_sort_by_time() {
        let a = new_thread_id();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = new_thread_id();
        assert!(valid_thread_id(&a), "{a}");
        assert!(a < b);
        assert_eq!(a.len(), "run-".len() + 15);
        assert!(!valid_thread_id("../x"));
        assert!(!valid_thread_id(""));
    }

    #[test]
    fn records_round_trip_and_status_reads_well() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path());
        let mut meta = ThreadMeta::new(
            "run-1".into(),
            WorkflowKind::Reflect,
            "fix it",
            dir.path(),
            "openai:m",
        );
        meta.approval = Some("auto".into());
        store.save(&meta).unwrap();
        assert_eq!(store.load("run-1").unwrap(), Some(meta.clone()));
        // Recorded as running, but nobody holds it: it crashed.
        assert_eq!(store.holder("run-1").unwrap(), None);
        assert_eq!(meta.status(None), "crashed (resumable)");
        // Held by this process: running, with the pid from the lock.
        let hold = store.hold("run-1").unwrap();
        let pid = store.holder("run-1").unwrap();
        assert_eq!(pid, Some(std::process::id()));
        assert_eq!(
            meta.status(pid),
            format!("running (pid {})", std::process::id())
        );
        hold.release().unwrap();
        meta.ended(RunState::Stopped, Some("max iterations (3)".into()));
        store.save(&meta).unwrap();
        let loaded = store.load("run-1").unwrap().unwrap();
        assert_eq!(loaded, meta);
        assert_eq!(loaded.status(None), "stopped: max iterations (3)");
        assert_eq!(store.all().unwrap(), vec![meta]);
        assert_eq!(store.load("run-2").unwrap(), None);
    }

    #[test]
    fn side_files_of_earlier_versions_are_imported_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path());
        let side = dir.path().join("threads");
        std::fs::create_dir(&side).unwrap();
        // A record already in the database is newer than its side file.
        let mut current = ThreadMeta::new(
            "run-new".into(),
            WorkflowKind::Pev,
            "current goal",
            dir.path(),
            "openai:m",
        );
        current.ended(RunState::Finished, None);
        store.save(&current).unwrap();
        let old = |id: &str, state: &str| {
            format!(
                r#"{{"thread_id": "{id}", "workflow": "reflect", "goal": "old goal of {id}",
                "workspace": "/tmp/ws", "model": "openai:old", "approval": "always",
                "created_ms": 1000, "updated_ms": 2000, "state": "{state}",
                "detail": "max iterations (2)", "pid": 4000000}}"#
            )
        };
        std::fs::write(side.join("run-old.json"), old("run-old", "stopped")).unwrap();
        std::fs::write(side.join("run-dead.json"), old("run-dead", "running")).unwrap();
        std::fs::write(side.join("run-new.json"), old("run-new", "stopped")).unwrap();
        std::fs::write(side.join("notes.json"), "not a record").unwrap();
        std::fs::write(side.join(".run-x.json.tmp"), old("run-x", "stopped")).unwrap();

        assert_eq!(store.import_side_files(&side).unwrap(), 2);
        let imported = store.load("run-old").unwrap().unwrap();
        assert_eq!(
            imported,
            ThreadMeta {
                thread_id: "run-old".into(),
                workflow: WorkflowKind::Reflect,
                goal: "old goal of run-old".into(),
                workspace: PathBuf::from("/tmp/ws"),
                model: "openai:old".into(),
                approval: Some("always".into()),
                created_ms: 1000,
                updated_ms: 2000,
                state: RunState::Stopped,
                detail: Some("max iterations (2)".into()),
            }
        );
        // The pid of the side file is not a lock: the run died.
        let dead = store.load("run-dead").unwrap().unwrap();
        assert_eq!(
            dead.status(store.holder("run-dead").unwrap()),
            "crashed (resumable)"
        );
        assert_eq!(store.load("run-new").unwrap(), Some(current));
        // Each imported file is renamed, so it is imported only once.
        for id in ["run-old", "run-dead", "run-new"] {
            assert!(!side.join(format!("{id}.json")).exists(), "{id}");
            assert!(side.join(format!("{id}.json.imported")).is_file(), "{id}");
        }
        assert!(side.join("notes.json").is_file());
        assert_eq!(store.import_side_files(&side).unwrap(), 0);
        assert_eq!(store.all().unwrap().len(), 3);
        // No directory: nothing to import.
        assert_eq!(
            store.import_side_files(&dir.path().join("none")).unwrap(),
            0
        );
    }
}
