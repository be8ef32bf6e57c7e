//! A merge git stopped with conflicts, found at the run's start
//! (`MERGE_HEAD` exists), and a goal about it ("resolve the conflict",
//! "finish the merge"): the check that it is resolved — no file left
//! unmerged, no conflict markers in the files that were — and, when the
//! goal asks to finish or commit it, concluded: no merge in progress, and
//! `HEAD` a merge commit of the commit that was being merged. A goal
//! that aborts the merge gets none.
//!
//! A condition, never evidence alone: a resolution without markers may
//! still have dropped a side's change. Found on dev: a stopped merge had
//! no check at all, so nothing said what was left to do.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::phrases::single_quote;
use crate::git::git_blocking;

/// The rule's name.
pub const RULE_MERGE: &str = "merge resolved";

/// A goal about a merge or a conflict.
static ABOUT_MERGE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\bmerg(?:e|es|ed|ing)\b|\bconflict").ok());

/// A goal that gives the merge up.
static ABORT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\babort|\bcancel|\bundo\b|\bback\s+out|\bgive\s+up\b|--abort").ok()
});

/// "finish the merge", "commit": the merge is to be committed.
static FINISH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\bcommit|\b(?:finish|complete|conclude)\w*\s+(?:the\s+|this\s+)?merge\b").ok()
});

/// Whether `goal` asks for the merge to be committed ("finish the
/// merge", "commit").
pub(crate) fn finishes_merge(goal: &str) -> bool {
    FINISH.as_ref().is_some_and(|r| r.is_match(goal))
}

/// Most conflicted files the check names.
const MAX_FILES: usize = 50;

/// The check of the stopped merge in `workspace` that `goal` is about;
/// `None` when no merge stopped or the goal aborts it.
pub fn merge_check(goal: &str, workspace: &Path) -> Option<String> {
    if !ABOUT_MERGE.as_ref()?.is_match(goal) || ABORT.as_ref()?.is_match(goal) {
        return None;
    }
    let merging = git_blocking(workspace, &["rev-parse", "-q", "--verify", "MERGE_HEAD"]).ok()?;
    if merging.len() < 40 || !merging.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let unmerged = git_blocking(workspace, &["diff", "--name-only", "--diff-filter=U"]).ok()?;
    let files: Vec<String> = unmerged
        .lines()
        .filter(|line| !line.is_empty())
        .take(MAX_FILES)
        .map(single_quote)
        .collect();
    let mut check = String::from(
        "test -z \"$(git diff --name-only --diff-filter=U)\" || { echo 'files are still unmerged (resolve them, then git add them):'; git diff --name-only --diff-filter=U; exit 1; }",
    );
    if !files.is_empty() {
        check.push_str(&format!(
            " && ! grep -snE '^(<<<<<<<|>>>>>>>)( |$)' -- {} || {{ echo 'conflict markers are left in the lines above'; exit 1; }}",
            files.join(" ")
        ));
    }
    if finishes_merge(goal) {
        check.push_str(&format!(
            " && {{ ! git rev-parse -q --verify MERGE_HEAD >/dev/null || {{ echo 'the merge is still in progress: commit it (git commit --no-edit)'; exit 1; }}; }} && {{ test \"$(git rev-parse -q --verify 'HEAD^2')\" = {merging} || {{ echo 'HEAD is not the merge commit of {merging}'; exit 1; }}; }}"
        ));
    }
    Some(check)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::test_bash as bash;

    fn stopped_merge() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let script = "git init -q -b main && printf 'T = 10\\nR = 0\\n' > s.py && git add s.py && git commit -qm base \
            && git checkout -qb retry && printf 'T = 10\\nR = 3\\n' > s.py && git commit -qam retry \
            && git checkout -q main && printf 'T = 30\\nR = 0\\n' > s.py && git commit -qam timeout \
            && ! git merge -q retry";
        assert!(bash(dir.path(), script).status.success());
        dir
    }

    fn run(dir: &Path, check: &str) -> (bool, String) {
        let output = bash(dir, check);
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).trim().to_string(),
        )
    }

    #[test]
    fn a_stopped_merge_is_checked_until_it_is_committed() {
        let dir = stopped_merge();
        let ws = dir.path();
        let check = merge_check("Resolve the conflict and finish the merge.", ws).unwrap();
        assert_eq!(
            run(ws, &check),
            (
                false,
                "files are still unmerged (resolve them, then git add them):\ns.py".into()
            )
        );
        assert!(bash(ws, "git add s.py").status.success());
        let (passed, said) = run(ws, &check);
        assert!(!passed);
        assert!(said.starts_with("1:<<<<<<< HEAD"), "{said}");
        assert!(said.ends_with("conflict markers are left in the lines above"));
        assert!(
            bash(ws, "printf 'T = 30\\nR = 3\\n' > s.py && git add s.py")
                .status
                .success()
        );
        assert_eq!(
            run(ws, &check),
            (
                false,
                "the merge is still in progress: commit it (git commit --no-edit)".into()
            )
        );
        assert!(bash(ws, "git commit -q --no-edit").status.success());
        assert_eq!(run(ws, &check), (true, String::new()));
    }

    #[test]
    fn a_stopped_merge_is_never_settled_by_a_clean_tree() {
        let dir = stopped_merge();
        let checks = crate::checks::resolve(
            &[],
            &[],
            "Resolve the conflict keeping both sides, then commit the merge.",
            dir.path(),
        );
        assert!(!checks.is_empty());
        assert!(
            checks.iter().all(|c| c.source.is_weak()),
            "only conditions: {checks:?}"
        );
    }

    #[test]
    fn no_stopped_merge_or_an_abort_has_no_check() {
        let dir = stopped_merge();
        assert_eq!(merge_check("Abort the merge.", dir.path()), None);
        assert_eq!(merge_check("Fix calc.py.", dir.path()), None);
        let resolve = merge_check("Resolve the conflict in s.py.", dir.path()).unwrap();
        assert!(!resolve.contains("HEAD^2"), "not asked to commit");
        let clean = tempfile::tempdir().unwrap();
        assert!(bash(clean.path(), "git init -q").status.success());
        assert_eq!(
            merge_check("Resolve the merge conflict.", clean.path()),
            None
        );
    }
}
