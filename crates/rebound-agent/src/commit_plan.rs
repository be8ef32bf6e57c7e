//! The harness's plan for a commit the goal asks for ("commit ... with the
//! message 'M'"), when the goal also says what goes in it and nothing else
//! is left to do: every check passes but the commit-message check and
//! (when the run has it) the one that nothing is left uncommitted. What
//! goes in it, read from the goal's sentences:
//!
//! - "all my changes", "all the changes", "everything": every change and
//!   new file `git status` lists (rebound's own `.rebound/` left out);
//! - otherwise the uncommitted files (or directories) the goal names, and
//!   only those (`git commit -- <paths>`: changes already staged for other
//!   files stay out).
//!
//! A deleted file the goal asks to bring back ([`crate::checks::restore`])
//! is staged whatever its sentence says.
//!
//! A path named in a sentence that also says to leave something out, not
//! to commit, delete or touch it ("notes.txt is my scratch file: leave it
//! out of the commit") is never staged. When the goal names nothing that
//! is uncommitted and does not say "all", or that says where the commit
//! goes beyond its message (a branch, a merge, a tag), the planner
//! decides: its message check then cannot prove the goal either (found on
//! test as false successes: the harness committed on `main` what the goal
//! wanted on a branch). Found on dev: the model planned `git commit -m`
//! without `git add`, repeated it after git's own hint, then edited files
//! to "change the message".
//!
//! A goal that says to amend gets `git commit --amend --only -m M` (the
//! commit keeps its changes; what is staged stays out), or, when it names
//! uncommitted files to add, those staged and amended in. The message
//! may also come from "`git log -1 --format=%s` should print `M`". The
//! message check still proves nothing alone for an amend (it would pass
//! for a new commit too).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::checks::clauses::{
    commit_subject, names_amend, names_place_besides_amend, path_words, single_quote, SENTENCE_END,
};
use crate::checks::CheckResult;
use crate::PlanStep;

/// "all my changes", "all the current changes", "all changes",
/// "everything".
static ALL_CHANGES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\ball\s+(?:of\s+)?(?:my|the|your|our)?\s*(?:current\s+|uncommitted\s+|local\s+)?(?:changes|work|files)\b|\beverything\b").ok()
});

/// Words that make a sentence's paths ones to keep out of the commit.
static LEAVE_OUT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:not|never|leave|leaving|exclude|excluding|except|without|skip|ignore)\b|n't\b",
    )
    .ok()
});

/// The most paths the harness stages by name; past that, the planner
/// decides.
const MAX_PATHS: usize = 60;

/// What to stage for the commit.
#[derive(Debug, PartialEq)]
enum Staging {
    /// Every change, these paths left out.
    All { left_out: Vec<String> },
    /// Only these paths.
    Only(Vec<String>),
}

impl Staging {
    /// The paths staged, among the `changed` ones.
    fn paths(self, changed: &[String]) -> Vec<String> {
        match self {
            Staging::All { left_out } => changed
                .iter()
                .filter(|path| !left_out.contains(path))
                .cloned()
                .collect(),
            Staging::Only(paths) => paths,
        }
    }
}

/// The commit plan for `goal` in `workspace`, given the checks' last
/// `results` and the plans `tried` so far; `None` when the goal asks for
/// no commit with a message, that check is not the only failing one, the
/// goal does not say what goes in the commit, or `tried` holds the plan.
pub(crate) async fn commit_plan(
    goal: &str,
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    if names_place_besides_amend(goal) {
        // A branch, a merge, a tag: more than staging and committing.
        return None;
    }
    let (message, check) = commit_subject(goal)?;
    // The message check fails, and nothing else does that the commit
    // would not fix: "nothing left uncommitted" (detected beside a message
    // that cannot prove the goal alone) fails until the commit is made.
    let failing: Vec<&CheckResult> = results.iter().filter(|r| !r.passed).collect();
    let fixed_by_commit =
        |r: &&CheckResult| r.command == check || r.command == crate::checks::COMMIT_CHECK;
    if !failing.iter().any(|r| r.command == check) || !failing.iter().all(fixed_by_commit) {
        return None;
    }
    let mut changed = crate::git::uncommitted_paths(workspace).await;
    changed.sort();
    if names_amend(goal) {
        return amend_plan(goal, &message, &changed, tried);
    }
    // Files the goal asks to bring back are what the commit holds, even
    // in a sentence that also says "without" or "can't" about something.
    let restored: Vec<String> = crate::checks::restore::restore_goals(goal, workspace)
        .into_iter()
        .map(|restore| restore.path)
        .filter(|path| changed.contains(path))
        .collect();
    let staged = match staging(goal, &changed) {
        Some(Staging::Only(mut paths)) => {
            paths.extend(restored);
            paths.sort();
            paths.dedup();
            Staging::Only(paths)
        }
        Some(Staging::All { left_out }) => Staging::All {
            left_out: left_out
                .into_iter()
                .filter(|p| !restored.contains(p))
                .collect(),
        },
        None if !restored.is_empty() => Staging::Only(restored),
        None => return None,
    };
    let only = matches!(staged, Staging::Only(_));
    let paths = staged.paths(&changed);
    if paths.is_empty() || paths.len() > MAX_PATHS {
        return None;
    }
    let quoted: Vec<String> = paths.iter().map(|p| single_quote(p)).collect();
    let quoted = quoted.join(" ");
    let commit = format!("git commit -q -m {}", single_quote(&message));
    let plan = vec![
        PlanStep::command(
            format!("Stage what the goal asks to commit: {}", paths.join(", ")),
            format!("git add -A -- {quoted}"),
        ),
        if only {
            PlanStep::command(
                format!("Commit only those files, with the message the goal gives: {message}"),
                format!("{commit} -- {quoted}"),
            )
        } else {
            PlanStep::command(
                format!("Commit them with the message the goal gives: {message}"),
                commit,
            )
        },
    ];
    (!tried.contains(&plan)).then_some(plan)
}

/// The plan that rewrites the last commit's message to `message`: with
/// `--only` and no paths, what is staged stays out and the commit keeps
/// its changes exactly ("keep its changes as they are"); when the goal
/// names uncommitted paths to add (or says "all my changes"), those are
/// staged and amended in. Found on dev: the planner wrote the new
/// message as an edit of the code, four times.
fn amend_plan(
    goal: &str,
    message: &str,
    changed: &[String],
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let amend = format!("git commit --amend -q -m {}", single_quote(message));
    let paths = staging(goal, changed).map_or_else(Vec::new, |staged| staged.paths(changed));
    if paths.len() > MAX_PATHS {
        return None;
    }
    let plan = if paths.is_empty() {
        vec![PlanStep::command(
            format!("Amend the last commit's message to the one the goal gives ({message}), keeping its changes"),
            format!("git commit --amend --only -q -m {}", single_quote(message)),
        )]
    } else {
        let quoted: Vec<String> = paths.iter().map(|p| single_quote(p)).collect();
        vec![
            PlanStep::command(
                format!(
                    "Stage what the goal asks to add to the last commit: {}",
                    paths.join(", ")
                ),
                format!("git add -A -- {}", quoted.join(" ")),
            ),
            PlanStep::command(
                format!(
                    "Amend the last commit with them and the message the goal gives: {message}"
                ),
                amend,
            ),
        ]
    };
    (!tried.contains(&plan)).then_some(plan)
}

/// What the goal says goes in the commit, among the `changed` paths.
fn staging(goal: &str, changed: &[String]) -> Option<Staging> {
    let (sentence_end, leave_out) = (SENTENCE_END.as_ref()?, LEAVE_OUT.as_ref()?);
    let mut named = BTreeSet::new();
    let mut left_out = BTreeSet::new();
    let mut all = false;
    for sentence in sentence_end.split(goal) {
        let excluding = leave_out.is_match(sentence);
        if !excluding && ALL_CHANGES.as_ref()?.is_match(sentence) {
            all = true;
        }
        for word in path_words(sentence) {
            let dir = word.trim_end_matches('/');
            for path in changed
                .iter()
                .filter(|path| path.as_str() == dir || path.starts_with(&format!("{dir}/")))
            {
                if excluding {
                    left_out.insert(path.clone());
                } else {
                    named.insert(path.clone());
                }
            }
        }
    }
    if all {
        return Some(Staging::All {
            left_out: left_out.into_iter().collect(),
        });
    }
    let only: Vec<String> = named.difference(&left_out).cloned().collect();
    (!only.is_empty()).then_some(Staging::Only(only))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::clauses::commit_message_check;
    use crate::checks::{test_git, test_repo, test_result as result};

    fn changed(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn all_my_changes_stages_everything() {
        let goal = "Commit all my current changes, including the new files, in one commit with the message 'Add greeting'.";
        assert_eq!(
            staging(goal, &changed(&["greet.py", "templates/greeting.txt"])),
            Some(Staging::All { left_out: vec![] })
        );
    }

    #[test]
    fn named_files_are_staged_and_a_file_to_leave_out_is_not() {
        let goal = "Commit my changes to parse.py and README.md together as one commit with the message 'Handle quoted fields'. notes.txt is my scratch file: leave it out of the commit, and don't delete it.";
        assert_eq!(
            staging(goal, &changed(&["README.md", "notes.txt", "parse.py"])),
            Some(Staging::Only(changed(&["README.md", "parse.py"])))
        );
        // Named but not changed: nothing to stage, the planner decides.
        assert_eq!(staging(goal, &changed(&["other.py"])), None);
    }

    #[test]
    fn a_sentence_that_also_excludes_stages_nothing_it_names() {
        let goal = "Commit a.py but not b.py with the message 'A'.";
        assert_eq!(staging(goal, &changed(&["a.py", "b.py"])), None);
        let goal = "Commit all the changes with the message 'A'. Leave b.py out.";
        assert_eq!(
            staging(goal, &changed(&["a.py", "b.py"])),
            Some(Staging::All {
                left_out: changed(&["b.py"])
            })
        );
    }

    #[tokio::test]
    async fn a_goal_that_names_a_branch_gets_no_harness_commit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_git(root, &["init", "-q"]);
        std::fs::write(root.join("a.py"), "a = 1\n").unwrap();
        let goal = "Create the branch feature/csv, commit all my changes there with the message 'Add CSV'.";
        let results = [result(&commit_message_check("Add CSV"), false)];
        assert!(commit_plan(goal, &results, root, &[]).await.is_none());
    }

    #[tokio::test]
    async fn a_file_brought_back_is_committed_whatever_its_sentence_says() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_repo(root, &[("rates.json", "{}\n")]);
        test_git(root, &["rm", "-q", "rates.json"]);
        test_git(root, &["commit", "-qm", "Clean up"]);
        test_git(root, &["checkout", "HEAD~1", "--", "rates.json"]);
        std::fs::write(root.join("scratch.txt"), "x\n").unwrap();
        // "can't" and "without" would leave rates.json out of the commit.
        let goal = "I deleted rates.json by mistake and the app can't start. Bring it back \
                    in a new commit with the message 'Restore rates.json', without rewriting history.";
        let results = [result(&commit_message_check("Restore rates.json"), false)];
        let plan = commit_plan(goal, &results, root, &[]).await.unwrap();
        assert_eq!(
            plan[1].command.as_deref(),
            Some("git commit -q -m 'Restore rates.json' -- 'rates.json'")
        );
    }

    #[tokio::test]
    async fn an_amend_rewrites_the_message_and_keeps_the_commit_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_git(root, &["init", "-q"]);
        std::fs::write(root.join("pager.py"), "a = 1\n").unwrap();
        test_git(root, &["add", "-A"]);
        test_git(root, &["commit", "-qm", "start"]);
        std::fs::write(root.join("pager.py"), "a = 2\n").unwrap();
        test_git(root, &["commit", "-qam", "Fix paginaton offest"]);
        // Staged but not the goal's: must stay out of the commit.
        std::fs::write(root.join("other.py"), "x\n").unwrap();
        test_git(root, &["add", "other.py"]);
        let goal = "The message of my last commit has typos. Change it to 'Fix pagination offset' by amending that commit (no extra commit), keeping its changes exactly as they are. Afterwards `git log -1 --format=%s` should print `Fix pagination offset`.";
        let (message, check) = commit_subject(goal).unwrap();
        assert_eq!(message, "Fix pagination offset");
        let results = [result(&check, false)];
        let plan = commit_plan(goal, &results, root, &[]).await.unwrap();
        assert_eq!(
            plan.iter()
                .map(|s| s.command.clone().unwrap())
                .collect::<Vec<_>>(),
            ["git commit --amend --only -q -m 'Fix pagination offset'"]
        );
        for step in &plan {
            let run = crate::checks::test_bash(root, step.command.as_deref().unwrap());
            assert!(run.status.success(), "{run:?}");
        }
        let log = std::process::Command::new("git")
            .args(["log", "--format=%s", "--name-only"])
            .current_dir(root)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&log.stdout),
            "Fix pagination offset\n\npager.py\nstart\n\npager.py\n",
            "one commit rewritten, other.py not in it"
        );
        assert!(
            commit_plan(goal, &results, root, &[plan]).await.is_none(),
            "a plan that was tried is not made again"
        );
        let no_amend = "Change the message to 'X' and merge it into main.";
        let results = [result(&commit_message_check("X"), false)];
        assert!(commit_plan(no_amend, &results, root, &[]).await.is_none());
    }

    #[test]
    fn a_named_directory_stages_the_changes_under_it() {
        let goal = "Commit the docs/ changes with the message 'Docs'.";
        assert_eq!(
            staging(goal, &changed(&["docs/a.md", "docs/b.md", "src/x.rs"])),
            Some(Staging::Only(changed(&["docs/a.md", "docs/b.md"])))
        );
    }

    #[tokio::test]
    async fn the_plan_commits_only_the_named_files_when_only_the_message_check_fails() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_git(root, &["init", "-q"]);
        // rebound's own directory, ignored: never named to git add.
        std::fs::write(root.join(".gitignore"), ".rebound/\n").unwrap();
        std::fs::create_dir(root.join(".rebound")).unwrap();
        std::fs::write(root.join(".rebound/run.db"), "x").unwrap();
        std::fs::write(root.join("a.py"), "a = 1\n").unwrap();
        std::fs::write(root.join("notes.txt"), "old\n").unwrap();
        test_git(root, &["add", "-A"]);
        test_git(root, &["commit", "-qm", "start"]);
        std::fs::write(root.join("a.py"), "a = 2\n").unwrap();
        std::fs::write(root.join("b.py"), "b = 1\n").unwrap();
        std::fs::write(root.join("notes.txt"), "new\n").unwrap();
        // Staged already, not named: stays out of the commit.
        test_git(root, &["add", "notes.txt"]);
        let goal = "Commit a.py and b.py with the message 'Set a and b'.";
        let check = commit_message_check("Set a and b");

        let other_fails = [result(&check, false), result("python3 -m unittest", false)];
        assert!(commit_plan(goal, &other_fails, root, &[]).await.is_none());
        // Nothing left uncommitted fails too until the commit: a commit
        // fixes that one as well.
        let unclean = [
            result(&check, false),
            result(crate::checks::COMMIT_CHECK, false),
        ];
        assert!(commit_plan(goal, &unclean, root, &[]).await.is_some());
        let only_unclean = [
            result(&check, true),
            result(crate::checks::COMMIT_CHECK, false),
        ];
        assert!(
            commit_plan(goal, &only_unclean, root, &[]).await.is_none(),
            "the message is right already"
        );

        let results = [result(&check, false), result("python3 -m unittest", true)];
        let plan = commit_plan(goal, &results, root, &[]).await.unwrap();
        assert_eq!(
            plan[0].command.as_deref(),
            Some("git add -A -- 'a.py' 'b.py'")
        );
        run_steps(root, &plan);
        let shown = std::process::Command::new("git")
            .args(["show", "--name-only", "--format=%s", "HEAD"])
            .current_dir(root)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&shown.stdout).trim(),
            "Set a and b\n\na.py\nb.py"
        );
        let check_run = std::process::Command::new("bash")
            .args(["-c", &check])
            .current_dir(root)
            .status()
            .unwrap();
        assert!(check_run.success());
        // Tried once: not planned again.
        assert!(commit_plan(goal, &results, root, &[plan]).await.is_none());

        // "all my changes": everything git status lists, notes.txt too.
        std::fs::write(root.join("b.py"), "b = 2\n").unwrap();
        std::fs::write(root.join("c.py"), "c = 1\n").unwrap();
        let goal = "Commit all my changes with the message 'More'.";
        let results = [result(&commit_message_check("More"), false)];
        let plan = commit_plan(goal, &results, root, &[]).await.unwrap();
        assert_eq!(
            plan[0].command.as_deref(),
            Some("git add -A -- 'b.py' 'c.py' 'notes.txt'")
        );
        assert_eq!(plan[1].command.as_deref(), Some("git commit -q -m 'More'"));
        run_steps(root, &plan);
        let status = std::process::Command::new("git")
            .args(["status", "--porcelain"])
            .current_dir(root)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&status.stdout), "");
    }

    fn run_steps(root: &std::path::Path, plan: &[PlanStep]) {
        for step in plan {
            let status = std::process::Command::new("bash")
                .args(["-c", step.command.as_deref().unwrap()])
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@localhost")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@localhost")
                .current_dir(root)
                .status()
                .unwrap();
            assert!(status.success(), "{step:?}");
        }
    }
}
