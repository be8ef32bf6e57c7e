//! The harness's plan for a tracked file that leaves git and stays on
//! disk ([`crate::checks::untrack`]): `git rm --cached` (never `git rm`,
//! which deletes the user's file), the file added to `.gitignore` when
//! the goal asks, and, when the commit that added it is rewritten,
//! `git commit --amend --no-edit` (its message, author and other changes
//! kept) while `HEAD` is still that commit; otherwise a new commit with
//! the goal's message when it gives one. Tried once, while the check
//! fails.

use std::path::Path;

use crate::checks::clauses::{commit_message, single_quote};
use crate::checks::untrack::checked_untrack;
use crate::checks::CheckResult;
use crate::PlanStep;

/// The plan, given the goal, the checks' last `results` and the plans
/// `tried`; `None` when no untrack check fails, `HEAD` moved away from a
/// commit to rewrite, or the plan was tried.
pub(crate) async fn untrack_plan(
    goal: &str,
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let untrack = results
        .iter()
        .filter(|r| !r.passed)
        .find_map(|r| checked_untrack(&r.command))?;
    let file = &untrack.file;
    let mut steps = Vec::new();
    let tracked = crate::git::git(workspace, &["ls-files", "--", file])
        .await
        .ok()?;
    if !tracked.trim().is_empty() {
        steps.push(PlanStep::command(
            format!("Stop tracking {file}, keeping it on disk"),
            format!("git rm -q --cached -- {file}"),
        ));
    }
    if untrack.ignore {
        let pattern = single_quote(file);
        steps.push(PlanStep::command(
            format!("Add {file} to .gitignore"),
            format!(
                "git check-ignore -q --no-index -- {file} || {{ {{ test ! -s .gitignore || test -z \"$(tail -c 1 .gitignore)\" || echo; printf '%s\\n' {pattern}; }} >> .gitignore; }}; git add .gitignore"
            ),
        ));
    }
    match &untrack.rewrite {
        Some((head, _)) => {
            let now = crate::git::git(workspace, &["rev-parse", "HEAD"])
                .await
                .ok()?;
            if now.trim() != head {
                return None;
            }
            steps.push(PlanStep::command(
                format!(
                    "Rewrite commit {} without {file}, keeping its message",
                    &head[..12.min(head.len())]
                ),
                "git commit -q --amend --no-edit".to_string(),
            ));
        }
        None => {
            if let Some(message) = commit_message(goal) {
                steps.push(PlanStep::command(
                    format!("Commit it with the message '{message}'"),
                    format!("git commit -q -m {}", single_quote(&message)),
                ));
            }
        }
    }
    (!steps.is_empty() && !tried.contains(&steps)).then_some(steps)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::untrack::tests::repo_with_ignore;
    use crate::checks::untrack::{untrack_check, untrack_goal};

    const GOAL: &str = "Oops: my last commit ('Read mail settings from .env') also committed the .env file with our SMTP password. Fix that commit so .env is not in it (it must not be in any commit), and in the same commit add .env to .gitignore. Keep the commit's message and its other changes, and don't delete my local .env, I still need it.";

    #[tokio::test]
    async fn the_commit_is_rewritten_without_the_file_which_stays_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        // The last line of .gitignore has no newline: the plan's line
        // must not be glued to it.
        repo_with_ignore(ws, "__pycache__/");
        let check = untrack_check(&untrack_goal(GOAL, ws).unwrap());
        let failed = |command: &str| crate::checks::test_failed(command, "");
        let plan = untrack_plan(GOAL, &[failed(&check)], ws, &[])
            .await
            .unwrap();
        assert_eq!(plan.len(), 3, "{plan:?}");
        assert_eq!(
            untrack_plan(GOAL, &[failed(&check)], ws, std::slice::from_ref(&plan)).await,
            None
        );
        crate::checks::test_plan_passes(ws, &plan, &check);
        // The old last line of .gitignore had no newline: kept whole.
        let ignore = std::fs::read_to_string(ws.join(".gitignore")).unwrap();
        assert_eq!(ignore, "__pycache__/\n.env\n");
        assert_eq!(
            untrack_plan(GOAL, &[failed(&check)], ws, &[]).await,
            None,
            "HEAD moved: never a second amend"
        );
        assert_eq!(
            untrack_plan(GOAL, &[failed("test -s x")], ws, &[]).await,
            None
        );
    }
}
