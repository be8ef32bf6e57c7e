//! "Two unrelated changes are uncommitted: first commit only the
//! parse_timeout fix in fetch.py with the message 'A'; then commit
//! everything else as 'B'": uncommitted work split into two commits, the
//! first holding the changes inside a definition the goal names. Read at
//! the run's start: the file (the one changed file the first commit's
//! words name), the definitions of it they name, the file as the first
//! commit must hold it (the committed file with only the changed lines
//! that touch those definitions), and every changed file's content now.
//! The condition: two new commits on the start's `HEAD`, with the two
//! messages, the first changing only that file and holding it as read,
//! the second holding every changed file as it was (nothing edited on
//! the way), and nothing left uncommitted. [`crate::split_plan`] stages
//! the first commit's lines with `git update-index` (no interactive
//! `git add -p`) and commits both. Found on dev: everything was committed
//! under the first message (a false success, fixed by asking for no one
//! message), then the planner's plans never split the file.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use similar::{capture_diff_slices, Algorithm, DiffTag};

use super::clauses::asks_for_several_commits;
use super::phrases::{
    path_words, quoted_messages, quoted_value, safe_path, single_quote, MessageOwner, QUOTED_TEXT,
};
use crate::git::{blob_id, git_blocking};
use crate::localize::{named_definitions, parse_source, Language};

/// The rule's name.
pub const RULE_SPLIT: &str = "changes split into commits";

/// The second commit takes the rest: "everything else", "the rest".
static THE_REST: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\beverything\s+else\b|\bthe\s+rest\b|\ball\s+(?:the\s+)?(?:other|remaining)\b|\bremaining\s+changes\b|\beverything\s+(?:that\s+is\s+)?left\b").ok()
});

/// The second commit's message: "as 'B'", "with the message 'B'".
static SECOND_MESSAGE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:as|message(?:\s+is|\s+of)?:?|called|titled|named)\s+{QUOTED_TEXT}"
    ))
    .ok()
});

/// The largest file split, in bytes (its first version goes into the
/// plan's command).
const MAX_FILE_BYTES: usize = 16 * 1024;

/// The most changed files whose content the check pins.
const MAX_CHANGED: usize = 20;

/// Uncommitted work the goal splits into two commits, as read at the
/// start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// `HEAD` at the start (full id): the two commits go on it.
    pub base: String,
    /// The file the first commit takes part of.
    pub file: String,
    /// That file as the first commit holds it.
    pub first_content: String,
    /// Its blob id.
    pub first_blob: String,
    /// The first commit's message.
    pub first_message: String,
    /// The second commit's message.
    pub second_message: String,
    /// Each changed file and its blob id now (what the second commit
    /// holds).
    pub changed: Vec<(String, String)>,
}

/// The split `goal` asks for in `workspace`, read now; `None` unless the
/// goal asks for several commits with two messages, names one changed
/// file and a definition of it before the first message, and gives the
/// rest to the second; and unless that definition's lines hold some of
/// the changes but not all of them.
pub fn split_goal(goal: &str, workspace: &Path) -> Option<Split> {
    if !asks_for_several_commits(goal) {
        return None;
    }
    let first_message = quoted_messages(goal)
        .into_iter()
        .find_map(|(message, owner)| (owner == MessageOwner::Commit).then_some(message))?;
    let at = goal.find(first_message.as_str())?;
    let before = &goal[..at];
    // After the first message and its closing quote.
    let after = goal.get(at + first_message.len() + 1..)?;
    if !THE_REST.as_ref()?.is_match(after) {
        return None;
    }
    let second = SECOND_MESSAGE.as_ref()?.captures(after)?;
    let second_message = quoted_value(&second, 1)?.trim().to_string();
    if second_message.is_empty() || second_message == first_message {
        return None;
    }
    let base = git_blocking(workspace, &["rev-parse", "HEAD"]).ok()?;
    let base = base.trim().to_string();
    let changed = git_blocking(workspace, &["diff", "--name-only", "HEAD"]).ok()?;
    let untracked =
        git_blocking(workspace, &["ls-files", "--others", "--exclude-standard"]).ok()?;
    let changed: Vec<String> = changed
        .lines()
        .chain(untracked.lines())
        .filter(|f| !f.is_empty() && !f.starts_with(".rebound/"))
        .map(str::to_string)
        .collect();
    if changed.len() > MAX_CHANGED || !changed.iter().all(|f| safe_path(f)) {
        return None;
    }
    let mut named: Vec<&str> = path_words(before)
        .filter(|word| changed.iter().any(|f| f == word))
        .collect();
    named.sort_unstable();
    named.dedup();
    let [file] = named.as_slice() else {
        return None;
    };
    let file = (*file).to_string();
    let old = git_blocking(workspace, &["show", &format!("HEAD:{file}")]).ok()?;
    let new = std::fs::read_to_string(workspace.join(&file)).ok()?;
    if new.len() > MAX_FILE_BYTES {
        return None;
    }
    let first_content = first_version(before, &file, &old, &new)?;
    let mut pinned = Vec::new();
    for path in &changed {
        let blob = if workspace.join(path).is_file() {
            blob_id(workspace, &[], path)?
        } else {
            "-".to_string()
        };
        pinned.push((path.clone(), blob));
    }
    let first_blob = blob_of(workspace, &first_content)?;
    Some(Split {
        base,
        file,
        first_content,
        first_blob,
        first_message,
        second_message,
        changed: pinned,
    })
}

/// The file as the first commit holds it: `old` (as committed, `git`'s
/// trimmed output) with the changes of `new` that touch a definition
/// whose name `words` says; `None` when none does, or all of them do and
/// nothing else changed in it.
fn first_version(words: &str, file: &str, old: &str, new: &str) -> Option<String> {
    let language = Language::from_path(file)?;
    let tree = parse_source(language, new)?;
    let spans: Vec<(u32, u32)> = named_definitions(&tree, new, language)
        .into_iter()
        .map(|(_, span)| span)
        .filter(|span| names_word(words, &span.name))
        .map(|span| (span.start_line, span.end_line))
        .collect();
    if spans.is_empty() {
        return None;
    }
    // `git show` drops the final newline: give it back when the new file
    // has one, so an unchanged last line compares equal.
    let old = if new.ends_with('\n') && !old.ends_with('\n') {
        format!("{old}\n")
    } else {
        old.to_string()
    };
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = capture_diff_slices(Algorithm::Myers, &old_lines, &new_lines);
    let inside = |start: usize, len: usize| {
        // Lines from 1; a pure deletion is at the line after it.
        let (first, last) = (start + 1, start + len.max(1));
        spans.iter().any(|&(s, e)| {
            let (s, e) = (s as usize, e as usize);
            first <= e && last >= s
        })
    };
    let (mut text, mut kept, mut left) = (String::new(), 0usize, 0usize);
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            text.extend(old_lines[old_range].iter().copied());
        } else if inside(new_range.start, new_range.len()) {
            kept += 1;
            text.extend(new_lines[new_range].iter().copied());
        } else {
            left += 1;
            text.extend(old_lines[old_range].iter().copied());
        }
    }
    (kept > 0 && left > 0).then_some(text)
}

/// Whether `words` holds `name` as a whole word.
fn names_word(words: &str, name: &str) -> bool {
    !name.is_empty()
        && words.match_indices(name).any(|(at, _)| {
            let before = words[..at].chars().next_back();
            let after = words[at + name.len()..].chars().next();
            let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !part(before) && !part(after)
        })
}

/// The blob id of `content` in `workspace`'s repository (hashed from a
/// temporary file, without the repository's filters, as `git
/// hash-object -w --stdin` stores it in the plan; nothing is written).
fn blob_of(workspace: &Path, content: &str) -> Option<String> {
    let dir = tempfile::tempdir().ok()?;
    let path = dir.path().join("first");
    std::fs::write(&path, content).ok()?;
    blob_id(workspace, &["--no-filters"], &path.to_string_lossy())
}

/// The check of `split`: see the module's doc. It starts with a `:` line
/// naming the base, the file and its first version's blob, which
/// [`checked_split`] reads back.
pub fn split_check(split: &Split) -> String {
    let Split {
        base,
        file,
        first_blob,
        first_message,
        second_message,
        changed,
        ..
    } = split;
    let mut parts = vec![
        format!(": split {base} {file} {first_blob}"),
        format!(
            "test \"$(git rev-parse HEAD~2 2>/dev/null)\" = {base} || {{ echo 'two new commits must follow {base}; the history is:'; git log --format='%h %s' -4; exit 1; }}"
        ),
        format!(
            "test \"$(git log -1 --format=%s HEAD~1)\" = {} || {{ echo \"the first new commit's message must be {}\"; exit 1; }}",
            single_quote(first_message),
            first_message.replace(['"', '\\', '$', '`'], "")
        ),
        format!(
            "test \"$(git log -1 --format=%s HEAD)\" = {} || {{ echo \"the second new commit's message must be {}\"; exit 1; }}",
            single_quote(second_message),
            second_message.replace(['"', '\\', '$', '`'], "")
        ),
        format!(
            "test \"$(git diff --name-only HEAD~2 HEAD~1)\" = {file} || {{ echo 'the first commit must change {file} only; it changes:'; git diff --name-only HEAD~2 HEAD~1; exit 1; }}"
        ),
        format!(
            "test \"$(git rev-parse HEAD~1:{file})\" = {first_blob} || {{ echo 'the first commit must hold only the named change of {file}; it holds:'; git diff HEAD~2 HEAD~1 -- {file} | head -n 40; exit 1; }}"
        ),
    ];
    for (path, blob) in changed {
        if blob == "-" {
            parts.push(format!(
                "! git cat-file -e HEAD:{path} 2>/dev/null || {{ echo '{path} was deleted: the second commit must delete it too'; exit 1; }}"
            ));
        } else {
            parts.push(format!(
                "test \"$(git rev-parse HEAD:{path} 2>/dev/null)\" = {blob} || {{ echo '{path} must be committed as it was, unchanged'; exit 1; }}"
            ));
        }
    }
    parts.push(
        "test -z \"$(git status --porcelain --untracked-files=all | grep -v '^?? \\.rebound/')\" || { echo 'uncommitted changes are left:'; git status --short; exit 1; }"
            .to_string(),
    );
    parts.join("; ")
}

/// The base, file and first blob of a check made by [`split_check`].
pub fn checked_split(command: &str) -> Option<(String, String, String)> {
    static PARSED: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"^: split ([0-9a-f]{40,64}) (\S+) ([0-9a-f]{40,64});").ok());
    let found = PARSED.as_ref()?.captures(command)?;
    Some((
        found.get(1)?.as_str().to_string(),
        found.get(2)?.as_str().to_string(),
        found.get(3)?.as_str().to_string(),
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::test_bash as bash;

    pub(crate) const GOAL: &str = "I have two unrelated changes sitting uncommitted and want them as two separate commits. First commit only the parse_timeout fix in fetch.py (it now accepts values like 1.5) with the message 'Fix parsing of fractional timeouts'; then commit everything else, i.e. the new --dry-run option in fetch.py and README.md, as 'Add --dry-run option'. Don't change the code itself, just commit it.";

    pub(crate) const OLD: &str = "import argparse\n\n\ndef parse_timeout(text):\n    if text.endswith(\"m\"):\n        return int(text[:-1]) * 60\n    return int(text)\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n    parser.add_argument(\"--timeout\", type=parse_timeout)\n    args = parser.parse_args()\n    print(args.timeout)\n";

    pub(crate) const NEW: &str = "import argparse\n\n\ndef parse_timeout(text):\n    if text.endswith(\"m\"):\n        return float(text[:-1]) * 60\n    return float(text)\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n    parser.add_argument(\"--timeout\", type=parse_timeout)\n    parser.add_argument(\"--dry-run\", action=\"store_true\")\n    args = parser.parse_args()\n    if args.dry_run:\n        return\n    print(args.timeout)\n";

    /// A repository with `OLD` committed and `NEW` and a README change
    /// uncommitted.
    pub(crate) fn repo(ws: &Path) {
        std::fs::write(ws.join("fetch.py"), OLD).unwrap();
        std::fs::write(ws.join("README.md"), "# fetch\n").unwrap();
        let script = "git init -q && git config user.email a@b && git config user.name a \
            && git add . && git commit -qm first";
        assert!(bash(ws, script).status.success());
        std::fs::write(ws.join("fetch.py"), NEW).unwrap();
        std::fs::write(ws.join("README.md"), "# fetch\n\n--dry-run prints only.\n").unwrap();
    }

    #[test]
    fn the_first_commit_takes_the_changes_inside_the_named_definition() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        repo(ws);
        let split = split_goal(GOAL, ws).unwrap();
        assert_eq!(split.file, "fetch.py");
        assert_eq!(split.first_message, "Fix parsing of fractional timeouts");
        assert_eq!(split.second_message, "Add --dry-run option");
        assert_eq!(
            split.first_content,
            OLD.replace("int(text", "float(text"),
            "the fix, and nothing of --dry-run"
        );
        assert_eq!(split.changed.len(), 2);
        let check = split_check(&split);
        crate::checks::assert_not_forbidden(&check);
        assert_eq!(
            checked_split(&check),
            Some((
                split.base.clone(),
                split.file.clone(),
                split.first_blob.clone()
            ))
        );
        assert!(!bash(ws, &check).status.success());
    }

    #[test]
    fn the_check_passes_the_split_and_refuses_one_commit_or_an_edit() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        repo(ws);
        let check = split_check(&split_goal(GOAL, ws).unwrap());
        let after = |script: &str| crate::checks::test_check_after(ws, script, &check);
        let first = OLD.replace("int(text", "float(text");
        let right = format!(
            "cp fetch.py /tmp/keep.$$ && printf '%s' {} > fetch.py && git add fetch.py && git commit -qm 'Fix parsing of fractional timeouts' && mv /tmp/keep.$$ fetch.py && git add -A && git commit -qm 'Add --dry-run option'",
            single_quote(&first)
        );
        let out = after(&right);
        assert!(out.status.success(), "{out:?}");
        let one = after("git add -A && git commit -qm 'Fix parsing of fractional timeouts' && git commit -q --allow-empty -m 'Add --dry-run option'");
        assert!(!one.status.success());
        let edited =
            format!("{right} && echo x >> README.md && git commit -qam 'Add --dry-run option'");
        assert!(!after(&edited).status.success());
    }

    #[test]
    fn a_goal_without_two_messages_a_named_definition_or_the_rest_has_no_rule() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        repo(ws);
        for goal in [
            "Commit all my changes with the message 'Fix things'.",
            "First commit only the timeout change in fetch.py with the message 'A'; then commit everything else as 'B'.",
            "First commit only the parse_timeout fix in fetch.py with the message 'A'; then commit README.md as 'B'.",
        ] {
            assert_eq!(split_goal(goal, ws), None, "{goal}");
        }
    }
}
