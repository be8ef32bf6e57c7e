//! The approval policy: a mode and command rules, judging command lines.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::git::{read_git, GitCommand};
use super::judgement::Judgement;
use super::rules::{command_name, is_harmless_sink, CommandRule, CompiledRule};
use super::syntax::{self, shorten, SimpleCommand};
use super::variables::{assigned_name, is_risky_variable};
use super::{builtin, deletion, options, secrets, ApprovalMode, RuleAction};

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
/// A command line is read with a real bash parser (tree-sitter-bash) into
/// its simple commands: those of lists, pipelines, subshells, `{ ...; }`,
/// `if`, `while`, `for` and `case`, and those inside substitutions and
/// here-documents fed to a shell. Each is judged, and the strictest
/// judgement wins. For each simple command, leading `VAR=value`
/// assignments are checked (setting `PATH`, `LD_PRELOAD`, `GIT_*`... is
/// risky), `bash -c "..."`, `sh -c`, `eval`, `sudo`, `env`, `nohup`,
/// `timeout`, `xargs`, `find -exec` and the like are judged on the command
/// they run, options that make a command write files or run programs
/// (`sort -o`, `sed -i`, `rg --pre`...) make it risky, and the built-in
/// guards (see [`default_rules`](super::default_rules)) and every matching
/// rule are applied: forbid beats ask beats allow, so a config rule can
/// make a command stricter but never lift a forbid.
///
/// The reading fails closed: what the parser does not recognise, or only
/// knows when the line runs (a command substitution, `$VAR` as the command,
/// arithmetic, a function definition...), makes the line risky, and a line
/// that does not parse is asked about (and still searched for forbidden
/// commands).
///
/// Then the mode decides: [`ApprovalMode::Auto`] runs everything not
/// forbidden; [`ApprovalMode::OnRisk`] runs a line only when every part is
/// allowed by a rule and nothing is risky; [`ApprovalMode::Always`] asks
/// for everything not forbidden.
///
/// Allowed git read commands (`git status`, `git diff`...) are allowed on
/// the understanding that they run through
/// [`hardened_command`](super::hardened_command).
#[derive(Debug, Clone)]
pub struct ApprovalPolicy {
    mode: ApprovalMode,
    defaults: Vec<CompiledRule>,
    config: Vec<CompiledRule>,
    workspace: Option<PathBuf>,
}

impl Default for ApprovalPolicy {
    fn default() -> Self {
        ApprovalPolicy::new(ApprovalMode::default())
    }
}

/// How deep `bash -c "bash -c ..."` (or `eval eval ...`, `find -exec find
/// -exec ...`) may nest. Deeper is refused, not asked about: an ask runs in
/// the `auto` mode, where only forbidden commands are stopped, and a
/// forbidden command nested past the limit was never seen.
pub(super) const MAX_NESTING: usize = 8;

/// The reason for a line nested past [`MAX_NESTING`].
pub(super) const TOO_DEEP: &str = "commands nested too deeply to judge";

/// Programs that run code piped into them.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl", "ruby", "node", "php",
];

/// A command's input and output, as far as the line says.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Io<'a> {
    /// Targets of its redirections that write.
    pub(super) writes: &'a [String],
    /// Its here-documents and here-strings.
    pub(super) stdin: &'a [String],
    /// What an `echo` or `cat <<EOF` before it in a pipeline writes into it.
    pub(super) piped: &'a [String],
}

impl ApprovalPolicy {
    /// A policy in `mode` with the default rules: the built-in guards, the
    /// default ask rules and the built-in allow list.
    pub fn new(mode: ApprovalMode) -> Self {
        ApprovalPolicy {
            mode,
            defaults: builtin::default_compiled(),
            config: Vec::new(),
            workspace: None,
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

    /// The same policy knowing the workspace root (an absolute path): a
    /// recursive `rm` of an absolute path inside it is judged like any
    /// command instead of being forbidden, and `git -C` into it is plain.
    /// Without one, every absolute path is taken to be outside the
    /// workspace.
    pub fn with_workspace(mut self, root: impl Into<PathBuf>) -> Self {
        self.workspace = Some(root.into());
        self
    }

    /// The mode.
    pub fn mode(&self) -> ApprovalMode {
        self.mode
    }

    /// The workspace root, when one was given.
    pub fn workspace(&self) -> Option<&Path> {
        self.workspace.as_deref()
    }

    /// The prefix rules in force: the defaults, then the config's.
    pub fn rules(&self) -> impl Iterator<Item = &CommandRule> {
        self.defaults.iter().chain(&self.config).map(|r| &r.rule)
    }

    /// Judges `command`, a shell command line.
    pub fn assess(&self, command: &str) -> Verdict {
        let _budget = super::budget::Budget::start();
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

    /// Judges a whole command line, `depth` shells down.
    pub(super) fn judge_line(&self, line: &str, depth: usize) -> Judgement {
        // New text: scanned afresh for forbidden commands.
        let _fresh = super::scan::ScanState::fresh();
        if builtin::is_fork_bomb(line) {
            return Judgement::forbid("a fork bomb: it starts processes until the machine stops");
        }
        if line.contains('\0') {
            // A shell given this line stops reading it at the NUL (or
            // cannot be started with it): what would run is not what was
            // judged.
            return Judgement::forbid("the command holds a NUL byte: no shell runs it as written");
        }
        if depth > MAX_NESTING {
            return Judgement::forbid(TOO_DEEP);
        }
        let script = match syntax::parse(line) {
            Ok(script) => script,
            // Fail closed: a line that cannot be read at all never runs.
            Err(error) => {
                return Judgement::forbid(format!("the command line cannot be checked: {error}"))
            }
        };
        if let Some(reason) = secrets::reads_process_secrets(&script) {
            return Judgement::forbid(reason);
        }
        if let Some(error) = &script.broken {
            return self.judge_broken(line, &script.commands, error, depth);
        }
        // First, so that its reason wins over "`curl` is not on the allow list".
        let mut judgement = download_into_interpreter(&script.commands);
        for command in &script.commands {
            judgement = judgement.max(self.judge_command(command, depth));
        }
        if let Some(risk) = script.risks.first() {
            judgement = judgement.max(Judgement::ask(risk.clone()));
        }
        judgement
    }

    /// A line that does not parse is asked about, but what is plainly
    /// forbidden in it is still refused: in the commands the parser could
    /// read, and in the line read with quotes and parentheses dropped.
    fn judge_broken(
        &self,
        line: &str,
        commands: &[SimpleCommand],
        error: &str,
        depth: usize,
    ) -> Judgement {
        let asked = Judgement::ask(format!(
            "the command line does not parse ({error}), so it cannot be judged"
        ));
        let lenient = syntax::parse_lenient(line).unwrap_or_default();
        if let Some(reason) = secrets::reads_process_secrets(&lenient) {
            return Judgement::forbid(reason);
        }
        commands
            .iter()
            .chain(&lenient.commands)
            .map(|c| self.judge_command(c, depth))
            .filter(Judgement::is_forbidden)
            .fold(asked, Judgement::max)
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
        let io = Io {
            writes: &command.writes,
            stdin: &command.stdin_scripts,
            piped: &command.piped,
        };
        let mut judgement = if command.words.is_empty() {
            match command.writes.iter().find(|w| !is_harmless_sink(w)) {
                Some(target) => Judgement::ask(format!("a redirection writes to `{target}`")),
                None => Judgement::allow("only variable assignments"),
            }
        } else {
            self.judge_words(&command.words, io, depth)
        };
        for assignment in &command.assignments {
            let name = assigned_name(assignment);
            if is_risky_variable(name) {
                judgement = judgement.max(Judgement::ask(format!(
                    "setting `{name}` changes which programs run"
                )));
            }
        }
        judgement
    }

    /// Judges a command given by its words (assignments skipped), `depth`
    /// wrappers or shells down.
    pub(super) fn judge_words(&self, words: &[String], io: Io<'_>, depth: usize) -> Judgement {
        let Some(first) = words.first() else {
            return Judgement::allow("no command");
        };
        if !super::budget::spend() {
            return Judgement::forbid(
                "the command line takes too much work to judge (commands nested in commands)",
            );
        }
        if first.contains(['$', '`']) {
            // Whatever it is, a forbidden command among its words, or a
            // `-c` script (`$SHELL -c 'rm -rf /'`), is still refused.
            let script = words
                .windows(2)
                .find(|pair| pair[0] == "-c")
                .map(|pair| self.judge_line(&pair[1], depth + 1))
                .filter(Judgement::is_forbidden);
            return Judgement::ask(format!("the command `{first}` is only known when it runs"))
                .max(self.forbidden_anywhere(words, depth))
                .max_with(script);
        }
        let (words, git) = normalise(words, self.workspace());
        if let Some(reason) = builtin::forbidden(&words) {
            return Judgement::forbid(reason);
        }
        let removal = (words[0] == "rm")
            .then(|| deletion::judge_rm(&words[1..], self.workspace()))
            .flatten();
        if let Some(forbidden) = removal.as_ref().filter(|j| j.is_forbidden()) {
            return forbidden.clone();
        }
        // The specific risks first, so that their reasons win over "`x` is
        // not on the allow list".
        let mut judgement = Judgement::allow("").max_with(removal);
        if let Some(risky) = options::risky_option(&words) {
            if !self.config_allows_by_name(&words, io.writes, &risky.word) {
                judgement = judgement.max(Judgement::ask(risky.reason));
            }
        }
        if git
            .as_ref()
            .is_some_and(|g| depth > 0 && !g.hardened && g.reads(&words[1..]))
        {
            let shown = shorten(&words.join(" "), 40);
            judgement = judgement.max(Judgement::ask(format!(
                "`{shown}` runs inside another command, where it cannot be hardened against \
                 programs the repository configures; run it as a command of its own"
            )));
        }
        let git_risk = git.and_then(|g| g.risk);
        let direct = self.match_rules(&words, io.writes, git_risk.is_none());
        let inner = self.judge_inner(&words, io, depth);
        let rules = match (direct, inner) {
            (Some(direct), Some(inner)) => direct.max(inner),
            (Some(direct), None) => direct,
            // The command a wrapper runs was judged, but not always the
            // wrapper's own redirections (`find . -exec ls ';' > x`).
            (None, Some(inner)) => inner.max_with(
                io.writes
                    .iter()
                    .find(|w| !is_harmless_sink(w))
                    .map(|target| {
                        Judgement::ask(format!(
                            "`{}` writes to `{target}` through a redirection",
                            shorten(&words.join(" "), 60)
                        ))
                    }),
            ),
            (None, None) => {
                Judgement::ask(git_risk.unwrap_or_else(|| self.why_not_allowed(&words, io.writes)))
            }
        };
        judgement.max(rules)
    }

    /// The strictest rule matching `words`, if any does; the built-in allow
    /// rules only when `allow_list`.
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

    /// Whether a config allow rule matching `words` names `word` in its
    /// pattern: the user allowed that risky option (`allow "sed -i"`).
    fn config_allows_by_name(&self, words: &[String], writes: &[String], word: &str) -> bool {
        self.config.iter().any(|r| {
            r.rule.action == RuleAction::Allow && r.matches(words, writes) && r.names(word)
        })
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
    let mut words = command.words.iter().map(String::as_str);
    let first = command_name(words.next()?);
    if matches!(first, "sudo" | "doas" | "env") {
        return words
            .find(|w| !w.starts_with('-') && !w.contains('='))
            .map(command_name);
    }
    Some(first)
}

/// Normalises a command's words for matching: an absolute program path
/// by its file name, and git's global options skipped (`git -C dir push`
/// as `git push`), with what they say about the git command.
fn normalise(words: &[String], workspace: Option<&Path>) -> (Vec<String>, Option<GitCommand>) {
    let Some((first, rest)) = words.split_first() else {
        return (Vec::new(), None);
    };
    let name = command_name(first).to_string();
    if name != "git" {
        let mut out = Vec::with_capacity(words.len());
        out.push(name);
        out.extend(rest.iter().cloned());
        return (out, None);
    }
    let git = read_git(rest, workspace);
    let mut out = vec![name];
    out.extend(rest[git.subcommand.unwrap_or(rest.len())..].iter().cloned());
    let git = GitCommand {
        subcommand: git.subcommand.map(|_| 0),
        ..git
    };
    (out, Some(git))
}
