//! The commit a goal asks to cherry-pick ("bring just Sam's commit 'Fix
//! rounding of totals to cents' onto main with git cherry-pick") and the
//! check that it was: a commit with its subject is in the current
//! branch's history, and the commit itself is not (a copy, not a merge of
//! its branch).
//!
//! The commit is named by a quoted subject or an id, and must be on a
//! branch (any ref) but not in the current branch's history when the run
//! starts; otherwise the goal gets no such check. The check is a
//! condition, never evidence alone: what else the goal asks ("the tests
//! pass afterwards") it does not show. Found on dev: with no check naming
//! the commit, and no commit ids in front of it, the planner guessed.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::phrases::{commit_id_words, single_quote, subject_named};

/// The rule of "with git cherry-pick".
pub const RULE_CHERRY_PICK: &str = "git cherry-pick";

/// "cherry-pick", "cherry pick", "cherry-picked".
static CHERRY_PICK: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\bcherry[- ]?pick").ok());

/// How many commits off the current branch are searched for a subject.
const COMMITS_SEARCHED: &str = "-n500";

/// A commit the goal asks to cherry-pick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PickGoal {
    /// Its full id.
    pub id: String,
    /// Its subject.
    pub subject: String,
}

/// The commit `goal` asks to cherry-pick onto the current branch of the
/// repository at `workspace`, if the goal asks for a cherry-pick and
/// names (by a quoted subject or an id) a commit that is not in the
/// current branch's history.
pub(crate) fn pick_goal(goal: &str, workspace: &Path) -> Option<PickGoal> {
    if !CHERRY_PICK.as_ref()?.is_match(goal) {
        return None;
    }
    let log = crate::git::git_blocking(
        workspace,
        &[
            "log",
            "--all",
            "--not",
            "HEAD",
            COMMITS_SEARCHED,
            "--format=%H%x09%s",
        ],
    )
    .ok()?;
    if let Some((id, subject)) = subject_named(goal, &log) {
        return Some(PickGoal { id, subject });
    }
    // An id the goal gives, among the commits off the branch.
    commit_id_words(goal).into_iter().find_map(|word| {
        log.lines()
            .filter_map(|line| line.split_once('\t'))
            .find(|(id, _)| id.starts_with(word))
            .map(|(id, subject)| PickGoal {
                id: id.to_string(),
                subject: subject.to_string(),
            })
    })
}

/// The check of `pick`: a commit with its subject is in `HEAD`'s history,
/// and the commit itself is not.
pub(crate) fn pick_check(pick: &PickGoal) -> String {
    format!(
        "git log --format=%s HEAD | grep -qxF -e {} && ! git log --format=%H HEAD | grep -qxF -e {}",
        single_quote(&pick.subject),
        single_quote(&pick.id)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{test_bash, test_git, test_repo};

    /// A repository on main with a branch `feature` two commits ahead.
    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_repo(root, &[("a.py", "a = 1\n"), ("b.py", "b = 1\n")]);
        test_git(root, &["checkout", "-qb", "feature"]);
        std::fs::write(root.join("a.py"), "a = 2\n").unwrap();
        test_git(root, &["commit", "-qam", "Fix rounding (cents)"]);
        std::fs::write(root.join("b.py"), "b = 2\n").unwrap();
        test_git(root, &["commit", "-qam", "Unfinished work"]);
        test_git(root, &["checkout", "-q", "main"]);
        // Main moved on (else a pick made in the same second is the very
        // same commit).
        std::fs::write(root.join("c.py"), "c = 1\n").unwrap();
        test_git(root, &["add", "-A"]);
        test_git(root, &["commit", "-qm", "Main's own work"]);
        dir
    }

    #[test]
    fn a_picked_commit_passes_and_a_merge_or_nothing_does_not() {
        let dir = repo();
        let root = dir.path();
        let goal = "Bring just Sam's 'Fix rounding (cents)' onto main with git cherry-pick.";
        let pick = pick_goal(goal, root).unwrap();
        assert_eq!(pick.subject, "Fix rounding (cents)");
        let check = pick_check(&pick);
        crate::checks::assert_allowed(&check);
        assert!(!test_bash(root, &check).status.success(), "not picked yet");

        // A merge of the branch brings the subject, and the commit itself.
        test_git(root, &["merge", "-q", "--no-edit", "feature"]);
        assert!(!test_bash(root, &check).status.success(), "a merge");
        test_git(root, &["reset", "-q", "--hard", "HEAD~1"]);

        test_git(root, &["cherry-pick", &pick.id]);
        assert!(test_bash(root, &check).status.success(), "picked");
    }

    #[test]
    fn the_commit_is_named_by_subject_or_id_and_must_be_off_the_branch() {
        let dir = repo();
        let root = dir.path();
        let unfinished = pick_goal("cherry-pick 'Unfinished work' onto main", root).unwrap();
        let short = &unfinished.id[..8];
        let by_id = pick_goal(&format!("Cherry pick commit {short} onto main."), root).unwrap();
        assert_eq!(by_id, unfinished);
        // On main already, unknown, or no cherry-pick asked for.
        assert_eq!(pick_goal("cherry-pick 'Start' onto main", root), None);
        assert_eq!(pick_goal("cherry-pick 'Nothing like it'", root), None);
        assert_eq!(pick_goal("Bring 'Unfinished work' onto main.", root), None);
    }
}
