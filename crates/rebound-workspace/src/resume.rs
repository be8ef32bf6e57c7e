//! Opening a thread to resume it: its record, the settings it runs with
//! (its own approval mode and model unless the caller overrides them), and
//! its tools, once nobody else runs it and its workspace is still there.

use crate::config::{Env, Settings};
use crate::deps::Tools;
use crate::state::{find_thread, FoundThread};
use crate::WorkspaceError;

/// What the caller overrides of the thread's own settings.
#[derive(Debug, Clone, Default)]
pub struct ResumeOverrides {
    /// An approval mode given for this resume (else the thread's own).
    pub approval: bool,
    /// A model given for this resume (else the thread's own).
    pub model: Option<String>,
}

/// A thread ready to resume.
pub struct Resumable {
    /// The thread: its record (with the model and approval mode it now
    /// runs with), checkpoints and lock.
    pub found: FoundThread,
    /// Its model and tools.
    pub tools: Tools,
}

/// Opens `thread` in `settings.state_dir` to resume it. `settings.approval`
/// becomes the thread's own mode unless `overrides.approval` says the
/// caller set it (then the record takes the new one). A thread that
/// another process runs, or whose workspace is gone, is an error.
pub fn open_to_resume(
    settings: &mut Settings,
    thread: &str,
    overrides: &ResumeOverrides,
    env: Env<'_>,
) -> Result<Resumable, WorkspaceError> {
    let mut found = find_thread(&settings.state_dir, thread)?;
    match (&found.meta.approval, overrides.approval) {
        (Some(mode), false) => {
            settings.approval = mode.parse().map_err(|error| WorkspaceError::BadRecord {
                thread: thread.to_string(),
                message: format!("{error}"),
            })?;
        }
        _ => found.meta.approval = Some(settings.approval.as_str().to_string()),
    }
    if let Some(pid) = found.threads.holder(thread)? {
        return Err(WorkspaceError::Running {
            thread: thread.to_string(),
            pid,
        });
    }
    if let Some(model) = &overrides.model {
        found.meta.model = model.clone();
    }
    let workspace = found.meta.workspace.clone();
    if !workspace.is_dir() {
        return Err(WorkspaceError::WorkspaceGone(workspace));
    }
    let tools = crate::deps::open(settings, &found.meta.model, &workspace, &found.state, env)?;
    Ok(Resumable { found, tools })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::{Flags, StateDir, ThreadMeta, ThreadStore};
    use rebound_agent::workflow::WorkflowKind;
    use rebound_tools::approval::ApprovalMode;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn a_thread_resumes_only_when_nobody_runs_it_and_its_workspace_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("ws");
        std::fs::create_dir(&workspace).unwrap();
        let flags = Flags {
            workspace: Some(workspace),
            ..Flags::default()
        };
        let mut settings = crate::load(&flags, &no_env).unwrap();
        let threads = ThreadStore::new(StateDir::new(&settings.state_dir).open().unwrap());
        let mut meta = ThreadMeta::new(
            "run-1".to_string(),
            WorkflowKind::Pev,
            "fix it",
            &settings.workspace,
            "local:qwen2.5-coder-1.5b",
        );
        meta.approval = Some("always".to_string());
        threads.save(&meta).unwrap();
        let open = |settings: &mut Settings| {
            open_to_resume(settings, "run-1", &ResumeOverrides::default(), &no_env)
                .err()
                .unwrap()
        };

        let hold = threads.hold("run-1").unwrap();
        let running = open(&mut settings);
        assert!(
            matches!(running, WorkspaceError::Running { pid, .. } if pid == std::process::id()),
            "{running}"
        );
        assert!(running.is_usage());
        // The thread's own approval mode, not the settings' default.
        assert_eq!(settings.approval, ApprovalMode::Always);
        hold.release().unwrap();

        meta.workspace = dir.path().join("gone");
        threads.save(&meta).unwrap();
        let gone = open(&mut settings);
        assert!(matches!(gone, WorkspaceError::WorkspaceGone(_)), "{gone}");
        assert!(gone.to_string().contains("no longer exists"), "{gone}");

        meta.approval = Some("sometimes".to_string());
        threads.save(&meta).unwrap();
        let bad = open(&mut settings);
        assert!(matches!(bad, WorkspaceError::BadRecord { .. }), "{bad}");
        assert!(bad.to_string().contains("run-1"), "{bad}");
    }
}
