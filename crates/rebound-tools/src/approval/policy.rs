//! The approval policy: a mode and command rules, judging command lines.

use serde::{Deserialize, Serialize};

use super::builtin;
use super::rules::{command_name, is_harmless_sink, CommandRule, CompiledRule};
use super::split::{split, split_lenient, SimpleCommand};
use super::ApprovalMode;
use crate::approval::RuleAction;

/// What the policy says about a command line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Run it.
    Allow,
    /// Ask the user first.
    Ask {
        /// Why: the rule that asks, or what could not be judged.
        reason: String,
    },
    /// Never run it.
    Forbid {
        /// Why: what the command would do.
        reason: String,
    },
}

impl Verdict {
    /// The verdict's action: allow, ask or forbid.
    pub fn action(&self) -> RuleAction {
        match self {
            Verdict::Allow => RuleAction::Allow,
            Verdict::Ask { .. } => RuleAction::Ask,
            Verdict::Forbid { .. } => RuleAction::Forbid,
        }
    }

    /// The reason, when it asks or forbids.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Verdict::Allow => None,
            Verdict::Ask { reason } | Verdict::Forbid { reason } => Some(reason),
        }
    }
}

/// When to ask before a command runs, and which commands never run.
///
/// A command line is split into its simple commands (on `&&`, `||`, `;`,
/// `|`, `&`, newlines and subshells; the commands inside `$(...)` and
/// backticks included), and each is judged; the strictest judgement wins.
/// For each simple command, leading `VAR=value` assignments are skipped,
/// `bash -c "..."`, `sh -c`, `eval`, `sudo`, `env`, `nohup`, `timeout`,
/// `xargs`, `find -exec` and the like are judged on the command they run,
/// and the built-in guards (see [`default_rules`](super::default_rules))
/// and every matching rule are applied: forbid beats ask beats allow, so a
/// config rule can make a command stricter but never lift a forbid.
///
/// Then the mode decides: [`ApprovalMode::Auto`] runs everything not
/// forbidden; [`ApprovalMode::OnRisk`] runs a line only when every part is
/// allowed by a rule and there is no command substitution and nothing
/// that does not parse; [`ApprovalMode::Always`] asks for everything not
/// forbidden. A line that does not parse (an unbalanced quote) is asked
/// about, and still searched for forbidden commands.
#[derive(Debug, Clone)]
pub struct ApprovalPolicy {
    mode: ApprovalMode,
    defaults: Vec<CompiledRule>,
    config: Vec<CompiledRule>,
}

impl Default for ApprovalPolicy {
    fn default() -> Self {
        ApprovalPolicy::new(ApprovalMode::default())
    }
}

/// A judgement of part of a line, as the `on-risk` mode sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Judgement {
    pub(super) action: RuleAction,
    pub(super) reason: String,
}

impl Judgement {
    pub(super) fn allow(reason: impl Into<String>) -> Self {
        Judgement {
            action: RuleAction::Allow,
            reason: reason.into(),
        }
    }

    pub(super) fn ask(reason: impl Into<String>) -> Self {
        Judgement {
            action: RuleAction::Ask,
            reason: reason.into(),
        }
    }

    pub(super) fn forbid(reason: impl Into<String>) -> Self {
        Judgement {
            action: RuleAction::Forbid,
            reason: reason.into(),
        }
    }

    /// The stricter of the two; the first when they are as strict.
    pub(super) fn max(self, other: Judgement) -> Judgement {
        if other.action > self.action {
            other
        } else {
            self
        }
    }
}

/// How deep `bash -c "bash -c ..."` may nest before the policy asks.
pub(super) const MAX_NESTING: usize = 8;

/// Programs that run code piped into them.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl", "ruby", "node", "php",
];

/// Environment variables that change which program runs or what it loads.
const RISKY_VARIABLES: &[&str] = &[
    "PATH",
    "BASH_ENV",
    "ENV",
    "IFS",
    "PROMPT_COMMAND",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PAGER",
    "GIT_PAGER",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_EDITOR",
    "EDITOR",
    "VISUAL",
    "NODE_OPTIONS",
    "RUSTC_WRAPPER",
    "PYTHONSTARTUP",
];

impl ApprovalPolicy {
    /// A policy in `mode` with the default rules: the built-in guards, the
    /// default ask rules and the built-in allow list.
    pub fn new(mode: ApprovalMode) -> Self {
        ApprovalPolicy {
            mode,
            defaults: builtin::default_compiled(),
            config: Vec::new(),
        }
    }

    /// The same policy with `rules` (from config) added. The strictest
    /// matching rule wins, so an allow rule cannot lift a forbid or an ask.
    pub fn with_rules(mut self, rules: impl IntoIterator<Item = CommandRule>) -> Self {
        self.config.extend(rules.into_iter().map(CompiledRule::new));
        self
    }

    /// The same policy without the default ask rules and allow list, for a
    /// config that wants to say everything itself (say, to allow
    /// `git push`). The built-in guards against `rm -rf /` and its kin
    /// stay: they cannot be turned off.
    pub fn without_default_rules(mut self) -> Self {
        self.defaults.clear();
        self
    }

    /// The same policy in `mode`.
    pub fn with_mode(mut self, mode: ApprovalMode) -> Self {
        self.mode = mode;
        self
    }

    /// The mode.
    pub fn mode(&self) -> ApprovalMode {
        self.mode
    }

    /// The prefix rules in force: the defaults, then the config's.
    pub fn rules(&self) -> impl Iterator<Item = &CommandRule> {
        self.defaults.iter().chain(&self.config).map(|r| &r.rule)
    }

    /// Judges `command`, a shell command line.
    pub fn assess(&self, command: &str) -> Verdict {
        let judgement = self.judge_line(command, 0);
        match (judgement.action, self.mode) {
            (RuleAction::Forbid, _) => Verdict::Forbid {
                reason: judgement.reason,
            },
            (_, ApprovalMode::Auto) => Verdict::Allow,
            (RuleAction::Allow, ApprovalMode::OnRisk) => Verdict::Allow,
            (RuleAction::Ask, _) => Verdict::Ask {
                reason: judgement.reason,
            },
            (RuleAction::Allow, ApprovalMode::Always) => Verdict::Ask {
                reason: "the approval mode `always` asks before every command".to_string(),
            },
        }
    }

    /// Judges a whole command line.
    pub(super) fn judge_line(&self, line: &str, depth: usize) -> Judgement {
        if builtin::is_fork_bomb(line) {
            return Judgement::forbid("a fork bomb: it starts processes until the machine stops");
        }
        if depth > MAX_NESTING {
            return Judgement::ask("shells nested too deeply to judge");
        }
        let script = match split(line) {
            Ok(script) => script,
            Err(error) => {
                let asked = Judgement::ask(format!(
                    "the command line does not parse ({error}), so it cannot be judged"
                ));
                // Still refuse what is plainly forbidden in the raw text.
                return split_lenient(line)
                    .commands
                    .iter()
                    .map(|c| self.judge_command(c, depth))
                    .filter(|j| j.action == RuleAction::Forbid)
                    .fold(asked, Judgement::max);
            }
        };
        // First, so that its reason wins over "`curl` is not on the allow list".
        let mut judgement = download_into_interpreter(&script.commands);
        for command in &script.commands {
            judgement = judgement.max(self.judge_command(command, depth));
        }
        if script.substitution {
            judgement = judgement.max(Judgement::ask(
                "a command substitution (`$(...)`, backticks, `<(...)`) computes part of the \
                 command only when it runs",
            ));
        }
        judgement
    }

    /// Judges one simple command.
    fn judge_command(&self, command: &SimpleCommand, depth: usize) -> Judgement {
        if let Some(reason) = command
            .writes
            .iter()
            .find_map(|w| builtin::forbidden_write(w))
        {
            return Judgement::forbid(reason);
        }
        let start = command
            .words
            .iter()
            .position(|w| !is_assignment(w))
            .unwrap_or(command.words.len());
        let (assignments, words) = command.words.split_at(start);
        let mut judgement = if words.is_empty() {
            match command.writes.iter().find(|w| !is_harmless_sink(w)) {
                Some(target) => Judgement::ask(format!("a redirection writes to `{target}`")),
                None => Judgement::allow("only variable assignments"),
            }
        } else {
            self.judge_words(words, &command.writes, &command.stdin_scripts, depth)
        };
        for assignment in assignments {
            let name = assignment.split('=').next().unwrap_or_default();
            if is_risky_variable(name) {
                judgement = judgement.max(Judgement::ask(format!(
                    "setting `{name}` changes which programs run"
                )));
            }
        }
        judgement
    }

    /// Judges a command given by its words (assignments skipped).
    pub(super) fn judge_words(
        &self,
        words: &[String],
        writes: &[String],
        stdin: &[String],
        depth: usize,
    ) -> Judgement {
        let Some(first) = words.first() else {
            return Judgement::allow("no command");
        };
        if first.contains('$') || first.contains('`') {
            return Judgement::ask(format!("the command `{first}` is only known when it runs"));
        }
        let (words, plain_git) = normalise(words);
        if let Some(reason) = builtin::forbidden(&words) {
            return Judgement::forbid(reason);
        }
        let direct = self.match_rules(&words, writes, plain_git);
        let inner = self.judge_inner(&words, writes, stdin, depth);
        match (direct, inner) {
            (Some(direct), Some(inner)) => direct.max(inner),
            (Some(direct), None) => direct,
            (None, Some(inner)) => inner,
            (None, None) if !plain_git => Judgement::ask(
                "`git -c` and `git --exec-path` can run any program, so the allow list does \
                 not apply",
            ),
            (None, None) => Judgement::ask(self.why_not_allowed(&words, writes)),
        }
    }

    /// The strictest rule matching `words`, if any does.
    fn match_rules(
        &self,
        words: &[String],
        writes: &[String],
        allow_list: bool,
    ) -> Option<Judgement> {
        let builtin_allow = |rule: &CompiledRule| rule.rule.action == RuleAction::Allow;
        self.defaults
            .iter()
            .filter(|r| allow_list || !builtin_allow(r))
            .chain(&self.config)
            .filter(|r| r.matches(words, writes))
            .map(|r| Judgement {
                action: r.rule.action,
                reason: match &r.rule.reason {
                    Some(reason) => format!("{reason} (rule `{}`)", r.rule.pattern),
                    None => format!("the {} rule `{}` matches", r.rule.action, r.rule.pattern),
                },
            })
            .reduce(Judgement::max)
    }

    /// Why a command no rule matched is asked about.
    fn why_not_allowed(&self, words: &[String], writes: &[String]) -> String {
        let shown = shorten(&words.join(" "), 60);
        let blocked = self
            .defaults
            .iter()
            .chain(&self.config)
            .any(|r| r.blocked_by_write(words, writes));
        match writes.iter().find(|w| !is_harmless_sink(w)) {
            Some(target) if blocked => {
                format!("`{shown}` writes to `{target}` through a redirection")
            }
            _ => format!("`{shown}` is not on the allow list"),
        }
    }
}

/// A download (`curl`, `wget`) piped into an interpreter in the same pipeline.
fn download_into_interpreter(commands: &[SimpleCommand]) -> Judgement {
    for (i, command) in commands.iter().enumerate() {
        if !matches!(program(command), Some("curl" | "wget")) {
            continue;
        }
        let later = commands[i + 1..]
            .iter()
            .filter(|c| c.pipeline == command.pipeline)
            .find_map(|c| program(c).filter(|p| INTERPRETERS.contains(p)));
        if let Some(interpreter) = later {
            return Judgement::ask(format!(
                "a download is piped into `{interpreter}`: it runs code nobody has read"
            ));
        }
    }
    Judgement::allow("")
}

/// The program a simple command runs, looking through `sudo`, `doas`
/// and `env`.
fn program(command: &SimpleCommand) -> Option<&str> {
    let mut words = command
        .words
        .iter()
        .map(String::as_str)
        .filter(|w| !is_assignment(w));
    let first = command_name(words.next()?);
    if matches!(first, "sudo" | "doas" | "env") {
        return words.find(|w| !w.starts_with('-')).map(command_name);
    }
    Some(first)
}

/// Normalises a command's words for matching: an absolute program path
/// by its file name, and git's global options skipped (`git -C dir push`
/// as `git push`). Also says whether the built-in allow list may apply:
/// not to a git run with `-c` or `--exec-path`, which can run anything.
fn normalise(words: &[String]) -> (Vec<String>, bool) {
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut plain = true;
    let mut iter = words.iter();
    let Some(first) = iter.next() else {
        return (out, plain);
    };
    let name = command_name(first).to_string();
    let is_git = name == "git";
    out.push(name);
    if is_git {
        let rest: Vec<&String> = iter.collect();
        let mut i = 0;
        while let Some(arg) = rest.get(i) {
            match arg.as_str() {
                "-C" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
                "-c" | "--config-env" => {
                    plain = false;
                    i += 2;
                }
                a if a.starts_with("--exec-path") || a.starts_with("--config-env") => {
                    plain = false;
                    i += 1;
                }
                a if a.starts_with('-') => i += 1,
                _ => break,
            }
        }
        out.extend(rest.into_iter().skip(i).cloned());
    } else {
        out.extend(iter.cloned());
    }
    (out, plain)
}

/// `NAME=value` (or `NAME+=value`).
pub(super) fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(super) fn is_risky_variable(name: &str) -> bool {
    let name = name.strip_suffix('+').unwrap_or(name);
    RISKY_VARIABLES.contains(&name) || name.starts_with("LD_") || name.starts_with("DYLD_")
}

/// At most `max` characters of `text`, with `...` when cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max).collect();
        format!("{cut}...")
    }
}
