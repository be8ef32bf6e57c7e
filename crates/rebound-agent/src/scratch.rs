//! A scratch copy of the workspace: a throwaway directory holding the
//! project's files and its `.git`, where the agent can run something
//! whose effects it must not keep or must see first (a check it wrote, to
//! prove the check only reads). What ran there is told by comparing the
//! copy's [`state`] before and after.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

use rebound_tools::ToolContext;

use crate::AgentDeps;

/// Directories not copied: build output and caches (a check rebuilds what
/// it needs), dependencies, and rebound's own run data.
const SKIPPED_DIRS: &[&str] = &[
    "target",
    "node_modules",
    "__pycache__",
    ".pytest_cache",
    ".rebound",
];

/// Bytes copied at most: a bigger workspace has no scratch copy.
pub const MAX_COPY_BYTES: u64 = 256 << 20;

/// Files copied at most.
const MAX_COPY_FILES: usize = 20_000;

/// Why a workspace could not be copied.
#[derive(Debug, thiserror::Error)]
pub enum ScratchError {
    /// The workspace is bigger than [`MAX_COPY_BYTES`] or
    /// [`MAX_COPY_FILES`].
    #[error("the workspace is too big for a scratch copy (over {max} bytes or {files} files)", max = MAX_COPY_BYTES, files = MAX_COPY_FILES)]
    TooBig,
    /// Reading, copying or the temp dir failed.
    #[error("cannot copy the workspace: {0}")]
    Io(#[from] std::io::Error),
}

/// A scratch copy, deleted when dropped.
#[derive(Debug)]
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    /// Copies `workspace` (files, symlinks as links, `.git` included; the
    /// [`SKIPPED_DIRS`] left out) into a new temp dir.
    pub fn copy(workspace: &Path) -> Result<Scratch, ScratchError> {
        let dir = tempfile::Builder::new()
            .prefix("rebound-scratch")
            .tempdir()?;
        let mut budget = Budget {
            bytes: MAX_COPY_BYTES,
            files: MAX_COPY_FILES,
        };
        copy_tree(workspace, dir.path(), &mut budget)?;
        Ok(Scratch { dir })
    }

    /// The copy's root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `deps` working in the copy instead of the workspace: the same
    /// model, tools, policy and settings, with the copy as the tools'
    /// workspace (commands run there, and may write only there). Full logs
    /// still go to the run's artifact dir.
    pub fn deps(&self, deps: &AgentDeps) -> Result<AgentDeps, ScratchError> {
        let workspace = ToolContext::new(self.path())?
            .with_artifacts(deps.workspace.artifacts().to_path_buf())
            .with_cancellation(deps.workspace.cancellation().clone());
        Ok(AgentDeps {
            workspace,
            ..deps.clone()
        })
    }
}

/// What is left to copy.
struct Budget {
    bytes: u64,
    files: usize,
}

fn copy_tree(from: &Path, to: &Path, budget: &mut Budget) -> Result<(), ScratchError> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        let kind = entry.file_type()?;
        let target = to.join(&name);
        if kind.is_dir() {
            if SKIPPED_DIRS.contains(&name.to_string_lossy().as_ref()) {
                continue;
            }
            std::fs::create_dir(&target)?;
            copy_tree(&entry.path(), &target, budget)?;
        } else if kind.is_symlink() {
            // A link is copied as a link (its target is not followed out
            // of the workspace).
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_file() {
            let len = entry.metadata()?.len();
            if budget.files == 0 || len > budget.bytes {
                return Err(ScratchError::TooBig);
            }
            budget.files -= 1;
            budget.bytes -= len;
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// A hash of everything under `root` that a command could change: every
/// file's path, size and contents (hidden ones and `.git` included, the
/// [`SKIPPED_DIRS`] and Python's byte code left out), every link's target,
/// every directory's path. Equal states mean nothing was written, created
/// or deleted, including a commit, a branch, a tag or a staged change.
pub fn state(root: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    file_states(root).hash(&mut hasher);
    hasher.finish()
}

/// What [`state`] hashes, by path relative to `root` (`/` separated): a
/// content hash for each file and link, and a fixed mark for each
/// directory.
pub fn file_states(root: &Path) -> BTreeMap<String, u64> {
    let mut entries = BTreeMap::new();
    collect_state(root, root, &mut entries);
    entries
}

/// The mark of a directory in [`file_states`].
pub const DIRECTORY: u64 = u64::MAX;

fn collect_state(root: &Path, dir: &Path, entries: &mut BTreeMap<String, u64>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in read.flatten() {
        let path = entry.path();
        let relative = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .to_string();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name().to_string_lossy().to_string();
        let mut hasher = DefaultHasher::new();
        if kind.is_dir() {
            if SKIPPED_DIRS.contains(&name.as_str()) {
                continue;
            }
            entries.insert(relative, DIRECTORY);
            collect_state(root, &path, entries);
            continue;
        } else if kind.is_symlink() {
            std::fs::read_link(&path).ok().hash(&mut hasher);
        } else if name.ends_with(".pyc") {
            continue;
        } else {
            std::fs::read(&path).ok().hash(&mut hasher);
        }
        entries.insert(relative, hasher.finish());
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_copy_holds_the_files_and_git_but_not_build_output() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("a.txt"), "a").unwrap();
        std::fs::create_dir_all(ws.join("target/debug")).unwrap();
        std::fs::write(ws.join("target/debug/big"), "x").unwrap();
        crate::checks::test_git(ws, &["init", "-q"]);
        crate::checks::test_git(ws, &["add", "a.txt"]);
        crate::checks::test_git(ws, &["commit", "-q", "-m", "one"]);
        let scratch = Scratch::copy(ws).unwrap();
        assert_eq!(
            std::fs::read_to_string(scratch.path().join("a.txt")).unwrap(),
            "a"
        );
        assert!(scratch.path().join(".git/HEAD").is_file());
        assert!(!scratch.path().join("target").exists());
        let copy = scratch.path().to_path_buf();
        drop(scratch);
        assert!(!copy.exists(), "deleted when dropped");
    }

    #[test]
    fn any_write_commit_branch_or_delete_changes_the_state() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("a.txt"), "a").unwrap();
        crate::checks::test_git(ws, &["init", "-q"]);
        crate::checks::test_git(ws, &["add", "a.txt"]);
        crate::checks::test_git(ws, &["commit", "-q", "-m", "one"]);
        let before = state(ws);
        assert_eq!(state(ws), before, "stable");
        crate::checks::test_git(ws, &["branch", "other"]);
        let branched = state(ws);
        assert_ne!(branched, before, "a branch is a write");
        std::fs::write(ws.join("a.txt"), "b").unwrap();
        assert_ne!(state(ws), branched, "same size, other contents");
        std::fs::write(ws.join("a.txt"), "a").unwrap();
        assert_eq!(state(ws), branched, "contents, not times");
        std::fs::create_dir(ws.join("empty")).unwrap();
        assert_ne!(state(ws), branched, "a new directory");
    }
}
