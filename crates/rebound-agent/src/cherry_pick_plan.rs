//! The harness's plan for a cherry-pick the goal asks for ("bring just
//! the commit 'Fix rounding' onto main with git cherry-pick"): `git
//! cherry-pick <id>` of the commit the goal names, when the goal's
//! cherry-pick check ([`crate::checks::cherry_pick`]) fails. A pick that
//! stops on a conflict fails as a step, and the planner repairs it with
//! git's message in front of it.

use std::path::Path;

use crate::checks::cherry_pick::{pick_check, pick_goal};
use crate::checks::clauses::single_quote;
use crate::checks::CheckResult;
use crate::PlanStep;

/// The cherry-pick plan for `goal` in `workspace`, given the checks' last
/// `results` and the plans `tried`; `None` when the goal's cherry-pick
/// check is not failing or the plan was tried.
pub(crate) fn cherry_pick_plan(
    goal: &str,
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let pick = pick_goal(goal, workspace)?;
    let check = pick_check(&pick);
    if !results.iter().any(|r| r.command == check && !r.passed) {
        return None;
    }
    let plan = vec![PlanStep::command(
        format!(
            "Copy the commit '{}' onto the current branch with git cherry-pick",
            crate::llm::shorten(&pick.subject, 80)
        ),
        format!("git cherry-pick {}", single_quote(&pick.id)),
    )];
    (!tried.contains(&plan)).then_some(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{test_git, test_repo, test_result};

    #[test]
    fn the_named_commit_is_picked_while_its_check_fails() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_repo(root, &[("a.py", "a = 1\n")]);
        test_git(root, &["checkout", "-qb", "feature"]);
        std::fs::write(root.join("a.py"), "a = 2\n").unwrap();
        test_git(root, &["commit", "-qam", "Fix rounding"]);
        test_git(root, &["checkout", "-q", "main"]);
        let goal = "Bring 'Fix rounding' onto main with git cherry-pick.";
        let pick = pick_goal(goal, root).unwrap();
        let failing = [test_result(&pick_check(&pick), false)];
        let plan = cherry_pick_plan(goal, &failing, root, &[]).unwrap();
        assert_eq!(
            plan[0].command.as_deref(),
            Some(format!("git cherry-pick '{}'", pick.id).as_str())
        );
        assert!(
            cherry_pick_plan(goal, &failing, root, &[plan]).is_none(),
            "tried"
        );
        let passing = [test_result(&pick_check(&pick), true)];
        assert!(
            cherry_pick_plan(goal, &passing, root, &[]).is_none(),
            "passing"
        );
    }
}
