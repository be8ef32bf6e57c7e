//! A finish with nothing done. A goal that asks for a change ("fix
//! main.go", "write report.txt", "commit ...") is not reached while the
//! workspace is exactly as the run found it: when such a finish could only
//! be unverified (no check proves the goal), the first one is refused and
//! the planner is told that nothing has changed yet. A second is let
//! through (unverified, never a claim): the guard costs a run at most one
//! plan. Found on dev: a run whose only check was a test command with no
//! tests finished (unverified) after an edit step the model judged "needs
//! no change", the program's output as broken as before.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::{PlanStep, StepFailure};

/// Finishes refused because nothing changed, at most, in a run.
pub const UNCHANGED_FINISHES_REFUSED: u32 = 1;

/// What the planner is told the refused finish was: the step it repairs.
pub const CHANGE_STEP: &str = "Make the change the goal asks for";

/// Verbs that ask for something to be made or changed, as a request's
/// first word or after "please", "to", "and", "then" or a sentence's
/// start. "Run the tests", "explain", "tell me", "check whether" are not
/// among them: such goals may be reached without changing a file.
static CHANGE_VERB: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:^|[.!?:;]\s+|\n\s*|\b(?:please|to|and|then|must|should)\s+)(?:fix|fixes|repair|write|create|add|remove|delete|rename|change|update|convert|install|move|replace|refactor|extract|implement|generate|produce|save|revert|undo|merge|resolve|amend|commit|tag|initialise|initialize|edit|modify|correct|make|collect|gather|list|put|bump|set|rewrite|restore|stage|untrack|split)\b",
    )
    .ok()
});

/// Whether `goal` asks for something to be made or changed ([`CHANGE_VERB`]).
pub fn asks_for_change(goal: &str) -> bool {
    CHANGE_VERB
        .as_ref()
        .is_some_and(|regex| regex.is_match(goal.trim()))
}

/// The workspace's content in one number: every project file's path,
/// size and time ([`crate::checks::files_state`]), and git's commit, refs
/// and staged entries as git lists them (`rev-parse HEAD`,
/// `for-each-ref`, `ls-files -s`: not the index file's own bytes, which
/// a `git status` rewrites with nothing changed). Outside a git work tree
/// the git part is empty.
pub async fn mark(workspace: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    crate::checks::files_state(workspace).hash(&mut hasher);
    for args in [
        &["rev-parse", "HEAD"][..],
        &["for-each-ref", "--format=%(refname) %(objectname)"],
        &["ls-files", "-s"],
    ] {
        crate::git::git(workspace, args)
            .await
            .unwrap_or_default()
            .hash(&mut hasher);
    }
    hasher.finish()
}

/// The repair context of a refused finish whose verdict said `reason`.
pub fn refusal(reason: &str) -> StepFailure {
    StepFailure {
        step: PlanStep {
            description: CHANGE_STEP.to_string(),
            ..PlanStep::default()
        },
        error: format!(
            "The reviewer said the goal is done ({reason}), but no file in the workspace has changed since the run started, and git is as it was: the goal asks for a change, so it is not done yet. Plan the change itself (an edit of the code that is wrong, a file the goal asks for, a command that does what the goal asks); looking again changes nothing."
        ),
        plan: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goals_that_ask_for_a_change_are_told_from_those_that_do_not() {
        for goal in [
            "The receipt this Go program prints has broken prices. Fix main.go; cart.csv must stay as it is.",
            "Write greet.sh: it reads names.txt.",
            "I need the totals per region. Write them to totals.txt.",
            "`make` fails. Make it build ./hello.",
            "Please commit the staged change with the message 'x'.",
            "Tag the current commit as v1.2.0.",
            "node show-config.js ignores settings.json. Please fix it.",
            "Convert products.csv to products.json.",
            "Collect every e-mail address in tickets/ into emails.txt.",
            "My last commit broke the tests. Undo it with git revert.",
        ] {
            assert!(asks_for_change(goal), "{goal}");
        }
        for goal in [
            "Run the test suite with pytest.",
            "Explain what calc.py does.",
            "Tell me which tests fail.",
            "How many lines does main.rs have?",
            "The fix in fixes.py: does it still pass the tests?",
        ] {
            assert!(!asks_for_change(goal), "{goal}");
        }
    }

    #[tokio::test]
    async fn the_mark_sees_edits_commits_tags_and_staging_not_a_status() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| crate::checks::test_git(dir.path(), args);
        git(&["init", "-q"]);
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        git(&["add", "a.py"]);
        git(&["commit", "-q", "-m", "a"]);
        let start = mark(dir.path()).await;
        git(&["status"]);
        std::thread::sleep(std::time::Duration::from_millis(20));
        git(&["status"]);
        assert_eq!(mark(dir.path()).await, start, "a status is no change");
        git(&["tag", "v1"]);
        let tagged = mark(dir.path()).await;
        assert_ne!(tagged, start, "a tag");
        std::fs::write(dir.path().join("b.txt"), "b\n").unwrap();
        let written = mark(dir.path()).await;
        assert_ne!(written, tagged, "a new file");
        git(&["add", "b.txt"]);
        assert_ne!(mark(dir.path()).await, written, "staging");
    }

    #[test]
    fn the_refusal_names_the_claim_and_asks_for_the_change() {
        let failure = refusal("the tests passed");
        assert_eq!(failure.step.description, CHANGE_STEP);
        assert!(failure.error.contains("(the tests passed)"));
        assert!(failure
            .error
            .contains("no file in the workspace has changed"));
        assert!(failure.plan.is_empty());
    }
}
