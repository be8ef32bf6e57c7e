//! "My last commit also committed .env: fix that commit so .env is not in
//! it, add it to .gitignore, and don't delete my local .env" and "stop
//! tracking .env but keep it on disk": a tracked file leaves git and
//! stays on disk. Read at the run's start: the file (the one tracked file
//! the goal names, besides `.gitignore`), its content now (it must stay
//! as it is), whether `.gitignore` must ignore it, and whether the commit
//! that added it is rewritten (the file entered with `HEAD` and the goal
//! fixes that commit: "amend", "fix that commit", "not in any commit",
//! "in the same commit"). The condition: the file is not in the index,
//! its content unchanged on disk, ignored when asked, and for a rewrite
//! `HEAD` is a rewrite of the commit (same parent, same message, no
//! other file changed but `.gitignore`) with the file in no commit of any
//! ref. [`crate::untrack_plan`] does it with `git rm --cached` and
//! `git commit --amend --no-edit`. Found on dev: the planner's plans
//! were `git rm` (deleting the user's file) and new commits on top.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::phrases::path_words;
use crate::git::{blob_id, git_blocking, is_object_id};

/// The rule's name.
pub const RULE_UNTRACK: &str = "file untracked";

/// The file leaves git: "stop tracking", "untrack", "not be tracked",
/// "not in any commit", "remove it from git / the index".
static LEAVES_GIT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bstop\s+tracking\b|\buntrack\w*|\bno\s+longer\s+(?:be\s+)?tracked\b|\bnot\s+(?:be\s+)?tracked\b|\bnot\s+(?:be\s+)?in\s+(?:it|any\s+commits?|the\s+commit|that\s+commit|git|the\s+repo(?:sitory)?|the\s+index)\b|\b(?:remove|take|get|drop)\s+(?:it|\S+)\s+(?:out\s+of|from)\s+(?:git|the\s+repo(?:sitory)?|the\s+index|the\s+commit|that\s+commit|version\s+control)\b",
    )
    .ok()
});

/// The file stays on disk: "don't delete my local .env", "keep it on
/// disk", "keep the local copy", "I still need it".
static STAYS_ON_DISK: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:don'?t|do\s+not|never|without)\s+(?:delete|deleting|remove|removing|lose|losing)\s+(?:my|the|our)\s+(?:local\s+)?|\bkeep\w*\s+(?:it|the\s+file|my\s+(?:local\s+)?\S+|the\s+local\s+\S+|\S+)\s+(?:on\s+disk|locally|in\s+(?:my|the)\s+(?:working|work)\s+(?:tree|copy|directory))|\bkeep\w*\s+(?:the|my)\s+local\b|\bstill\s+need\s+it\b|\blocal\s+copy\b",
    )
    .ok()
});

/// The commit that added the file is rewritten, not followed by another.
static REWRITES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bamend\w*|\bfix\s+(?:that|the|this|my)\s+(?:last\s+)?commit\b|\bnot\s+(?:be\s+)?in\s+(?:any|that|the)\s+commits?\b|\bsame\s+commit\b|\brewrite\s+(?:that|the|my|this)\s+(?:last\s+)?commit\b",
    )
    .ok()
});

/// "add .env to .gitignore", "ignore it".
static IGNORED: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\.gitignore\b|\bignored?\b").ok());

/// A tracked file the goal takes out of git, as read at the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untrack {
    /// The file (a workspace-relative path).
    pub file: String,
    /// Its blob id on disk at the start, which it must keep; `None` when
    /// it was not on disk.
    pub content: Option<String>,
    /// Whether `.gitignore` must ignore it.
    pub ignore: bool,
    /// The commit that added it and its parent (full ids), when that
    /// commit is rewritten.
    pub rewrite: Option<(String, String)>,
}

/// What `goal` takes out of git in `workspace`, read now; `None` unless
/// the goal says the file leaves git and stays on disk, and names exactly
/// one tracked file besides `.gitignore`.
pub fn untrack_goal(goal: &str, workspace: &Path) -> Option<Untrack> {
    if !LEAVES_GIT.as_ref()?.is_match(goal) || !STAYS_ON_DISK.as_ref()?.is_match(goal) {
        return None;
    }
    let tracked = git_blocking(workspace, &["ls-files", "-z"]).ok()?;
    let tracked: Vec<&str> = tracked.split('\0').filter(|f| !f.is_empty()).collect();
    let mut named: Vec<&str> = path_words(goal)
        .map(|word| word.trim_end_matches('/'))
        .filter(|word| *word != ".gitignore" && tracked.contains(word))
        .collect();
    named.sort_unstable();
    named.dedup();
    let [file] = named.as_slice() else {
        return None;
    };
    let file = (*file).to_string();
    let content = workspace
        .join(&file)
        .is_file()
        .then(|| blob_id(workspace, &[], &file))
        .flatten();
    let rewrite = if REWRITES.as_ref()?.is_match(goal) {
        let ids = git_blocking(workspace, &["rev-list", "--parents", "-n", "1", "HEAD"]).ok()?;
        let ids: Vec<&str> = ids.split_whitespace().collect();
        let [head, parent] = ids.as_slice() else {
            return None;
        };
        // The file came with `HEAD`: in it, not in its parent.
        let in_parent = git_blocking(workspace, &["cat-file", "-e", &format!("{parent}:{file}")]);
        if in_parent.is_ok() || !is_object_id(head) || !is_object_id(parent) {
            return None;
        }
        Some((head.to_string(), parent.to_string()))
    } else {
        None
    };
    Some(Untrack {
        file,
        content,
        ignore: IGNORED.as_ref()?.is_match(goal),
        rewrite,
    })
}

/// The check of `untrack`: see the module's doc. It starts with a `:`
/// line naming what it checks, which [`checked_untrack`] reads back.
pub fn untrack_check(untrack: &Untrack) -> String {
    let file = &untrack.file;
    let mut parts = vec![format!(
        ": untrack {file} {} {} {}",
        untrack.content.as_deref().unwrap_or("-"),
        if untrack.ignore { "ignore" } else { "-" },
        untrack
            .rewrite
            .as_ref()
            .map_or("-".to_string(), |(head, parent)| format!("{head} {parent}"))
    )];
    parts.push(format!(
        "! git ls-files --error-unmatch -- {file} >/dev/null 2>&1 || {{ echo '{file} is still tracked (in the index): git rm --cached keeps it on disk'; exit 1; }}"
    ));
    if let Some(content) = &untrack.content {
        parts.push(format!(
            "test \"$(git hash-object -- {file} 2>/dev/null)\" = {content} || {{ echo '{file} must stay on disk as it was: it is gone or changed'; exit 1; }}"
        ));
    }
    if untrack.ignore {
        parts.push(format!(
            "git check-ignore -q --no-index -- {file} || {{ echo '.gitignore does not ignore {file}'; exit 1; }}"
        ));
    }
    if let Some((head, parent)) = &untrack.rewrite {
        parts.push(format!(
            "test \"$(git rev-parse HEAD^ 2>/dev/null)\" = {parent} || {{ echo 'the commit that added {file} ({head}) must be rewritten (amended), not followed by another: HEAD^ must be {parent}'; exit 1; }}"
        ));
        parts.push(format!(
            "test \"$(git log -1 --format=%B HEAD)\" = \"$(git log -1 --format=%B {head})\" || {{ echo 'the rewritten commit must keep its message'; exit 1; }}"
        ));
        parts.push(format!(
            "test -z \"$(git diff --name-only {head} HEAD -- . ':!{file}' ':!.gitignore')\" || {{ echo 'the rewritten commit must keep its other changes; it differs in:'; git diff --name-only {head} HEAD -- . ':!{file}' ':!.gitignore'; exit 1; }}"
        ));
        parts.push(format!(
            "for c in $(git rev-list --all); do ! git cat-file -e \"$c:{file}\" 2>/dev/null || {{ echo \"{file} is still in commit $(git log -1 --format='%h %s' $c)\"; exit 1; }}; done"
        ));
        if untrack.ignore {
            parts.push(
                "git diff --quiet HEAD -- .gitignore || { echo 'the .gitignore change must be in the rewritten commit'; exit 1; }"
                    .to_string(),
            );
        }
    }
    parts.join("; ")
}

/// The [`Untrack`] a check made by [`untrack_check`] is about.
pub fn checked_untrack(command: &str) -> Option<Untrack> {
    static PARSED: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"^: untrack (\S+) ([0-9a-f]{40,64}|-) (ignore|-) (?:([0-9a-f]{40,64}) ([0-9a-f]{40,64})|-);").ok()
    });
    let found = PARSED.as_ref()?.captures(command)?;
    let untrack = Untrack {
        file: found.get(1)?.as_str().to_string(),
        content: Some(found.get(2)?.as_str())
            .filter(|c| *c != "-")
            .map(str::to_string),
        ignore: found.get(3)?.as_str() == "ignore",
        rewrite: found
            .get(4)
            .zip(found.get(5))
            .map(|(head, parent)| (head.as_str().to_string(), parent.as_str().to_string())),
    };
    (untrack_check(&untrack) == command).then_some(untrack)
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::test_bash as bash;

    const AMEND: &str = "Oops: my last commit ('Read mail settings from .env') also committed the .env file with our SMTP password. Nothing is pushed yet. Fix that commit so .env is not in it (it must not be in any commit), and in the same commit add .env to .gitignore so this can't happen again. Keep the commit's message and its other changes as they are, and don't delete my local .env, I still need it.";

    /// A repository whose last commit added `.env` (and changed
    /// settings.py); `.gitignore` as `gitignore` has it.
    pub(crate) fn repo_with_ignore(ws: &Path, gitignore: &str) {
        std::fs::write(ws.join(".gitignore"), gitignore).unwrap();
        let script = "git init -q && git config user.email a@b && git config user.name a \
            && printf 'x = 1\\n' > settings.py \
            && git add . && git commit -qm first \
            && printf 'PASSWORD=secret\\n' > .env && printf 'x = 2\\n' > settings.py \
            && git add . && git commit -qm 'Read mail settings from .env'";
        assert!(bash(ws, script).status.success());
    }

    fn repo(ws: &Path) {
        repo_with_ignore(ws, "__pycache__/\n");
    }

    #[test]
    fn the_goal_names_the_file_its_content_and_the_commit_to_rewrite() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        repo(ws);
        let untrack = untrack_goal(AMEND, ws).unwrap();
        assert_eq!(untrack.file, ".env");
        assert!(untrack.ignore);
        assert!(untrack.content.is_some());
        let (head, parent) = untrack.rewrite.clone().unwrap();
        assert_eq!(head, git_blocking(ws, &["rev-parse", "HEAD"]).unwrap());
        assert_eq!(parent, git_blocking(ws, &["rev-parse", "HEAD^"]).unwrap());
        let check = untrack_check(&untrack);
        crate::checks::assert_not_forbidden(&check);
        assert_eq!(checked_untrack(&check), Some(untrack));
        assert!(!bash(ws, &check).status.success());
    }

    #[test]
    fn a_new_commit_that_stops_tracking_is_no_rewrite() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        repo(ws);
        let goal = "Stop tracking .env but keep it on disk, add it to .gitignore, and commit that with the message 'Stop tracking .env'.";
        let untrack = untrack_goal(goal, ws).unwrap();
        assert_eq!(untrack.file, ".env");
        assert_eq!(untrack.rewrite, None);
        let check = untrack_check(&untrack);
        assert!(!bash(ws, &check).status.success());
        assert!(bash(
            ws,
            "git rm -q --cached .env && echo .env >> .gitignore && git add .gitignore && git commit -qm 'Stop tracking .env'"
        )
        .status
        .success());
        assert!(bash(ws, &check).status.success(), "{check}");
    }

    #[test]
    fn the_check_refuses_a_deleted_file_a_new_commit_or_a_changed_message() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        repo(ws);
        let check = untrack_check(&untrack_goal(AMEND, ws).unwrap());
        let fails_after = |script: &str| {
            let out = crate::checks::test_check_after(ws, script, &check);
            assert!(!out.status.success(), "{script} passed");
            String::from_utf8_lossy(&out.stdout).to_string()
        };
        let deleted = fails_after("git rm -q .env && echo .env >> .gitignore && git add .gitignore && git commit -q --amend --no-edit");
        assert!(deleted.contains("must stay on disk"), "{deleted}");
        let new_commit = fails_after("git rm -q --cached .env && echo .env >> .gitignore && git add .gitignore && git commit -qm 'Remove .env'");
        assert!(new_commit.contains("must be rewritten"), "{new_commit}");
        let message = fails_after("git rm -q --cached .env && echo .env >> .gitignore && git add .gitignore && git commit -q --amend -m other");
        assert!(message.contains("keep its message"), "{message}");
        let not_ignored = fails_after("git rm -q --cached .env && git commit -q --amend --no-edit");
        assert!(not_ignored.contains("does not ignore"), "{not_ignored}");
    }

    #[test]
    fn goals_that_keep_the_file_in_git_or_delete_it_have_no_rule() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        repo(ws);
        for goal in [
            "Delete .env from the repository.",
            "Add a line to .env and commit it.",
            "Stop tracking the secrets file but keep it on disk.",
            // Work not committed yet is no file leaving git.
            "My settings.py changes are not committed yet: commit them, and don't delete my local copy.",
        ] {
            assert_eq!(untrack_goal(goal, ws), None, "{goal}");
        }
    }
}
