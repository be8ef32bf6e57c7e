//! The git operations of the reflect workflow, run directly (no shell, no
//! model), each journaled by its node so a re-run does not repeat it.

use std::path::Path;

use tokio::process::Command;

/// A git command that failed.
#[derive(Debug, Clone, thiserror::Error)]
#[error("`git {args}` failed: {message}")]
pub struct GitError {
    /// The arguments.
    pub args: String,
    /// Its stderr, or why it could not start.
    pub message: String,
}

/// Runs `git args` in `dir` with rebound's identity for commits; returns
/// stdout, trimmed. The repository is the agent's workspace, so its own
/// config is not trusted: no hooks, no fsmonitor, no signing program, and
/// the environment the shell's commands get (secrets scrubbed), in case a
/// repository-configured filter still runs.
pub(crate) async fn git(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    let mut command = Command::new("git");
    command
        .args(HARDENED)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    rebound_tools::shell::scrub_env(&mut command, &[]);
    let output = command.output().await;
    finished(args, output)
}

/// [`git`], for code that is not async (the checks a goal's clauses make
/// at the start of a run); for short reads only.
pub(crate) fn git_blocking(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    let mut command = Command::new("git");
    command
        .args(HARDENED)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null());
    rebound_tools::shell::scrub_env(&mut command, &[]);
    finished(args, command.as_std_mut().output())
}

/// The blob id git gives the file at `path` (relative to `dir`, or
/// absolute), with `options` (`--no-filters`); nothing is written into
/// the repository. `None` when git fails or prints no object id.
pub(crate) fn blob_id(dir: &Path, options: &[&str], path: &str) -> Option<String> {
    let args: Vec<&str> = ["hash-object"]
        .into_iter()
        .chain(options.iter().copied())
        .chain(["--", path])
        .collect();
    let id = git_blocking(dir, &args).ok()?;
    let id = id.trim();
    is_object_id(id).then(|| id.to_string())
}

/// Whether `text` is a full object id (SHA-1 or SHA-256, in hex).
pub(crate) fn is_object_id(text: &str) -> bool {
    text.len() >= 40 && text.chars().all(|c| c.is_ascii_hexdigit())
}

/// Git's options for the workspace's repository, whose own configuration
/// is not trusted: rebound's identity, no signing program, no hooks, no
/// fsmonitor, no pager.
const HARDENED: &[&str] = &[
    "-c",
    "user.name=rebound",
    "-c",
    "user.email=rebound@localhost",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "--no-pager",
];

/// The stdout of git run with `args`, trimmed at the end, or its error.
fn finished(
    args: &[&str],
    output: std::io::Result<std::process::Output>,
) -> Result<String, GitError> {
    let output = output.map_err(|e| GitError {
        args: args.join(" "),
        message: format!("cannot run git: {e}"),
    })?;
    if output.status.success() {
        // Trimmed at the end only: a status line starts with a space.
        Ok(String::from_utf8_lossy(&output.stdout)
            .trim_end()
            .to_string())
    } else {
        Err(GitError {
            args: args.join(" "),
            message: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        })
    }
}

/// What setup found or made.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Setup {
    /// The commit work starts from.
    pub(crate) commit: String,
    /// Whether setup ran `git init`.
    pub(crate) initialised: bool,
}

/// Makes sure `dir` is the root of a git work tree with a commit and no
/// uncommitted changes: initialises and commits a fresh repository; refuses a
/// directory inside another repository (a rollback would touch files outside
/// the workspace) and a dirty work tree (a rollback would destroy the
/// user's uncommitted work). `.rebound/` is excluded from git.
pub(crate) async fn setup(dir: &Path) -> Result<Setup, GitError> {
    let mut initialised = false;
    match git(dir, &["rev-parse", "--show-toplevel"]).await {
        Ok(top) => {
            let top = std::fs::canonicalize(&top).unwrap_or_else(|_| top.clone().into());
            let here = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
            if top != here {
                return Err(GitError {
                    args: "rev-parse --show-toplevel".to_string(),
                    message: format!(
                        "the workspace {} is inside the git repository {}; use the repository's root as the workspace",
                        here.display(),
                        top.display()
                    ),
                });
            }
        }
        Err(_) => {
            git(dir, &["init", "--quiet"]).await?;
            initialised = true;
        }
    }
    exclude_rebound_dir(dir);
    let has_head = git(dir, &["rev-parse", "--verify", "--quiet", "HEAD"])
        .await
        .is_ok();
    let dirty = !git(dir, &["status", "--porcelain"]).await?.is_empty();
    if !has_head || (initialised && dirty) {
        git(dir, &["add", "-A"]).await?;
        git(
            dir,
            &[
                "commit",
                "--quiet",
                "--allow-empty",
                "-m",
                "rebound: starting point",
            ],
        )
        .await?;
    } else if dirty {
        return Err(GitError {
            args: "status --porcelain".to_string(),
            message: "the work tree has uncommitted changes; commit or stash them first (a rollback would discard them)".to_string(),
        });
    }
    let commit = git(dir, &["rev-parse", "HEAD"]).await?;
    Ok(Setup {
        commit,
        initialised,
    })
}

/// Adds `.rebound/` to `.git/info/exclude` when it is not there.
fn exclude_rebound_dir(dir: &Path) {
    let path = dir.join(".git").join("info").join("exclude");
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if !current.lines().any(|line| line.trim() == ".rebound/") {
        let _ = std::fs::create_dir_all(dir.join(".git").join("info"));
        let _ = std::fs::write(&path, format!("{current}\n.rebound/\n"));
    }
}

/// Commits everything with `message`; returns the new commit.
pub(crate) async fn commit_all(dir: &Path, message: &str) -> Result<String, GitError> {
    git(dir, &["add", "-A"]).await?;
    git(dir, &["commit", "--quiet", "--allow-empty", "-m", message]).await?;
    git(dir, &["rev-parse", "HEAD"]).await
}

/// Resets the work tree to `commit` and removes untracked files (not
/// ignored ones, and not `.rebound/`).
pub(crate) async fn rollback(dir: &Path, commit: &str) -> Result<(), GitError> {
    git(dir, &["reset", "--quiet", "--hard", commit]).await?;
    git(dir, &["clean", "-fdq", "-e", ".rebound/"]).await?;
    Ok(())
}

/// The changes in `dir` not committed yet, as `git status --short` lists
/// them (paths relative to `dir`, rebound's own `.rebound/` left out), at
/// most `max` lines; empty when `dir` is not in a git work tree or nothing
/// is uncommitted. The planner sees them: a goal about committing is about
/// these files (found on dev: with nothing telling it the changes were
/// made already, the planner edited the file a commit message named).
pub(crate) async fn uncommitted(dir: &Path, max: usize) -> String {
    let lines = status_lines(dir).await;
    let more = lines.len().saturating_sub(max);
    let mut text = lines[..lines.len().min(max)].join("\n");
    if more > 0 {
        text.push_str(&format!("\n(and {more} more)"));
    }
    text
}

/// The paths of the changes in `dir` not committed yet, relative to `dir`
/// (a rename's new path), rebound's own `.rebound/` left out; empty when
/// `dir` is not in a git work tree.
pub(crate) async fn uncommitted_paths(dir: &Path) -> Vec<String> {
    status_lines(dir)
        .await
        .iter()
        .filter_map(|line| line.get(3..))
        .map(|path| path.rsplit(" -> ").next().unwrap_or(path))
        .map(|path| path.trim_matches('"').to_string())
        .collect()
}

/// `git status --short` of `dir` (every untracked file listed), a line
/// per change, without rebound's own `.rebound/`.
async fn status_lines(dir: &Path) -> Vec<String> {
    let Ok(status) = git(
        dir,
        &["status", "--short", "--untracked-files=all", "--", "."],
    )
    .await
    else {
        return Vec::new();
    };
    status
        .lines()
        .filter(|line| {
            line.get(3..)
                .is_some_and(|path| !path.starts_with(".rebound/"))
        })
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_git;

    #[tokio::test]
    async fn uncommitted_changes_are_listed_without_rebounds_own() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(uncommitted(root, 10).await, "", "not a repository");
        test_git(root, &["init", "-q"]);
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        test_git(root, &["add", "a.txt"]);
        test_git(root, &["commit", "-qm", "a"]);
        assert_eq!(uncommitted(root, 10).await, "", "nothing changed");
        std::fs::write(root.join("a.txt"), "b\n").unwrap();
        std::fs::write(root.join("b.txt"), "b\n").unwrap();
        std::fs::create_dir(root.join(".rebound")).unwrap();
        std::fs::write(root.join(".rebound/runs.db"), "x").unwrap();
        assert_eq!(uncommitted(root, 10).await, " M a.txt\n?? b.txt");
        assert_eq!(uncommitted(root, 1).await, " M a.txt\n(and 1 more)");
        assert_eq!(uncommitted_paths(root).await, ["a.txt", "b.txt"]);
        // A rename is listed by its new path.
        test_git(root, &["mv", "a.txt", "c.txt"]);
        assert_eq!(uncommitted_paths(root).await, ["c.txt", "b.txt"]);
    }
}
