//! A deleted file the goal asks to bring back ("I deleted
//! config/rates.json by mistake: restore it"), and the check that it is
//! back as it was: the path the goal names is missing from the work tree,
//! a commit in the current branch's history deleted it, and the file must
//! again hold the content it had just before that commit.
//!
//! The check is a condition, never evidence alone (a goal may want the
//! file changed after it is back). Found on dev: the work tree the
//! planner saw has no trace of the file, so it planned to write one from
//! the program that reads it.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::phrases::{path_words, single_quote};

/// The rule of "restore the deleted file F".
pub const RULE_RESTORE: &str = "restore deleted file";

/// "restore", "bring it back", "recover", "undelete", "put it back",
/// "get it back".
static RESTORE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\brestor(?:e|es|ed|ing)\b|\brecover\b|\bundelet\w*|\b(?:bring|brings|brought|put|get|got)\b[^.;\n]{0,30}\bback\b",
    )
    .ok()
});

/// A deleted file a goal asks to bring back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RestoreGoal {
    /// Its path in the workspace.
    pub path: String,
    /// The full id of the commit that deleted it.
    pub deleted_by: String,
}

impl RestoreGoal {
    /// The revision of its last content: the deleting commit's parent.
    pub(crate) fn source(&self) -> String {
        format!("{}^", self.deleted_by)
    }
}

/// The files `goal` asks to bring back in the repository at `workspace`:
/// paths it names (with a `.` or a `/`) whose last commit in the current
/// branch's history deleted them (the work tree may hold them again, not
/// committed yet).
pub(crate) fn restore_goals(goal: &str, workspace: &Path) -> Vec<RestoreGoal> {
    if !RESTORE.as_ref().is_some_and(|r| r.is_match(goal)) {
        return Vec::new();
    }
    let mut goals: Vec<RestoreGoal> = Vec::new();
    for word in path_words(goal) {
        let path = word.trim_end_matches('/');
        if !path.contains(['.', '/']) || goals.iter().any(|g| g.path == path) {
            continue;
        }
        let last_commit = |filter: &[&str]| {
            let mut args = vec!["log", "-n1", "--format=%H"];
            args.extend_from_slice(filter);
            args.extend_from_slice(&["HEAD", "--", path]);
            crate::git::git_blocking(workspace, &args)
                .ok()
                .map(|id| id.trim().to_string())
                .filter(|id| !id.is_empty())
        };
        // Deleted by the last commit that touched it: gone from HEAD,
        // whatever the work tree holds (the file may be back, not yet
        // committed).
        let Some(deleted_by) = last_commit(&["--diff-filter=D"]) else {
            continue;
        };
        if last_commit(&[]).as_deref() != Some(deleted_by.as_str()) {
            continue;
        }
        let blob = format!("{deleted_by}^:{path}");
        if crate::git::git_blocking(workspace, &["cat-file", "-e", &blob]).is_ok() {
            goals.push(RestoreGoal {
                path: path.to_string(),
                deleted_by: deleted_by.to_string(),
            });
        }
    }
    goals
}

/// The check of `restore`: the file holds what it held just before the
/// commit that deleted it.
pub(crate) fn restore_check(restore: &RestoreGoal) -> String {
    format!(
        "git show {} | cmp -s - {}",
        single_quote(&format!("{}:{}", restore.source(), restore.path)),
        single_quote(&restore.path)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{test_bash, test_git};

    #[test]
    fn a_deleted_file_the_goal_names_must_come_back_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_git(root, &["init", "-q"]);
        std::fs::create_dir(root.join("config")).unwrap();
        std::fs::write(root.join("config/rates.json"), "{\"a\": 1}\n").unwrap();
        std::fs::write(root.join("old.md"), "old\n").unwrap();
        test_git(root, &["add", "-A"]);
        test_git(root, &["commit", "-qm", "Start"]);
        std::fs::write(root.join("config/rates.json"), "{\"a\": 2}\n").unwrap();
        test_git(root, &["commit", "-qam", "Rates 2"]);
        test_git(root, &["rm", "-q", "config/rates.json", "old.md"]);
        test_git(root, &["commit", "-qm", "Clean up"]);
        std::fs::write(root.join("notes.txt"), "n\n").unwrap();
        test_git(root, &["add", "-A"]);
        test_git(root, &["commit", "-qm", "Notes"]);

        let goal = "The cleanup deleted config/rates.json by mistake. Bring it back.";
        let goals = restore_goals(goal, root);
        assert_eq!(goals.len(), 1, "{goals:?}");
        assert_eq!(goals[0].path, "config/rates.json");
        let check = restore_check(&goals[0]);
        crate::checks::assert_allowed(&check);
        assert!(!test_bash(root, &check).status.success(), "missing");
        std::fs::create_dir(root.join("config")).unwrap();
        std::fs::write(root.join("config/rates.json"), "{\"a\": 1}\n").unwrap();
        assert!(
            !test_bash(root, &check).status.success(),
            "an older version"
        );
        test_git(
            root,
            &["checkout", &goals[0].source(), "--", "config/rates.json"],
        );
        assert!(test_bash(root, &check).status.success(), "restored");
        assert_eq!(restore_goals(goal, root), goals, "the goal until committed");

        // Words that do not ask for it back, and files never deleted.
        assert!(restore_goals("config/rates.json was deleted.", root).is_empty());
        assert!(restore_goals("Restore missing.json from git.", root).is_empty());
        test_git(root, &["commit", "-qm", "Restore"]);
        assert!(restore_goals(goal, root).is_empty(), "committed back");
    }
}
