//! The harness's plan for "move my last commit to a new branch X" (the
//! commit made on the wrong branch): `git branch X` where the current
//! branch is, then `git reset --keep HEAD~1`, which takes the commit off
//! the current branch and keeps any uncommitted change (it refuses,
//! rather than lose one, when the two touch the same file).
//!
//! Made when the goal asks to move a commit to a new branch whose check
//! ([`crate::checks::branch`]) fails, and the commit it names is the
//! current branch's last: named by its quoted subject, or as "my last
//! commit" / "that commit" with no other named. Otherwise the planner
//! decides, with the history in front of it. Found on dev: plans of
//! `git checkout -b` alone (the commit stayed on main) and of edits.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::checks::branch::{new_branch_check, new_branches};
use crate::checks::clauses::{quoted_texts, single_quote};
use crate::checks::CheckResult;
use crate::PlanStep;

/// "move that commit to a new branch", "moving it onto a branch".
static MOVE_TO_BRANCH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\bmov(?:e|ing)\b[^.;\n]{0,80}\b(?:to|onto)\s+(?:a\s+)?(?:new\s+)?branch\b")
        .ok()
});

/// The move plan for `goal` in `workspace`, given the checks' last
/// `results` and the plans `tried`; `None` when the goal asks for no
/// move to a new branch, its check passes, the commit it names is not
/// the current branch's last, or the plan was tried.
pub(crate) async fn move_plan(
    goal: &str,
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    if !MOVE_TO_BRANCH.as_ref()?.is_match(goal) {
        return None;
    }
    let branch = new_branches(goal, workspace).into_iter().next()?;
    let check = new_branch_check(&branch);
    if !results.iter().any(|r| r.command == check && !r.passed) {
        return None;
    }
    let git = |args: &'static [&'static str]| crate::git::git(workspace, args);
    git(&["symbolic-ref", "-q", "HEAD"]).await.ok()?;
    git(&["rev-parse", "-q", "--verify", "HEAD~1"]).await.ok()?;
    let subject = git(&["log", "-1", "--format=%s"]).await.ok()?;
    let quoted: Vec<String> = quoted_texts(goal)
        .into_iter()
        .filter(|value| *value != branch)
        .collect();
    if !quoted.is_empty() && !quoted.iter().any(|q| *q == subject.trim()) {
        return None;
    }
    let plan = vec![
        PlanStep::command(
            format!(
                "Make the new branch {branch} where the current branch is, with the commit '{}'",
                crate::llm::shorten(&subject, 80)
            ),
            format!("git branch {}", single_quote(&branch)),
        ),
        PlanStep::command(
            "Take that commit off the current branch, keeping uncommitted changes",
            "git reset --keep HEAD~1",
        ),
    ];
    (!tried.contains(&plan)).then_some(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::branch::{branch_checks, RULE_NEW_BRANCH};
    use crate::checks::{test_bash, test_git, test_repo, test_result};

    #[tokio::test]
    async fn the_last_commit_moves_to_the_new_branch() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_repo(root, &[("a.py", "a = 1\n")]);
        std::fs::write(root.join("b.py"), "b = 1\n").unwrap();
        test_git(root, &["add", "-A"]);
        test_git(root, &["commit", "-qm", "Add CSV export"]);
        let goal = "I committed 'Add CSV export' onto main by mistake. Move that commit \
                    to a new branch named csv-export. Leave me on main.";
        let results: Vec<CheckResult> = branch_checks(goal, root)
            .into_iter()
            .map(|(command, rule)| test_result(&command, rule != RULE_NEW_BRANCH))
            .collect();
        let plan = move_plan(goal, &results, root, &[]).await.unwrap();
        for step in &plan {
            let command = step.command.clone().unwrap();
            assert!(test_bash(root, &command).status.success(), "{command}");
        }
        for (command, _) in branch_checks(goal, root) {
            assert!(test_bash(root, &command).status.success(), "{command}");
        }
        let log = |rev: &str| {
            let out = std::process::Command::new("git")
                .args(["log", "-1", "--format=%s", rev])
                .current_dir(root)
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        assert_eq!(log("main"), "Start");
        assert_eq!(log("csv-export"), "Add CSV export");
        assert!(
            move_plan(goal, &results, root, &[plan]).await.is_none(),
            "tried"
        );
        std::fs::write(root.join("c.py"), "c = 1\n").unwrap();
        test_git(root, &["add", "-A"]);
        test_git(root, &["commit", "-qm", "Later"]);
        let other = "Move 'Start' to a new branch named old-start.";
        let results: Vec<CheckResult> = branch_checks(other, root)
            .into_iter()
            .map(|(command, _)| test_result(&command, false))
            .collect();
        assert!(
            move_plan(other, &results, root, &[]).await.is_none(),
            "not the last commit"
        );
    }
}
