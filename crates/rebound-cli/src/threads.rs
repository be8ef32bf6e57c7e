//! What the CLI records about each thread, beside its checkpoints: the
//! workflow (to rebuild the right graph on resume), the goal, the model,
//! and how the last run on it ended. One JSON file per thread in
//! `<state>/threads/`.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::workflow::WorkflowKind;

/// How the last run on a thread ended, as far as the CLI knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// A process is running it (or died while running it).
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

/// The CLI's record of one thread.
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
    /// The process running it, while [`RunState::Running`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
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
    /// The record of a new thread, running in this process.
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
            pid: Some(std::process::id()),
        }
    }

    /// Marks the thread as running in this process.
    pub fn running(&mut self) {
        self.state = RunState::Running;
        self.detail = None;
        self.pid = Some(std::process::id());
        self.updated_ms = now_ms();
    }

    /// Records how the run ended.
    pub fn ended(&mut self, state: RunState, detail: Option<String>) {
        self.state = state;
        self.detail = detail;
        self.pid = None;
        self.updated_ms = now_ms();
    }

    /// Whether its process is alive (for a running thread).
    pub fn process_alive(&self) -> bool {
        self.pid.is_some_and(pid_alive)
    }

    /// The status in words: `running (pid 12)`, `crashed (resumable)`,
    /// `stopped: max iterations (3)`...
    pub fn status(&self) -> String {
        let detail = self.detail.as_deref().unwrap_or_default();
        match self.state {
            RunState::Running if self.process_alive() => {
                format!("running (pid {})", self.pid.unwrap_or_default())
            }
            RunState::Running => "crashed (resumable)".to_string(),
            RunState::Finished if detail.is_empty() => "finished".to_string(),
            RunState::Finished => detail.to_string(),
            RunState::Stopped => format!("stopped: {detail}"),
            RunState::Interrupted => "interrupted: awaiting approval".to_string(),
            RunState::Cancelled => "cancelled (resumable)".to_string(),
            RunState::Failed => format!("failed (resumable): {detail}"),
            RunState::Forked => format!("forked from {detail} (resumable)"),
        }
    }
}

/// Whether a process with this id exists.
fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) => true,
        Err(errno) => errno == nix::errno::Errno::EPERM,
    }
}

/// The thread records of a state directory.
#[derive(Debug, Clone)]
pub struct ThreadStore {
    dir: PathBuf,
}

impl ThreadStore {
    /// The records in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ThreadStore { dir: dir.into() }
    }

    fn path(&self, thread_id: &str) -> PathBuf {
        self.dir.join(format!("{thread_id}.json"))
    }

    /// The record of `thread_id`, if there is one.
    pub fn load(&self, thread_id: &str) -> anyhow::Result<Option<ThreadMeta>> {
        if !valid_thread_id(thread_id) {
            return Ok(None);
        }
        let path = self.path(thread_id);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let meta = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a thread record", path.display()))?;
        Ok(Some(meta))
    }

    /// Saves a record (atomically: written aside, then renamed).
    pub fn save(&self, meta: &ThreadMeta) -> anyhow::Result<()> {
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        let path = self.path(&meta.thread_id);
        let temporary = self.dir.join(format!(".{}.json.tmp", meta.thread_id));
        let text = serde_json::to_string_pretty(meta)?;
        std::fs::write(&temporary, text)
            .with_context(|| format!("cannot write {}", temporary.display()))?;
        std::fs::rename(&temporary, &path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    }

    /// Every record, in no particular order (unreadable files are skipped).
    pub fn all(&self) -> Vec<ThreadMeta> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().to_string_lossy().to_string();
                let id = name.strip_suffix(".json")?;
                self.load(id).ok().flatten()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

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
        let store = ThreadStore::new(dir.path());
        let mut meta = ThreadMeta::new(
            "run-1".into(),
            WorkflowKind::Pev,
            "fix it",
            dir.path(),
            "openai:m",
        );
        store.save(&meta).unwrap();
        assert_eq!(store.load("run-1").unwrap(), Some(meta.clone()));
        assert!(meta.status().starts_with("running (pid"));
        meta.pid = Some(u32::MAX / 2);
        assert_eq!(meta.status(), "crashed (resumable)");
        meta.ended(RunState::Stopped, Some("max iterations (3)".into()));
        assert_eq!(meta.status(), "stopped: max iterations (3)");
        assert_eq!(store.all().len(), 1);
        assert_eq!(store.load("run-2").unwrap(), None);
    }
}
