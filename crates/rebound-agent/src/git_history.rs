//! The repository's history as the planner sees it when the goal is about
//! that history ("bring that commit onto main", "the cleanup commit
//! deleted config/rates.json", "move it to a new branch"): the branch the
//! work tree is on, the branches, and the last commits of every branch
//! with their short ids, branch names, subjects and the files each one
//! added, changed or deleted.
//!
//! Found on dev: goals that name a commit by its message or a file a
//! commit deleted left a small planner guessing ids (`git cherry-pick
//! <commit>`, `git checkout HEAD~1 -- <file>`) or planning edits; the
//! files listing it saw shows only the work tree, where a deleted file or
//! a commit on another branch does not appear.
//!
//! Commit subjects and paths are the workspace's (untrusted): they go to
//! the model, shortened, never to a terminal or a shell.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// Words that make a goal about the repository's history.
static HISTORY_WORDS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bcommit(?:s|ted)?\b|\bbranch(?:es)?\b|\bgit\b|\bcherry-pick|\bhistory\b|\brebas(?:e|ing)\b|\bmerg(?:e|ed|ing)\b|\bstash\w*\b",
    )
    .ok()
});

/// How many commits are shown.
const COMMITS_SHOWN: usize = 12;

/// How many paths are shown per commit.
const PATHS_PER_COMMIT: usize = 4;

/// How many characters of a subject are shown.
const SUBJECT_CHARS: usize = 80;

/// How many branches are named.
const BRANCHES_SHOWN: usize = 12;

/// The field separator of the log's format (a control character a
/// subject or a ref name cannot hold).
const SEPARATOR: char = '\u{1f}';

/// The history of the repository at `workspace` for a planner whose goal
/// is `goal`: empty when the goal says nothing about history or the
/// workspace is not a git repository with a commit.
pub(crate) async fn history_for_prompt(goal: &str, workspace: &Path) -> String {
    if !HISTORY_WORDS
        .as_ref()
        .is_some_and(|words| words.is_match(goal))
    {
        return String::new();
    }
    let count = format!("-n{COMMITS_SHOWN}");
    let format = format!("--format=%x1e%h{SEPARATOR}%D{SEPARATOR}%s");
    let Ok(log) = crate::git::git(
        workspace,
        &[
            "log",
            "--all",
            "--topo-order",
            "--no-renames",
            "--name-status",
            &count,
            &format,
        ],
    )
    .await
    else {
        return String::new();
    };
    let head = crate::git::git(workspace, &["symbolic-ref", "-q", "--short", "HEAD"])
        .await
        .map(|branch| format!("On branch {branch}."))
        .unwrap_or_else(|_| "HEAD is detached (on no branch).".to_string());
    let branches = crate::git::git(
        workspace,
        &["for-each-ref", "--format=%(refname:short)", "refs/heads"],
    )
    .await
    .unwrap_or_default();
    render(&head, &branches, &log)
}

/// The history block from `head`'s line, the branch names (one per line)
/// and the log (records that start with `\x1e`: id, refs and subject
/// separated by [`SEPARATOR`], then `git log --name-status` lines).
fn render(head: &str, branches: &str, log: &str) -> String {
    let names: Vec<&str> = branches.lines().filter(|b| !b.is_empty()).collect();
    let mut branch_line = names
        .iter()
        .take(BRANCHES_SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > BRANCHES_SHOWN {
        branch_line.push_str(&format!(" (and {} more)", names.len() - BRANCHES_SHOWN));
    }
    let mut text = format!(
        "Git history: {head} Branches: {branch_line}.\nCommits, newest first (all branches):"
    );
    for record in log.split('\u{1e}').filter(|r| !r.trim().is_empty()) {
        let mut lines = record.lines();
        let header = lines.next().unwrap_or_default();
        let mut fields = header.splitn(3, SEPARATOR);
        let (id, refs, subject) = (
            fields.next().unwrap_or_default(),
            fields.next().unwrap_or_default(),
            fields.next().unwrap_or_default(),
        );
        let refs = refs.replace("HEAD -> ", "");
        let refs = if refs.is_empty() {
            String::new()
        } else {
            format!(" ({refs})")
        };
        let subject = crate::llm::shorten(subject, SUBJECT_CHARS);
        text.push_str(&format!("\n{id}{refs} '{subject}'"));
        let changes = changes(lines);
        if !changes.is_empty() {
            text.push_str(&format!(": {changes}"));
        }
    }
    text
}

/// `git log --name-status` lines as "added a, changed b, deleted c", at
/// most [`PATHS_PER_COMMIT`] paths.
fn changes<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    let entries: Vec<(&str, &str)> = lines
        .filter_map(|line| line.split_once('\t'))
        .map(|(status, path)| {
            let verb = match status.chars().next() {
                Some('A') => "added",
                Some('D') => "deleted",
                _ => "changed",
            };
            (verb, path)
        })
        .collect();
    let mut parts: Vec<String> = entries
        .iter()
        .take(PATHS_PER_COMMIT)
        .map(|(verb, path)| format!("{verb} {}", crate::llm::shorten(path, SUBJECT_CHARS)))
        .collect();
    if entries.len() > PATHS_PER_COMMIT {
        parts.push(format!("{} more", entries.len() - PATHS_PER_COMMIT));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{test_git, test_repo};

    #[tokio::test]
    async fn the_history_shows_branches_commits_and_deleted_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let goal = "Bring the commit 'Fix rounding' onto main with git cherry-pick";
        assert_eq!(history_for_prompt(goal, root).await, "", "not a repository");
        test_repo(root, &[("a.txt", "a\n"), ("old.txt", "o\n")]);
        test_git(root, &["rm", "-q", "old.txt"]);
        test_git(root, &["commit", "-qm", "Clean up"]);
        test_git(root, &["checkout", "-qb", "feature"]);
        std::fs::write(root.join("a.txt"), "b\n").unwrap();
        test_git(root, &["commit", "-qam", "Fix rounding"]);
        test_git(root, &["checkout", "-q", "main"]);

        let history = history_for_prompt(goal, root).await;
        let lines: Vec<&str> = history.lines().collect();
        assert_eq!(
            lines[0],
            "Git history: On branch main. Branches: feature, main."
        );
        assert_eq!(lines.len(), 5, "{history}");
        assert!(
            lines[2].ends_with(" (feature) 'Fix rounding': changed a.txt"),
            "{history}"
        );
        assert!(
            lines[3].ends_with(" (main) 'Clean up': deleted old.txt"),
            "{history}"
        );
        assert!(
            lines[4].ends_with(" 'Start': added a.txt, added old.txt"),
            "{history}"
        );

        // A goal about the code, not its history, gets none.
        assert_eq!(history_for_prompt("Fix the rounding bug", root).await, "");
    }

    #[test]
    fn many_paths_and_branches_are_counted_not_listed() {
        let branches = (0..14).map(|i| format!("b{i}\n")).collect::<String>();
        let log = format!(
            "\u{1e}abc1234{SEPARATOR}{SEPARATOR}Big\n\nA\tf1\nA\tf2\nM\tf3\nD\tf4\nA\tf5\nA\tf6\n"
        );
        let text = render("On branch b0.", &branches, &log);
        assert!(text.contains("b11 (and 2 more)."), "{text}");
        assert!(
            text.ends_with("abc1234 'Big': added f1, added f2, changed f3, deleted f4, 2 more"),
            "{text}"
        );
    }
}
