//! Programs that run another command (`command ls`, `timeout 5 ls`,
//! `bash -c 'ls'`, `xargs grep x`...), read from each program's own
//! manual: what they run is what is judged. Written apart from the
//! approval policy's wrapper table, as the rest of this crate is.

/// What a wrapper runs, once its own options are read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Runs {
    /// The words from this index on are the command it runs (none: it
    /// runs nothing, as `nohup` alone).
    Command(usize),
    /// Like [`Runs::Command`], with words from the wrapper's input
    /// (`xargs`): added after the command's own, or, with `replace`, put
    /// where that string is in its words.
    CommandWithInput {
        /// Where the command starts.
        start: usize,
        /// The string replaced by each line of input (`-I R`).
        replace: Option<String>,
    },
    /// This text, given to a shell (`bash -c TEXT`, `watch TEXT`).
    Line(String),
    /// Nothing: it only looks a command up (`command -v x`).
    Nothing,
}

/// How a wrapper reads its own options (from its manual).
struct Reading {
    /// One-letter options whose value is the rest of the word or the next.
    values: &'static str,
    /// Long options whose value is the next word when written without `=`.
    long_values: &'static [&'static str],
}

const PLAIN: Reading = Reading {
    values: "",
    long_values: &[],
};

/// Shells, whose `-c` makes their first word after the options a command
/// line (and without it, a script file or their input).
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"];

/// What `program` runs when it is a wrapper, given its `arguments`
/// (`None`: a computed word); `None` when it is not one. `Err` when what
/// it runs cannot be known from the line, or is not a command.
pub(crate) fn runs(program: &str, arguments: &[Option<String>]) -> Option<Result<Runs, String>> {
    let command_after =
        |reading: &Reading| options_end(program, arguments, reading).map(Runs::Command);
    Some(match program {
        "nohup" | "coproc" | "builtin" => Ok(Runs::Command(0)),
        // bash's `time` keyword takes -p; setsid -c/-f/-w are flags.
        "time" | "setsid" => command_after(&PLAIN),
        "exec" => command_after(&Reading {
            values: "a",
            long_values: &[],
        }),
        "command" => {
            let start = match options_end(program, arguments, &PLAIN) {
                Ok(start) => start,
                Err(why) => return Some(Err(why)),
            };
            let looks_up = arguments[..start]
                .iter()
                .flatten()
                .any(|a| !a.starts_with("--") && (a.contains('v') || a.contains('V')));
            if looks_up {
                Ok(Runs::Nothing)
            } else {
                Ok(Runs::Command(start))
            }
        }
        "nice" => command_after(&Reading {
            values: "n",
            long_values: &["--adjustment"],
        }),
        "stdbuf" => command_after(&Reading {
            values: "ioe",
            long_values: &["--input", "--output", "--error"],
        }),
        "ionice" => {
            let reading = Reading {
                values: "cnpPu",
                long_values: &["--class", "--classdata", "--pid", "--pgid", "--uid"],
            };
            match options_end(program, arguments, &reading) {
                Err(why) => Err(why),
                // -p, -P and -u name other processes, whose priority it
                // sets (its own options only: not the command's).
                Ok(start)
                    if arguments[..start].iter().flatten().any(|a| {
                        ["--pid", "--pgid", "--uid"]
                            .iter()
                            .any(|o| a.starts_with(o))
                            || (!a.starts_with("--")
                                && a.starts_with('-')
                                && a.chars().any(|c| matches!(c, 'p' | 'P' | 'u')))
                    }) =>
                {
                    Err("`ionice` of other processes".to_string())
                }
                Ok(start) => Ok(Runs::Command(start)),
            }
        }
        "timeout" => options_end(
            program,
            arguments,
            &Reading {
                values: "sk",
                long_values: &["--signal", "--kill-after"],
            },
        )
        // The first word after the options is the duration.
        .map(|start| Runs::Command(start + 1)),
        "env" => env(arguments),
        "xargs" => xargs(arguments),
        "watch" => {
            let reading = Reading {
                values: "nqg",
                long_values: &["--interval", "--equexit"],
            };
            match options_end(program, arguments, &reading) {
                Err(why) => Err(why),
                Ok(start) => {
                    let exec = arguments[..start].iter().flatten().any(|a| {
                        *a == "--exec"
                            || (!a.starts_with("--") && a.starts_with('-') && a.contains('x'))
                    });
                    if exec {
                        Ok(Runs::Command(start))
                    } else {
                        // The words joined with spaces, run by `sh -c`.
                        joined(&arguments[start..]).map(Runs::Line)
                    }
                }
            }
        }
        _ if SHELLS.contains(&program) => shell(program, arguments),
        _ => return None,
    })
}

/// The index of the first word after `program`'s options (`--` ends them;
/// a value-taking option takes its value).
fn options_end(
    program: &str,
    arguments: &[Option<String>],
    reading: &Reading,
) -> Result<usize, String> {
    let mut i = 0;
    while let Some(argument) = arguments.get(i) {
        let Some(argument) = argument else {
            return Err(format!("`{program}` with a computed option"));
        };
        if argument == "--" {
            return Ok(i + 1);
        }
        if let Some(long) = argument.strip_prefix("--") {
            let name = format!("--{}", long.split('=').next().unwrap_or_default());
            if reading.long_values.contains(&name.as_str()) && !long.contains('=') {
                i += 1;
            }
        } else if let Some(letters) = argument.strip_prefix('-').filter(|l| !l.is_empty()) {
            if let Some(at) = letters.find(|c| reading.values.contains(c)) {
                // Its value is the rest of the word, or the next word.
                if at + 1 == letters.len() {
                    i += 1;
                }
            }
        } else {
            return Ok(i);
        }
        i += 1;
    }
    Ok(arguments.len())
}

/// `xargs [OPTIONS] [COMMAND [ARGS]]`.
fn xargs(arguments: &[Option<String>]) -> Result<Runs, String> {
    let reading = Reading {
        values: "adEILnPs",
        long_values: &[
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-lines",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
    };
    let start = options_end("xargs", arguments, &reading)?;
    let mut replace = None;
    let mut i = 0;
    while i < start {
        let word = arguments[i].as_deref().unwrap_or_default();
        if let Some(value) = word.strip_prefix("--replace") {
            replace = Some(value.strip_prefix('=').unwrap_or("{}").to_string());
        } else if let Some(letters) = word.strip_prefix('-').filter(|w| !w.starts_with('-')) {
            // The first value-taking letter ends the group.
            for (at, letter) in letters.char_indices() {
                let rest = &letters[at + 1..];
                if letter == 'I' {
                    replace = Some(if rest.is_empty() {
                        i += 1;
                        arguments.get(i).cloned().flatten().unwrap_or_default()
                    } else {
                        rest.to_string()
                    });
                    break;
                }
                if letter == 'i' {
                    replace = Some(if rest.is_empty() { "{}" } else { rest }.to_string());
                    break;
                }
                if reading.values.contains(letter) {
                    if rest.is_empty() {
                        i += 1;
                    }
                    break;
                }
            }
        } else if reading.long_values.contains(&word) {
            i += 1;
        }
        i += 1;
    }
    Ok(Runs::CommandWithInput { start, replace })
}

/// `env [-i] [-0] [-u NAME] [-C DIR] [-S TEXT] [NAME=VALUE]... [COMMAND]`.
fn env(arguments: &[Option<String>]) -> Result<Runs, String> {
    let reading = Reading {
        values: "uCS",
        long_values: &["--unset", "--chdir", "--split-string"],
    };
    let start = options_end("env", arguments, &reading)?;
    let options = &arguments[..start];
    if options.iter().flatten().any(|a| {
        a.starts_with("--split-string")
            || (!a.starts_with("--") && a.starts_with('-') && a.contains('S'))
    }) {
        // The split string's own quoting and `${VAR}` are env's: not read
        // here.
        return Err("`env -S` splits a string of its own".to_string());
    }
    let mut i = start;
    while let Some(Some(word)) = arguments.get(i) {
        let Some((name, _)) = word.split_once('=') else {
            break;
        };
        if crate::command::PROGRAM_VARIABLES.contains(&name) {
            return Err(format!("`env` sets {name}"));
        }
        i += 1;
    }
    Ok(Runs::Command(i))
}

/// A shell: with `-c`, its first word after the options is the line it
/// runs; without, it runs a script file or its input.
fn shell(program: &str, arguments: &[Option<String>]) -> Result<Runs, String> {
    let mut command_string = false;
    let mut i = 0;
    while let Some(argument) = arguments.get(i) {
        let Some(argument) = argument else {
            return Err(format!("`{program}` with a computed option"));
        };
        if argument == "--" || argument == "-" {
            i += 1;
            break;
        }
        let Some(letters) = argument
            .strip_prefix('-')
            .or_else(|| argument.strip_prefix('+'))
        else {
            break;
        };
        if letters.starts_with('-') {
            // Long options: --rcfile and --init-file run a file.
            if matches!(argument.as_str(), "--rcfile" | "--init-file") {
                return Err(format!("`{program} {argument}` runs a file"));
            }
        } else {
            if letters.contains('c') {
                command_string = true;
            }
            if letters.contains('s') {
                return Err(format!("`{program} -s` runs its input"));
            }
            // -o NAME and -O NAME take the next word.
            if letters.ends_with('o') || letters.ends_with('O') {
                i += 1;
            }
        }
        i += 1;
    }
    if !command_string {
        return Err(format!("`{program}` runs a script or its input"));
    }
    match arguments.get(i) {
        None => Err(format!("`{program} -c` with no command")),
        Some(None) => Err(format!("`{program} -c` of a computed line")),
        Some(Some(line)) => Ok(Runs::Line(line.clone())),
    }
}

/// Literal words joined with spaces, as `watch` joins them.
fn joined(words: &[Option<String>]) -> Result<String, String> {
    words
        .iter()
        .map(|w| w.clone().ok_or_else(|| "a computed word".to_string()))
        .collect::<Result<Vec<_>, _>>()
        .map(|w| w.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Option<String>> {
        line.split_whitespace()
            .map(|w| Some(w.to_string()))
            .collect()
    }

    #[test]
    fn options_end_where_the_manual_says() {
        let cases = [
            ("nice", "-n 5 ls", Runs::Command(2)),
            ("nice", "-n5 ls", Runs::Command(1)),
            ("nice", "-5 ls", Runs::Command(1)),
            ("timeout", "-s 9 5 ls", Runs::Command(3)),
            ("timeout", "--signal=9 5 ls", Runs::Command(2)),
            ("stdbuf", "-o L ls", Runs::Command(2)),
            ("command", "-p ls", Runs::Command(1)),
            ("command", "-pv rm", Runs::Nothing),
            ("command", "-- ls", Runs::Command(1)),
            ("env", "-u HOME FOO=1 ls", Runs::Command(3)),
            (
                "xargs",
                "-I % -n1 ls %",
                Runs::CommandWithInput {
                    start: 3,
                    replace: Some("%".into()),
                },
            ),
            (
                "xargs",
                "-0i ls",
                Runs::CommandWithInput {
                    start: 1,
                    replace: Some("{}".into()),
                },
            ),
            (
                "xargs",
                "-n 1 ls",
                Runs::CommandWithInput {
                    start: 2,
                    replace: None,
                },
            ),
            ("bash", "-e -o pipefail -c ls", Runs::Line("ls".into())),
            ("watch", "-n 1 ls -l", Runs::Line("ls -l".into())),
            ("watch", "-x ls -l", Runs::Command(1)),
            // The command's own `-p` is not ionice's.
            ("ionice", "-c 3 ls -p", Runs::Command(2)),
        ];
        for (program, line, expected) in cases {
            assert_eq!(
                runs(program, &words(line)),
                Some(Ok(expected)),
                "{program} {line}"
            );
        }
    }

    #[test]
    fn what_cannot_be_known_is_refused() {
        for (program, line) in [
            ("bash", "script.sh -c ls"),
            ("sh", "-s"),
            ("bash", "--rcfile x -c ls"),
            ("env", "-S ls"),
            ("env", "PATH=. ls"),
            ("ionice", "-c 3 -p 1"),
            ("ionice", "-u 0"),
        ] {
            assert!(
                matches!(runs(program, &words(line)), Some(Err(_))),
                "{program} {line}"
            );
        }
        assert_eq!(runs("ls", &words("-l")), None);
    }
}
