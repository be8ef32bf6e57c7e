//! Git: the global options that let a command line run any program, and
//! hardening, so that the read commands on the allow list (`git status`,
//! `git diff`, `git log`...) cannot be made to run programs by the
//! repository's own configuration (`core.fsmonitor`, hooks, the pager,
//! `diff.external`, text conversion).

use std::path::Path;

use super::paths::{climbs_out, home_relative, is_within, normalise_path};
use super::rules::command_name;
use super::syntax;

/// The `-c` settings a hardened git runs with: no file-system monitor
/// program, no hooks, no pager, no pack-objects hook, no signature program.
const HARDENING: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("uploadpack.packObjectsHook", ""),
    ("log.showSignature", "false"),
];

/// Git subcommands that only read, and are hardened.
const READ_COMMANDS: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "rev-list",
    "branch",
    "grep",
    "shortlog",
    "describe",
    "cat-file",
    "reflog",
];

/// What the subcommands that can run the external diff and text
/// conversion programs get: `--no-ext-diff`, `--no-textconv`.
fn subcommand_hardening(subcommand: &str) -> &'static [&'static str] {
    match subcommand {
        "diff" | "log" | "show" => &["--no-ext-diff", "--no-textconv"],
        "blame" => &["--no-textconv"],
        _ => &[],
    }
}

/// A git command line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct GitCommand {
    /// Where the subcommand is in the arguments after `git`, if there is one.
    pub(super) subcommand: Option<usize>,
    /// Why the built-in allow list does not apply to it, if it does not.
    pub(super) risk: Option<String>,
    /// Whether it carries all of the hardening.
    pub(super) hardened: bool,
}

impl GitCommand {
    /// Whether its subcommand is one of the read commands that are
    /// hardened (see [`hardened_command`]).
    pub(super) fn reads(&self, args: &[String]) -> bool {
        self.subcommand
            .and_then(|at| args.get(at))
            .is_some_and(|s| READ_COMMANDS.contains(&s.as_str()))
    }
}

/// Reads git's global options in `args` (the words after `git`).
pub(super) fn read_git(args: &[String], workspace: Option<&Path>) -> GitCommand {
    let mut risk = None;
    let mut settings: Vec<(String, String)> = Vec::new();
    let mut no_pager = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let value = args.get(i + 1).map(String::as_str);
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (arg.as_str(), None),
        };
        let mut step = 1;
        match name {
            "-c" => {
                step = 2;
                let (key, val) = value
                    .unwrap_or_default()
                    .split_once('=')
                    .unwrap_or((value.unwrap_or_default(), "true"));
                settings.push((key.to_ascii_lowercase(), val.to_string()));
            }
            "--config-env" | "--exec-path" => {
                if name == "--config-env" && inline.is_none() {
                    step = 2;
                }
                risk.get_or_insert_with(|| RUNS_ANYTHING.to_string());
            }
            "-C" | "--git-dir" | "--work-tree" => {
                let dir = match inline {
                    Some(dir) => dir,
                    None => {
                        step = 2;
                        value.unwrap_or_default()
                    }
                };
                if is_elsewhere(dir, workspace) {
                    risk.get_or_insert_with(|| {
                        format!(
                            "`git {name} {dir}` works in another repository, whose \
                             configuration can run programs"
                        )
                    });
                }
            }
            "--namespace" | "--super-prefix" | "--list-cmds" | "--attr-source"
                if inline.is_none() =>
            {
                step = 2
            }
            "-p" | "--paginate" => {
                risk.get_or_insert_with(|| {
                    "`git --paginate` runs the pager the repository configures".to_string()
                });
            }
            "-P" | "--no-pager" => no_pager = true,
            _ if name.starts_with('-') => {
                let known = matches!(
                    name,
                    "--namespace"
                        | "--super-prefix"
                        | "--list-cmds"
                        | "--attr-source"
                        | "--bare"
                        | "--no-replace-objects"
                        | "--no-lazy-fetch"
                        | "--no-optional-locks"
                        | "--no-advice"
                        | "--literal-pathspecs"
                        | "--glob-pathspecs"
                        | "--noglob-pathspecs"
                        | "--icase-pathspecs"
                        | "--html-path"
                        | "--man-path"
                        | "--info-path"
                        | "--version"
                        | "--help"
                        | "-v"
                        | "-h"
                );
                if !known {
                    risk.get_or_insert_with(|| {
                        format!("the git option `{name}` is not understood")
                    });
                }
            }
            _ => break,
        }
        i += step;
    }
    let hardening = |key: &str, val: &str| {
        HARDENING
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case(key) && *v == val)
    };
    if settings.iter().any(|(k, v)| !hardening(k, v)) {
        risk.get_or_insert_with(|| RUNS_ANYTHING.to_string());
    }
    let subcommand = (i < args.len()).then_some(i);
    let subcommand_hardened = subcommand.is_none_or(|at| {
        let rest = &args[at + 1..];
        subcommand_hardening(&args[at])
            .iter()
            .all(|flag| rest.iter().any(|a| a == flag))
    });
    let hardened = no_pager
        && subcommand_hardened
        && HARDENING.iter().all(|(k, v)| {
            settings
                .iter()
                .any(|(key, val)| k.eq_ignore_ascii_case(key) && val == v)
        });
    GitCommand {
        subcommand,
        risk,
        hardened,
    }
}

const RUNS_ANYTHING: &str =
    "`git -c` and `git --exec-path` can run any program, so the allow list does not apply";

/// Whether git pointed at `dir` would work outside the workspace.
fn is_elsewhere(dir: &str, workspace: Option<&Path>) -> bool {
    if dir.contains(['$', '`']) || dir.starts_with('~') || home_relative(dir).is_some() {
        return true;
    }
    if dir.starts_with('/') {
        return !workspace.is_some_and(|root| is_within(&normalise_path(dir), root));
    }
    climbs_out(dir)
}

/// `command` with each of its git read commands (`git status`, `git diff`,
/// `git log`, `git show`, `git blame`, `git ls-files`, `git rev-parse`,
/// `git branch`, `git grep`...) rewritten to run hardened against the
/// repository's configuration, or `None` when it has none (or does not
/// parse):
///
/// `git -c core.fsmonitor=false -c core.hooksPath=/dev/null -c
/// core.pager=cat -c uploadpack.packObjectsHook= -c log.showSignature=false
/// --no-pager <subcommand>`, with `--no-ext-diff --no-textconv` after
/// `diff`, `log` and `show` and `--no-textconv` after `blame`.
///
/// A repository's `.git/config` can make `git status` run a program
/// (`core.fsmonitor`, a `post-index-change` hook), and `git diff` or `git
/// log` too (`diff.external`, a pager, text conversion), so the policy
/// allows these commands on the understanding that whoever runs an allowed
/// command line runs `hardened_command(line).unwrap_or(line)` instead.
/// The rewrite does not change what an approval policy says about the
/// line. Only git commands the line runs directly are rewritten; inside
/// `bash -c '...'`, `sudo` or `xargs` the policy asks about an unhardened
/// read command instead. Needs git 2.x; one gap remains: a clean or smudge
/// filter that `.git/config` defines and `.git/info/attributes` applies
/// still runs (its name cannot be known from the command line).
///
/// ```
/// use rebound_tools::approval::hardened_command;
///
/// assert_eq!(
///     hardened_command("cargo test && git status --short").as_deref(),
///     Some(
///         "cargo test && git -c core.fsmonitor=false -c core.hooksPath=/dev/null \
///          -c core.pager=cat -c uploadpack.packObjectsHook= -c log.showSignature=false \
///          --no-pager status --short"
///     )
/// );
/// assert_eq!(hardened_command("cargo test"), None);
/// ```
pub fn hardened_command(command: &str) -> Option<String> {
    let script = syntax::parse(command).ok()?;
    if script.broken.is_some() {
        return None;
    }
    let global: String = HARDENING
        .iter()
        .map(|(key, value)| format!(" -c {key}={value}"))
        .chain([" --no-pager".to_string()])
        .collect();
    let mut edits: Vec<(usize, String)> = Vec::new();
    for c in &script.commands {
        let (Some(first), Some(span)) = (c.words.first(), c.spans.first()) else {
            continue;
        };
        if c.spans.len() != c.words.len() || command_name(first) != "git" {
            continue;
        }
        let args = &c.words[1..];
        let git = read_git(args, None);
        let Some(at) = git.subcommand.filter(|_| git.reads(args)) else {
            continue;
        };
        edits.push((span.end, global.clone()));
        let extra = subcommand_hardening(&args[at]);
        if let (false, Some(sub_span)) = (extra.is_empty(), c.spans.get(at + 1)) {
            edits.push((sub_span.end, format!(" {}", extra.join(" "))));
        }
    }
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|edit| std::cmp::Reverse(edit.0));
    let mut out = command.to_string();
    for (at, text) in edits {
        if !out.is_char_boundary(at) {
            return None;
        }
        out.insert_str(at, &text);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn global_options() {
        let git = read_git(&words("-C sub status"), None);
        assert_eq!((git.subcommand, git.risk), (Some(2), None));
        assert!(read_git(&words("-c core.pager=evil log"), None)
            .risk
            .is_some());
        assert!(read_git(&words("--exec-path=/tmp log"), None)
            .risk
            .is_some());
        assert!(read_git(&words("-C /elsewhere status"), None)
            .risk
            .is_some());
        assert!(
            read_git(&words("-C /ws/sub status"), Some(Path::new("/ws")))
                .risk
                .is_none()
        );
        assert!(read_git(&words("-C ../other status"), None).risk.is_some());
        assert!(read_git(&words("-p log"), None).risk.is_some());
        assert!(read_git(&words("--frobnicate log"), None).risk.is_some());
        let git = read_git(&words("-c core.pager=cat log"), None);
        assert_eq!(git.risk, None);
        assert!(!git.hardened);
    }

    #[test]
    fn hardening_is_recognised() {
        let line = hardened_command("git diff HEAD").unwrap_or_default();
        let args = words(line.strip_prefix("git ").unwrap_or_default());
        let git = read_git(&args, None);
        assert_eq!(git.risk, None);
        assert!(git.hardened, "{line}");
        assert!(
            line.ends_with("--no-pager diff --no-ext-diff --no-textconv HEAD"),
            "{line}"
        );
    }

    #[test]
    fn only_read_commands_are_rewritten() {
        assert_eq!(hardened_command("git push"), None);
        assert_eq!(hardened_command("echo 'git status"), None);
        let line = hardened_command("(cd sub && /usr/bin/git log -1) | head").unwrap_or_default();
        assert!(
            line.starts_with("(cd sub && /usr/bin/git -c core.fsmonitor=false"),
            "{line}"
        );
        assert!(
            line.ends_with("--no-pager log --no-ext-diff --no-textconv -1) | head"),
            "{line}"
        );
        let both = hardened_command("git status; git blame x").unwrap_or_default();
        assert_eq!(both.matches("--no-pager").count(), 2, "{both}");
        assert!(both.ends_with("blame --no-textconv x"), "{both}");
    }
}
