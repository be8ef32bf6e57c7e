//! Checks: the goal's evidence. A check is a command whose success (exit
//! code 0) means the goal is reached. A run's checks come from the user
//! (`--check`), the configuration, a command the goal quotes, or are
//! detected from the workspace ([`resolve`]). They run before the first
//! plan, after a step that changed files, and whenever a node says
//! `finish`: a finish that a check contradicts is overruled.

pub mod branch;
pub mod cherry_pick;
pub mod clauses;
pub mod corrected;
pub mod defined;
mod detect;
mod evidence;
mod fingerprint;
mod goal;
pub mod guard;
pub mod json_example;
pub mod lines;
pub mod merge;
pub mod output_lines;
mod phrases;
pub mod proposal;
mod protected;
pub mod rename;
pub mod restore;
mod run;
pub mod runs;
pub mod split;
pub mod table;
pub mod tag;
pub mod uncommit;
pub mod untrack;
pub(crate) mod vacuous;
pub mod values;
pub mod verify;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use detect::detect;
pub(crate) use detect::on_path as detect_on_path;
pub(crate) use detect::COMMIT_CHECK;
pub use evidence::{Evidence, CHECK_PROPOSALS};
pub use fingerprint::{files_state, fingerprint};
pub use goal::{named_programs, quoted_commands, runs_program};
#[cfg(test)]
pub(crate) use phrases::single_quote as shell_quote;
pub use rebound_protocol::agent::{CheckResult, CheckWhen};
pub use run::{run_checks, CheckRun};

/// Where a check came from, strongest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CheckSource {
    /// `--check` on the command line.
    Flag,
    /// `check = [...]` in a configuration file.
    Config {
        /// The file that set it.
        file: String,
    },
    /// A command quoted in the goal.
    Goal,
    /// Made by the harness from a clause of the goal that says what done
    /// looks like ("./hello prints 'hello, world'", "with the message
    /// 'M'"): see [`clauses`].
    Clause {
        /// The rule that read the clause.
        rule: String,
        /// Whether passing proves the clause (a program's output, a
        /// commit's message); `false` for a necessary condition only (the
        /// shape of a file's lines), which must pass for a finish but
        /// cannot verify one alone.
        proves: bool,
    },
    /// Detected from the workspace's files.
    Detected {
        /// What it was detected from.
        reason: String,
    },
    /// A command quoted in the goal that named something the workspace
    /// lacked when the run began (a make target, an npm script, a script
    /// file; see [`defined`]): the run writes what it runs, so its passing
    /// shows that the definition exists and exits 0, not that it does what
    /// the goal says. A condition: it must pass for a finish, and never
    /// settles one alone.
    Defined {
        /// What was missing ("make target 'test'").
        missing: String,
    },
    /// Written by the agent's planner for a run that had none, and adopted
    /// because it failed before any change. It must pass for a finish, but
    /// passing does not end the run without the reviewer.
    Agent,
}

impl CheckSource {
    /// Whether the user wrote the command (on the command line or in the
    /// goal): such a check runs without asking for approval (the built-in
    /// guards still apply).
    pub fn is_users_own(&self) -> bool {
        matches!(
            self,
            CheckSource::Flag
                | CheckSource::Goal
                | CheckSource::Defined { .. }
                | CheckSource::Clause { .. }
        )
    }

    /// Whether the check is a condition only (a file's shape, a commit
    /// subject on an amend, a quoted command the run defines): its failing
    /// shows a goal not reached, its passing shows nothing.
    pub fn is_condition(&self) -> bool {
        matches!(
            self,
            CheckSource::Clause { proves: false, .. } | CheckSource::Defined { .. }
        )
    }

    /// Whether passing the check is only necessary, not sufficient: an
    /// agent-written check, or a clause's that shows a condition only.
    /// Such checks must pass for a finish, but never settle one alone.
    pub fn is_weak(&self) -> bool {
        self.is_condition() || matches!(self, CheckSource::Agent)
    }
}

impl fmt::Display for CheckSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckSource::Flag => f.write_str("--check"),
            CheckSource::Config { file } => write!(f, "config {file}"),
            CheckSource::Goal => f.write_str("quoted in the goal"),
            CheckSource::Defined { missing } => {
                write!(
                    f,
                    "quoted in the goal, defined by the run: no {missing} at the start"
                )
            }
            CheckSource::Clause { rule, .. } => write!(f, "from the goal's words: {rule}"),
            CheckSource::Detected { reason } => write!(f, "detected: {reason}"),
            CheckSource::Agent => f.write_str("agent-written"),
        }
    }
}

/// A command whose success means the goal is reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// The shell command (run with `bash -c` in the workspace).
    pub command: String,
    /// Where it came from.
    pub source: CheckSource,
}

impl Check {
    /// A check of `command` from `source`.
    pub fn new(command: impl Into<String>, source: CheckSource) -> Self {
        Check {
            command: command.into(),
            source,
        }
    }
}

/// Picks a run's checks, strongest source first: the `--check` commands,
/// the configuration's, the commands the goal quotes and the checks its
/// clauses make ([`clauses`]), together (duplicates dropped); when none of
/// these proves the goal, the ones detected in `workspace` for a goal
/// about tests or builds are added.
pub fn resolve(
    flags: &[String],
    config: &[(String, String)],
    goal: &str,
    workspace: &std::path::Path,
) -> Vec<Check> {
    let mut checks: Vec<Check> = Vec::new();
    let add = |checks: &mut Vec<Check>, check: Check| {
        let command = check.command.trim();
        if !command.is_empty() && !checks.iter().any(|c| c.command.trim() == command) {
            checks.push(Check::new(command, check.source));
        }
    };
    for command in flags {
        add(&mut checks, Check::new(command.clone(), CheckSource::Flag));
    }
    for (command, file) in config {
        let source = CheckSource::Config { file: file.clone() };
        add(&mut checks, Check::new(command.clone(), source));
    }
    for command in quoted_commands(goal, workspace) {
        add(&mut checks, Check::new(command, CheckSource::Goal));
    }
    for check in clauses::clause_checks(goal, workspace) {
        add(&mut checks, check);
    }
    if checks.iter().all(|c| c.source.is_weak()) {
        for check in detect(goal, workspace) {
            add(&mut checks, check);
        }
    }
    checks
}

/// Whether passing `checks` proves a goal: every one passed, and they can
/// tell done from not done. Checks the user named (`--check`, the config,
/// the goal, its clauses) can; detected and agent-written ones only when
/// one of them failed before the first plan: checks that passed from the
/// start are regression guards, not evidence of the goal. A condition
/// ([`CheckSource::is_condition`]) never verifies alone.
pub fn verify(checks: &[Check], results: &[CheckResult], failed_at_start: bool) -> bool {
    let named = has_named(checks);
    let only_conditions = checks.iter().all(|c| c.source.is_condition());
    all_passed(results) && (failed_at_start || named) && !only_conditions
}

/// Whether one of `checks` is the user's own and can tell done from not
/// done by itself (`--check`, the configuration, the goal, its clauses;
/// not a condition).
pub fn has_named(checks: &[Check]) -> bool {
    checks.iter().any(|check| {
        (check.source.is_users_own() && !check.source.is_weak())
            || matches!(check.source, CheckSource::Config { .. })
    })
}

/// Whether every check passed (`false` for no results).
pub fn all_passed(results: &[CheckResult]) -> bool {
    !results.is_empty() && results.iter().all(|r| r.passed)
}

/// Whether `result` failed only because the sandbox refused one of its
/// writes outside the workspace (`pip install -e .` writing to
/// site-packages): such a check cannot pass in this run, whatever the
/// workspace holds, so it is no evidence either way.
pub fn stopped_by_sandbox(result: &CheckResult) -> bool {
    !result.passed
        && result
            .output
            .contains(rebound_tools::shell::SANDBOX_WRITE_NOTE)
}

/// Whether, of `results`, every check passed but at least one the
/// sandbox stopped ([`stopped_by_sandbox`]), and at least one passed: the
/// run has done what its checks can show here.
pub fn passed_but_sandboxed(results: &[CheckResult]) -> bool {
    results.iter().any(|r| r.passed)
        && results.iter().any(stopped_by_sandbox)
        && results.iter().all(|r| r.passed || stopped_by_sandbox(r))
}

/// Characters of a check's output kept in its [`CheckResult`] (head and
/// tail): enough for localization to read every failure of a long test
/// report; prompts show less ([`SHOWN_OUTPUT_CHARS`]).
pub const KEPT_OUTPUT_CHARS: usize = 16_000;

/// Characters of a check's output a prompt shows when its failures could
/// not be read ([`failures_text`]).
pub const SHOWN_OUTPUT_CHARS: usize = 1_500;

/// Characters of a check's command a model is shown
/// ([`shown_command`]).
pub const SHOWN_COMMAND_CHARS: usize = 100;

/// `command` as a prompt shows it: on one line, cut at
/// [`SHOWN_COMMAND_CHARS`] with ` …` when longer. A check the harness
/// builds from the goal's words can be hundreds of characters of `grep`
/// patterns and messages; shown whole, a small model copied two of them
/// into "observe" steps and its plan ran out of tokens (found on dev).
/// The failure's output says what went wrong; the command only names the
/// check.
pub fn shown_command(command: &str) -> String {
    let line = command.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= SHOWN_COMMAND_CHARS {
        return line;
    }
    let cut: String = line.chars().take(SHOWN_COMMAND_CHARS).collect();
    format!("{} …", cut.trim_end())
}

/// A check's headline as a prompt shows it: its command shortened by
/// [`shown_command`].
pub fn shown_headline(result: &CheckResult) -> String {
    result
        .headline()
        .replacen(&result.command, &shown_command(&result.command), 1)
}

/// The failing checks as the planner sees them: each command (shortened:
/// [`shown_command`]), its exit code, and its output (head and tail, at
/// most [`SHOWN_OUTPUT_CHARS`]).
pub fn failures_text(results: &[CheckResult]) -> String {
    results
        .iter()
        .filter(|r| !r.passed)
        .map(|r| {
            format!(
                "{}:\n{}",
                shown_headline(r),
                crate::llm::shorten(unframed(r).trim_end(), SHOWN_OUTPUT_CHARS)
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A check's output without the shell tool's framing that its headline
/// already says (the `exit code N (...) after X s` line and the `$ command`
/// echo): a long command is not quoted twice to a model. A time-out or a
/// signal, which the headline does not say, stays.
pub fn unframed(result: &CheckResult) -> String {
    use rebound_tools::shell::{is_exit_line, ECHO_PREFIX};
    let mut lines = result.output.lines().peekable();
    if lines.next_if(|l| is_exit_line(l)).is_some() {
        // The command's echo follows its status line (cut when long).
        lines.next_if(|l| l.starts_with(ECHO_PREFIX));
    }
    lines.collect::<Vec<_>>().join("\n")
}

/// Runs `command` with `bash -c` in `dir` for a test, with a throwaway
/// git identity (for commands that commit).
#[cfg(test)]
pub(crate) fn test_bash(dir: &std::path::Path, command: &str) -> std::process::Output {
    #[allow(clippy::unwrap_used)]
    std::process::Command::new("bash")
        .arg("-c")
        .arg(command)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@localhost")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@localhost")
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Runs `check` in a copy of `workspace` after `script` (which must
/// succeed) ran there, for a test of what a check refuses or accepts.
#[cfg(test)]
pub(crate) fn test_check_after(
    workspace: &std::path::Path,
    script: &str,
    check: &str,
) -> std::process::Output {
    #[allow(clippy::unwrap_used)]
    let copy = tempfile::tempdir().unwrap();
    let copied = test_bash(copy.path(), &format!("cp -a {}/. .", workspace.display()));
    assert!(copied.status.success(), "{copied:?}");
    let ran = test_bash(copy.path(), script);
    assert!(ran.status.success(), "{script}: {ran:?}");
    test_bash(copy.path(), check)
}

/// Runs each step of `plan` in `workspace` (each must succeed), then
/// asserts that `check` passes, for a test of a harness plan.
#[cfg(test)]
pub(crate) fn test_plan_passes(workspace: &std::path::Path, plan: &[crate::PlanStep], check: &str) {
    for step in plan {
        let out = test_bash(workspace, step.command.as_deref().unwrap_or_default());
        assert!(out.status.success(), "{step:?}: {out:?}");
    }
    let out = test_bash(workspace, check);
    assert!(out.status.success(), "{out:?}");
}

/// A failed check result of `command` that printed `output`, for a test.
#[cfg(test)]
pub(crate) fn test_failed(command: &str, output: &str) -> CheckResult {
    CheckResult {
        command: command.to_string(),
        passed: false,
        exit_code: Some(1),
        output: output.to_string(),
        duration_ms: 1,
    }
}

/// Runs `git args` in `dir` for a test (with a throwaway identity) and
/// asserts that it succeeded.
#[cfg(test)]
pub(crate) fn test_git(dir: &std::path::Path, args: &[&str]) {
    #[allow(clippy::unwrap_used)]
    let status = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@localhost"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
}

/// A temporary directory holding `files` (path, text or bytes;
/// directories made as needed), for a test.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) fn test_workspace<T: AsRef<[u8]>>(files: &[(&str, T)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// Makes `dir` a git repository on `main` whose one commit, "Start",
/// holds `files` (path, text), for a test.
#[cfg(test)]
pub(crate) fn test_repo(dir: &std::path::Path, files: &[(&str, &str)]) {
    test_git(dir, &["init", "-q", "-b", "main"]);
    for (path, text) in files {
        #[allow(clippy::unwrap_used)]
        std::fs::write(dir.join(path), text).unwrap();
    }
    test_git(dir, &["add", "-A"]);
    test_git(dir, &["commit", "-qm", "Start"]);
}

/// A check's result for a unit test: `command`, passed or failed
/// (exit 0 or 1), no output.
#[cfg(test)]
pub(crate) fn test_result(command: &str, passed: bool) -> CheckResult {
    CheckResult {
        command: command.to_string(),
        passed,
        exit_code: Some(if passed { 0 } else { 1 }),
        output: String::new(),
        duration_ms: 0,
    }
}

/// Asserts that the approval policy (`on-risk`) lets `command` run
/// without asking: a check the harness builds must not wait on a user.
#[cfg(test)]
pub(crate) fn assert_allowed(command: &str) {
    let verdict =
        rebound_tools::approval::ApprovalPolicy::new(rebound_tools::approval::ApprovalMode::OnRisk)
            .assess(command);
    assert_eq!(
        verdict.action(),
        rebound_tools::approval::RuleAction::Allow,
        "{command}: {verdict:?}"
    );
}

/// Asserts that the approval policy's built-in guards do not forbid
/// `command`: a check made from the goal's words is the user's own and
/// runs without asking ([`CheckSource::is_users_own`]), but a guard
/// (a `/proc` read, a write outside the workspace) still stops it.
#[cfg(test)]
pub(crate) fn assert_not_forbidden(command: &str) {
    let verdict =
        rebound_tools::approval::ApprovalPolicy::new(rebound_tools::approval::ApprovalMode::OnRisk)
            .assess(command);
    assert!(
        !matches!(verdict, rebound_tools::approval::Verdict::Forbid { .. }),
        "{command}: {verdict:?}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_output_in_a_prompt_does_not_repeat_the_command() {
        let result = CheckResult {
            command: "python3 -c 'print(1'".to_string(),
            passed: false,
            exit_code: Some(1),
            output: "exit code 1 (failure) after 0.2 s\n$ python3 -c 'print(1'\nSyntaxError: '(' was never closed\n".to_string(),
            duration_ms: 200,
        };
        assert_eq!(unframed(&result), "SyntaxError: '(' was never closed");
        let text = failures_text(std::slice::from_ref(&result));
        assert_eq!(text.matches("print(1").count(), 1, "{text}");
        let timed_out = CheckResult {
            output: "timed out after 60.0 s; the command and its child processes were killed\n$ python3 -c 'print(1'\n".to_string(),
            ..result
        };
        assert!(
            unframed(&timed_out).starts_with("timed out"),
            "the headline does not say it"
        );
        let long = CheckResult {
            command: format!("python3 -c '{}'", "x = 1; ".repeat(100)),
            output:
                "exit code 1 (failure) after 0.1 s\n$ python3 -c 'x = 1; x = 1; … (cut)\nboom\n"
                    .to_string(),
            ..timed_out
        };
        assert_eq!(
            unframed(&long),
            "boom",
            "a long command's echo is cut, and still dropped"
        );
    }

    #[test]
    fn flags_config_and_goal_are_combined_without_duplicates_and_detection_waits() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("test_x.py"), "import unittest\n").unwrap();
        let checks = resolve(
            &["make lint".to_string(), "python3 -m unittest".to_string()],
            &[("make lint".to_string(), "rebound.toml".to_string())],
            "Fix it: `python3 -m unittest` must pass.",
            dir.path(),
        );
        assert_eq!(
            checks,
            vec![
                Check::new("make lint", CheckSource::Flag),
                Check::new("python3 -m unittest", CheckSource::Flag),
            ]
        );
        let detected = resolve(&[], &[], "Fix the failing tests", dir.path());
        assert_eq!(detected.len(), 1);
        assert_eq!(detected[0].command, "python3 -m unittest");
        assert!(matches!(detected[0].source, CheckSource::Detected { .. }));
    }

    #[test]
    fn detected_checks_that_passed_from_the_start_do_not_verify() {
        let passed = vec![CheckResult {
            command: "python3 -m unittest".into(),
            passed: true,
            exit_code: Some(0),
            output: String::new(),
            duration_ms: 1,
        }];
        let detected = vec![Check::new(
            "python3 -m unittest",
            CheckSource::Detected {
                reason: "tests".into(),
            },
        )];
        assert!(!verify(&detected, &passed, false), "a guard, not evidence");
        assert!(
            verify(&detected, &passed, true),
            "it failed first: evidence"
        );
        let named = vec![Check::new("python3 -m unittest", CheckSource::Goal)];
        assert!(verify(&named, &passed, false), "the user named it");
        assert!(!verify(&named, &[], false), "never ran");
    }

    #[test]
    fn failures_text_shows_only_failing_checks() {
        let results = vec![
            CheckResult {
                command: "true".into(),
                passed: true,
                exit_code: Some(0),
                output: String::new(),
                duration_ms: 1,
            },
            CheckResult {
                command: "pytest".into(),
                passed: false,
                exit_code: Some(1),
                output: "1 failed".into(),
                duration_ms: 5,
            },
        ];
        assert_eq!(
            failures_text(&results),
            "`pytest` failed (exit 1):\n1 failed"
        );
        assert!(!all_passed(&results));
        assert!(!all_passed(&[]));
        assert!(all_passed(&results[..1]));
    }

    #[test]
    fn a_long_check_is_shown_cut_on_one_line() {
        assert_eq!(shown_command("python3 -m unittest"), "python3 -m unittest");
        assert_eq!(shown_command("make &&\n  ./app"), "make && ./app");
        let long = format!("./report | grep -qE -e '{}'", "x".repeat(200));
        let shown = shown_command(&long);
        assert!(shown.ends_with(" …"), "{shown}");
        assert_eq!(shown.chars().count(), SHOWN_COMMAND_CHARS + 2);
        let result = CheckResult {
            command: long.clone(),
            passed: false,
            exit_code: Some(1),
            output: "min: 0.0".into(),
            duration_ms: 5,
        };
        assert_eq!(
            shown_headline(&result),
            format!("`{shown}` failed (exit 1)")
        );
        assert!(!failures_text(&[result]).contains(&long));
    }
}
