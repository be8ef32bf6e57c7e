//! Commands that run other commands: `bash -c`, `eval`, `sudo`, `env`,
//! `nohup`, `timeout`, `xargs`, `find -exec`... are judged on the command
//! they run (as well as on their own rules). Where a wrapper's options
//! cannot be told from its command for sure, every later word that could
//! start the command is also checked for forbidden commands.

use super::judgement::Judgement;
use super::options::has_risky_options;
use super::policy::{Io, MAX_NESTING, TOO_DEEP};
use super::rules::{command_name, is_harmless_sink};
use super::variables::{assigned_name, is_assignment, is_risky_variable};
use super::ApprovalPolicy;

/// Programs that run a script given as an argument, a file or their input.
pub(super) const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox"];

/// How a wrapper reads its own options before the command it runs.
struct Options {
    /// Short options that take a value (the rest of the word, or the next).
    values: &'static str,
    /// Short options whose value is optional (only the rest of the word).
    optional: &'static str,
    /// Long options that take the next word when written without `=`.
    long_values: &'static [&'static str],
}

const NO_OPTIONS: Options = Options {
    values: "",
    optional: "",
    long_values: &[],
};

/// The options of `name`, when it is a wrapper that only runs the
/// command after them (`sudo`, `nice`, `nohup`...).
fn plain_wrapper(name: &str) -> Option<Options> {
    Some(match name {
        "sudo" => Options {
            values: "CDghpRrtTUu",
            optional: "",
            long_values: &[
                "--user",
                "--group",
                "--chdir",
                "--prompt",
                "--role",
                "--type",
                "--host",
                "--other-user",
                "--close-from",
                "--command-timeout",
                "--chroot",
            ],
        },
        "doas" => Options {
            values: "uC",
            ..NO_OPTIONS
        },
        "nohup" | "setsid" | "builtin" | "time" | "command" | "coproc" => NO_OPTIONS,
        "exec" => Options {
            values: "a",
            ..NO_OPTIONS
        },
        "nice" => Options {
            values: "n",
            optional: "",
            long_values: &["--adjustment"],
        },
        "ionice" => Options {
            values: "cnpPu",
            optional: "",
            long_values: &["--class", "--classdata", "--pid", "--pgid", "--uid"],
        },
        "stdbuf" => Options {
            values: "ioe",
            optional: "",
            long_values: &["--input", "--output", "--error"],
        },
        _ => return None,
    })
}

/// The most words of one command tried as the start of a forbidden one.
const MAX_SCANNED_STARTS: usize = 256;

impl ApprovalPolicy {
    /// Judges the command a wrapper runs (`sudo X`, `bash -c X`, `find
    /// -exec X`...), if `words` is such a wrapper.
    pub(super) fn judge_inner(
        &self,
        words: &[String],
        io: Io<'_>,
        depth: usize,
    ) -> Option<Judgement> {
        let name = words.first()?.as_str();
        let args = &words[1..];
        let wrapped = |options: &Options, io: Io<'_>| self.judge_wrapped(args, options, io, depth);
        match name {
            _ if SHELLS.contains(&name) => Some(self.judge_shell(name, args, io, depth)),
            "eval" => Some(
                self.judge_line(&args.join(" "), depth + 1)
                    .max(Judgement::ask("`eval` runs a string as a command line")),
            ),
            "watch" => {
                let after = skip_options(
                    args,
                    &Options {
                        values: "dgnq",
                        optional: "",
                        long_values: &["--interval", "--differences"],
                    },
                );
                Some(self.judge_line(&after.join(" "), depth + 1))
            }
            "env" => self.judge_env(args, io, depth),
            "command" if args.iter().any(|a| a == "-v" || a == "-V") => {
                Some(Judgement::allow("`command -v` only looks a command up"))
            }
            "timeout" => {
                let options = Options {
                    values: "sk",
                    optional: "",
                    long_values: &["--signal", "--kill-after"],
                };
                // The first word after the options is the duration.
                let after = skip_options(args, &options);
                let command = after.get(1..).unwrap_or_default();
                self.judge_command_of(args, command, io, depth)
            }
            "xargs" => self.judge_xargs(args, io, depth),
            "find" => self.judge_find_exec(args, depth),
            "source" | "." => Some(self.judge_source(name, args, io, depth)),
            "trap" => {
                let action = args.iter().find(|a| !a.starts_with('-'))?;
                Some(
                    self.judge_line(action, depth + 1)
                        .max(Judgement::ask("`trap` runs a command when a signal comes")),
                )
            }
            "alias" => args
                .iter()
                .filter_map(|a| a.split_once('=').map(|(_, value)| value))
                .map(|value| self.judge_line(value, depth + 1))
                .filter(Judgement::is_forbidden)
                .reduce(Judgement::max),
            _ => wrapped(&plain_wrapper(name)?, io),
        }
    }

    /// The command a wrapper runs after its `options`, judged like any
    /// other, and every other word that could start it searched for
    /// forbidden commands; `None` when it runs none.
    fn judge_wrapped(
        &self,
        args: &[String],
        options: &Options,
        io: Io<'_>,
        depth: usize,
    ) -> Option<Judgement> {
        let command = skip_options(args, options);
        self.judge_command_of(args, command, io, depth)
    }

    /// The `command` a wrapper given `args` runs (a tail of `args`), judged
    /// like any other; every other word of `args` that could start it
    /// searched for forbidden commands; and a word before it that the shell
    /// expands (`nice -$N ls`) asked about: unquoted, its value is split
    /// into words, which could be options or the command itself. `None`
    /// when it runs none.
    fn judge_command_of(
        &self,
        args: &[String],
        command: &[String],
        io: Io<'_>,
        depth: usize,
    ) -> Option<Judgement> {
        let before = &args[..args.len().saturating_sub(command.len())];
        let computed = before.iter().find(|w| w.contains(['$', '`'])).map(|w| {
            Judgement::ask(format!(
                "`{w}`, before the command a wrapper runs, is only known when it runs: its \
                 words could be options or the command itself"
            ))
        });
        Some(
            self.judge_at(command, io, depth)?
                .max(self.forbidden_anywhere(args, depth))
                .max_with(computed),
        )
    }

    /// `words` judged as the command a wrapper runs, one level down;
    /// `None` when there is no command. A wrapper (`timeout`, `nice`,
    /// `xargs`, `find -exec`) hands its words to `exec`, not to a shell: a
    /// first word such as `A=b` is the name of the program it runs, not an
    /// assignment (`env` reads its own assignments before it gets here).
    fn judge_at(&self, words: &[String], io: Io<'_>, depth: usize) -> Option<Judgement> {
        let first = words.first()?;
        if depth > MAX_NESTING {
            return Some(Judgement::forbid(TOO_DEEP));
        }
        if is_assignment(first) {
            return Some(Judgement::ask(format!(
                "a wrapper runs `{first}` as a program's name (no shell reads it as an assignment)"
            )));
        }
        Some(self.judge_words(words, io, depth + 1))
    }

    /// The strictest forbid among the commands that would run if any word
    /// of `args` after the first that is not an option started the command:
    /// a wrapper's options read wrongly must not hide `rm -rf /`.
    pub(super) fn forbidden_anywhere(&self, args: &[String], depth: usize) -> Judgement {
        // A scan under way covers these suffixes (see `scan`).
        let Some(_scan) = super::scan::ScanState::start() else {
            return Judgement::allow("");
        };
        (1..args.len())
            .filter(|&i| !args[i].starts_with('-') && !is_assignment(&args[i]))
            .take(MAX_SCANNED_STARTS)
            .map(|i| self.judge_words(&args[i..], Io::default(), depth + 1))
            .filter(Judgement::is_forbidden)
            .fold(Judgement::allow(""), Judgement::max)
    }

    /// `xargs [options] COMMAND...`: the command is judged; its arguments
    /// come from the input, so a program with risky options is asked about.
    fn judge_xargs(&self, args: &[String], io: Io<'_>, depth: usize) -> Option<Judgement> {
        let options = Options {
            values: "adEILnPs",
            optional: "eil",
            long_values: &[
                "--arg-file",
                "--delimiter",
                "--max-args",
                "--max-procs",
                "--max-chars",
                "--process-slot-var",
            ],
        };
        let command = skip_options(args, &options);
        let io = Io {
            stdin: &[],
            piped: &[],
            ..io
        };
        let judgement = self.judge_command_of(args, command, io, depth)?;
        let program = program_of(command);
        Some(if runs_commands(program) {
            // `xargs -I% sh -c 'ls %'`, `xargs nice sort`, `xargs watch
            // ls`: the input becomes shell code, or the options of the
            // command the wrapper runs.
            judgement.max(Judgement::ask(format!(
                "`xargs` gives its input to `{program}`, which runs another command: the \
                 input could become that command's code or options"
            )))
        } else if has_risky_options(program) {
            judgement.max(Judgement::ask(format!(
                "`xargs` passes `{program}` arguments from its input, and some `{program}` \
                 options write files or run programs"
            )))
        } else {
            judgement
        })
    }

    /// `bash -c SCRIPT`, `bash FILE`, or `bash` reading its input.
    fn judge_shell(&self, name: &str, args: &[String], io: Io<'_>, depth: usize) -> Judgement {
        let mut args = args;
        if name == "busybox" {
            // `busybox sh -c ...`: the applet is the program.
            match args.split_first() {
                Some((applet, rest)) if SHELLS.contains(&applet.as_str()) => args = rest,
                Some(_) => {
                    return self
                        .judge_wrapped(args, &NO_OPTIONS, io, depth)
                        .unwrap_or_else(|| Judgement::ask("`busybox` runs an applet"))
                }
                None => return Judgement::ask("`busybox` with no applet"),
            }
        }
        // A shell reads its options up to the first word that is not one
        // (or `--`): that word is the script (with `-c`, its text), and
        // what follows are the script's arguments. `bash FILE -c x` runs
        // FILE; its `-c` is FILE's `$1`.
        let mut end = 0;
        let mut unknown = None;
        // `-c` among the option words (never an option's value: `bash -o
        // -c x` names an option `-c`, and bash refuses it).
        let mut c_flag = false;
        while let Some(arg) = args.get(end) {
            let is_option = arg.len() > 1 && (arg.starts_with('-') || arg.starts_with('+'));
            if arg == "--" || !is_option {
                break;
            }
            c_flag |= arg.starts_with('-') && !arg.starts_with("--") && arg.contains('c');
            end += match shell_option_words(arg) {
                Some(words) => words,
                None => {
                    // Still read on, for what the script would do: a
                    // forbidden command stays forbidden.
                    unknown.get_or_insert_with(|| {
                        Judgement::ask(format!(
                            "`{name} {arg}`: an option that reads a file or its input, or \
                             one rebound does not know"
                        ))
                    });
                    if arg.ends_with(['o', 'O']) {
                        2
                    } else {
                        1
                    }
                }
            };
        }
        let rest = &args[end.min(args.len())..];
        let first = match rest.split_first() {
            Some((dashes, after)) if dashes == "--" => after.first(),
            _ => rest.first(),
        };
        let writes_file = io
            .writes
            .iter()
            .find(|w| !is_harmless_sink(w))
            .map(|t| Judgement::ask(format!("a redirection writes to `{t}`")));
        let judgement = if c_flag {
            match first {
                Some(script) => self.judge_line(script, depth + 1),
                None => Judgement::ask(format!("`{name} -c` without a script")),
            }
        } else if let Some(file) = first {
            Judgement::ask(format!(
                "`{name}` runs the script `{file}`, which cannot be judged"
            ))
        } else if !io.stdin.is_empty() {
            io.stdin
                .iter()
                .map(|script| self.judge_line(script, depth + 1))
                .reduce(Judgement::max)
                .unwrap_or_else(|| Judgement::allow(""))
        } else {
            // What an `echo` or `cat <<EOF` pipes in is only searched for
            // forbidden commands: it is not known whole.
            io.piped
                .iter()
                .map(|script| self.judge_line(script, depth + 1))
                .filter(Judgement::is_forbidden)
                .fold(
                    Judgement::ask(format!(
                        "`{name}` runs commands from its input, which cannot be judged"
                    )),
                    Judgement::max,
                )
        };
        judgement.max_with(writes_file).max_with(unknown)
    }

    /// `source FILE` (`. FILE`): a script that cannot be judged, unless
    /// it is the standard input (`source /dev/stdin <<< '...'`).
    fn judge_source(&self, name: &str, args: &[String], io: Io<'_>, depth: usize) -> Judgement {
        match args.first().map(String::as_str) {
            Some("/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0") => {
                self.judge_shell("bash", &[], io, depth)
            }
            Some(file) => Judgement::ask(format!(
                "`{name}` runs the script `{file}`, which cannot be judged"
            )),
            None => Judgement::ask(format!("`{name}` without a script")),
        }
    }

    /// `env [-i] [-u NAME] [VAR=value]... COMMAND`, and `env -S "LINE"`.
    fn judge_env(&self, args: &[String], io: Io<'_>, depth: usize) -> Option<Judgement> {
        let mut i = 0;
        let mut assignments = Judgement::allow("");
        while let Some(arg) = args.get(i) {
            if arg.starts_with("--split-string")
                || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains('S'))
            {
                // env splits the string by rules of its own (`\_`, `#`
                // comments, `${VAR}`), not a shell's: what it runs cannot be
                // read as a shell line (`env -S '#ls' rm x` runs `rm x`).
                let line = self.judge_line(&args[i + 1..].join(" "), depth + 1);
                return Some(
                    assignments
                        .max(line)
                        .max(self.forbidden_anywhere(&args[i..], depth))
                        .max(Judgement::ask(
                            "`env -S` splits a string by its own rules into the command it runs",
                        )),
                );
            } else if matches!(arg.as_str(), "-u" | "--unset" | "-C" | "--chdir") {
                i += 2;
            } else if arg == "--" {
                i += 1;
                break;
            } else if arg.starts_with('-') {
                if let Some(why) = unknown_env_option(arg) {
                    // Fail closed: an option env does not have here may be
                    // another env's (BSD `-P` sets where the command is
                    // looked up), and a bare `-` makes the next word the
                    // command even when it starts with `-`.
                    return Some(assignments.max(Judgement::ask(why)));
                }
                i += 1;
            } else if is_assignment(arg) {
                let name = assigned_name(arg);
                if is_risky_variable(name) {
                    assignments = assignments.max(Judgement::ask(format!(
                        "setting `{name}` changes which programs run"
                    )));
                }
                i += 1;
            } else {
                break;
            }
        }
        let command = self.judge_command_of(args, args.get(i..).unwrap_or_default(), io, depth);
        match command {
            Some(command) => Some(assignments.max(command)),
            None if assignments.action == super::RuleAction::Allow => None,
            None => Some(assignments),
        }
    }

    /// The commands of `find ... -exec CMD ;` (and `-execdir`, `-ok`,
    /// `-okdir`), if there are any. With `-exec` and `-ok`, `{}` is a path
    /// under one of the starting points, which are tried in its place for
    /// forbidden commands (`find / -exec rm -rf {} +` deletes `/`).
    fn judge_find_exec(&self, args: &[String], depth: usize) -> Option<Judgement> {
        let starts: Vec<&String> = args
            .iter()
            .take_while(|a| !a.starts_with('-') && *a != "(" && *a != "!")
            .collect();
        let mut judgement: Option<Judgement> = None;
        let mut i = 0;
        while i < args.len() {
            let action = args[i].as_str();
            if matches!(action, "-exec" | "-execdir" | "-ok" | "-okdir") {
                let start = i + 1;
                let mut end = start;
                // Up to `;`, or a `+` right after `{}`: any other `+` is
                // an argument of the command (`sort + -o out {} ;`).
                while end < args.len()
                    && args[end] != ";"
                    && !(args[end] == "+" && end > start && args[end - 1] == "{}")
                {
                    end += 1;
                }
                let command = &args[start..end];
                let mut inner = self.judge_at(command, Io::default(), depth);
                let program = program_of(command);
                if runs_commands(program) && command.iter().any(|w| w.contains("{}")) {
                    // `find . -exec sh -c 'cat {}' ;`: a file's name (the
                    // workspace's to choose) becomes shell code.
                    inner = inner.map(|j| {
                        j.max(Judgement::ask(format!(
                            "`find {action}` puts file names into what `{program}` runs: a \
                             name could become code"
                        )))
                    });
                }
                if matches!(action, "-exec" | "-ok") {
                    for path in &starts {
                        let placed: Vec<String> =
                            command.iter().map(|w| w.replace("{}", path)).collect();
                        let forbidden = self
                            .judge_at(&placed, Io::default(), depth)
                            .filter(Judgement::is_forbidden);
                        inner = inner.map(|j| j.max_with(forbidden));
                    }
                }
                if let Some(inner) = inner {
                    judgement = Some(match judgement {
                        Some(j) => j.max(inner),
                        None => inner,
                    });
                }
                i = end;
            }
            i += 1;
        }
        judgement
    }
}

/// The program `words` run: the name of the first word that is not an
/// assignment (`""` for none).
fn program_of(words: &[String]) -> &str {
    words
        .iter()
        .find(|w| !is_assignment(w))
        .map(|w| command_name(w))
        .unwrap_or_default()
}

/// Whether `name` runs a command given in its arguments (a shell, a
/// wrapper such as `nice` or `timeout`, `env`, `watch`, `eval`...).
fn runs_commands(name: &str) -> bool {
    SHELLS.contains(&name)
        || plain_wrapper(name).is_some()
        || matches!(
            name,
            "eval" | "watch" | "env" | "timeout" | "xargs" | "find" | "source" | "." | "trap"
        )
}

/// `args` after a wrapper's own options (and a `--`): where the command
/// it runs starts. Options stop at the first word that is not one.
fn skip_options<'a>(args: &'a [String], options: &Options) -> &'a [String] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg.len() == 1 {
            break;
        }
        i += 1;
        if arg.starts_with("--") {
            if !arg.contains('=') && options.long_values.contains(&arg.as_str()) {
                i += 1;
            }
            continue;
        }
        for (at, c) in arg.char_indices().skip(1) {
            if options.optional.contains(c) {
                break;
            }
            if options.values.contains(c) {
                if at + c.len_utf8() == arg.len() {
                    i += 1;
                }
                break;
            }
        }
    }
    args.get(i..).unwrap_or_default()
}

/// The letters of a shell's one-letter options that neither read a file
/// nor the shell's input (`-s`), nor make it a login or interactive shell
/// (`-l`, `-i`, which read profile files): `set`'s flags and `-c`.
const SHELL_FLAGS: &str = "abcefhkmnptuvxBCEHPT";

/// A shell's long options that read no file.
const SHELL_LONG_OPTIONS: &[&str] = &["--norc", "--noprofile", "--posix", "--noediting"];

/// How many words the shell option `arg` (`-e`, `-eo pipefail`,
/// `--norc`) takes, itself included: 2 when it ends in `o` or `O` (their
/// value is the next word); `None` for an option outside [`SHELL_FLAGS`]
/// and [`SHELL_LONG_OPTIONS`], and for `o`/`O` inside a group (bash gives
/// each the next word, which a reading of one value would misjudge).
fn shell_option_words(arg: &str) -> Option<usize> {
    if arg.starts_with("--") {
        return SHELL_LONG_OPTIONS.contains(&arg).then_some(1);
    }
    let letters = arg.get(1..)?;
    let (last, group) = match letters.char_indices().last() {
        Some((at, last)) => (last, &letters[..at]),
        None => return None,
    };
    if !group.chars().all(|letter| SHELL_FLAGS.contains(letter)) {
        return None;
    }
    match last {
        'o' | 'O' => Some(2),
        letter if SHELL_FLAGS.contains(letter) => Some(1),
        _ => None,
    }
}

/// Why `arg`, an option word given to `env`, is not one of GNU env's
/// (`None` when it is): a bare `-`, an unknown long option, or a short
/// group with a letter other than `i`, `0`, `v`, or a value-taking `u`
/// or `C` (its value the rest of the word, or the next word, which the
/// caller skips only for the word alone). `-S` is judged before this.
fn unknown_env_option(arg: &str) -> Option<String> {
    const LONG: &[&str] = &[
        "--ignore-environment",
        "--null",
        "--debug",
        "--unset",
        "--chdir",
        "--block-signal",
        "--default-signal",
        "--ignore-signal",
        "--list-signal-handling",
    ];
    if arg == "-" {
        return Some("`env -` makes the next word the command, whatever it looks like".to_string());
    }
    if let Some(long) = arg.strip_prefix("--") {
        let name = format!("--{}", long.split('=').next().unwrap_or_default());
        return (!LONG.contains(&name.as_str()))
            .then(|| format!("`{arg}` is not an option `env` is known to have"));
    }
    let letters = arg.strip_prefix('-').unwrap_or(arg);
    for letter in letters.chars() {
        match letter {
            'i' | '0' | 'v' => {}
            // The rest of the word is the value.
            'u' | 'C' => return None,
            _ => return Some(format!("`{arg}` is not an option `env` is known to have")),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(line: &str, options: &Options) -> String {
        let args: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        skip_options(&args, options).join(" ")
    }

    #[test]
    fn options_are_skipped() {
        let xargs = Options {
            values: "adEILnPs",
            optional: "eil",
            long_values: &["--max-args"],
        };
        assert_eq!(after("-0 -n 1 rm -rf x", &xargs), "rm -rf x");
        assert_eq!(after("-tn 1 rm x", &xargs), "rm x");
        assert_eq!(after("-n1 -I{} rm {}", &xargs), "rm {}");
        assert_eq!(after("--max-args 2 rm", &xargs), "rm");
        assert_eq!(after("-i rm", &xargs), "rm");
        assert_eq!(after("-- -x", &NO_OPTIONS), "-x");
    }

    #[test]
    fn envs_own_options_are_known_and_others_are_not() {
        for known in [
            "-i",
            "-0",
            "-iv",
            "-uHOME",
            "-iC/tmp",
            "--null",
            "--unset=PATH",
            "--debug",
        ] {
            assert_eq!(unknown_env_option(known), None, "{known}");
        }
        for unknown in ["-", "-~", "-P", "-iP", "--path", "-~diff-<( sed"] {
            assert!(unknown_env_option(unknown).is_some(), "{unknown}");
        }
    }
}
