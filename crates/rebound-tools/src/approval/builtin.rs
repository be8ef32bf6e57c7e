//! The rules every policy starts with.
//!
//! **Forbidden, always** (built-in guards; no rule and no mode lifts them):
//! - a recursive `rm` (`-r`, `-R`, `--recursive`, in any order or
//!   combination with other flags) of `/`, `/*`, `~`, `$HOME` or a top-level
//!   system directory (`/etc`, `/usr`, ...), paths resolved lexically
//!   (`/tmp/..` is `/`); of any absolute path or home path outside the
//!   workspace; of a bare variable or substitution (see the deletion
//!   module: [`ApprovalPolicy::with_workspace`](super::ApprovalPolicy::with_workspace));
//! - reading another process's environment, command line or memory
//!   (`/proc/<pid>/environ`, `cmdline`, `mem`, however the path is spelled);
//! - `find` with `-delete` starting from one of those;
//! - a recursive `chmod`, `chown` or `chgrp` of one of those;
//! - making or wiping a filesystem: `mkfs`, `mkfs.*`, `mke2fs`, `mkswap`,
//!   `wipefs`;
//! - writing to a disk device: `dd of=/dev/sda` (also `hd*`, `vd*`, `xvd*`,
//!   `nvme*`, `mmcblk*`, `disk*`), or a redirection `> /dev/sda`;
//! - a fork bomb (`:(){ :|:& };:` and the same shape with any name);
//! - stopping the machine: `shutdown`, `reboot`, `halt`, `poweroff`,
//!   `init 0`/`init 6`, `systemctl poweroff|reboot|halt|kexec`.
//!
//! **Asked by default** (see [`default_rules`]): `git push`, `cargo publish`,
//! `npm publish`, `sudo`, `doas`, `su`; and, judged on the pipeline, a
//! download piped into an interpreter (`curl ... | sh`).
//!
//! **Allowed by default** under `on-risk` (see [`default_rules`]):
//! read-only commands and the usual build and test commands. They are
//! allowed only without options that write or run other programs
//! (`find -delete`, `sort -o`, `rg --pre`, `cargo clippy --fix`...: the
//! table in the options module) and without a redirection that writes a
//! file; `find -exec` is judged on the command it runs. The allow-listed
//! git read commands are allowed on the understanding that they run
//! through [`hardened_command`](super::hardened_command). The list:
//! `ls`, `pwd`, `cd`, `echo`, `cat`, `head`, `tail`, `wc`, `grep`, `egrep`,
//! `fgrep`, `rg`, `find`, `tree`, `file`, `stat`, `du`, `df`, `diff`, `cmp`,
//! `sort`, `cut`, `basename`, `dirname`, `realpath`, `readlink`, `which`,
//! `whoami`, `uname`, `date`, `true`, `false`, `test`, `[`; `set -e`,
//! `-u`, `-eu`, `-o pipefail`, `-eo pipefail`, `-euo pipefail`; `git
//! status`, `diff`, `log`, `show`, `blame`, `ls-files`, `rev-parse`,
//! `branch --show-current`, `describe`, `cat-file`, `for-each-ref`,
//! `show-ref`, `rev-list`, `tag -l|--list`; `cargo
//! build|check|test|clippy`, `pytest`, `python -m
//! pytest`, `python3 -m pytest`, `python -m unittest`, `python3 -m
//! unittest`, `npm test`, `npm run test`, `yarn test`,
//! `pnpm test`, `go build|test|vet`, `make test`, `make check`.
//!
//! What no rule sees: a program that deletes files itself (`python -c
//! "shutil.rmtree('/')"`), or `rm -rf *` after a `cd /` (the policy does
//! not follow the working directory). Under `on-risk` such commands are
//! asked about (they are not on the allow list); under `auto` they run.

use super::paths::is_precious;
use super::rules::{command_name, CommandRule, CompiledRule};

/// The prefix rules a policy starts with: the ask rules, then the built-in
/// allow list. (The forbid guards are code, not prefix rules: they look at
/// flags in any order; see the [module docs](self).)
pub fn default_rules() -> Vec<CommandRule> {
    default_compiled().into_iter().map(|r| r.rule).collect()
}

/// The default rules, compiled.
pub(crate) fn default_compiled() -> Vec<CompiledRule> {
    let mut rules: Vec<CompiledRule> = DEFAULT_ASK
        .iter()
        .map(|(pattern, reason)| CompiledRule::new(CommandRule::ask(*pattern).because(*reason)))
        .collect();
    rules.extend(DEFAULT_ALLOW.iter().map(|p| CompiledRule::read_only(p)));
    rules
}

const DEFAULT_ASK: &[(&str, &str)] = &[
    ("git push", "`git push` publishes commits to a remote"),
    ("cargo publish", "`cargo publish` publishes a crate"),
    ("npm publish", "`npm publish` publishes a package"),
    ("sudo", "`sudo` runs a command as root"),
    ("doas", "`doas` runs a command as root"),
    ("su", "`su` runs a shell as another user"),
];

/// Read-only and everyday development commands. The options that make
/// them write or run arbitrary programs are in the options module's table.
const DEFAULT_ALLOW: &[&str] = &[
    // Looking around.
    "ls",
    "pwd",
    "cd",
    "echo",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "find",
    "tree",
    "file",
    "stat",
    "du",
    "df",
    "diff",
    "cmp",
    "sort",
    "cut",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "which",
    "whoami",
    "uname",
    "date",
    "true",
    "false",
    "test",
    "[",
    // Shell options that make a script stop on its first error; `set`
    // runs nothing.
    "set -e",
    "set -u",
    "set -eu",
    "set -o pipefail",
    "set -eo pipefail",
    "set -euo pipefail",
    // Git, reading (run through `hardened_command`).
    "git status",
    "git diff",
    "git log",
    "git show",
    "git blame",
    "git ls-files",
    "git rev-parse",
    "git branch --show-current",
    "git describe",
    "git cat-file",
    "git for-each-ref",
    "git show-ref",
    "git rev-list",
    "git tag -l",
    "git tag --list",
    // Building and testing.
    "cargo build",
    "cargo check",
    "cargo test",
    "cargo clippy",
    "pytest",
    "python -m pytest",
    "python3 -m pytest",
    "python -m unittest",
    "python3 -m unittest",
    "npm test",
    "npm run test",
    "yarn test",
    "pnpm test",
    "go build",
    "go test",
    "go vet",
    "make test",
    "make check",
];

/// Why the built-in guards forbid a command with normalised `words` (no
/// leading assignments, command by file name), if they do.
pub(crate) fn forbidden(words: &[String]) -> Option<String> {
    let name = command_name(words.first()?);
    let args = &words[1..];
    match name {
        "chmod" | "chown" | "chgrp" => recursive_on_root(name, args),
        "find" if args.iter().any(|a| a == "-delete") => args
            .iter()
            .take_while(|a| !a.starts_with('-') && *a != "(" && *a != "!")
            .find(|a| is_precious(a))
            .map(|start| format!("`find {start} -delete` would delete `{start}`")),
        "mkfs" | "mke2fs" | "mkswap" | "wipefs" => {
            Some(format!("`{name}` formats or wipes a disk"))
        }
        _ if name.starts_with("mkfs.") => Some(format!("`{name}` formats a disk")),
        "dd" => args
            .iter()
            .filter_map(|a| a.strip_prefix("of="))
            .find(|target| is_disk_device(target))
            .map(|target| format!("`dd` writes to the disk device `{target}`")),
        "shutdown" | "reboot" | "halt" | "poweroff" => {
            Some(format!("`{name}` stops or restarts the machine"))
        }
        "init" | "telinit" if args.iter().any(|a| a == "0" || a == "6") => {
            Some(format!("`{name} 0|6` stops or restarts the machine"))
        }
        "systemctl"
            if args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "poweroff" | "reboot" | "halt" | "kexec" | "emergency" | "rescue"
                )
            }) =>
        {
            Some("`systemctl` would stop or restart the machine".to_string())
        }
        _ => None,
    }
}

/// Why a redirection to `target` is forbidden, if it is.
pub(crate) fn forbidden_write(target: &str) -> Option<String> {
    is_disk_device(target).then(|| format!("a redirection writes to the disk device `{target}`"))
}

/// `chmod -R 777 /` and its kin: a recursive `name` whose targets include
/// the root, the home directory or a top-level system directory.
fn recursive_on_root(name: &str, args: &[String]) -> Option<String> {
    let mut recursive = false;
    let mut targets = Vec::new();
    let mut options_done = false;
    for arg in args {
        if options_done || !arg.starts_with('-') || arg == "-" {
            targets.push(arg.as_str());
        } else if arg == "--" {
            options_done = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            recursive |= long == "recursive";
        } else {
            recursive |= arg.contains('R');
        }
    }
    if !recursive {
        return None;
    }
    let target = targets.into_iter().find(|t| is_precious(t))?;
    Some(format!(
        "a recursive `{name}` of `{target}` would break the system"
    ))
}

/// A whole-disk or partition device.
fn is_disk_device(target: &str) -> bool {
    let Some(device) = target.strip_prefix("/dev/") else {
        return false;
    };
    ["sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk"]
        .iter()
        .any(|prefix| device.starts_with(prefix))
}

/// Whether `line` holds a fork bomb: `NAME(){ NAME|NAME& };NAME`, spaces
/// anywhere, any function name.
pub(crate) fn is_fork_bomb(line: &str) -> bool {
    let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    let mut search = 0;
    while let Some(found) = squeezed[search..].find("(){") {
        let at = search + found;
        let name: String = squeezed[..at]
            .chars()
            .rev()
            .take_while(|c| !matches!(c, ';' | '&' | '|' | '\n' | '(' | ')' | '{' | '}'))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let name = name.trim_start_matches("function");
        if !name.is_empty() {
            // The body pipes the function into itself: every call starts
            // two more, backgrounded or not.
            if squeezed[at + 3..].starts_with(&format!("{name}|{name}")) {
                return true;
            }
        }
        search = at + 3;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn chmod_needs_capital_r() {
        assert!(forbidden(&words("chmod -R 777 /")).is_some());
        assert!(forbidden(&words("chown -R me /usr")).is_some());
        assert!(forbidden(&words("chmod -r /")).is_none());
        assert!(forbidden(&words("chmod -R 755 src")).is_none());
    }

    #[test]
    fn disks_and_power() {
        assert!(forbidden(&words("dd if=/dev/zero of=/dev/sda bs=1M")).is_some());
        assert!(forbidden(&words("dd if=a of=b")).is_none());
        assert!(forbidden(&words("mkfs.ext4 /dev/sdb1")).is_some());
        assert!(forbidden(&words("shutdown -h now")).is_some());
        assert!(forbidden(&words("init 0")).is_some());
        assert!(forbidden(&words("systemctl reboot")).is_some());
        assert!(forbidden(&words("systemctl status")).is_none());
        assert!(forbidden(&words("find / -delete")).is_some());
        assert!(forbidden(&words("find ~ -name x -delete")).is_some());
        assert!(forbidden(&words("find . -name x -delete")).is_none());
        assert!(forbidden_write("/dev/nvme0n1").is_some());
        assert!(forbidden_write("/dev/null").is_none());
    }

    #[test]
    fn fork_bombs() {
        assert!(is_fork_bomb(":(){ :|:& };:"));
        assert!(is_fork_bomb("bomb() { bomb | bomb & }; bomb"));
        assert!(is_fork_bomb("echo hi; f(){ f|f& };f"));
        assert!(!is_fork_bomb("f() { echo hi; }; f"));
    }
}
