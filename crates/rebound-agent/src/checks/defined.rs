//! A command the goal quotes that names something the workspace does not
//! have yet: "add targets to the Makefile: `make test` should ... and
//! `make clean` should delete ...", "add an npm script so `npm run lint`
//! ...", "write check.sh so that `bash check.sh` ...". The run writes the
//! definition of what the check runs, so the check passing shows that the
//! definition exists and exits 0, not that it does what the goal says (an
//! empty `clean:` target passes `make clean`). Such a check stays: it must
//! pass for a finish; but it becomes a condition, which never settles a
//! goal alone ([`CheckSource::Defined`]).
//!
//! What was missing is read from the check's output before the first plan,
//! in the tool's own words: make's "No rule to make target 'T'" for a
//! target the command names (not one "needed by" another: a missing source
//! file is a build to repair, not a target to write), or "no makefile
//! found"; npm's "Missing script"; and an interpreter's (or the shell's)
//! "No such file or directory" for the script the command runs. Found on
//! test as a false success: the 0.5B model renamed the Makefile's `tconv`
//! target to `test` and left `clean` removing only the binary; both quoted
//! commands passed, and they verified the finish.

use super::{Check, CheckResult, CheckSource};

/// Extensions of a script run by its path (`./check.sh`): a path without
/// one is a program a build may make from sources the workspace has.
const SCRIPT_EXTENSIONS: &[&str] = &[".sh", ".bash", ".py", ".js", ".mjs", ".pl", ".rb"];

/// `checks` with every command quoted in the goal whose `results` (from
/// before the first plan) show it named something missing turned into a
/// condition ([`CheckSource::Defined`]); the others as they are.
pub fn demote(checks: &[Check], results: &[CheckResult]) -> Vec<Check> {
    checks
        .iter()
        .map(|check| {
            let missing = (check.source == CheckSource::Goal)
                .then(|| results.iter().find(|r| r.command == check.command))
                .flatten()
                .filter(|result| !result.passed)
                .and_then(|result| missing_definition(&check.command, &result.output));
            match missing {
                Some(missing) => {
                    Check::new(check.command.clone(), CheckSource::Defined { missing })
                }
                None => check.clone(),
            }
        })
        .collect()
}

/// What `command`'s failing `output` says the workspace lacks that the
/// command itself names ("make target 'test'", "npm script 'lint'",
/// "script check.sh"); `None` when it failed for another reason.
pub fn missing_definition(command: &str, output: &str) -> Option<String> {
    let words = first_command_words(command);
    let (program, operands) = words.split_first()?;
    match *program {
        "make" | "gmake" => missing_make_target(operands, output),
        "npm" => missing_npm_script(operands, output),
        _ => missing_script(command, program, output),
    }
}

/// The words of the command's first simple command (up to `&&`, `||`,
/// `;`, `|`), with leading `VAR=value` assignments left out.
fn first_command_words(command: &str) -> Vec<&str> {
    let end = ["&&", "||", ";", "|", "\n"]
        .iter()
        .filter_map(|separator| command.find(separator))
        .min()
        .unwrap_or(command.len());
    command[..end]
        .split_whitespace()
        .skip_while(|word| super::goal::is_assignment(word))
        .collect()
}

/// make's words for a target the command names that no rule makes, or for
/// no makefile at all.
fn missing_make_target(operands: &[&str], output: &str) -> Option<String> {
    if output.contains("No targets specified and no makefile found") {
        return Some("a Makefile".to_string());
    }
    let targets: Vec<&str> = operands
        .iter()
        .copied()
        .filter(|word| !word.starts_with('-') && !word.contains('='))
        .collect();
    output.lines().find_map(|line| {
        let rest = line.split("No rule to make target ").nth(1)?;
        let quoted = rest.trim_start_matches(['\'', '`', '‘', '"']);
        let end = quoted.find(['\'', '’', '"'])?;
        let (target, after) = quoted.split_at(end);
        let needed_by = after.contains("needed by");
        (!needed_by && targets.contains(&target)).then(|| format!("make target '{target}'"))
    })
}

/// npm's "Missing script: \"X\"" (npm 7 and later; "missing script: X"
/// before) for the script the command runs.
fn missing_npm_script(operands: &[&str], output: &str) -> Option<String> {
    let script = match operands {
        ["run" | "run-script", script, ..] => *script,
        [script @ ("test" | "start" | "stop" | "restart"), ..] => *script,
        _ => return None,
    };
    let (lower, wanted) = (output.to_lowercase(), script.to_lowercase());
    let said = lower.lines().any(|line| {
        line.split("missing script:")
            .nth(1)
            .is_some_and(|rest| rest.trim().trim_matches(['"', '\'', '`']) == wanted)
    });
    said.then(|| format!("npm script '{script}'"))
}

/// The shell's or an interpreter's "No such file or directory" (Python's
/// "can't open file", node's "Cannot find module") for the script the
/// command runs ([`super::guard::script`]): an interpreter's first file
/// operand, or a path with a script's extension.
fn missing_script(command: &str, program: &str, output: &str) -> Option<String> {
    let script = super::guard::script(command)?;
    if script == program && !SCRIPT_EXTENSIONS.iter().any(|ext| program.ends_with(ext)) {
        return None;
    }
    let name = script.trim_start_matches("./");
    let said = output.lines().any(|line| {
        line.contains(name)
            && (line.contains("No such file or directory")
                || line.contains("can't open file")
                || line.contains("Cannot find module"))
    });
    said.then(|| format!("script {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_targets_the_command_names_that_no_rule_makes_are_missing() {
        let output = "make: *** No rule to make target 'test'.  Stop.\n";
        assert_eq!(
            missing_definition("make test", output).as_deref(),
            Some("make target 'test'")
        );
        // Older make quotes with a backtick.
        let old = "make: *** No rule to make target `clean'.  Stop.\n";
        assert_eq!(
            missing_definition("make -s clean", old).as_deref(),
            Some("make target 'clean'")
        );
        assert_eq!(
            missing_definition(
                "make",
                "make: *** No targets specified and no makefile found.  Stop.\n"
            )
            .as_deref(),
            Some("a Makefile")
        );
        // A missing source is a build to repair: the target is there.
        let source = "make: *** No rule to make target 'util.c', needed by 'util.o'.  Stop.\n";
        assert_eq!(missing_definition("make", source), None);
        assert_eq!(missing_definition("make util.o", source), None);
        // A compile error is no missing target.
        assert_eq!(
            missing_definition("make test", "main.c:3: error: expected ';'\n"),
            None
        );
    }

    #[test]
    fn npm_scripts_and_script_files_that_are_not_there_are_missing() {
        let npm = "npm error Missing script: \"lint\"\nnpm error\n";
        assert_eq!(
            missing_definition("npm run lint", npm).as_deref(),
            Some("npm script 'lint'")
        );
        assert_eq!(
            missing_definition("npm test", "npm ERR! missing script: test\n").as_deref(),
            Some("npm script 'test'")
        );
        assert_eq!(
            missing_definition("npm run build", npm),
            None,
            "another script"
        );
        assert_eq!(
            missing_definition(
                "npm run buildDocs",
                "npm error Missing script: \"buildDocs\"\n"
            )
            .as_deref(),
            Some("npm script 'buildDocs'")
        );
        assert_eq!(
            missing_definition(
                "bash check.sh",
                "bash: check.sh: No such file or directory\n"
            )
            .as_deref(),
            Some("script check.sh")
        );
        assert_eq!(
            missing_definition(
                "python3 tools/report.py --all",
                "python3: can't open file '/w/tools/report.py': [Errno 2] No such file or directory\n"
            )
            .as_deref(),
            Some("script tools/report.py")
        );
        assert_eq!(
            missing_definition(
                "./run.sh && echo ok",
                "bash: line 1: ./run.sh: No such file or directory\n"
            )
            .as_deref(),
            Some("script run.sh")
        );
        // A program a build makes from sources the workspace has is not
        // the run's own definition; a test that fails is no missing file.
        assert_eq!(
            missing_definition(
                "./hello",
                "bash: line 1: ./hello: No such file or directory\n"
            ),
            None
        );
        assert_eq!(
            missing_definition(
                "python3 -m unittest",
                "FileNotFoundError: No such file or directory: 'data.csv'\n"
            ),
            None
        );
    }

    #[test]
    fn only_quoted_commands_that_failed_for_a_missing_definition_become_conditions() {
        let result = |command: &str, passed: bool, output: &str| CheckResult {
            command: command.to_string(),
            passed,
            exit_code: Some(if passed { 0 } else { 2 }),
            output: output.to_string(),
            duration_ms: 1,
        };
        let missing = "make: *** No rule to make target 'clean'.  Stop.\n";
        let checks = vec![
            Check::new("make clean", CheckSource::Goal),
            Check::new("make", CheckSource::Goal),
            Check::new("make dist", CheckSource::Flag),
        ];
        let results = vec![
            result("make clean", false, missing),
            result("make", false, "cc: error\n"),
            result(
                "make dist",
                false,
                "make: *** No rule to make target 'dist'.  Stop.\n",
            ),
        ];
        let demoted = demote(&checks, &results);
        assert_eq!(
            demoted[0].source,
            CheckSource::Defined {
                missing: "make target 'clean'".to_string()
            }
        );
        assert!(demoted[0].source.is_condition());
        assert_eq!(demoted[1], checks[1], "a build that fails is evidence");
        assert_eq!(demoted[2], checks[2], "the user's own definition of done");
    }
}
