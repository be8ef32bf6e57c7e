//! The rules every policy starts with.
//!
//! **Forbidden, always** (built-in guards; no rule and no mode lifts them):
//! - a recursive `rm` (`-r`, `-R`, `--recursive`, in any order or
//!   combination with other flags) of `/`, `/*`, `~`, `$HOME` or a top-level
//!   system directory (`/etc`, `/usr`, ...), paths resolved lexically
//!   (`/tmp/..` is `/`);
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
//! (`find -delete`, `find -exec`, `sort -o`, `rg --pre`, `cargo clippy
//! --fix`...) and without a redirection that writes a file. The list:
//! `ls`, `pwd`, `cd`, `echo`, `cat`, `head`, `tail`, `wc`, `grep`, `egrep`,
//! `fgrep`, `rg`, `find`, `tree`, `file`, `stat`, `du`, `df`, `diff`, `cmp`,
//! `sort`, `cut`, `basename`, `dirname`, `realpath`, `readlink`, `which`,
//! `whoami`, `uname`, `date`, `true`, `false`, `test`, `[`; `git status`,
//! `diff`, `log`, `show`, `blame`, `ls-files`, `rev-parse`, `branch
//! --show-current`; `cargo build|check|test|clippy`, `pytest`, `python -m
//! pytest`, `python3 -m pytest`, `npm test`, `npm run test`, `yarn test`,
//! `pnpm test`, `go build|test|vet`, `make test`, `make check`.
//!
//! What no rule sees: a program that deletes files itself (`python -c
//! "shutil.rmtree('/')"`), or `rm -rf *` after a `cd /` (the policy does
//! not follow the working directory). Under `on-risk` such commands are
//! asked about (they are not on the allow list); under `auto` they run.

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
    rules.extend(
        DEFAULT_ALLOW
            .iter()
            .map(|(pattern, unless)| CompiledRule::read_only(pattern, unless)),
    );
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

const NONE: &[&str] = &[];
const GIT_OUTPUT: &[&str] = &["--output", "--ext-diff"];

/// Read-only and everyday development commands, with the options that make
/// them write or run arbitrary programs.
const DEFAULT_ALLOW: &[(&str, &[&str])] = &[
    // Looking around.
    ("ls", NONE),
    ("pwd", NONE),
    ("cd", NONE),
    ("echo", NONE),
    ("cat", NONE),
    ("head", NONE),
    ("tail", NONE),
    ("wc", NONE),
    ("grep", NONE),
    ("egrep", NONE),
    ("fgrep", NONE),
    ("rg", &["--pre", "--search-zip", "-z"]),
    (
        "find",
        &[
            "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ],
    ),
    ("tree", &["-o"]),
    ("file", NONE),
    ("stat", NONE),
    ("du", NONE),
    ("df", NONE),
    ("diff", NONE),
    ("cmp", NONE),
    ("sort", &["-o", "--output", "--compress-program"]),
    ("cut", NONE),
    ("basename", NONE),
    ("dirname", NONE),
    ("realpath", NONE),
    ("readlink", NONE),
    ("which", NONE),
    ("whoami", NONE),
    ("uname", NONE),
    ("date", &["-s", "--set"]),
    ("true", NONE),
    ("false", NONE),
    ("test", NONE),
    ("[", NONE),
    // Git, reading.
    ("git status", NONE),
    ("git diff", GIT_OUTPUT),
    ("git log", GIT_OUTPUT),
    ("git show", GIT_OUTPUT),
    ("git blame", NONE),
    ("git ls-files", NONE),
    ("git rev-parse", NONE),
    ("git branch --show-current", NONE),
    // Building and testing.
    ("cargo build", NONE),
    ("cargo check", NONE),
    ("cargo test", NONE),
    ("cargo clippy", &["--fix"]),
    ("pytest", NONE),
    ("python -m pytest", NONE),
    ("python3 -m pytest", NONE),
    ("npm test", NONE),
    ("npm run test", NONE),
    ("yarn test", NONE),
    ("pnpm test", NONE),
    ("go build", NONE),
    ("go test", NONE),
    ("go vet", NONE),
    ("make test", NONE),
    ("make check", NONE),
];

/// Why the built-in guards forbid a command with normalised `words` (no
/// leading assignments, command by file name), if they do.
pub(crate) fn forbidden(words: &[String]) -> Option<String> {
    let name = command_name(words.first()?);
    let args = &words[1..];
    match name {
        "rm" => recursive_on_root(name, args),
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

/// `rm -rf /` and its kin: a recursive `name` whose targets include the
/// root, the home directory or a top-level system directory.
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
            recursive |= arg.contains('R') || (name == "rm" && arg.contains('r'));
        }
    }
    if !recursive {
        return None;
    }
    let target = targets.into_iter().find(|t| is_precious(t))?;
    Some(match name {
        "rm" => format!("`rm` would recursively delete `{target}`"),
        _ => format!("a recursive `{name}` of `{target}` would break the system"),
    })
}

/// Directories whose recursive deletion (or mode change) wrecks the system
/// or the user's home.
fn is_precious(path: &str) -> bool {
    let path = normalise_path(path);
    const PRECIOUS: &[&str] = &[
        "/", "~", "$HOME", "${HOME}", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32",
        "/lib64", "/opt", "/proc", "/root", "/sbin", "/srv", "/sys", "/usr", "/var",
    ];
    PRECIOUS.contains(&path.as_str())
}

/// A path from the root or the home directory, resolved lexically:
/// `//usr/./` as `/usr`, `/tmp/..` as `/`, `/*` as `/`, `~/` as `~`,
/// `$HOME/*` as `$HOME`; going above the home directory gives `/`. A
/// relative path is returned as it is.
fn normalise_path(path: &str) -> String {
    let root = ["${HOME}", "$HOME", "~", "/"].into_iter().find(|root| {
        path == *root || path.starts_with(&format!("{}/", root.trim_end_matches('/')))
    });
    let Some(root) = root else {
        return path.to_string();
    };
    let rest = &path[root.len()..];
    let parts: Vec<&str> = rest.split('/').collect();
    let mut kept: Vec<&str> = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        match *part {
            "" | "." => {}
            // `dir/*` is everything in `dir`.
            "*" if i + 1 == parts.len() => {}
            ".." => {
                if kept.pop().is_none() && root != "/" {
                    // Above the home directory.
                    return "/".to_string();
                }
            }
            other => kept.push(other),
        }
    }
    match (root, kept.is_empty()) {
        (root, true) => root.to_string(),
        ("/", false) => format!("/{}", kept.join("/")),
        (root, false) => format!("{root}/{}", kept.join("/")),
    }
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
    fn rm_variants() {
        for line in [
            "rm -rf /",
            "rm -fr /",
            "rm -r -f /",
            "rm -f -r /*",
            "rm -Rf ~",
            "rm -rf ~/",
            "rm --recursive --force /",
            "rm -rf --no-preserve-root /",
            "rm -rf $HOME",
            "rm -rf -- /",
            "rm -r //",
            "rm -rf /usr/",
            "rm -rf /etc/*",
            "rm -rf /tmp/..",
            "rm -rf /usr/local/../..",
            "rm -rf ~/..",
            "rm -rf $HOME/./",
        ] {
            assert!(forbidden(&words(line)).is_some(), "{line}");
        }
        for line in [
            "rm -rf build",
            "rm -f /",
            "rm -rf /tmp/x",
            "rm -rf ./",
            "rm -rf /tmp/a/..",
            "rm -rf ~/project/target",
            "rm -rf ../..",
            "rm file",
        ] {
            assert!(forbidden(&words(line)).is_none(), "{line}");
        }
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
