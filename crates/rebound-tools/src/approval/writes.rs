//! Whether a command line changes files, read by the bash parser the
//! policy uses: a program that writes (`rm`, `mv`, `touch`...), `sed -i`,
//! a git subcommand that changes the work tree, the index or the refs, or
//! a redirection into a file. For callers that must run only inspections
//! (the agent's own checks), where running the line to see is too late.

use super::rules::{command_name, is_harmless_sink};
use super::syntax::{self, SimpleCommand};

/// Programs that change files.
const WRITERS: &[&str] = &[
    "rm", "rmdir", "mv", "cp", "touch", "mkdir", "chmod", "chown", "ln", "truncate", "tee", "dd",
    "install", "patch",
];

/// git's subcommands that change the work tree, the index or the refs
/// (not `branch`, `tag` or `stash`, whose listing forms an inspection may
/// use).
const GIT_WRITERS: &[&str] = &[
    "add",
    "commit",
    "rm",
    "mv",
    "checkout",
    "switch",
    "reset",
    "restore",
    "merge",
    "rebase",
    "cherry-pick",
    "revert",
    "push",
    "pull",
    "apply",
    "am",
    "clean",
    // Plumbing and the rest that write the index, refs or files: an
    // agent's check that "inspects" with them would change the history.
    "update-index",
    "update-ref",
    "symbolic-ref",
    "read-tree",
    "checkout-index",
    "filter-branch",
    "replace",
    "notes",
    "fetch",
    "init",
    "clone",
    "worktree",
    "submodule",
    "sparse-checkout",
    "bisect",
    "format-patch",
    "gc",
    "prune",
];

/// The first simple command of `line` that changes files, as its words;
/// `None` when none does, or when the line does not parse (running it
/// tells why). Every simple command counts, also one behind a `&&` that
/// fails now or inside a substitution.
pub fn file_writer(line: &str) -> Option<String> {
    let script = syntax::parse(line).ok()?;
    if script.broken.is_some() {
        return None;
    }
    script
        .commands
        .iter()
        .find(|command| writes(command))
        .map(|command| command.words.join(" "))
}

/// Whether `command` changes files.
fn writes(command: &SimpleCommand) -> bool {
    if command
        .writes
        .iter()
        .any(|target| !is_harmless_sink(target))
    {
        return true;
    }
    let Some((program, args)) = command.words.split_first() else {
        return false;
    };
    match command_name(program) {
        name if WRITERS.contains(&name) => true,
        "sed" => args
            .iter()
            .any(|a| a.starts_with("-i") || a.starts_with("--in-place")),
        // The first word that is neither an option nor `-c`'s `name=value`.
        "git" => args
            .iter()
            .find(|a| !a.starts_with('-') && !a.contains('='))
            .is_some_and(|sub| GIT_WRITERS.contains(&sub.as_str())),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_that_writes_is_found_wherever_it_is() {
        for (line, writer) in [
            ("make clean && rm app && rm *.o", "rm app"),
            ("test -f app || touch app", "touch app"),
            (
                "sed -i 's/a/b/' Makefile; grep -q b Makefile",
                "sed -i s/a/b/ Makefile",
            ),
            (
                "git -c user.name=a add -A && git diff --cached --quiet",
                "git -c user.name=a add -A",
            ),
            ("X=1 mv Makefile M", "mv Makefile M"),
            ("./report > out.txt && grep -q total out.txt", "./report"),
            ("test -n \"$(cp a b)\"", "cp a b"),
            (
                "git update-index --cacheinfo 100644,abc,a.py && true",
                "git update-index --cacheinfo 100644,abc,a.py",
            ),
            (
                "git update-ref refs/heads/x HEAD",
                "git update-ref refs/heads/x HEAD",
            ),
        ] {
            assert_eq!(file_writer(line).as_deref(), Some(writer), "{line}");
        }
    }

    #[test]
    fn inspections_write_nothing() {
        for line in [
            "make -n clean | grep -q 'rm -f app'",
            "grep -q '^clean:' Makefile 2>&1",
            "grep -q 'a; rm b' notes.txt",
            "./report 2>/dev/null | grep -qx 'total: 3'",
            "git branch --show-current | grep -qx main",
            "! git status --porcelain | grep .",
            "awk '$2 > 100 { exit 1 }' data.txt",
        ] {
            assert_eq!(file_writer(line), None, "{line}");
        }
    }
}
