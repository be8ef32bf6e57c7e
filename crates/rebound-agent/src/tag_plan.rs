//! The harness's plan for a tag the goal asks for ("tag the current
//! commit as v1.2.0: an annotated tag with the message 'M'"):
//! `git tag [-a -m M] NAME`, when only the tag is left: the tag does not
//! exist yet, the goal puts it on the current commit, and every failing
//! check is about tags (the goal's tag check, `git describe`, a quoted
//! `git tag` command). Otherwise the planner decides: tagging before
//! the other work the goal asks for would tag the wrong commit. Found on
//! dev: the planner made lightweight tags, which `git describe` does not
//! see, and planned them again.

use std::path::Path;

use crate::checks::clauses::single_quote;
use crate::checks::tag::{tag_check, tag_goal};
use crate::checks::CheckResult;
use crate::PlanStep;

/// The tag plan for `goal` in `workspace`, given the checks' last
/// `results` and the plans `tried`; `None` when something besides the
/// tag is left, the tag exists, or the plan was tried.
pub(crate) async fn tag_plan(
    goal: &str,
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let tag = tag_goal(goal).filter(|tag| tag.at_head)?;
    let check = tag_check(&tag);
    let failing: Vec<&CheckResult> = results.iter().filter(|r| !r.passed).collect();
    if !failing.iter().any(|r| r.command == check)
        || !failing
            .iter()
            .all(|r| r.command == check || about_tags(&r.command))
    {
        return None;
    }
    let reference = format!("refs/tags/{}", tag.name);
    if crate::git::git(workspace, &["rev-parse", "-q", "--verify", &reference])
        .await
        .is_ok()
    {
        return None;
    }
    let name = single_quote(&tag.name);
    let (command, kind) = match (&tag.message, tag.annotated) {
        (Some(message), _) => (
            format!("git tag -a {name} -m {}", single_quote(message)),
            "an annotated tag",
        ),
        (None, true) => (format!("git tag -a {name} -m {name}"), "an annotated tag"),
        (None, false) => (format!("git tag {name}"), "a tag"),
    };
    let plan = vec![PlanStep::command(
        format!("Tag the current commit as {}: {kind}", tag.name),
        command,
    )];
    (!tried.contains(&plan)).then_some(plan)
}

/// Whether a check's command is about tags: `git describe`, `git tag`,
/// a `refs/tags/` name.
fn about_tags(command: &str) -> bool {
    command.contains("git describe")
        || command.contains("git tag")
        || command.contains("refs/tags/")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::checks::{test_bash as bash, test_git, test_result as result};

    #[tokio::test]
    async fn only_the_tag_left_is_tagged_by_the_harness() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_git(root, &["init", "-q"]);
        std::fs::write(root.join("VERSION"), "1.2.0\n").unwrap();
        test_git(root, &["add", "-A"]);
        test_git(root, &["commit", "-qm", "Start"]);
        let goal = "Tag the current commit as v1.2.0: an annotated tag with the message 'Release 1.2.0'. Afterwards `git describe` should print v1.2.0.";
        let check = tag_check(&tag_goal(goal).unwrap());
        let describe = "diff <(git describe | sed -e '$a\\') <(printf '%s\\n' v1.2.0)";
        let results = [result(&check, false), result(describe, false)];
        let plan = tag_plan(goal, &results, root, &[]).await.unwrap();
        assert_eq!(plan.len(), 1);
        let command = plan[0].command.clone().unwrap();
        assert_eq!(command, "git tag -a 'v1.2.0' -m 'Release 1.2.0'");
        // Tried once: not again.
        assert_eq!(
            tag_plan(goal, &results, root, std::slice::from_ref(&plan)).await,
            None
        );
        // Other work left: the planner decides.
        let others = [result(&check, false), result("python3 -m pytest -q", false)];
        assert_eq!(tag_plan(goal, &others, root, &[]).await, None);
        // Run as the shell would, it passes both checks.
        let out = bash(root, &command);
        assert!(out.status.success(), "{out:?}");
        assert!(bash(root, &check).status.success());
        assert!(bash(root, describe).status.success());
        // The tag exists now: no plan.
        assert_eq!(tag_plan(goal, &results, root, &[]).await, None);
        // A goal that does not say where the tag goes: the planner decides.
        let elsewhere = "Create a tag named v2.0 with the message 'Two'.";
        let check = tag_check(&tag_goal(elsewhere).unwrap());
        assert_eq!(
            tag_plan(elsewhere, &[result(&check, false)], root, &[]).await,
            None
        );
    }
}
