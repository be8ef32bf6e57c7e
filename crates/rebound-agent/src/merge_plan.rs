//! The harness's plan for a merge git stopped with conflicts, when the
//! goal asks to keep both sides ("resolve it keeping both sides", "keep
//! both changes"): each conflicted file is merged again, line by line,
//! from the three versions git keeps in the index (the common ancestor,
//! ours, theirs). Git refuses changes to adjacent lines as a conflict;
//! here each side's change to the ancestor is applied when no line is
//! changed by both, so "main raised the timeout on one line, the branch
//! added retries on the next" becomes both. A file where both sides
//! changed the same lines differently gets no plan (the planner's). The
//! resolved files are written, `git add`ed, and the merge committed
//! (`git commit --no-edit`, git's own message) when the goal asks to
//! finish it or to commit. Found on dev: a conflict the model was asked
//! to edit took the run's whole budget with no progress.

use std::ops::Range;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use similar::{capture_diff_slices, Algorithm, DiffTag};

use crate::checks::clauses::{safe_path, single_quote};
use crate::git::git;
use crate::PlanStep;

/// "keeping both sides", "keep both changes", "all changes from both
/// branches", "combine the changes".
static KEEP_BOTH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bkeep(?:s|ing)?\s+(?:the\s+)?both\b|\bboth\s+(?:sides|changes|versions|branches|edits)\b|\bfrom\s+both\b|\bcombin(?:e|es|ing)\s+(?:the\s+|their\s+)?changes\b",
    )
    .ok()
});

/// The largest resolved file the plan writes, in bytes (it goes into a
/// command).
const MAX_FILE_BYTES: usize = 16 * 1024;

/// Most conflicted files the plan resolves.
const MAX_FILES: usize = 8;

/// The merge plan for `goal` in `workspace`; `None` when no merge stopped
/// with conflicts, the goal does not ask to keep both sides, a file's
/// sides changed the same lines, or `tried` holds the plan.
pub(crate) async fn merge_plan(
    goal: &str,
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    if !KEEP_BOTH.as_ref()?.is_match(goal) {
        return None;
    }
    git(workspace, &["rev-parse", "-q", "--verify", "MERGE_HEAD"])
        .await
        .ok()?;
    let unmerged = git(workspace, &["diff", "--name-only", "--diff-filter=U"])
        .await
        .ok()?;
    let files: Vec<&str> = unmerged.lines().filter(|l| !l.is_empty()).collect();
    if files.is_empty() || files.len() > MAX_FILES || !files.iter().all(|f| safe_path(f)) {
        return None;
    }
    let mut plan = Vec::new();
    for file in &files {
        let mut versions = Vec::new();
        for stage in 1..=3 {
            let text = git(workspace, &["show", &format!(":{stage}:{file}")])
                .await
                .ok()?;
            // `git` trims its output's end: every version gets one final
            // newline back, so the three compare alike.
            versions.push(format!("{text}\n"));
        }
        let merged = merge_lines(&versions[0], &versions[1], &versions[2])?;
        if merged.len() > MAX_FILE_BYTES {
            return None;
        }
        plan.push(PlanStep::command(
            format!("Resolve the conflict in {file}: both sides' changes, line by line"),
            format!("printf '%s' {} > {file}", single_quote(&merged)),
        ));
    }
    plan.push(PlanStep::command(
        format!("Mark {} resolved", files.join(", ")),
        format!("git add -- {}", files.join(" ")),
    ));
    if crate::checks::merge::finishes_merge(goal) {
        plan.push(PlanStep::command(
            "Commit the merge with git's own message".to_string(),
            "git commit --no-edit".to_string(),
        ));
    }
    (!tried.contains(&plan)).then_some(plan)
}

/// One side's change to the ancestor: its lines `range` replaced by
/// `lines`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Change<'a> {
    range: Range<usize>,
    lines: Vec<&'a str>,
}

/// `side`'s changes to `base`, each a run of changed lines.
fn changes<'a>(base: &[&'a str], side: &[&'a str]) -> Vec<Change<'a>> {
    let mut found: Vec<Change<'a>> = Vec::new();
    let mut joined = false;
    for op in capture_diff_slices(Algorithm::Myers, base, side) {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            joined = false;
            continue;
        }
        match found.last_mut() {
            Some(last) if joined && last.range.end == old.start => {
                last.range.end = old.end;
                last.lines.extend_from_slice(&side[new]);
            }
            _ => found.push(Change {
                range: old,
                lines: side[new].to_vec(),
            }),
        }
        joined = true;
    }
    found
}

/// `ours` and `theirs` merged over `base`, line by line: every change of
/// each side applied; `None` when both change (or insert at) the same
/// lines differently.
pub(crate) fn merge_lines(base: &str, ours: &str, theirs: &str) -> Option<String> {
    let base: Vec<&str> = base.split_inclusive('\n').collect();
    let ours: Vec<&str> = ours.split_inclusive('\n').collect();
    let theirs: Vec<&str> = theirs.split_inclusive('\n').collect();
    let mut all = changes(&base, &ours);
    all.extend(changes(&base, &theirs));
    all.sort_by_key(|c| (c.range.start, c.range.end));
    all.dedup();
    for pair in all.windows(2) {
        let (first, next) = (&pair[0], &pair[1]);
        if next.range.start == first.range.start || next.range.start < first.range.end {
            return None;
        }
    }
    let mut merged = String::new();
    let mut at = 0;
    for change in &all {
        merged.extend(base[at..change.range.start].iter().copied());
        merged.extend(change.lines.iter().copied());
        at = change.range.end;
    }
    merged.extend(base[at..].iter().copied());
    Some(merged)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::{test_bash as bash, test_git};

    #[test]
    fn changes_to_adjacent_lines_are_both_kept() {
        let base = "A = 1\nTIMEOUT = 10\nRETRIES = 0\nB = 2\n";
        let ours = "A = 1\nTIMEOUT = 30\nRETRIES = 0\nB = 2\n";
        let theirs = "A = 1\nTIMEOUT = 10\nRETRIES = 3\nBACKOFF = 1.5\nB = 2\n";
        assert_eq!(
            merge_lines(base, ours, theirs).unwrap(),
            "A = 1\nTIMEOUT = 30\nRETRIES = 3\nBACKOFF = 1.5\nB = 2\n"
        );
        assert_eq!(
            merge_lines(base, ours, ours).unwrap(),
            ours,
            "the same change on both sides is made once"
        );
        assert_eq!(
            merge_lines(base, ours, "A = 1\nTIMEOUT = 20\nRETRIES = 0\nB = 2\n"),
            None,
            "one line changed two ways"
        );
        assert_eq!(
            merge_lines("x\n", "x\na\n", "x\nb\n"),
            None,
            "two insertions at one place"
        );
    }

    #[tokio::test]
    async fn a_stopped_merge_is_resolved_added_and_committed() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let script = "git init -q -b main && printf 'A = 1\\nT = 10\\nR = 0\\n' > s.py && git add s.py && git commit -qm base \
            && git checkout -qb retry && printf 'A = 1\\nT = 10\\nR = 3\\nB = 1.5\\n' > s.py && git commit -qam retry \
            && git checkout -q main && printf 'A = 1\\nT = 30\\nR = 0\\n' > s.py && git commit -qam timeout \
            && ! git merge -q retry";
        assert!(bash(ws, script).status.success());
        let goal = "Resolve the conflict keeping both sides, then finish the merge.";
        let plan = merge_plan(goal, ws, &[]).await.unwrap();
        assert_eq!(plan.len(), 3);
        assert_eq!(
            merge_plan(goal, ws, std::slice::from_ref(&plan)).await,
            None,
            "tried"
        );
        assert_eq!(
            merge_plan("Resolve the conflict in s.py.", ws, &[]).await,
            None,
            "which side wins is not said"
        );
        for step in &plan {
            let output = bash(ws, step.command.as_deref().unwrap());
            assert!(output.status.success(), "{step:?}: {output:?}");
        }
        assert_eq!(
            std::fs::read_to_string(ws.join("s.py")).unwrap(),
            "A = 1\nT = 30\nR = 3\nB = 1.5\n"
        );
        test_git(ws, &["rev-parse", "-q", "--verify", "HEAD^2"]);
        assert_eq!(merge_plan(goal, ws, &[]).await, None, "no merge stopped");
    }
}
