//! "Undo the last commit, but keep its changes staged" (or "... keep the
//! changes in my working tree"): the commit goes, its changes stay, in
//! the index or in the files. Read at the run's start, when `HEAD` is the
//! commit to undo (one parent): the check is that `HEAD` is its parent
//! and the commit's changes are where the goal keeps them — the index
//! equal to the undone commit (`git diff --cached --quiet <commit>`), or
//! nothing staged and the commit's files as it had them. Exact for the
//! history and the kept changes; a condition still (it does not see the
//! goal's other clauses). [`crate::uncommit_plan`] makes the reset.
//! Found on dev: the planner's plans for it were edits and `git revert`.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::git::{git_blocking, is_object_id};

/// The rule's name.
pub const RULE_UNCOMMIT: &str = "commit undone";

/// "undo the last commit", "uncommit", "undo that commit".
static UNDO_LAST: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:undo|take\s+back|roll\s+back|drop|remove)\s+(?:that|the|my|this)?\s*(?:last|latest|previous|most\s+recent)?\s*commit\b|\bun-?commit\b",
    )
    .ok()
});

/// What is kept and where (group 1: the index words; group 2: the
/// working tree's).
static KEEP: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bkeep\w*\s+(?:(?:its|the|those|these|all|my|their|all\s+the|all\s+its)\s+)?(?:changes|work|edits|files)?\s*(?:(staged|in\s+the\s+index|in\s+the\s+staging\s+area)|(unstaged|uncommitted|in\s+(?:the|my)\s+(?:working|work)\s+(?:tree|directory|copy)|in\s+(?:the|my)\s+files|as\s+(?:local|uncommitted)\s+changes))\b",
    )
    .ok()
});

/// Where the undone commit's changes are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// In the index (`git reset --soft`).
    Staged,
    /// In the files, not staged (`git reset`).
    Unstaged,
}

/// The commit a goal undoes and where its changes go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uncommit {
    /// The commit undone (full id).
    pub undone: String,
    /// Its parent, where `HEAD` goes (full id).
    pub parent: String,
    /// Where its changes are kept.
    pub keep: Keep,
}

/// The commit `goal` undoes in `workspace` (its `HEAD`, read now) and
/// where it keeps the changes; `None` when the goal does not say both, or
/// `HEAD` is a root or a merge commit.
pub fn uncommit_goal(goal: &str, workspace: &Path) -> Option<Uncommit> {
    if !UNDO_LAST.as_ref()?.is_match(goal) {
        return None;
    }
    let keep = KEEP.as_ref()?.captures(goal)?;
    let keep = if keep.get(1).is_some() {
        Keep::Staged
    } else {
        Keep::Unstaged
    };
    let ids = git_blocking(workspace, &["rev-list", "--parents", "-n", "1", "HEAD"]).ok()?;
    let ids: Vec<&str> = ids.split_whitespace().collect();
    let [undone, parent] = ids.as_slice() else {
        return None;
    };
    (is_object_id(undone) && is_object_id(parent)).then(|| Uncommit {
        undone: (*undone).to_string(),
        parent: (*parent).to_string(),
        keep,
    })
}

/// The check of `uncommit`: see the module's doc.
pub fn uncommit_check(uncommit: &Uncommit) -> String {
    let Uncommit {
        undone,
        parent,
        keep,
    } = uncommit;
    let head = format!(
        "test \"$(git rev-parse HEAD)\" = {parent} || {{ echo 'HEAD must be {parent}, the parent of the commit to undo ({undone}); it is:'; git log -1 --format='%H %s'; exit 1; }}"
    );
    match keep {
        Keep::Staged => format!(
            "{head}; git diff --cached --quiet {undone} || {{ echo 'the index must hold the undone commit'\"'\"'s changes, as they were committed; it differs from {undone} in:'; git diff --cached --stat {undone}; exit 1; }}"
        ),
        Keep::Unstaged => format!(
            "{head}; git diff --cached --quiet || {{ echo 'nothing may be staged; staged now:'; git diff --cached --stat; exit 1; }}; for f in $(git diff --name-only {parent} {undone}); do if git cat-file -e {undone}:\"$f\" 2>/dev/null; then git show {undone}:\"$f\" | cmp -s - \"$f\" || {{ echo \"$f is not as the undone commit had it: its changes must stay in the files\"; exit 1; }}; else test ! -e \"$f\" || {{ echo \"$f was deleted by the undone commit and is back\"; exit 1; }}; fi; done"
        ),
    }
}

/// The [`Uncommit`] a check made by [`uncommit_check`] is about.
pub fn checked_uncommit(command: &str) -> Option<Uncommit> {
    static PARSED: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"^test \x22\$\(git rev-parse HEAD\)\x22 = ([0-9a-f]{40,64}) \|\| .*? the commit to undo \(([0-9a-f]{40,64})\)").ok()
    });
    let found = PARSED.as_ref()?.captures(command)?;
    let (parent, undone) = (found.get(1)?.as_str(), found.get(2)?.as_str());
    [Keep::Staged, Keep::Unstaged].into_iter().find_map(|keep| {
        let uncommit = Uncommit {
            undone: undone.to_string(),
            parent: parent.to_string(),
            keep,
        };
        (uncommit_check(&uncommit) == command).then_some(uncommit)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::test_bash as bash;

    const GOAL: &str = "I committed 'Add VAT' too early. Undo that last commit, but keep its changes staged (in the index) so I can commit again later. The README.md edit I haven't staged should stay unstaged.";

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let script = "git init -q && printf 'a\\n' > a.py && printf 'r\\n' > README.md && git add . && git commit -qm first \
            && printf 'a2\\n' > a.py && printf 'v\\n' > vat.py && git add . && git commit -qm 'Add VAT' \
            && printf 'r2\\n' > README.md";
        assert!(bash(dir.path(), script).status.success());
        dir
    }

    fn passes(dir: &Path, check: &str) -> bool {
        bash(dir, check).status.success()
    }

    #[test]
    fn the_goal_says_which_commit_goes_and_where_its_changes_stay() {
        let dir = repo();
        let staged = uncommit_goal(GOAL, dir.path()).unwrap();
        assert_eq!(staged.keep, Keep::Staged);
        let unstaged = uncommit_goal(
            "Uncommit my last commit and keep the changes in my working tree.",
            dir.path(),
        )
        .unwrap();
        assert_eq!(unstaged.keep, Keep::Unstaged);
        assert_eq!(uncommit_goal("Undo the last commit.", dir.path()), None);
        assert_eq!(
            uncommit_goal("Keep the changes staged and commit them.", dir.path()),
            None
        );
        for uncommit in [&staged, &unstaged] {
            assert_eq!(
                checked_uncommit(&uncommit_check(uncommit)).as_ref(),
                Some(uncommit)
            );
        }
        assert_eq!(checked_uncommit("test -s a.txt"), None);
    }

    #[test]
    fn the_check_passes_only_after_the_reset_the_goal_asks_for() {
        let dir = repo();
        let staged = uncommit_check(&uncommit_goal(GOAL, dir.path()).unwrap());
        let unstaged = uncommit_check(&Uncommit {
            keep: Keep::Unstaged,
            ..uncommit_goal(GOAL, dir.path()).unwrap()
        });
        assert!(!passes(dir.path(), &staged));
        assert!(bash(dir.path(), "git reset -q HEAD~1").status.success());
        assert!(!passes(dir.path(), &staged), "its changes are not staged");
        assert!(passes(dir.path(), &unstaged));
        assert!(bash(dir.path(), "git add a.py vat.py").status.success());
        assert!(passes(dir.path(), &staged));
        assert!(!passes(dir.path(), &unstaged), "staged");
        assert!(bash(dir.path(), "git add README.md").status.success());
        assert!(!passes(dir.path(), &staged), "more than the commit staged");
    }
}
