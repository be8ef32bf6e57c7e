//! A task's working copy: its workspace copied into a temp dir, made a git
//! repository with one commit, set up, and snapshotted so that what the
//! agent changed can be measured.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::shell::bash;
use super::task::{Task, TaskSpec};

/// How long the eval's own git commands and a task's setup may take.
const SETUP_TIMEOUT: Duration = Duration::from_secs(120);

/// A task's temp dir: `ws/` (the agent's workspace) and the eval's logs.
#[derive(Debug)]
pub struct Workdir {
    root: tempfile::TempDir,
    /// The workspace the agent works in.
    pub ws: PathBuf,
    /// The git tree of the workspace once set up: what changes are
    /// measured against.
    pub base_tree: String,
}

/// What the agent changed, from the base tree to the work tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Files added, changed or deleted.
    pub files: Vec<String>,
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
}

impl Workdir {
    /// The agent's stderr.
    pub fn log(&self) -> PathBuf {
        self.root.path().join("agent.log")
    }

    /// Where the full output of the eval's own long-winded commands
    /// (setup, check) is saved.
    pub fn logs(&self) -> &Path {
        self.root.path()
    }

    /// Keeps the temp dir (for `--keep`) and gives its path.
    pub fn keep(self) -> PathBuf {
        self.root.keep()
    }

    /// The work tree's git tree now (without touching the repository's
    /// index: a temp index file), ignoring `.rebound/`.
    pub async fn snapshot(&self) -> Result<String, String> {
        let index = self.root.path().join("snapshot.index");
        let _ = std::fs::remove_file(&index);
        let index_text = index.to_string_lossy().to_string();
        let env = [("GIT_INDEX_FILE", index_text.as_str())];
        git(&self.ws, &["add", "-A"], &env).await?;
        let tree = git(&self.ws, &["write-tree"], &env).await?;
        Ok(tree.trim().to_string())
    }

    /// What changed between the base tree and `tree`.
    pub async fn changes(&self, tree: &str) -> Result<Changes, String> {
        let numstat = git(
            &self.ws,
            &["diff", "--numstat", "--no-renames", &self.base_tree, tree],
            &[],
        )
        .await?;
        let mut changes = Changes::default();
        for line in numstat.lines() {
            let mut parts = line.splitn(3, '\t');
            let (Some(added), Some(removed), Some(path)) =
                (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            changes.added += added.parse::<u64>().unwrap_or(0);
            changes.removed += removed.parse::<u64>().unwrap_or(0);
            changes.files.push(path.to_string());
        }
        Ok(changes)
    }
}

/// Copies `task`'s workspace into a new temp dir, makes it a git
/// repository with one commit (`.rebound/` excluded), runs the setup, and
/// records the base tree.
pub async fn prepare(task: &Task, spec: &TaskSpec) -> Result<Workdir, String> {
    let root = tempfile::Builder::new()
        .prefix(&format!("rebound-eval-{}-", task.name))
        .tempdir()
        .map_err(|e| format!("cannot make a temp dir: {e}"))?;
    let ws = root.path().join("ws");
    copy_tree(&task.workspace(), &ws)
        .map_err(|e| format!("cannot copy {}: {e}", task.workspace().display()))?;
    let workdir = Workdir {
        root,
        ws,
        base_tree: String::new(),
    };
    git(&workdir.ws, &["init", "-q"], &[]).await?;
    std::fs::write(workdir.ws.join(".git/info/exclude"), ".rebound/\n")
        .map_err(|e| format!("cannot write .git/info/exclude: {e}"))?;
    git(&workdir.ws, &["add", "-A"], &[]).await?;
    let message = format!("task: {}", task.name);
    git(
        &workdir.ws,
        &[
            "-c",
            "user.name=rebound-eval",
            "-c",
            "user.email=eval@localhost",
            "-c",
            "commit.gpgsign=false",
            "commit",
            "-q",
            "--no-verify",
            "--allow-empty",
            "-m",
            &message,
        ],
        &[],
    )
    .await?;
    if let Some(setup) = &spec.setup {
        let task_dir = task.dir.to_string_lossy().to_string();
        let ran = bash(
            setup,
            &workdir.ws,
            &[("TASK_DIR", &task_dir)],
            SETUP_TIMEOUT,
            workdir.logs(),
        )
        .await
        .map_err(|e| format!("cannot run the setup: {e}"))?;
        if !ran.success() {
            return Err(format!(
                "the setup `{setup}` failed ({}): {}",
                ran.status(),
                ran.tail.trim()
            ));
        }
    }
    let base_tree = workdir.snapshot().await?;
    Ok(Workdir {
        base_tree,
        ..workdir
    })
}

/// The stdout of `git <args>` in `dir` (no shell), within
/// [`SETUP_TIMEOUT`].
async fn git(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<String, String> {
    let run = tokio::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(SETUP_TIMEOUT, run)
        .await
        .map_err(|_| format!("`git {}` timed out", args.join(" ")))?
        .map_err(|e| format!("cannot run git: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).to_string())
    } else {
        Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Copies the tree `from` into `to` (created): files with their
/// permissions, symlinks as symlinks. A `.git` directory is not copied:
/// the eval makes its own repository, and a task's repository config
/// (hooks, `core.fsmonitor`) must not run when the eval calls git.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if entry.file_name() == ".git" {
            continue;
        }
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn a_copy_keeps_files_modes_and_symlinks_but_not_a_git_directory() {
        use std::os::unix::fs::PermissionsExt;
        let from = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(from.path().join(".git/hooks")).unwrap();
        std::fs::write(
            from.path().join(".git/config"),
            "[core]\nfsmonitor = evil\n",
        )
        .unwrap();
        std::fs::create_dir(from.path().join("src")).unwrap();
        std::fs::write(from.path().join("src/run.sh"), "echo hi\n").unwrap();
        std::fs::set_permissions(
            from.path().join("src/run.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        std::os::unix::fs::symlink("src/run.sh", from.path().join("run")).unwrap();
        let to = tempfile::tempdir().unwrap();
        copy_tree(from.path(), &to.path().join("ws")).unwrap();
        let ws = to.path().join("ws");
        assert!(!ws.join(".git").exists());
        let mode = std::fs::metadata(ws.join("src/run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
        assert_eq!(
            std::fs::read_link(ws.join("run")).unwrap(),
            Path::new("src/run.sh")
        );
    }
}
