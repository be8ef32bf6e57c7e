//! The harness's plan for uncommitted work split into two commits
//! ([`crate::checks::split`]): nothing staged, the file's first version
//! written straight into the index (`git hash-object -w` and
//! `git update-index --cacheinfo`: the working file keeps all its
//! changes), the first commit, then everything else staged and the
//! second commit. Made while that check fails, `HEAD` is still the base
//! and the goal still reads to the same first version; tried once.

use std::path::Path;

use crate::checks::clauses::single_quote;
use crate::checks::split::{checked_split, split_goal};
use crate::checks::CheckResult;
use crate::PlanStep;

/// The plan, given the goal, the checks' last `results` and the plans
/// `tried`; `None` when no split check fails, `HEAD` moved, the work
/// changed since the start, or the plan was tried.
pub(crate) async fn split_plan(
    goal: &str,
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let (base, file, blob) = results
        .iter()
        .filter(|r| !r.passed)
        .find_map(|r| checked_split(&r.command))?;
    let split = split_goal(goal, workspace)?;
    if split.base != base || split.file != file || split.first_blob != blob {
        return None;
    }
    let staged = crate::git::git(workspace, &["ls-files", "-s", "--", &file])
        .await
        .ok()?;
    let mode = staged
        .split_whitespace()
        .next()
        .filter(|mode| ["100644", "100755"].contains(mode))
        .unwrap_or("100644");
    let plan = vec![
        PlanStep::command("Unstage everything, keeping the files as they are", "git reset -q"),
        PlanStep::command(
            format!("Stage only the named change of {file}"),
            format!(
                "git update-index --cacheinfo {mode},\"$(printf '%s' {} | git hash-object -w --stdin)\",{file}",
                single_quote(&split.first_content)
            ),
        ),
        PlanStep::command(
            format!("Commit it as '{}'", split.first_message),
            format!("git commit -q -m {}", single_quote(&split.first_message)),
        ),
        PlanStep::command(
            format!("Commit everything else as '{}'", split.second_message),
            format!(
                "git add -A && git commit -q -m {}",
                single_quote(&split.second_message)
            ),
        ),
    ];
    (!tried.contains(&plan)).then_some(plan)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::split::split_check;
    use crate::checks::split::tests::{repo, GOAL};

    #[tokio::test]
    async fn the_plan_makes_the_two_commits_the_check_asks_for() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        repo(ws);
        let check = split_check(&split_goal(GOAL, ws).unwrap());
        let failed = |command: &str| crate::checks::test_failed(command, "");
        let plan = split_plan(GOAL, &[failed(&check)], ws, &[]).await.unwrap();
        assert_eq!(
            split_plan(GOAL, &[failed(&check)], ws, std::slice::from_ref(&plan)).await,
            None
        );
        crate::checks::test_plan_passes(ws, &plan, &check);
        assert_eq!(
            split_plan(GOAL, &[failed(&check)], ws, &[]).await,
            None,
            "HEAD moved: never a second split"
        );
        assert_eq!(
            split_plan(GOAL, &[failed("test -s x")], ws, &[]).await,
            None
        );
    }
}
