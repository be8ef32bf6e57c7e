//! Mutants of a build file that add the flags a failed C build lacks
//! ([`crate::localize::missing_flags`]: `-I<dir>` for a header the
//! workspace has, `-lm` for `sqrt`): candidates that need no model, judged
//! by the checks like every mutant. A small model asked to "fix the
//! Makefile so that `sqrt` links" writes the Makefile back unchanged (found
//! on dev, five candidates in a row); where the flag goes is mechanical:
//!
//! - on the command lines that run the compiler: `-I` right after the
//!   compiler's word, `-l` at the end of a linking command (not one with
//!   `-c`), before anything that ends the command (`&&`, `;`, `|`, a
//!   redirection, a comment); a command continued with `\` gets it on its
//!   last line;
//! - in a Makefile, also appended to the variable that carries it
//!   (`LDLIBS`, `LIBS`, `LDFLAGS`; `CPPFLAGS`, `CFLAGS`), and, with
//!   neither a compiler line nor such a variable, as `LDLIBS += -lm` for
//!   make's own rules.

use std::path::Path;

use super::mutate::Mutant;
use crate::checks::CheckResult;
use crate::localize::{build_file, compiler_at, is_makefile, missing_flags, BuildFlag};

/// The failing checks of `results` that run the build file `file` (`make`
/// its Makefile, `./build.sh` its script): the ones whose output the
/// build-file mutants read.
pub(super) fn failing_builds<'a>(
    results: &'a [CheckResult],
    workspace: &'a Path,
    file: &'a str,
) -> impl Iterator<Item = &'a CheckResult> {
    results
        .iter()
        .filter(move |r| !r.passed && build_file(&r.command, workspace).as_deref() == Some(file))
}

/// The flag mutants of `file` (its text `original`, in `workspace`) for
/// the checks' `results`: the flags each failing check's output says its
/// build lacks, when that check runs `file` (`make` its Makefile,
/// `./build.sh` its script).
pub(crate) fn build_mutants(
    workspace: &Path,
    file: &str,
    original: &str,
    results: &[CheckResult],
) -> Vec<Mutant> {
    let mut flags: Vec<BuildFlag> = Vec::new();
    for result in failing_builds(results, workspace, file) {
        for flag in missing_flags(&result.output, workspace) {
            if !flags.contains(&flag) {
                flags.push(flag);
            }
        }
    }
    if flags.is_empty() {
        return Vec::new();
    }
    flag_mutants(file, original, &flags)
}

/// Variables of a Makefile that may carry a flag, in the order tried.
fn variables(flag: &BuildFlag) -> &'static [&'static str] {
    match flag {
        BuildFlag::Include(_) => &["CPPFLAGS", "CFLAGS", "CXXFLAGS"],
        BuildFlag::Library(_) => &["LDLIBS", "LIBS", "LDFLAGS"],
    }
}

/// Where a shell command ends on a line, from `from`: the first `&&`,
/// `||`, `;`, `|`, redirection or comment after it, else the line's end
/// (before a trailing `\`).
fn command_end(line: &str, from: usize) -> usize {
    let body = line.trim_end();
    let body = body.strip_suffix('\\').unwrap_or(body).trim_end();
    let rest = &body[from.min(body.len())..];
    [" &&", " ||", ";", " |", " >", " 2>", " <", " #"]
        .iter()
        .filter_map(|stop| rest.find(stop))
        .min()
        .map_or(body.len(), |at| from + at)
}

/// `lines` with `flag` added to every command line that runs the compiler
/// (for a library, only those that link), and the lines changed (from 1).
fn on_compiler_lines(
    lines: &[&str],
    flag: &BuildFlag,
    makefile: bool,
) -> (Vec<String>, Vec<usize>) {
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut changed = Vec::new();
    let text = flag.text();
    let mut i = 0;
    while i < lines.len() {
        let Some((after, compile_only)) = compiler_at(lines[i], makefile) else {
            i += 1;
            continue;
        };
        // The command's lines: this one and those its `\` continues into.
        let mut last = i;
        while lines[last].trim_end().ends_with('\\') && last + 1 < lines.len() {
            last += 1;
        }
        let command: Vec<&str> = lines[i..=last].to_vec();
        let already = command
            .iter()
            .any(|line| line.split_whitespace().any(|word| word == text));
        match flag {
            _ if already => {}
            BuildFlag::Include(_) => {
                out[i] = format!("{} {text}{}", &lines[i][..after], &lines[i][after..]);
                changed.push(i + 1);
            }
            BuildFlag::Library(_) if !compile_only => {
                let from = if last == i { after } else { 0 };
                let end = command_end(lines[last], from);
                out[last] = format!("{} {text}{}", &lines[last][..end], &lines[last][end..]);
                changed.push(last + 1);
            }
            BuildFlag::Library(_) => {}
        }
        i = last + 1;
    }
    (out, changed)
}

/// `lines` with `flag` appended to the Makefile variable `name`'s
/// assignments (`LDLIBS = -lz`, `LDLIBS += -lz`), and whether there was
/// one.
fn on_variable(lines: &[&str], flag: &BuildFlag, name: &str) -> Option<(Vec<String>, usize)> {
    let at = lines.iter().position(|line| {
        line.strip_prefix(name).is_some_and(|rest| {
            let rest = rest.trim_start();
            ["=", ":=", "::=", "+=", "?="]
                .iter()
                .any(|op| rest.starts_with(op))
        }) && !line.trim_end().ends_with('\\')
    })?;
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out[at] = format!("{} {}", lines[at].trim_end(), flag.text());
    Some((out, at + 1))
}

/// Joins `lines` as `original` was joined (its final newline kept).
fn joined(lines: &[String], original: &str) -> String {
    let mut text = lines.join("\n");
    if original.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// The mutants of build file `file` (its text `original`) that add
/// `flags`: each flag on the compiler's command lines, then on the
/// Makefile's variables; then, with several flags, all of them on the
/// command lines at once. Only changes: a mutant equal to the original or
/// to an earlier one is left out.
pub(crate) fn flag_mutants(file: &str, original: &str, flags: &[BuildFlag]) -> Vec<Mutant> {
    let makefile = is_makefile(file);
    let lines: Vec<&str> = original.lines().collect();
    let mut found: Vec<Mutant> = Vec::new();
    let mut add = |text: String, change: String| {
        if text != original && !found.iter().any(|m| m.text == text) {
            found.push(Mutant { text, change });
        }
    };
    let numbers = |changed: &[usize]| {
        changed
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    for flag in flags {
        let (out, changed) = on_compiler_lines(&lines, flag, makefile);
        if !changed.is_empty() {
            add(
                joined(&out, original),
                format!(
                    "`{}` added to the compiler's command (line {})",
                    flag.text(),
                    numbers(&changed)
                ),
            );
        }
        if !makefile {
            continue;
        }
        let mut in_variable = false;
        for name in variables(flag) {
            if let Some((out, line)) = on_variable(&lines, flag, name) {
                in_variable = true;
                add(
                    joined(&out, original),
                    format!("`{}` added to {name} (line {line})", flag.text()),
                );
            }
        }
        if changed.is_empty() && !in_variable {
            if let BuildFlag::Library(_) = flag {
                let mut out = vec![format!("LDLIBS += {}", flag.text())];
                out.extend(lines.iter().map(|l| l.to_string()));
                add(
                    joined(&out, original),
                    format!("`LDLIBS += {}` added (line 1)", flag.text()),
                );
            }
        }
    }
    if flags.len() > 1 {
        let mut current: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        let mut all_changed = Vec::new();
        for flag in flags {
            let borrowed: Vec<&str> = current.iter().map(String::as_str).collect();
            let (out, changed) = on_compiler_lines(&borrowed, flag, makefile);
            all_changed.extend(changed);
            current = out;
        }
        all_changed.sort_unstable();
        all_changed.dedup();
        let texts: Vec<String> = flags.iter().map(BuildFlag::text).collect();
        add(
            joined(&current, original),
            format!(
                "`{}` added to the compiler's commands (line {})",
                texts.join(" "),
                numbers(&all_changed)
            ),
        );
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAKEFILE: &str = "CC = gcc\nCFLAGS = -Wall -O2\n\nspread: spread.o\n\t$(CC) $(CFLAGS) -o $@ spread.o\n\nspread.o: spread.c\n\t$(CC) $(CFLAGS) -c spread.c\n";

    #[test]
    fn a_library_goes_at_the_end_of_the_link_command_or_in_its_variable() {
        let found = flag_mutants("Makefile", MAKEFILE, &[BuildFlag::Library("m")]);
        let texts: Vec<&str> = found.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(
            texts[0],
            "CC = gcc\nCFLAGS = -Wall -O2\n\nspread: spread.o\n\t$(CC) $(CFLAGS) -o $@ spread.o -lm\n\nspread.o: spread.c\n\t$(CC) $(CFLAGS) -c spread.c\n",
            "the compile-only line keeps its flags"
        );
        assert_eq!(
            found[0].change,
            "`-lm` added to the compiler's command (line 5)"
        );
        assert_eq!(found.len(), 1, "no variable to add it to: {texts:?}");
        let with_var = "LDLIBS = -lz\nall: app\n";
        let found = flag_mutants("Makefile", with_var, &[BuildFlag::Library("m")]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].text, "LDLIBS = -lz -lm\nall: app\n");
        let implicit = "app: app.o\n";
        let found = flag_mutants("Makefile", implicit, &[BuildFlag::Library("m")]);
        assert_eq!(found[0].text, "LDLIBS += -lm\napp: app.o\n");
    }

    #[test]
    fn an_include_dir_goes_after_the_compiler_in_a_script() {
        let script = "#!/bin/bash\nset -e\nmkdir -p build\ngcc -std=c11 -Iheaders -o build/calc src/main.c src/ops.c\necho \"built with gcc\"\n";
        let found = flag_mutants("build.sh", script, &[BuildFlag::Include("include".into())]);
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].text,
            "#!/bin/bash\nset -e\nmkdir -p build\ngcc -Iinclude -std=c11 -Iheaders -o build/calc src/main.c src/ops.c\necho \"built with gcc\"\n"
        );
    }

    #[test]
    fn a_library_goes_before_what_ends_the_command() {
        let script = "cc -o app main.c && echo ok\ncc -o tool tool.c \\\n   util.c > log.txt\n";
        let found = flag_mutants("build.sh", script, &[BuildFlag::Library("m")]);
        assert_eq!(
            found[0].text,
            "cc -o app main.c -lm && echo ok\ncc -o tool tool.c \\\n   util.c -lm > log.txt\n"
        );
        assert!(
            flag_mutants(
                "build.sh",
                "cc -o app main.c -lm\n",
                &[BuildFlag::Library("m")]
            )
            .is_empty(),
            "a command that has the flag is not changed"
        );
    }

    #[test]
    fn several_flags_are_also_tried_together() {
        let script = "gcc -o app main.c\n";
        let found = flag_mutants(
            "build.sh",
            script,
            &[
                BuildFlag::Include("include".into()),
                BuildFlag::Library("m"),
            ],
        );
        let texts: Vec<&str> = found.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "gcc -Iinclude -o app main.c\n",
                "gcc -o app main.c -lm\n",
                "gcc -Iinclude -o app main.c -lm\n"
            ]
        );
    }
}
