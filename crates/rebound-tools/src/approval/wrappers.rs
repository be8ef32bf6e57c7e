//! Commands that run other commands: `bash -c`, `eval`, `sudo`, `env`,
//! `nohup`, `timeout`, `xargs`, `find -exec`... are judged on the command
//! they run (as well as on their own rules).

use super::policy::{is_assignment, is_risky_variable, Judgement, MAX_NESTING};
use super::rules::is_harmless_sink;
use super::ApprovalPolicy;
use crate::approval::RuleAction;

/// Programs that run a script given as an argument, a file or their input.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox"];

impl ApprovalPolicy {
    /// Judges the command a wrapper runs (`sudo X`, `bash -c X`, `find
    /// -exec X`...), if `words` is such a wrapper.
    pub(super) fn judge_inner(
        &self,
        words: &[String],
        writes: &[String],
        stdin: &[String],
        depth: usize,
    ) -> Option<Judgement> {
        let name = words.first()?.as_str();
        let args = &words[1..];
        let rest = |with_value: &[&str]| skip_options(args, with_value);
        match name {
            _ if SHELLS.contains(&name) => Some(self.judge_shell(name, args, writes, stdin, depth)),
            "eval" => Some(self.judge_line(&args.join(" "), depth + 1)),
            "watch" => Some(self.judge_line(&rest(&["-n", "--interval"]).join(" "), depth + 1)),
            "sudo" => self.judge_wrapped(
                rest(&[
                    "-u",
                    "-g",
                    "-C",
                    "-D",
                    "-h",
                    "-p",
                    "-r",
                    "-t",
                    "-U",
                    "-T",
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
                ]),
                writes,
                stdin,
                depth,
            ),
            "doas" => self.judge_wrapped(rest(&["-u", "-C"]), writes, stdin, depth),
            "env" => self.judge_env(args, writes, stdin, depth),
            "nohup" | "setsid" | "builtin" | "time" => {
                self.judge_wrapped(rest(&[]), writes, stdin, depth)
            }
            "command" if args.iter().any(|a| a == "-v" || a == "-V") => {
                Some(Judgement::allow("`command -v` only looks a command up"))
            }
            "command" => self.judge_wrapped(rest(&[]), writes, stdin, depth),
            "exec" => self.judge_wrapped(rest(&["-a"]), writes, stdin, depth),
            "nice" => self.judge_wrapped(rest(&["-n", "--adjustment"]), writes, stdin, depth),
            "ionice" => self.judge_wrapped(
                rest(&["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"]),
                writes,
                stdin,
                depth,
            ),
            "stdbuf" => self.judge_wrapped(rest(&["-i", "-o", "-e"]), writes, stdin, depth),
            "timeout" => {
                let after = rest(&["-s", "--signal", "-k", "--kill-after"]);
                self.judge_wrapped(after.get(1..).unwrap_or_default(), writes, stdin, depth)
            }
            "xargs" => self.judge_wrapped(
                rest(&["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file"]),
                writes,
                &[],
                depth,
            ),
            "find" => self.judge_find_exec(args, depth),
            _ => None,
        }
    }

    /// A wrapped command, judged like any other (its absence: no judgement).
    fn judge_wrapped(
        &self,
        words: &[String],
        writes: &[String],
        stdin: &[String],
        depth: usize,
    ) -> Option<Judgement> {
        if words.is_empty() {
            return None;
        }
        if depth > MAX_NESTING {
            return Some(Judgement::ask("commands nested too deeply to judge"));
        }
        let start = words.iter().position(|w| !is_assignment(w))?;
        Some(self.judge_words(&words[start..], writes, stdin, depth + 1))
    }

    /// `bash -c SCRIPT`, `bash FILE`, or `bash` reading its input.
    fn judge_shell(
        &self,
        name: &str,
        args: &[String],
        writes: &[String],
        stdin: &[String],
        depth: usize,
    ) -> Judgement {
        let mut args = args;
        if name == "busybox" {
            // `busybox sh -c ...`: the applet is the program.
            match args.split_first() {
                Some((applet, rest)) if SHELLS.contains(&applet.as_str()) => args = rest,
                Some((_, _)) => {
                    return self
                        .judge_wrapped(args, writes, stdin, depth)
                        .unwrap_or_else(|| Judgement::ask("`busybox` runs an applet"))
                }
                None => return Judgement::ask("`busybox` with no applet"),
            }
        }
        let c_flag = args.iter().position(|a| {
            a.starts_with('-') && !a.starts_with("--") && a.len() > 1 && a.contains('c')
        });
        let writes_file = writes
            .iter()
            .find(|w| !is_harmless_sink(w))
            .map(|t| Judgement::ask(format!("a redirection writes to `{t}`")));
        let judgement = if let Some(at) = c_flag {
            match args[at + 1..].iter().find(|a| !a.starts_with('-')) {
                Some(script) => self.judge_line(script, depth + 1),
                None => Judgement::ask(format!("`{name} -c` without a script")),
            }
        } else if let Some(file) = args
            .iter()
            .find(|a| !a.starts_with('-') && !a.starts_with('+'))
        {
            Judgement::ask(format!(
                "`{name}` runs the script `{file}`, which cannot be judged"
            ))
        } else if !stdin.is_empty() {
            stdin
                .iter()
                .map(|script| self.judge_line(script, depth + 1))
                .reduce(Judgement::max)
                .unwrap_or_else(|| Judgement::allow(""))
        } else {
            Judgement::ask(format!(
                "`{name}` runs commands from its input, which cannot be judged"
            ))
        };
        match writes_file {
            Some(writes) => judgement.max(writes),
            None => judgement,
        }
    }

    /// `env [-i] [-u NAME] [VAR=value]... COMMAND`, and `env -S "LINE"`.
    fn judge_env(
        &self,
        args: &[String],
        writes: &[String],
        stdin: &[String],
        depth: usize,
    ) -> Option<Judgement> {
        let mut i = 0;
        let mut assignments = Judgement::allow("");
        while let Some(arg) = args.get(i) {
            if arg == "-S" || arg == "--split-string" {
                let line = args[i + 1..].join(" ");
                return Some(assignments.max(self.judge_line(&line, depth + 1)));
            } else if matches!(arg.as_str(), "-u" | "--unset" | "-C" | "--chdir") {
                i += 2;
            } else if arg == "--" {
                i += 1;
                break;
            } else if arg.starts_with('-') {
                i += 1;
            } else if is_assignment(arg) {
                let name = arg.split('=').next().unwrap_or_default();
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
        let command = self.judge_wrapped(args.get(i..).unwrap_or_default(), writes, stdin, depth);
        match command {
            Some(command) => Some(assignments.max(command)),
            None if assignments.action == RuleAction::Allow => None,
            None => Some(assignments),
        }
    }

    /// The commands of `find ... -exec CMD ;` (and `-execdir`, `-ok`,
    /// `-okdir`), if there are any.
    fn judge_find_exec(&self, args: &[String], depth: usize) -> Option<Judgement> {
        let mut judgement: Option<Judgement> = None;
        let mut i = 0;
        while i < args.len() {
            if matches!(args[i].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                let start = i + 1;
                let mut end = start;
                while end < args.len() && args[end] != ";" && args[end] != "+" {
                    end += 1;
                }
                if let Some(inner) = self.judge_wrapped(&args[start..end], &[], &[], depth) {
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

/// Options (and the values of those in `with_value`) skipped, up to the
/// first other word; a `--` ends the options.
fn skip_options<'a>(args: &'a [String], with_value: &[&str]) -> &'a [String] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg.len() == 1 {
            break;
        }
        i += if with_value.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    args.get(i..).unwrap_or_default()
}
