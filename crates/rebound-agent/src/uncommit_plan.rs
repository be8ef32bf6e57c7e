//! The harness's plan for "undo the last commit, keep its changes"
//! ([`crate::checks::uncommit`]): `git reset --soft <parent>` when the
//! goal keeps them staged, `git reset <parent>` when it keeps them in the
//! files, while that check fails and `HEAD` is still the commit to undo.
//! The parent is the one read at the run's start, never `HEAD~1`: a plan
//! run twice must not undo two commits.

use std::path::Path;

use crate::checks::uncommit::{checked_uncommit, Keep};
use crate::checks::CheckResult;
use crate::PlanStep;

/// The reset plan, given the checks' last `results` and the plans
/// `tried`; `None` when no uncommit check fails, `HEAD` moved, or the
/// plan was tried.
pub(crate) async fn uncommit_plan(
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let uncommit = results
        .iter()
        .filter(|r| !r.passed)
        .find_map(|r| checked_uncommit(&r.command))?;
    let head = crate::git::git(workspace, &["rev-parse", "HEAD"])
        .await
        .ok()?;
    if head != uncommit.undone {
        return None;
    }
    let short = &uncommit.undone[..12];
    let (description, command) = match uncommit.keep {
        Keep::Staged => (
            format!("Undo commit {short}, its changes kept staged"),
            format!("git reset --soft {}", uncommit.parent),
        ),
        Keep::Unstaged => (
            format!("Undo commit {short}, its changes kept in the files, unstaged"),
            format!("git reset -q {}", uncommit.parent),
        ),
    };
    let plan = vec![PlanStep::command(description, command)];
    (!tried.contains(&plan)).then_some(plan)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::test_bash as bash;
    use crate::checks::uncommit::{uncommit_check, uncommit_goal};

    #[tokio::test]
    async fn the_reset_keeps_the_changes_where_the_goal_says_and_runs_once() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let script = "git init -q && printf 'a\\n' > a.py && git add . && git commit -qm first \
            && printf 'a2\\n' > a.py && git commit -qam second";
        assert!(bash(ws, script).status.success());
        let goal = "Undo the last commit but keep its changes staged.";
        let check = uncommit_check(&uncommit_goal(goal, ws).unwrap());
        let failed = |command: &str| crate::checks::test_failed(command, "");
        let plan = uncommit_plan(&[failed(&check)], ws, &[]).await.unwrap();
        assert!(plan[0]
            .command
            .as_deref()
            .unwrap()
            .starts_with("git reset --soft "));
        assert_eq!(
            uncommit_plan(&[failed(&check)], ws, std::slice::from_ref(&plan)).await,
            None
        );
        assert!(bash(ws, plan[0].command.as_deref().unwrap())
            .status
            .success());
        assert!(bash(ws, &check).status.success());
        assert_eq!(
            uncommit_plan(&[failed(&check)], ws, &[]).await,
            None,
            "HEAD moved: never a second reset"
        );
        assert_eq!(uncommit_plan(&[failed("test -s x")], ws, &[]).await, None);
    }
}
