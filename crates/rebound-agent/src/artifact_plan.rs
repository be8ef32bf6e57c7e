//! The harness's first plan for a file computed from data: one `script`
//! step, with no planner call, when the goal asks for a file that does
//! not exist yet ([`crate::checks::clauses::asked_file`]), names data of
//! the workspace it is computed from, and asks to fix nothing. The
//! planner's first plan for such a goal was always that step (its
//! `create` made a script by [`crate::planning`]) with checking steps
//! after it, which the checks do anyway; writing it took the 1.5B model
//! 28–82 s of a 120 s run (found on dev: seven data tasks, the plan
//! alone a quarter to two thirds of the run). The planner still makes
//! every later plan, and repairs this one when it fails.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::{PlanStep, StepKind};

/// Words of a goal about git work, a program to fix or code to rearrange
/// ("extract the helper into util.py"): its plan is the planner's (or
/// another harness plan's).
static NOT_AN_ARTIFACT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:fix|fixes|repair|correct|bug|buggy|broken|wrong|crash|crashes|commit|branch|tag|merge|rebase|revert|push|stash|refactor|helper|function|method|class|module|import)\b",
    )
    .ok()
});

/// The plan for `goal` in `workspace` when it is the first (`first`) and
/// the goal asks only for a file computed from data; `None` otherwise.
pub(crate) fn artifact_plan(goal: &str, workspace: &Path, first: bool) -> Option<Vec<PlanStep>> {
    if !first || NOT_AN_ARTIFACT.as_ref()?.is_match(goal) {
        return None;
    }
    let output = crate::checks::clauses::asked_file(goal, workspace)?;
    if workspace.join(&output).exists() || !names_workspace_data(goal, workspace, &output) {
        return None;
    }
    Some(vec![PlanStep {
        kind: StepKind::Script,
        description: format!("Write {output} exactly as the goal asks (write {output})"),
        ..PlanStep::default()
    }])
}

/// Whether `goal` names a file or directory of `workspace` other than
/// `output` ([`crate::checks::clauses::path_words`]).
pub(crate) fn names_workspace_data(goal: &str, workspace: &std::path::Path, output: &str) -> bool {
    crate::checks::clauses::path_words(goal)
        .filter(|word| *word != output && word.contains(['.', '/']))
        .any(|word| workspace.join(word.trim_end_matches('/')).exists())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sales.csv"), "region,amount\nNorth,3\n").unwrap();
        std::fs::write(dir.path().join("report.py"), "print(1)\n").unwrap();
        std::fs::create_dir(dir.path().join("tickets")).unwrap();
        std::fs::write(dir.path().join("tickets/1.txt"), "ann@x.org\n").unwrap();
        dir
    }

    #[test]
    fn a_file_computed_from_named_data_is_one_script_step() {
        let dir = workspace();
        let plan = artifact_plan(
            "I need the totals per region from sales.csv. Write them to region_totals.txt, biggest first. Don't edit sales.csv.",
            dir.path(),
            true,
        )
        .unwrap();
        assert_eq!(plan.len(), 1);
        assert_eq!(plan[0].kind, StepKind::Script);
        assert!(plan[0].description.contains("(write region_totals.txt)"));
        assert!(artifact_plan(
            "Collect every address in tickets/ into emails.txt, one per line.",
            dir.path(),
            true
        )
        .is_some());
    }

    #[test]
    fn a_new_data_file_named_beside_the_data_is_the_answer_however_it_is_asked() {
        let dir = workspace();
        for (goal, file) in [
            ("Count the rows per region from sales.csv into region_counts.txt, biggest first.", "region_counts.txt"),
            ("Make me a summary from sales.csv: summary.csv with columns region,total.", "summary.csv"),
            ("sales.csv has duplicates. I need a clean copy in sales_clean.csv, one row per region.", "sales_clean.csv"),
        ] {
            let plan = artifact_plan(goal, dir.path(), true).unwrap_or_else(|| panic!("{goal}"));
            assert!(plan[0].description.contains(&format!("(write {file})")), "{goal}");
        }
        for goal in [
            // Two new files: which one is the answer is not read.
            "Split sales.csv into north.csv and south.csv by region.",
            // A file that should be there.
            "Reading sales.csv then totals.csv fails with No such file. Make it work.",
            // No data of the workspace named.
            "Count the regions into counts.txt.",
        ] {
            assert_eq!(artifact_plan(goal, dir.path(), true), None, "{goal}");
        }
    }

    #[test]
    fn fixes_git_work_existing_outputs_and_later_plans_are_the_planners() {
        let dir = workspace();
        for goal in [
            "report.py is broken: fix it so that it writes totals.txt from sales.csv.",
            "Write totals.txt from sales.csv and commit it with the message 'totals'.",
            "Write totals.txt with the number 3.",
            "Extract the parsing helper of report.py into parse.py.",
        ] {
            assert_eq!(artifact_plan(goal, dir.path(), true), None, "{goal}");
        }
        let goal = "Write totals.txt from sales.csv.";
        assert!(artifact_plan(goal, dir.path(), true).is_some());
        assert_eq!(
            artifact_plan(goal, dir.path(), false),
            None,
            "not the first plan"
        );
        std::fs::write(dir.path().join("totals.txt"), "x\n").unwrap();
        assert_eq!(
            artifact_plan(goal, dir.path(), true),
            None,
            "the file exists"
        );
    }
}
