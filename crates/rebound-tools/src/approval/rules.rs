//! Command rules: a pattern of words and what to do with a command that
//! starts with them.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a rule does with a command it matches. Ordered by strictness:
/// `Allow < Ask < Forbid`; when several rules match, the strictest wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleAction {
    /// Run it without asking (under the `on-risk` mode).
    Allow,
    /// Ask the user first (under `on-risk` and `always`).
    Ask,
    /// Never run it, whatever the mode.
    Forbid,
}

impl fmt::Display for RuleAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RuleAction::Allow => "allow",
            RuleAction::Ask => "ask",
            RuleAction::Forbid => "forbid",
        })
    }
}

/// A command rule, as written in config:
/// `{ pattern = "git push", action = "ask", reason = "publishes commits" }`.
///
/// The pattern is split into words like a shell would (quotes group words)
/// and matches a command that *starts with* those words: `git push`
/// matches `git push origin main`, not `git pushy` nor `git status`. A `*`
/// inside a pattern word matches any characters within one word: `*` alone
/// is any one word (`git * push`), `mkfs.*` matches `mkfs.ext4`.
///
/// Commands are matched after they are normalised: leading `VAR=value`
/// assignments are skipped, a command given by absolute path is matched by
/// its file name (`/bin/rm` as `rm`), and git's global options are skipped
/// (`git -C repo push` as `git push`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandRule {
    /// The words a matching command starts with.
    pub pattern: String,
    /// What to do with a matching command.
    pub action: RuleAction,
    /// Why, shown to the user when the rule asks or forbids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl CommandRule {
    /// A rule `action`ing commands that start with `pattern`.
    pub fn new(pattern: impl Into<String>, action: RuleAction) -> Self {
        CommandRule {
            pattern: pattern.into(),
            action,
            reason: None,
        }
    }

    /// An allow rule.
    pub fn allow(pattern: impl Into<String>) -> Self {
        CommandRule::new(pattern, RuleAction::Allow)
    }

    /// An ask rule.
    pub fn ask(pattern: impl Into<String>) -> Self {
        CommandRule::new(pattern, RuleAction::Ask)
    }

    /// A forbid rule.
    pub fn forbid(pattern: impl Into<String>) -> Self {
        CommandRule::new(pattern, RuleAction::Forbid)
    }

    /// The same rule, explained by `reason`.
    pub fn because(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

/// A rule ready to match: its pattern split into words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CompiledRule {
    pub(crate) rule: CommandRule,
    words: Vec<String>,
    /// Whether a redirection that writes stops the rule from matching
    /// (built-in allow rules are for read-only use).
    read_only: bool,
}

impl CompiledRule {
    /// Compiles a rule from config. A pattern that does not split (an
    /// unbalanced quote) is split on whitespace instead.
    pub(crate) fn new(rule: CommandRule) -> Self {
        let mut words = shlex::split(&rule.pattern).unwrap_or_else(|| {
            rule.pattern
                .split_whitespace()
                .map(str::to_string)
                .collect()
        });
        if let Some(first) = words.first_mut() {
            *first = command_name(first).to_string();
        }
        CompiledRule {
            rule,
            words,
            read_only: false,
        }
    }

    /// A built-in allow rule, which does not match a command that writes
    /// to a file through a redirection. (Options that write or run
    /// programs are the options module's business.)
    pub(crate) fn read_only(pattern: &str) -> Self {
        CompiledRule {
            read_only: true,
            ..CompiledRule::new(CommandRule::allow(pattern).because("built-in allow list"))
        }
    }

    /// Whether the rule's pattern has the word `word` (`sed -i` has `-i`).
    pub(crate) fn names(&self, word: &str) -> bool {
        self.words.iter().any(|w| w == word)
    }

    /// Whether this rule matches the normalised `words` of a command that
    /// writes to `writes` through redirections.
    pub(crate) fn matches(&self, words: &[String], writes: &[String]) -> bool {
        if self.words.is_empty() || words.len() < self.words.len() {
            return false;
        }
        if !self
            .words
            .iter()
            .zip(words)
            .all(|(pattern, word)| glob_match(pattern, word))
        {
            return false;
        }
        !(self.read_only && writes.iter().any(|w| !is_harmless_sink(w)))
    }

    /// Whether the rule would match but for a redirection that writes.
    pub(crate) fn blocked_by_write(&self, words: &[String], writes: &[String]) -> bool {
        self.read_only && writes.iter().any(|w| !is_harmless_sink(w)) && self.matches(words, &[])
    }
}

/// Where output may go without writing anything that matters.
pub(crate) fn is_harmless_sink(target: &str) -> bool {
    matches!(target, "/dev/null" | "/dev/stdout" | "/dev/stderr")
}

/// The name a command is matched by: the file name of an absolute path.
pub(crate) fn command_name(word: &str) -> &str {
    if word.starts_with('/') {
        word.rsplit('/').next().unwrap_or(word)
    } else {
        word
    }
}

/// Matches `text` against `pattern`, where `*` is any run of characters.
pub(crate) fn glob_match(pattern: &str, text: &str) -> bool {
    if !pattern.contains('*') {
        return pattern == text;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
        return pattern == text;
    };
    if !text.starts_with(first) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn globs() {
        assert!(glob_match("*", "anything"));
        assert!(glob_match("mkfs.*", "mkfs.ext4"));
        assert!(!glob_match("mkfs.*", "mkfs"));
        assert!(glob_match("a*b*c", "aXXbYYc"));
        assert!(!glob_match("a*b*c", "aXXbYY"));
        assert!(glob_match("ab", "ab"));
        assert!(!glob_match("a*a", "a"));
    }

    #[test]
    fn prefix_of_words() {
        let rule = CompiledRule::new(CommandRule::ask("git push"));
        assert!(rule.matches(&words("git push origin main"), &[]));
        assert!(rule.matches(&words("git push"), &[]));
        assert!(!rule.matches(&words("git pushy"), &[]));
        assert!(!rule.matches(&words("git"), &[]));
        let rule = CompiledRule::new(CommandRule::ask("git * push"));
        assert!(rule.matches(&words("git x push"), &[]));
        let rule = CompiledRule::new(CommandRule::forbid("/usr/bin/terraform destroy"));
        assert!(rule.matches(&words("terraform destroy -auto-approve"), &[]));
    }

    #[test]
    fn read_only_rules_refuse_writes() {
        let rule = CompiledRule::read_only("sort");
        assert!(rule.matches(&words("sort -n a"), &[]));
        assert!(!rule.matches(&words("sort a"), &["b".to_string()]));
        assert!(rule.blocked_by_write(&words("sort a"), &["b".to_string()]));
        assert!(rule.matches(&words("sort a"), &["/dev/null".to_string()]));
    }
}
