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
    /// The log of the eval's own commands (setup, check, git).
    pub fn log(&self) -> PathBuf {
        self.root.path().join("eval.log")
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
        git(&self.ws, "add -A", &env, &self.log()).await?;
        let tree = git_output(&self.ws, &["write-tree"], &env).await?;
        Ok(tree.trim().to_string())
    }

    /// What changed between the base tree and `tree`.
    pub async fn changes(&self, tree: &str) -> Result<Changes, String> {
        let numstat = git_output(
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
    let log = workdir.log();
    git(&workdir.ws, "init -q", &[], &log).await?;
    std::fs::write(workdir.ws.join(".git/info/exclude"), ".rebound/\n")
        .map_err(|e| format!("cannot write .git/info/exclude: {e}"))?;
    git(&workdir.ws, "add -A", &[], &log).await?;
    git(
        &workdir.ws,
        &format!(
            "-c user.name=rebound-eval -c user.email=eval@localhost -c commit.gpgsign=false commit -q --no-verify --allow-empty -m 'task: {}'",
            task.name.replace('\'', "")
        ),
        &[],
        &log,
    )
    .await?;
    if let Some(setup) = &spec.setup {
        let task_dir = task.dir.to_string_lossy().to_string();
        let ran = bash(
            setup,
            &workdir.ws,
            &[("TASK_DIR", &task_dir)],
            SETUP_TIMEOUT,
            &log,
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

/// Runs `git <args>` (a shell-quoted argument string) in `dir`.
async fn git(dir: &Path, args: &str, env: &[(&str, &str)], log: &Path) -> Result<(), String> {
    let ran = bash(&format!("git {args}"), dir, env, SETUP_TIMEOUT, log)
        .await
        .map_err(|e| format!("cannot run git: {e}"))?;
    if ran.success() {
        Ok(())
    } else {
        Err(format!(
            "`git {args}` failed ({}): {}",
            ran.status(),
            ran.tail.trim()
        ))
    }
}

/// The stdout of `git <args>` in `dir`.
async fn git_output(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<String, String> {
    let output = tokio::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .output()
        .await
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
/// permissions, symlinks as symlinks.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
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
