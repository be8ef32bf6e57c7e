//! Where a goal says the repository should end up, beyond its files: a
//! new branch it names ("move it to a new branch csv-export"), the branch
//! to be left on ("leave me on main"), a clean working tree ("with a
//! clean working tree", "nothing left uncommitted"). Each becomes a
//! condition check (never evidence alone: a branch that exists does not
//! hold the right commits).
//!
//! Found on dev: a goal about moving a commit to a new branch got no
//! check at all, so nothing told a finish on the wrong branch, or with
//! the change left uncommitted, from a finished task.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::phrases::single_quote;

/// The rule of "a new branch named X".
pub const RULE_NEW_BRANCH: &str = "new branch";
/// The rule of "leave me on main".
pub const RULE_ON_BRANCH: &str = "on branch";
/// The rule of "a clean working tree".
pub const RULE_CLEAN_TREE: &str = "clean working tree";

/// A branch name as a goal writes one: quoted, or a bare word of the
/// characters branch names use (group 1 to 4).
const BRANCH_NAME: &str =
    r#"(?:'([^'\s]+)'|"([^"\s]+)"|`([^`\s]+)`|\b([A-Za-z0-9][A-Za-z0-9._/-]*[A-Za-z0-9]))"#;

/// "a new branch named X", "create a branch called X", "new branch X".
static NEW_BRANCH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:new|create\s+(?:a\s+)?|make\s+(?:a\s+)?)\s*branch\s+(?:(?:named|called)\s+)?{BRANCH_NAME}"
    ))
    .ok()
});

/// "leave me on main", "stay on main", "end up on the main branch", "be
/// back on main", "switch back to main".
static ON_BRANCH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:leave\s+(?:me|it|us|the\s+(?:repo|repository|work(?:ing)?\s+tree))\s+(?:back\s+)?on|stay\s+on|end\s+(?:up\s+)?on|be\s+(?:back\s+)?on|switch\s+back\s+to)\s+(?:the\s+)?(?:branch\s+)?{BRANCH_NAME}"
    ))
    .ok()
});

/// "leave me ... a clean working tree", "with a clean work tree", "the
/// working tree should be clean", "nothing uncommitted", "no uncommitted
/// changes", "`git status` clean": the end state, never "builds from a
/// clean checkout" (found on dev: that made a check no edit could pass).
static CLEAN_TREE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:leave|leaves|leaving|left|with|end\s+with|keep|keeping)\b[^.;\n]{0,30}\bclean\s+(?:working\s+(?:tree|directory|copy)|work\s+tree|git\s+status)\b|\b(?:working|work)\s+(?:tree|directory|copy)\s+(?:should\s+be\s+|must\s+be\s+|is\s+)?clean\b|\bnothing\s+(?:left\s+)?uncommitted\b|\bno\s+uncommitted\s+changes\b|\bgit\s+status`?\s+(?:is\s+|shows\s+)?clean\b",
    )
    .ok()
});

/// The name a [`BRANCH_NAME`] group of `captures` holds, from group
/// `first` on, with a sentence's last `.` left off.
fn name(captures: &regex::Captures<'_>, first: usize) -> Option<String> {
    (first..first + 4)
        .find_map(|i| captures.get(i))
        .map(|m| m.as_str().trim_end_matches(['.', ',']).to_string())
        .filter(|name| valid_name(name))
}

/// Whether `name` can be a branch's (git's `check-ref-format` rules that
/// a goal's word can break).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['-', '/', '.'])
        && !name.ends_with(['/', '.'])
        && !name.contains("..")
        && !name.ends_with(".lock")
        && !["named", "called", "for", "to", "and", "the", "a", "with"]
            .contains(&name.to_ascii_lowercase().as_str())
}

/// The branches `goal` asks to make that the repository at `workspace`
/// does not have yet.
pub(crate) fn new_branches(goal: &str, workspace: &Path) -> Vec<String> {
    let Some(regex) = NEW_BRANCH.as_ref() else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for branch in regex.captures_iter(goal).filter_map(|c| name(&c, 1)) {
        if !names.contains(&branch) && !branch_exists(workspace, &branch) {
            names.push(branch);
        }
    }
    names
}

/// Whether the repository at `workspace` has the branch `branch`.
fn branch_exists(workspace: &Path, branch: &str) -> bool {
    let reference = format!("refs/heads/{branch}");
    crate::git::git_blocking(workspace, &["rev-parse", "-q", "--verify", &reference]).is_ok()
}

/// The checks `goal` asks for about branches and the working tree, as
/// (command, rule), in the repository at `workspace` (none when it is not
/// one). A new branch counts only when it does not exist yet; the branch
/// to be left on only when it exists or is the new one.
pub(crate) fn branch_checks(goal: &str, workspace: &Path) -> Vec<(String, &'static str)> {
    if crate::git::git_blocking(workspace, &["rev-parse", "--git-dir"]).is_err() {
        return Vec::new();
    }
    let mut checks = Vec::new();
    let new = new_branches(goal, workspace);
    for branch in &new {
        checks.push((new_branch_check(branch), RULE_NEW_BRANCH));
    }
    let on = ON_BRANCH
        .as_ref()
        .and_then(|r| r.captures(goal))
        .and_then(|c| name(&c, 1))
        .filter(|b| branch_exists(workspace, b) || new.contains(b));
    if let Some(branch) = on {
        checks.push((
            format!(
                "git branch --show-current | grep -qxF -e {}",
                single_quote(&branch)
            ),
            RULE_ON_BRANCH,
        ));
    }
    if CLEAN_TREE.as_ref().is_some_and(|r| r.is_match(goal)) {
        // The same command as a commit goal's detected check (one check
        // of the fact, whichever finds it first).
        checks.push((super::detect::COMMIT_CHECK.to_string(), RULE_CLEAN_TREE));
    }
    checks
}

/// The check that the branch `branch` exists.
pub(crate) fn new_branch_check(branch: &str) -> String {
    format!(
        "git rev-parse -q --verify {} >/dev/null || {{ echo {}; false; }}",
        single_quote(&format!("refs/heads/{branch}")),
        single_quote(&format!("there is no branch {branch}"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{test_bash, test_git, test_repo};

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_repo(root, &[("a.py", "a = 1\n")]);
        dir
    }

    #[test]
    fn a_new_branch_the_branch_left_on_and_a_clean_tree_are_checked() {
        let dir = repo();
        let root = dir.path();
        let goal = "Move that commit to a new branch csv-export and take it off main. \
                    Leave me on main with a clean working tree.";
        let checks = branch_checks(goal, root);
        let rules: Vec<&str> = checks.iter().map(|(_, rule)| *rule).collect();
        assert_eq!(rules, [RULE_NEW_BRANCH, RULE_ON_BRANCH, RULE_CLEAN_TREE]);
        for (command, _) in &checks {
            crate::checks::assert_allowed(command);
        }
        let passes = |i: usize| test_bash(root, &checks[i].0).status.success();
        assert!(!passes(0), "no branch yet");
        assert!(passes(1), "on main");
        assert!(passes(2), "clean");
        test_git(root, &["checkout", "-qb", "csv-export"]);
        std::fs::write(root.join("b.py"), "b = 1\n").unwrap();
        assert!(passes(0), "the branch exists");
        assert!(!passes(1), "on csv-export");
        assert!(!passes(2), "an untracked file");
        // rebound's state directory ignores itself (its own .gitignore).
        std::fs::create_dir(root.join(".rebound")).unwrap();
        std::fs::write(root.join(".rebound/.gitignore"), "*\n").unwrap();
        std::fs::write(root.join(".rebound/runs.db"), "x").unwrap();
        std::fs::remove_file(root.join("b.py")).unwrap();
        assert!(passes(2), "rebound's own files do not count");
    }

    #[test]
    fn names_are_read_quoted_or_bare_and_must_make_sense() {
        let dir = repo();
        let root = dir.path();
        let rules = |goal: &str| -> Vec<String> {
            branch_checks(goal, root)
                .into_iter()
                .map(|(command, rule)| format!("{rule}: {command}"))
                .collect()
        };
        assert!(
            rules("Create a branch called `release/1.2`.")[0].contains("refs/heads/release/1.2'")
        );
        assert!(
            rules("Put it on a new branch named 'fix-it', then stay on the fix-it branch.")[1]
                .contains("'fix-it'")
        );
        // An existing branch is not new; a branch to stay on must exist.
        assert!(rules("Start a new branch main.").is_empty());
        assert!(rules("Stay on develop.").is_empty());
        assert!(rules("Fix the bug in a.py.").is_empty());
        assert!(rules("Make it build from a clean checkout, in a clean working tree.").is_empty());
        assert_eq!(
            rules("The working tree should be clean afterwards.").len(),
            1
        );
        let elsewhere = tempfile::tempdir().unwrap();
        assert!(
            branch_checks("Leave me on main, clean working tree.", elsewhere.path()).is_empty()
        );
    }
}
