//! The harness's plan for deleted files the goal asks to bring back
//! ([`crate::checks::restore`]): `git checkout <deleting commit>^ --
//! <path>` of each whose check fails, which puts the file back as it was
//! and stages it; a commit the goal asks for is the commit plan's.

use std::path::Path;

use crate::checks::clauses::single_quote;
use crate::checks::restore::{restore_check, restore_goals};
use crate::checks::CheckResult;
use crate::PlanStep;

/// The restore plan for `goal` in `workspace`, given the checks' last
/// `results` and the plans `tried`; `None` when no restore check fails
/// or the plan was tried.
pub(crate) fn restore_plan(
    goal: &str,
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let plan: Vec<PlanStep> = restore_goals(goal, workspace)
        .into_iter()
        .filter(|restore| {
            let check = restore_check(restore);
            results.iter().any(|r| r.command == check && !r.passed)
        })
        .map(|restore| {
            PlanStep::command(
                format!(
                    "Bring back {} as it was before the commit that deleted it",
                    restore.path
                ),
                format!(
                    "git checkout {} -- {}",
                    single_quote(&restore.source()),
                    single_quote(&restore.path)
                ),
            )
        })
        .collect();
    (!plan.is_empty() && !tried.contains(&plan)).then_some(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{test_bash, test_git, test_repo, test_result};

    #[test]
    fn a_deleted_file_is_checked_out_from_before_its_deletion() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_repo(root, &[("rates.json", "{}\n")]);
        test_git(root, &["rm", "-q", "rates.json"]);
        test_git(root, &["commit", "-qm", "Clean up"]);
        let goal = "I deleted rates.json by mistake; restore it.";
        let restore = &restore_goals(goal, root)[0];
        let failing = [test_result(&restore_check(restore), false)];
        let plan = restore_plan(goal, &failing, root, &[]).unwrap();
        let command = plan[0].command.clone().unwrap();
        assert!(test_bash(root, &command).status.success(), "{command}");
        assert_eq!(
            std::fs::read_to_string(root.join("rates.json")).unwrap(),
            "{}\n"
        );
        assert!(
            restore_plan(goal, &failing, root, &[plan]).is_none(),
            "tried"
        );
    }
}
