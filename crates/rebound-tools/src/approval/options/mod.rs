//! Options that make a command write files or run programs, per program.
//! A command using one is risky: asked about under `on-risk` even when an
//! allow rule matches it, unless a config allow rule names that option in
//! its pattern (`allow "sed -i"`).
//!
//! | program | risky options and arguments |
//! |---|---|
//! | `sort` | `-o FILE` (also clustered: `-no FILE`, `-oFILE`), `--output`, `--compress-program` |
//! | `find` | `-delete`, `-fprint`, `-fprint0`, `-fprintf`, `-fls` (`-exec`, `-execdir`, `-ok`, `-okdir` are judged on the command they run) |
//! | `rg` | `--pre`, `-z`/`--search-zip`, `--hostname-bin` |
//! | `tar` | `--to-command`, `--use-compress-program`/`-I`, `--checkpoint-action`, `--info-script`/`--new-volume-script`/`-F`, `--rsh-command`, `--rmt-command`, `--index-file` (old-style `tar xIf` too) |
//! | `sed` | `-i`/`--in-place`, `-f`/`--file`; a script with the `e`, `w` or `W` command or the `e` or `w` flag of `s` |
//! | `awk`, `gawk`, `mawk`, `nawk` | `-f`/`--file`, `-i`/`--include`, `-l`/`--load`, `-E`/`--exec`, `-o`/`--pretty-print`, `-p`/`--profile`, `-d`/`--dump-variables`, `-D`/`--debug`, `-W`; a program with `system`, `\|`, `>`, `ENVIRON`, `PROCINFO` or `@` |
//! | `git diff`, `git log`, `git show` | `--output`, `--ext-diff`, `--textconv`, `--show-signature` |
//! | `git blame` | `--textconv`, `--contents` |
//! | `git cat-file` | `--textconv`, `--filters` |
//! | `git grep` | `-O`/`--open-files-in-pager`, `--textconv` |
//! | `git` (global) | `-c`, `--config-env`, `--exec-path`, `-p`/`--paginate`, `-C`/`--git-dir`/`--work-tree` outside the workspace (see the git module) |
//! | `cargo` | `--config`, `--fix` |
//! | `tree` | `-o FILE` |
//! | `date` | `-s`/`--set` |
//! | `test`, `[` | `-v`, `-R` (array subscripts are arithmetic) |
//! | `less`, `more`, `most`, `pg` | always: they run commands (`!`, `\|`, an editor, `LESSOPEN`) |
//! | `xargs` | runs its argument command, judged; asked when that program is in this table (its options may come from the input) |
//!
//! Long options are matched by any prefix GNU `getopt_long` would accept
//! (`--out` for `--output`), except for `git`, `rg` and `cargo`, which
//! take none.

mod getopt;
mod table;

use super::scripts::{awk_program_risk, sed_script_risk};
use getopt::{option_matches, parse, Parsed, Style};
use table::{Entry, TABLE};

/// A risky option a command uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RiskyOption {
    /// Why it is risky.
    pub(super) reason: String,
    /// The option as the table names it (`-o`), or the program's name
    /// when the program itself is risky: a config allow rule whose
    /// pattern has this word lifts the risk.
    pub(super) word: String,
}

/// Whether `program` has an entry in the table: its options can make it
/// write files or run programs.
pub(super) fn has_risky_options(program: &str) -> bool {
    TABLE
        .iter()
        .any(|e| e.program.split(' ').next() == Some(program))
        || program == "git"
}

/// The first risky option of a command given by its normalised words (the
/// program by file name, git's global options skipped), if it has one.
pub(super) fn risky_option(words: &[String]) -> Option<RiskyOption> {
    let (program, args) = words.split_first()?;
    let (entry, args) = lookup(program, args)?;
    let risky = |option: &str, why: &str| RiskyOption {
        reason: format!("`{} {option}` {why}", entry.program),
        word: option.to_string(),
    };
    match entry.style {
        Style::Always => entry.risky.first().map(|(name, why)| RiskyOption {
            reason: format!("`{name}` {why}"),
            word: name.to_string(),
        }),
        Style::Words => args.iter().find_map(|arg| {
            let (option, why) = entry.risky.iter().find(|(o, _)| o == arg)?;
            Some(risky(option, why))
        }),
        Style::Getopt { abbreviations, .. } => {
            // An option the shell expands (`-q$x`) is only known when it
            // runs: its letters, and which word is a value, are unknown.
            let options_end = args.iter().position(|a| a == "--").unwrap_or(args.len());
            if let Some(computed) = args[..options_end]
                .iter()
                .find(|a| a.starts_with('-') && a.contains(['$', '`']))
            {
                return Some(RiskyOption {
                    reason: format!(
                        "`{} {computed}`: an option only known when it runs, which could be one that writes files or runs programs",
                        entry.program
                    ),
                    word: computed.to_string(),
                });
            }
            let parsed = parse(entry.style, program == "tar", args);
            let found = parsed.options.iter().find_map(|(name, _)| {
                let (option, why) = entry
                    .risky
                    .iter()
                    .find(|(o, _)| option_matches(o, name, abbreviations))?;
                Some(risky(option, why))
            });
            found.or_else(|| script_risk(entry.program, &parsed))
        }
    }
}

/// The entry for `program` (`git` by its subcommand) and its arguments.
fn lookup<'a>(program: &str, args: &'a [String]) -> Option<(&'static Entry, &'a [String])> {
    if program == "git" {
        let (subcommand, rest) = args.split_first()?;
        let name = format!("git {subcommand}");
        // A subcommand without an entry of its own is read with the diff
        // family's risky options: `--output`, `--ext-diff`, `--textconv`
        // and `--show-signature` are asked about wherever they are
        // written (`git tag -l --output=x`: found by the approval fuzz
        // target; fail closed rather than know each subcommand's).
        return TABLE
            .iter()
            .find(|e| e.program == name)
            .or_else(|| TABLE.iter().find(|e| e.program == "git"))
            .map(|e| (e, rest));
    }
    TABLE
        .iter()
        .find(|e| e.program == program)
        .map(|e| (e, args))
}

/// A reader of a little language: why a script is risky, if it is.
type ScriptCheck = fn(&str) -> Option<&'static str>;

/// The risk in a `sed` script or `awk` program, if the command has one.
fn script_risk(program: &str, parsed: &Parsed<'_>) -> Option<RiskyOption> {
    let (scripts, check): (Vec<&str>, ScriptCheck) = match program {
        "sed" => {
            let mut scripts: Vec<&str> = parsed
                .options
                .iter()
                .filter(|(o, _)| o == "-e" || option_matches("--expression", o, true))
                .filter_map(|(_, v)| *v)
                .collect();
            if scripts.is_empty() {
                scripts.extend(parsed.operands.first());
            }
            (scripts, sed_script_risk)
        }
        "awk" | "gawk" | "mawk" | "nawk" => {
            let program = parsed.operands.first().copied();
            (program.into_iter().collect(), awk_program_risk)
        }
        _ => return None,
    };
    scripts.into_iter().find_map(|script| {
        check(script).map(|why| RiskyOption {
            reason: format!("the {program} script `{script}` {why}"),
            // Only a rule naming the script itself lifts this.
            word: script.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn risk(line: &str) -> Option<String> {
        let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        risky_option(&words).map(|r| r.word)
    }

    #[test]
    fn the_table() {
        let table = [
            ("sort -o out.txt in.txt", Some("-o")),
            ("sort -no M in.txt", Some("-o")),
            ("sort -oM in.txt", Some("-o")),
            ("sort --output=M in.txt", Some("--output")),
            ("sort --out M in.txt", Some("--output")),
            ("sort --o=M in.txt", Some("--output")),
            ("date --s=now", Some("--set")),
            ("sort -t o -k 2 in.txt", None),
            ("sort -n in.txt", None),
            ("find . -name x -delete", Some("-delete")),
            ("find . -fprintf out %p", Some("-fprintf")),
            ("find . -name -delete.txt", None),
            ("rg --pre ./evil foo", Some("--pre")),
            ("rg --pre=./evil foo", Some("--pre")),
            ("rg -iz foo", Some("-z")),
            ("rg -e -z foo", None),
            ("tar --to-command=sh -xf a.tar", Some("--to-command")),
            ("tar -xIzstd -f a.tar", Some("-I")),
            ("tar xIf zstd a.tar", Some("-I")),
            (
                "tar --use-compress=evil -xf a.tar",
                Some("--use-compress-program"),
            ),
            (
                "tar --checkpoint-action=exec=sh -cf a.tar .",
                Some("--checkpoint-action"),
            ),
            ("tar -xf a.tar", None),
            ("sed -i s/a/b/ x.py", Some("-i")),
            ("sed -ni.bak s/a/b/p x.py", Some("-i")),
            ("sed --in-place s/a/b/ x.py", Some("--in-place")),
            ("sed -f script.sed x", Some("-f")),
            ("sed -n 1,10p x", None),
            ("sed 1e x", Some("1e")),
            ("sed s/a/b/e x", Some("s/a/b/e")),
            ("sed -e s/a/b/wout x", Some("s/a/b/wout")),
            ("sed -n /x/w out", Some("/x/w")),
            ("awk {print}", None),
            ("awk {system($0)}", Some("{system($0)}")),
            ("awk {print>$1}", Some("{print>$1}")),
            ("awk -f prog.awk x", Some("-f")),
            ("gawk -o{print} x", Some("-o")),
            ("git diff --output=x", Some("--output")),
            ("git tag -l -n1 --output=v1", Some("--output")),
            ("git rev-list --ext-diff HEAD", Some("--ext-diff")),
            ("git tag -l -n1 'v1*'", None),
            ("git log --ext-diff", Some("--ext-diff")),
            ("git show --textconv HEAD", Some("--textconv")),
            ("git diff --text", None),
            ("git log --oneline", None),
            ("git grep -Ovim foo", Some("-O")),
            ("cargo clippy --fix", Some("--fix")),
            ("cargo test --config target.x.runner=sh", Some("--config")),
            ("tree -o out", Some("-o")),
            ("date -s now", Some("-s")),
            ("test -v a[x]", Some("-v")),
            ("less README.md", Some("less")),
            ("cat x", None),
        ];
        let misses: Vec<String> = table
            .iter()
            .filter(|(line, want)| risk(line).as_deref() != *want)
            .map(|(line, want)| format!("{line}: want {want:?}, got {:?}", risk(line)))
            .collect();
        assert!(misses.is_empty(), "{}", misses.join("\n"));
    }
}
