//! The tag a goal asks for ("tag the current commit as v1.2.0: an
//! annotated tag with the message 'Release 1.2.0'") and the check that
//! it exists as asked: the name, annotated or not, the message's subject,
//! and the commit it points at when the goal says "the current commit".
//!
//! The check is a condition, never evidence alone: a goal that tags after
//! other work ("bump VERSION and tag it") is done only when that work is,
//! which the tag does not show. Found on dev: no check or plan named the
//! tag, and the planner's tags were lightweight ones `git describe` does
//! not see.

use std::sync::LazyLock;

use regex::Regex;

use super::phrases::{quoted_messages, single_quote, MessageOwner};

/// The rule of "tag the current commit as vX".
pub const RULE_TAG: &str = "git tag";

/// A tag the goal asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TagGoal {
    /// The tag's name (`v1.2.0`).
    pub name: String,
    /// An annotated tag: the goal says "annotated" or gives it a message.
    pub annotated: bool,
    /// The message the goal gives the tag.
    pub message: Option<String>,
    /// The goal says the tag goes on the current commit.
    pub at_head: bool,
}

/// "tag the current commit as v1.2.0", "tag it `release-3`", "create a
/// tag named v2.0", "an annotated tag v1.0.1": the name is a quoted word
/// or a version (group 1 to 4, or 5).
static TAG_NAME: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\btag(?:ged)?\s+(?:(?:the\s+|this\s+)?(?:current|latest|last|newest|head|this)\s+commit\s+|it\s+|head\s+)?(?:as\s+|named\s+|called\s+)?(?:'([^'\s]+)'|"([^"\s]+)"|`([^`\s]+)`|“([^”\s]+)”|\b(v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.]+)?))"#,
    )
    .ok()
});

/// "the current commit", "the latest commit", "HEAD": the tag goes where
/// the branch is now.
static AT_HEAD: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:current|latest|last|newest|this)\s+commit\b|\bHEAD\b").ok()
});

/// "annotated".
static ANNOTATED: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"(?i)\bannotated\b").ok());

/// The tag `goal` asks for, when it names one git would accept.
pub(crate) fn tag_goal(goal: &str) -> Option<TagGoal> {
    let captures = TAG_NAME.as_ref()?.captures(goal)?;
    let name = (1..=5)
        .find_map(|i| captures.get(i))?
        .as_str()
        .trim_end_matches(['.', ',', ':', ';'])
        .to_string();
    if !valid_tag_name(&name) {
        return None;
    }
    let message = quoted_messages(goal)
        .into_iter()
        .find_map(|(message, owner)| (owner == MessageOwner::Tag).then_some(message));
    Some(TagGoal {
        annotated: message.is_some() || ANNOTATED.as_ref().is_some_and(|r| r.is_match(goal)),
        message,
        at_head: AT_HEAD.as_ref().is_some_and(|r| r.is_match(goal)),
        name,
    })
}

/// Whether `name` is a tag name git accepts and a shell word can carry:
/// letters, digits and `._-+/`, no `..`, not starting with `-` or `.`,
/// not ending with `.`, `/` or `.lock`.
fn valid_tag_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-+/".contains(c))
        && !name.contains("..")
        && !name.contains("//")
        && !name.starts_with(['-', '.', '/'])
        && !name.ends_with(['.', '/'])
        && !name.ends_with(".lock")
}

/// The check that the tag exists as `tag` says: it prints the tag's line
/// (`git tag -l -n1`), then tests its kind, its commit and its message's
/// subject, with read-only git commands and `grep` only (no command
/// substitution, which the approval policy cannot judge before it runs).
pub(crate) fn tag_check(tag: &TagGoal) -> String {
    let name = single_quote(&tag.name);
    let reference = single_quote(&format!("refs/tags/{}", tag.name));
    let mut tests = Vec::new();
    if tag.annotated {
        tests.push(format!("git cat-file -t {reference} | grep -qx tag"));
    } else {
        tests.push(format!("git rev-parse -q --verify {reference} >/dev/null"));
    }
    if tag.at_head {
        tests.push(format!(
            "git tag -l --points-at HEAD {name} | grep -qxF {name}"
        ));
    }
    if let Some(message) = &tag.message {
        let subject = message.lines().next().unwrap_or_default();
        tests.push(format!(
            "git for-each-ref --format='%(contents:subject)' {reference} | grep -qxF -e {}",
            single_quote(subject)
        ));
    }
    format!("git tag -l -n1 {name}; {}", tests.join(" && "))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::checks::{assert_allowed, test_bash as bash, test_git};

    #[test]
    fn the_tag_its_kind_message_and_place_are_read_from_the_goal() {
        let tag = tag_goal(
            "Tag the current commit as v1.2.0: an annotated tag, like v1.1.0, with the message 'Release 1.2.0'. Afterwards `git describe` should print v1.2.0.",
        )
        .unwrap();
        assert_eq!(
            tag,
            TagGoal {
                name: "v1.2.0".into(),
                annotated: true,
                message: Some("Release 1.2.0".into()),
                at_head: true,
            }
        );
        let tag = tag_goal("Create a tag named `release-3` for the release.").unwrap();
        assert_eq!(
            tag,
            TagGoal {
                name: "release-3".into(),
                annotated: false,
                message: None,
                at_head: false,
            }
        );
        // A commit message is not the tag's.
        let tag = tag_goal("Commit with the message 'Bump', then tag it v2.0.").unwrap();
        assert_eq!((tag.name.as_str(), tag.message), ("v2.0", None));
        for goal in [
            "Fix the tag parser in tags.py.",
            "Tag the release.",
            "tag it '--force'",
            "tag 'a..b'",
            "Add a tag field to the record.",
        ] {
            assert_eq!(tag_goal(goal), None, "{goal}");
        }
    }

    #[test]
    fn the_check_fails_until_the_tag_is_as_asked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        test_git(root, &["init", "-q"]);
        std::fs::write(root.join("VERSION"), "1.1.0\n").unwrap();
        test_git(root, &["add", "-A"]);
        test_git(root, &["commit", "-qm", "Start"]);
        let goal = "Tag the current commit as v1.2.0, annotated, with the message 'Release 1.2.0'.";
        let check = tag_check(&tag_goal(goal).unwrap());
        assert_allowed(&check);
        assert!(!bash(root, &check).status.success());
        // A lightweight tag, or the wrong message, or another commit: not yet.
        test_git(root, &["tag", "v1.2.0"]);
        assert!(!bash(root, &check).status.success());
        test_git(root, &["tag", "-d", "v1.2.0"]);
        test_git(root, &["tag", "-a", "v1.2.0", "-m", "Release"]);
        assert!(!bash(root, &check).status.success());
        test_git(root, &["tag", "-d", "v1.2.0"]);
        test_git(root, &["tag", "-a", "v1.2.0", "-m", "Release 1.2.0"]);
        let out = bash(root, &check);
        assert!(out.status.success(), "{out:?}");
        std::fs::write(root.join("VERSION"), "1.2.0\n").unwrap();
        test_git(root, &["commit", "-qam", "Later"]);
        assert!(!bash(root, &check).status.success());
    }
}
