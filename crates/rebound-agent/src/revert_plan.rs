//! The harness's plan for a revert the goal asks for ("undo it with git
//! revert"): `git revert --no-edit <commit>`, a new commit that undoes
//! the one the goal names, when the goal's revert check
//! ([`crate::checks::clauses::RULE_REVERT`]) fails and the goal says
//! which commit:
//!
//! - "my last commit", "the latest commit", "the most recent commit":
//!   `HEAD`;
//! - a quoted subject (`'Simplify the discount'`) of one of the last 200
//!   commits: that commit;
//! - a commit id (7 to 40 hex digits) that names a commit: that commit.
//!
//! Otherwise the planner decides. Found on dev: the harness's own plan
//! was an edit of the code the failing test pointed at (the tests would
//! pass, but the goal asked for a revert), then three plans of edits.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::checks::clauses::{commit_id_words, single_quote, subject_named, REVERT_CHECK};
use crate::checks::CheckResult;
use crate::PlanStep;

/// "my last commit", "the latest commit", "the most recent commit", "the
/// previous commit".
static LAST_COMMIT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:last|latest|most\s+recent|previous|newest)\s+commit\b").ok()
});

/// How many commits are searched for a quoted subject.
const SUBJECTS_SEARCHED: &str = "200";

/// The revert plan for `goal` in `workspace`, given the checks' last
/// `results` and the plans `tried`; `None` when the goal's revert check
/// is not failing, the goal names no commit the harness can find, or the
/// plan was tried.
pub(crate) async fn revert_plan(
    goal: &str,
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    if !results
        .iter()
        .any(|r| r.command == REVERT_CHECK && !r.passed)
    {
        return None;
    }
    let (commit, named) = named_commit(goal, workspace).await?;
    let plan = vec![PlanStep::command(
        format!("Undo {named} with git revert: a new commit that reverses it, history kept"),
        format!("git revert --no-edit {}", single_quote(&commit)),
    )];
    (!tried.contains(&plan)).then_some(plan)
}

/// The commit the goal names (an id git resolves) and how, for a user.
async fn named_commit(goal: &str, workspace: &Path) -> Option<(String, String)> {
    if LAST_COMMIT.as_ref()?.is_match(goal) {
        let head = commit_id(workspace, "HEAD").await?;
        return Some((head, "the last commit".to_string()));
    }
    let log = git_output(
        workspace,
        &["log", "-n", SUBJECTS_SEARCHED, "--format=%H%x09%s"],
    )
    .await
    .unwrap_or_default();
    if let Some((hash, subject)) = subject_named(goal, &log) {
        return Some((hash, format!("the commit '{subject}'")));
    }
    for word in commit_id_words(goal) {
        if let Some(hash) = commit_id(workspace, word).await {
            return Some((hash, format!("commit {word}")));
        }
    }
    None
}

/// The full id of the commit `name` (`HEAD`, a short id), if git knows it.
async fn commit_id(workspace: &Path, name: &str) -> Option<String> {
    let spec = format!("{name}^{{commit}}");
    git_output(workspace, &["rev-parse", "--verify", "-q", &spec]).await
}

/// What `git args` printed, when it succeeded and printed something.
async fn git_output(workspace: &Path, args: &[&str]) -> Option<String> {
    crate::git::git(workspace, args)
        .await
        .ok()
        .map(|out| out.trim().to_string())
        .filter(|out| !out.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_git;

    fn failing(command: &str) -> CheckResult {
        CheckResult {
            command: command.to_string(),
            passed: false,
            exit_code: Some(1),
            output: String::new(),
            duration_ms: 0,
        }
    }

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_git(root, &["init", "-q"]);
        std::fs::write(root.join("a.py"), "a = 1\n").unwrap();
        test_git(root, &["add", "-A"]);
        test_git(root, &["commit", "-qm", "Start"]);
        std::fs::write(root.join("a.py"), "a = 2\n").unwrap();
        test_git(root, &["commit", "-qam", "Simplify the discount"]);
        std::fs::write(root.join("a.py"), "a = 3\n").unwrap();
        test_git(root, &["commit", "-qam", "Later work"]);
        dir
    }

    fn hash(root: &Path, rev: &str) -> String {
        let out = std::process::Command::new("git")
            .args(["rev-parse", rev])
            .current_dir(root)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    #[tokio::test]
    async fn the_last_commit_a_quoted_subject_or_an_id_is_reverted() {
        let dir = repo();
        let root = dir.path();
        let results = [failing(REVERT_CHECK)];
        for (goal, rev) in [
            (
                "My last commit broke the tests. Undo it with git revert.",
                "HEAD",
            ),
            (
                "Use git revert to undo 'Simplify the discount', keeping later work.",
                "HEAD~1",
            ),
        ] {
            let plan = revert_plan(goal, &results, root, &[]).await.unwrap();
            assert_eq!(
                plan[0].command.as_deref(),
                Some(format!("git revert --no-edit '{}'", hash(root, rev)).as_str()),
                "{goal}"
            );
        }
        let short = &hash(root, "HEAD~1")[..8];
        let plan = revert_plan(
            &format!("Revert commit {short} with git."),
            &results,
            root,
            &[],
        )
        .await
        .unwrap();
        assert!(plan[0].description.contains(short));
        assert!(
            revert_plan("Undo the bad change with git revert.", &results, root, &[])
                .await
                .is_none(),
            "no commit named"
        );
        assert!(
            revert_plan("Revert my last commit with git revert.", &[], root, &[])
                .await
                .is_none(),
            "no failing revert check"
        );
        let last = "Revert my last commit with git revert.";
        let tried = revert_plan(last, &results, root, &[]).await.unwrap();
        assert!(
            revert_plan(last, &results, root, &[tried]).await.is_none(),
            "a plan that was tried is not made again"
        );
    }
}
