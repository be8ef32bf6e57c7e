//! Mutants that make a change the run has already made once, again in the
//! span being edited: the same bug is often in more than one place (a
//! setting in milliseconds read as seconds by two callers, an attribute
//! renamed in one function and not its sibling). A line the run changed
//! (`git diff` of the work tree) gives the smallest snippet that changed,
//! widened to whole names (`settings.TIMEOUT_MS` →
//! `settings.TIMEOUT_MS / 1000`); wherever the span has the old snippet
//! and not the new, a mutant has the new. Like every mutant it is kept
//! only when every check passes. Found on dev: the 1.5B fixed
//! `request_options` in one call, then failed `give_up_at`, the same
//! fix, with eight candidates.

use serde::{Deserialize, Serialize};

use super::mutate::Mutant;
use super::EditSpan;

/// The most changes replayed in one edit.
const MAX_CHANGES: usize = 3;

/// The shortest old snippet replayed (shorter ones match too much).
const MIN_SNIPPET_CHARS: usize = 3;

/// The longest line read from the diff.
const MAX_LINE_CHARS: usize = 400;

/// A change of a line: `old` became `new`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Change {
    /// The snippet before.
    pub(crate) old: String,
    /// The snippet after.
    pub(crate) new: String,
}

/// The changes of the work tree's lines not committed yet (`git diff`):
/// empty outside a git work tree or when it cannot be read.
pub(crate) async fn work_tree_changes(workspace: &std::path::Path) -> Vec<Change> {
    let diff = crate::git::git(
        workspace,
        &[
            "diff",
            "-U0",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--",
            ".",
            ":(exclude).rebound",
        ],
    )
    .await
    .unwrap_or_default();
    changes_of_diff(&diff)
}

/// The line changes of a `-U0` diff: in each hunk, the removed lines
/// paired with the added ones when they are as many.
fn changes_of_diff(diff: &str) -> Vec<Change> {
    let mut changes: Vec<Change> = Vec::new();
    let mut removed: Vec<&str> = Vec::new();
    let mut added: Vec<&str> = Vec::new();
    let mut flush = |removed: &mut Vec<&str>, added: &mut Vec<&str>| {
        if removed.len() == added.len() {
            for (old, new) in removed.iter().zip(added.iter()) {
                if let Some(change) = snippet(old, new) {
                    if !changes.contains(&change) {
                        changes.push(change);
                    }
                }
            }
        }
        removed.clear();
        added.clear();
    };
    for line in diff.lines() {
        if line.starts_with("---") || line.starts_with("+++") {
            flush(&mut removed, &mut added);
        } else if let Some(old) = line.strip_prefix('-') {
            if !added.is_empty() {
                flush(&mut removed, &mut added);
            }
            removed.push(old);
        } else if let Some(new) = line.strip_prefix('+') {
            added.push(new);
        } else {
            flush(&mut removed, &mut added);
        }
    }
    flush(&mut removed, &mut added);
    changes.truncate(MAX_CHANGES);
    changes
}

/// A character of a name (`settings.TIMEOUT_MS` is one).
fn in_name(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

/// The smallest snippet of `old` that `new` changed, widened to whole
/// names at both ends; `None` when the lines are the same, too long, or
/// the old snippet is too short to find again safely.
fn snippet(old: &str, new: &str) -> Option<Change> {
    if old == new || old.len() > MAX_LINE_CHARS || new.len() > MAX_LINE_CHARS {
        return None;
    }
    let o: Vec<char> = old.chars().collect();
    let n: Vec<char> = new.chars().collect();
    let mut start = o.iter().zip(&n).take_while(|(a, b)| a == b).count();
    let most = o.len().min(n.len()) - start;
    let mut same_end = o
        .iter()
        .rev()
        .zip(n.iter().rev())
        .take(most)
        .take_while(|(a, b)| a == b)
        .count();
    while start > 0 && in_name(o[start - 1]) {
        start -= 1;
    }
    while same_end > 0 && in_name(o[o.len() - same_end]) {
        same_end -= 1;
    }
    let old_snippet: String = o[start..o.len() - same_end].iter().collect();
    let new_snippet: String = n[start..n.len() - same_end].iter().collect();
    let kept =
        old_snippet.trim().chars().count() >= MIN_SNIPPET_CHARS && old_snippet != new_snippet;
    kept.then_some(Change {
        old: old_snippet,
        new: new_snippet,
    })
}

/// The mutants of `span` (in `original`, its file's text) that replay
/// `changes`: one per change that applies, with every line of the span
/// that has the old snippet as a whole (and not the new one) changed.
pub(crate) fn replay_mutants(original: &str, span: &EditSpan, changes: &[Change]) -> Vec<Mutant> {
    let mut mutants = Vec::new();
    for change in changes {
        let mut changed_lines = Vec::new();
        let text: Vec<String> = original
            .split_inclusive('\n')
            .enumerate()
            .map(|(i, line)| {
                let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
                if number < span.start_line || number > span.end_line || line.contains(&change.new)
                {
                    return line.to_string();
                }
                match replaced(line, &change.old, &change.new) {
                    Some(new_line) => {
                        changed_lines.push(number);
                        new_line
                    }
                    None => line.to_string(),
                }
            })
            .collect();
        if let Some(first) = changed_lines.first() {
            mutants.push(Mutant {
                text: text.concat(),
                change: format!(
                    "line {first}: `{}` → `{}` (the change the run made elsewhere)",
                    change.old.trim(),
                    change.new.trim()
                ),
            });
        }
    }
    mutants
}

/// `line` with every whole occurrence of `old` (not part of a longer
/// name) replaced by `new`; `None` when there is none.
fn replaced(line: &str, old: &str, new: &str) -> Option<String> {
    let mut out = String::with_capacity(line.len() + new.len());
    let mut rest = line;
    let mut found = false;
    while let Some(at) = rest.find(old) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + old.len()..].chars().next();
        let starts_name = old.chars().next().is_some_and(in_name);
        let ends_name = old.chars().next_back().is_some_and(in_name);
        let inside_a_name = (starts_name && before.is_some_and(in_name))
            || (ends_name && after.is_some_and(in_name));
        let whole = !inside_a_name;
        out.push_str(&rest[..at]);
        if whole {
            out.push_str(new);
            found = true;
        } else {
            out.push_str(old);
        }
        rest = &rest[at + old.len()..];
    }
    out.push_str(rest);
    found.then_some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn span(start: u32, end: u32) -> EditSpan {
        EditSpan {
            file: "worker.py".to_string(),
            start_line: start,
            end_line: end,
            label: String::new(),
            text: String::new(),
            language: None,
            exists: true,
        }
    }

    #[test]
    fn the_smallest_changed_snippet_is_widened_to_whole_names() {
        let change = snippet(
            "    return {\"url\": url, \"timeout\": settings.TIMEOUT_MS, \"retries\": 2}",
            "    return {\"url\": url, \"timeout\": settings.TIMEOUT_MS / 1000, \"retries\": 2}",
        )
        .unwrap();
        assert_eq!(change.old, "settings.TIMEOUT_MS");
        assert_eq!(change.new, "settings.TIMEOUT_MS / 1000");
        let change = snippet("    return b - a", "    return a - b").unwrap();
        assert_eq!(
            (change.old.as_str(), change.new.as_str()),
            ("b - a", "a - b")
        );
        let change = snippet("x = user.nmae", "x = user.name").unwrap();
        assert_eq!(
            (change.old.as_str(), change.new.as_str()),
            ("user.nmae", "user.name")
        );
        assert_eq!(snippet("a = 1", "a = 1"), None);
        assert_eq!(snippet("a = 1", "a = 2"), None, "too short to find again");
    }

    #[test]
    fn a_diff_gives_its_paired_line_changes() {
        let diff = "diff --git a/client.py b/client.py\n--- a/client.py\n+++ b/client.py\n@@ -8 +8 @@ def request_options(url):\n-    return {\"timeout\": settings.TIMEOUT_MS}\n+    return {\"timeout\": settings.TIMEOUT_MS / 1000}\n@@ -20,0 +21 @@\n+print('added')\n";
        assert_eq!(
            changes_of_diff(diff),
            vec![Change {
                old: "settings.TIMEOUT_MS".to_string(),
                new: "settings.TIMEOUT_MS / 1000".to_string(),
            }]
        );
    }

    #[test]
    fn the_change_is_replayed_in_the_span_only_on_whole_names() {
        let original = "import settings\n\n\ndef give_up_at(started):\n    return started + settings.TIMEOUT_MS\n\n\ndef other():\n    return settings.TIMEOUT_MS_MAX + settings.TIMEOUT_MS\n";
        let change = Change {
            old: "settings.TIMEOUT_MS".to_string(),
            new: "settings.TIMEOUT_MS / 1000".to_string(),
        };
        let found = replay_mutants(original, &span(4, 5), std::slice::from_ref(&change));
        assert_eq!(found.len(), 1);
        assert!(found[0]
            .text
            .contains("return started + settings.TIMEOUT_MS / 1000\n"));
        assert!(
            found[0]
                .text
                .contains("return settings.TIMEOUT_MS_MAX + settings.TIMEOUT_MS\n"),
            "outside the span: unchanged"
        );
        assert!(
            found[0].change.starts_with("line 5:"),
            "{}",
            found[0].change
        );
        let whole = replay_mutants(original, &span(1, 9), &[change]);
        assert!(whole[0]
            .text
            .contains("return settings.TIMEOUT_MS_MAX + settings.TIMEOUT_MS / 1000\n"));
        assert!(
            replay_mutants(original, &span(1, 2), &[]).is_empty(),
            "nothing to replay"
        );
    }
}
