//! The script step (a code action): for an answer computed from data (a
//! report, a list, a converted file), the model writes a short program in
//! a fenced block — not inside JSON, where code is mangled — and the
//! harness runs it.
//!
//! Each candidate (the greedy answer, then seeded samples while the run's
//! checks fail) runs in a scratch copy of the workspace
//! ([`crate::scratch`]), through the shell tool and the approval policy
//! like any command. A candidate that exits 0 is judged by the checks in
//! that copy; the first that passes them, else the first that ran, is
//! kept: the files it wrote are written into the workspace (journaled),
//! so the program never runs in the user's tree at all (files it deleted
//! are reported, not deleted). The step's result is the program's exit
//! code, its output and the files it wrote.
//!
//! A goal that converts one data file into another (YAML, JSON, TOML,
//! CSV) gets the harness's own conversion programs as its first
//! candidates ([`crate::convert`]), when checks can judge them.
//!
//! When the artifact is itself a program — the goal asks for a file
//! `greet.sh` (or `.py`) and a check runs it — a candidate is that file:
//! saved as it is in the scratch copy, not run as a generator, and judged
//! by the checks that run it (found on dev: asked for `greet.sh`, the
//! model's programs printed the greetings themselves, and a bash program
//! fenced as Python was run by Python).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use rebound_graph::{NodeContext, NodeError};
use rebound_llm::{ChatRequest, FinishReason, Message};
use serde::{Deserialize, Serialize};

use crate::checks::{run_checks, CheckResult, CheckWhen, Evidence};
use crate::copied::{copies, FailedProgram};
use crate::edit::{extract_code, FENCE_GRAMMAR};
use crate::llm::shorten;
use crate::model_call::sample_candidate_until;
use crate::prompts::{self, render};
use crate::scratch::{file_states, Scratch, DIRECTORY};
use crate::step::{from_tool_outcome, StepOutcome};
use crate::tool_call::run_tool_call;
use crate::tool_call::{tool_context, SHELL_TOOL};
use crate::{AgentDeps, PlanStep};

/// Tokens of room for a program.
const SCRIPT_TOKENS: u32 = 700;

/// Lines shown of each data file the goal or the step names.
const DATA_HEAD_LINES: usize = 6;

/// Characters shown of each such line.
const DATA_LINE_CHARS: usize = 160;

/// Data files shown at most.
const DATA_FILES_SHOWN: usize = 4;

/// The most bytes of files a kept program may write; a program that
/// writes more is refused (the step is for small artifacts).
const MAX_WRITTEN_BYTES: usize = 1 << 20;

/// Programs asked for again, when no check judges a script step, after
/// one failed to run.
const UNJUDGED_RETRIES: u32 = 2;

/// Characters of a failed program's output (its head and its end, where
/// a traceback names the error) shown with it when the next program is
/// asked for.
const FAILURE_CHARS: usize = 600;

/// Lines of each written file quoted in the step's result.
const WRITTEN_HEAD_LINES: usize = 5;

/// What is put before every Python program: the standard-library imports
/// (a small model often uses `os` or `csv` without importing it, and a
/// program that fails on a `NameError` wastes a model call), and the
/// project's root as the program's own place. The program is written for
/// the project, so `os.path.dirname(__file__)` and imports of the
/// project's modules must mean its root, not `.rebound/scripts/` where the
/// harness keeps the file (found on dev: a program reading
/// `dirname(__file__)/src/app.py` failed with `FileNotFoundError`).
const PYTHON_PRELUDE: &str = "import os, sys, re, csv, json, math, glob, datetime, collections\n\
from collections import Counter, defaultdict, OrderedDict\n\
from pathlib import Path\n\
__file__ = os.path.join(os.getcwd(), os.path.basename(__file__))\n\
sys.path[0] = os.getcwd()\n";

/// What one candidate did in its scratch copy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Ran {
    /// The program exited 0.
    success: bool,
    /// Its output (shortened), or why it did not run.
    output: String,
    /// The text files it created or changed, with their contents.
    written: BTreeMap<String, String>,
    /// The files it deleted.
    deleted: Vec<String>,
    /// Every check passed in the copy afterwards (`None`: no check ran).
    checks_passed: Option<bool>,
    /// The checks that failed in the copy, with their output.
    failing: Vec<CheckResult>,
}

/// Runs a script step: see the module's doc.
pub(crate) async fn run_script_step(
    ctx: &NodeContext,
    deps: &AgentDeps,
    goal: &str,
    index: usize,
    step: &PlanStep,
    evidence: &Evidence,
    approved_all: bool,
) -> Result<StepOutcome, NodeError> {
    let workspace = deps.workspace.workspace().to_path_buf();
    let saved = program_file(goal, evidence);
    let first = script_request(deps, goal, step, &workspace, saved.as_ref());
    let judged = !evidence.checks.is_empty();
    // With no check to judge a program, the next one is asked for only
    // when one failed to run: that failure is the judgment.
    let candidates = if judged {
        deps.config.edit_candidates
    } else {
        deps.config.edit_candidates.min(UNJUDGED_RETRIES)
    };
    // A table the goal states the form of, judged by its check: the
    // harness finishes what a program writes to that form.
    let finishing = crate::checks::table::table_goal(goal, &workspace)
        .filter(|table| {
            let check = crate::checks::table::table_check(table);
            evidence.checks.iter().any(|c| c.command == check)
        })
        .map(|table| crate::table_finish::finishing_epilogue(&table))
        .unwrap_or_default();
    let mut search = Search {
        ctx,
        deps,
        evidence,
        finishing,
        label: format!("step{}", index + 1),
        approved_all,
        tokens: 0,
        tried: Vec::new(),
        kept: None,
    };
    if saved.is_none() && judged {
        // A conversion of one data file into another: the harness's own
        // programs first, judged by the checks like any candidate.
        let conversions = crate::checks::clauses::output_file(goal)
            .and_then(|output| {
                let source = crate::convert::conversion_source(goal, &output, &workspace)?;
                Some(crate::convert::conversion_programs(&source, &output))
            })
            .unwrap_or_default();
        search.try_conversions(&conversions).await?;
    }
    search
        .try_samples(&first, saved.as_ref(), candidates, judged)
        .await?;
    search.keep(saved.as_ref(), &workspace).await
}

/// One script step's search: the candidates tried so far, in lines, and
/// the one kept.
struct Search<'a> {
    ctx: &'a NodeContext,
    deps: &'a AgentDeps,
    evidence: &'a Evidence,
    /// Python appended to each Python program: the harness's finishing of
    /// the goal's table ([`crate::table_finish`]), or empty.
    finishing: String,
    /// `step<N>`: what the step's journal keys and scripts are named by.
    label: String,
    /// Whether the user approved every command for the run.
    approved_all: bool,
    /// Tokens the model calls took.
    tokens: u64,
    /// What each candidate came to, a line each.
    tried: Vec<String>,
    /// The candidate kept: the first that passed the checks, else the
    /// first that ran.
    kept: Option<Ran>,
}

impl Search<'_> {
    /// Whether the kept candidate passes the checks.
    fn passed(&self) -> bool {
        self.kept
            .as_ref()
            .is_some_and(|ran| ran.checks_passed == Some(true))
    }

    /// Runs one candidate ([`run_candidate`]).
    async fn run(&mut self, name: &str, code: &str, action: Action<'_>) -> Result<Ran, NodeError> {
        let (ran, approved) = run_candidate(
            self.ctx,
            self.deps,
            self.evidence,
            Candidate {
                name,
                code,
                finishing: &self.finishing,
            },
            action,
            self.approved_all,
        )
        .await?;
        self.approved_all |= approved;
        Ok(ran)
    }

    /// Tries the harness's conversion programs, keeping the first that
    /// passes the checks.
    async fn try_conversions(&mut self, programs: &[String]) -> Result<(), NodeError> {
        for (number, program) in programs.iter().enumerate() {
            let name = format!("{}-convert{}", self.label, number + 1);
            let ran = self
                .run(&name, program, Action::Generate(Interpreter::Python))
                .await?;
            self.tried
                .push(format!("- conversion {}: {}", number + 1, verdict(&ran)));
            if ran.checks_passed == Some(true) {
                self.kept = Some(ran);
                break;
            }
        }
        Ok(())
    }

    /// Asks the model for up to `candidates + 1` programs (the greedy one,
    /// then samples), each shown how the one before failed, until one
    /// passes the checks (or, `judged` false, runs).
    async fn try_samples(
        &mut self,
        first: &ChatRequest,
        saved: Option<&ProgramFile>,
        candidates: u32,
        judged: bool,
    ) -> Result<(), NodeError> {
        let mut request = first.clone();
        let mut seen: BTreeSet<String> = BTreeSet::new();
        // The Python programs that failed at a line their traceback names:
        // an answer that copies one through that line is cut there.
        let mut failed: Vec<FailedProgram> = Vec::new();
        for number in 0..=candidates {
            if self.passed() {
                break;
            }
            let key = format!("{}:script", self.label);
            let copied = |text: &str| copies(text, &failed).is_some();
            let response =
                sample_candidate_until(self.ctx, self.deps, &key, &request, number, &copied)
                    .await?;
            self.tokens += response.usage.input_tokens + response.usage.output_tokens;
            let name = format!("candidate {}", number + 1);
            // The cut text is what `copied` said yes to.
            let copy = (response.finish_reason == FinishReason::Cut)
                .then(|| copies(&response.text, &failed))
                .flatten();
            if let Some(program) = copy {
                self.tried.push(format!(
                    "- {name}: cut off: the same as {} up to its line {}, where it failed",
                    program.candidate,
                    program.through()
                ));
                // As after a repeat: the next sample is of the first
                // request, without the program it copied.
                request = first.clone();
                continue;
            }
            let code = match extract_code(&response.text) {
                Ok(code) => code,
                Err(error) => {
                    self.tried.push(format!("- {name}: unusable: {error}"));
                    continue;
                }
            };
            if !seen.insert(code.trim().to_string()) {
                self.tried
                    .push(format!("- {name}: the same as an earlier candidate"));
                // Shown its last program, the model copies it (found on
                // dev: four samples in a row, the same program): the next
                // sample is of the first request, without it.
                request = first.clone();
                continue;
            }
            let action = match saved {
                Some(file) => Action::Save(file),
                None => Action::Generate(interpreter(&response.text, &code)),
            };
            // A Python program a space off its blocks is run with its
            // indentation repaired ([`crate::indentation`]).
            let python = match action {
                Action::Save(file) => file.interpreter == Interpreter::Python,
                Action::Generate(interpreter) => interpreter == Interpreter::Python,
            };
            let repaired = python
                .then(|| crate::indentation::repaired_python(&code))
                .flatten();
            let note = if repaired.is_some() {
                " (its indentation repaired)"
            } else {
                ""
            };
            let code = repaired.unwrap_or(code);
            let script = format!("{}-{}", self.label, number + 1);
            let ran = self.run(&script, &code, action).await?;
            self.tried
                .push(format!("- {name}{note}: {}", verdict(&ran)));
            if !ran.success {
                if let (Action::Generate(Interpreter::Python), Some(program)) = (
                    action,
                    FailedProgram::new(
                        &name,
                        &code,
                        &ran.output,
                        &format!("scripts/{script}.py"),
                        PYTHON_PRELUDE.lines().count(),
                    ),
                ) {
                    failed.push(program);
                }
                // The next candidate sees this one and how it failed (its
                // traceback's end), not only the first request: a
                // resample alone often repeats the same mistake.
                // A module the program bound to a value of its own is
                // named with the line that did it: the traceback names
                // only the line that uses the module (found on dev: three
                // candidates in a row kept `os = ...` in their loop).
                let explained = if python {
                    rebound_localize::explain_attribute_error_after(
                        &format!("{PYTHON_PRELUDE}{code}"),
                        u32::try_from(PYTHON_PRELUDE.lines().count()).unwrap_or(0),
                        &ran.output,
                    )
                } else {
                    String::new()
                };
                if !explained.is_empty() {
                    self.tried.push(format!("  ({explained})"));
                }
                request = after_failure_explained(
                    first,
                    &response.text,
                    prompts::SCRIPT_FAILED,
                    &ran.output,
                    &explained,
                );
                continue;
            }
            let passes = ran.checks_passed == Some(true);
            // A program that ran and wrote nothing only looked: the checks
            // cannot judge it, and another sample would only look again.
            let looked = ran.written.is_empty() && ran.deleted.is_empty();
            let failing = crate::checks::failures_text(&ran.failing);
            if self.kept.is_none() || passes {
                self.kept = Some(ran);
            }
            if passes || looked || !judged {
                break;
            }
            // The next candidate sees this program and the checks it
            // failed (found on dev: five samples in a row kept every CSV
            // value a string, none shown the check that said so).
            request = after_failure(
                first,
                &response.text,
                prompts::SCRIPT_CHECKS_FAILED,
                &failing,
            );
        }
        Ok(())
    }

    /// Writes the kept candidate's files into the workspace (journaled)
    /// and gives the step's outcome; with none kept, the step failed.
    async fn keep(
        self,
        saved: Option<&ProgramFile>,
        workspace: &Path,
    ) -> Result<StepOutcome, NodeError> {
        let Some(ran) = &self.kept else {
            return Ok(StepOutcome {
                tokens: self.tokens,
                ..StepOutcome::settled(
                    false,
                    format!(
                        "no program ran to its end; nothing was written\n{}",
                        self.tried.join("\n")
                    ),
                    self.approved_all,
                )
            });
        };
        let tools = tool_context(self.ctx, &self.deps.workspace, &self.label);
        for (file, content) in &ran.written {
            crate::edit::write_file(self.ctx, self.deps, &tools, file, content).await?;
        }
        if let Some(saved) = saved {
            // A program file may be run as `./greet.sh`.
            if let Err(error) = executable(&workspace.join(&saved.file)) {
                tracing::warn!(%error, file = %saved.file, "script: cannot make the program executable");
            }
        }
        Ok(StepOutcome {
            tokens: self.tokens,
            ..StepOutcome::settled(
                true,
                format!("{}\n{}", result_text(ran), self.tried.join("\n")),
                self.approved_all,
            )
        })
    }
}

/// A candidate program to run: its name (its script's and journal's),
/// its code, and the Python appended to a Python program.
#[derive(Debug, Clone, Copy)]
struct Candidate<'a> {
    name: &'a str,
    code: &'a str,
    finishing: &'a str,
}

/// What is done with a candidate's code.
#[derive(Debug, Clone, Copy)]
enum Action<'a> {
    /// Run it with this interpreter: the files it writes are the result.
    Generate(Interpreter),
    /// Save it as this program file: the file is the result.
    Save(&'a ProgramFile),
}

/// A program the goal asks to be written as a file a check runs.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ProgramFile {
    /// Its path, relative to the workspace.
    file: String,
    /// What runs it.
    interpreter: Interpreter,
}

/// The program file `goal` asks to be written, when its extension says
/// how it runs (`.sh`, `.bash`, `.py`) and a check runs it.
fn program_file(goal: &str, evidence: &Evidence) -> Option<ProgramFile> {
    let file = crate::checks::clauses::output_file(goal)?;
    let interpreter = match Path::new(&file).extension()?.to_str()? {
        "sh" | "bash" => Interpreter::Bash,
        "py" => Interpreter::Python,
        _ => return None,
    };
    evidence
        .checks
        .iter()
        .any(|check| crate::checks::runs_program(&check.command, &file))
        .then_some(ProgramFile { file, interpreter })
}

/// Runs `code` in a scratch copy of the workspace as `action` says (run
/// by an interpreter, or saved as a program file), then the checks there
/// when it ran; what it did is journaled, so a node that runs again sees
/// the same.
async fn run_candidate(
    ctx: &NodeContext,
    deps: &AgentDeps,
    evidence: &Evidence,
    candidate: Candidate<'_>,
    action: Action<'_>,
    approved_all: bool,
) -> Result<(Ran, bool), NodeError> {
    let Candidate {
        name,
        code,
        finishing,
    } = candidate;
    let workspace = deps.workspace.workspace();
    let scratch = match Scratch::copy(workspace) {
        Ok(scratch) => scratch,
        Err(error) => return Ok((refused(error.to_string()), false)),
    };
    let scratch_deps = match scratch.deps(deps) {
        Ok(deps) => deps,
        Err(error) => return Ok((refused(error.to_string()), false)),
    };
    let before = match action {
        // The saved file is the result: the state before it is written.
        Action::Save(_) => Some(file_states(scratch.path())),
        Action::Generate(_) => None,
    };
    let (script, program, interpreter) = match action {
        Action::Generate(interpreter) => (
            format!(".rebound/scripts/{name}.{}", interpreter.extension()),
            match interpreter {
                Interpreter::Python => format!("{PYTHON_PRELUDE}{code}{finishing}"),
                Interpreter::Bash => code.to_string(),
            },
            interpreter,
        ),
        Action::Save(saved) => (
            saved.file.clone(),
            format!("{}\n", code.trim_end()),
            saved.interpreter,
        ),
    };
    let path = scratch.path().join(&script);
    let written = path
        .parent()
        .map(std::fs::create_dir_all)
        .transpose()
        .and_then(|_| std::fs::write(&path, program))
        .and_then(|_| executable(&path));
    if let Err(error) = written {
        return Ok((refused(format!("cannot write the program: {error}")), false));
    }
    let before = before.unwrap_or_else(|| file_states(scratch.path()));
    let tools = tool_context(ctx, &scratch_deps.workspace, name);
    // A saved program is run as the checks run it; with no check, once,
    // to see that it runs.
    let judged_by_checks = matches!(action, Action::Save(_)) && !evidence.checks.is_empty();
    let (success, output, approved) = if judged_by_checks {
        (true, format!("saved as {script}"), false)
    } else {
        let command = format!("{} {script}", interpreter.program());
        let outcome = run_tool_call(
            ctx,
            &scratch_deps.tools,
            &scratch_deps.approval,
            approved_all,
            SHELL_TOOL,
            serde_json::json!({ "command": command }),
            &tools,
        )
        .await?;
        let ran = from_tool_outcome(&outcome, deps, 0);
        (ran.success, ran.output, ran.approved_all)
    };
    // What it wrote, read once and journaled: a re-run of the node
    // replays the tool call above without running the program.
    let root = scratch.path().to_path_buf();
    let changes = ctx
        .try_journal(&format!("{name}:files"), async {
            Ok::<_, NodeError>(changes(&root, &before))
        })
        .await?;
    let mut ran = Ran {
        success,
        output,
        written: changes.0,
        deleted: changes.1,
        ..Ran::default()
    };
    let bytes: usize = ran.written.values().map(String::len).sum();
    if bytes > MAX_WRITTEN_BYTES {
        ran.success = false;
        ran.output = format!(
            "it wrote {bytes} bytes, more than the {MAX_WRITTEN_BYTES} a script step may write"
        );
    }
    if ran.success && !evidence.checks.is_empty() {
        let run = run_checks(
            ctx,
            &scratch_deps,
            &evidence.checks,
            CheckWhen::AfterChange,
            approved_all || approved,
        )
        .await?;
        ran.checks_passed = Some(run.passed());
        ran.failing = run.results.into_iter().filter(|r| !r.passed).collect();
    }
    Ok((ran, approved))
}

/// The request for the next candidate after the program of `answer` failed
/// (`prompt`: it crashed, or a check failed on what it wrote) with
/// `output`: the first request, that answer, and the output, shortened.
fn after_failure(first: &ChatRequest, answer: &str, prompt: &str, output: &str) -> ChatRequest {
    after_failure_explained(first, answer, prompt, output, "")
}

/// [`after_failure`] with `explained`, the harness's reading of the
/// failure, after the shortened output.
fn after_failure_explained(
    first: &ChatRequest,
    answer: &str,
    prompt: &str,
    output: &str,
    explained: &str,
) -> ChatRequest {
    let mut error = shorten(output.trim(), FAILURE_CHARS);
    if !explained.is_empty() {
        error.push('\n');
        error.push_str(&shorten(explained, FAILURE_CHARS));
    }
    first
        .clone()
        .message(Message::assistant(answer.trim_end().to_string()))
        .message(Message::user(render(prompt, &[("error", &error)])))
}

/// Makes the file at `path` executable by its owner (a program the
/// checks may run as `./greet.sh`).
fn executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut permissions = std::fs::metadata(path)?.permissions();
    permissions.set_mode(permissions.mode() | 0o755);
    std::fs::set_permissions(path, permissions)
}

/// A candidate that could not be run, and why.
fn refused(why: String) -> Ran {
    Ran {
        output: why,
        ..Ran::default()
    }
}

/// What a candidate came to, in a line.
fn verdict(ran: &Ran) -> String {
    if !ran.success {
        let first = ran
            .output
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return format!("failed: {}", shorten(first, 200));
    }
    let files = written_names(ran);
    match ran.checks_passed {
        Some(true) => format!("ran, wrote {files}; every check passes"),
        Some(false) => format!(
            "ran, wrote {files}; failing: {}",
            ran.failing
                .iter()
                .map(CheckResult::headline)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!("ran, wrote {files}"),
    }
}

/// The files a candidate wrote, for a line.
fn written_names(ran: &Ran) -> String {
    if ran.written.is_empty() && ran.deleted.is_empty() {
        return "nothing".to_string();
    }
    let mut names: Vec<String> = ran.written.keys().cloned().collect();
    names.extend(ran.deleted.iter().map(|d| format!("(deleted {d})")));
    names.join(", ")
}

/// The step's result: what the kept program printed and the head of each
/// file it wrote.
fn result_text(ran: &Ran) -> String {
    let mut text = format!("the program ran (exit 0) and wrote {}", written_names(ran));
    for (file, content) in &ran.written {
        let head: Vec<&str> = content.lines().take(WRITTEN_HEAD_LINES).collect();
        let more = content.lines().count().saturating_sub(head.len());
        text.push_str(&format!("\n{file}:\n{}", head.join("\n")));
        if more > 0 {
            text.push_str(&format!("\n({more} more lines)"));
        }
    }
    if !ran.output.trim().is_empty() {
        text.push_str(&format!("\noutput:\n{}", ran.output.trim_end()));
    }
    text
}

/// How a program is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interpreter {
    Python,
    Bash,
}

impl Interpreter {
    fn program(self) -> &'static str {
        match self {
            Interpreter::Python => "python3",
            Interpreter::Bash => "bash",
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Interpreter::Python => "py",
            Interpreter::Bash => "sh",
        }
    }

    fn language(self) -> &'static str {
        match self {
            Interpreter::Python => "Python 3",
            Interpreter::Bash => "bash",
        }
    }
}

/// The interpreter `code`'s `#!` line names (`bash`, `sh`), else the one
/// the answer's fence names (`bash`, `sh`, `shell`), else Python (found on
/// dev: a bash program fenced as Python).
fn interpreter(answer: &str, code: &str) -> Interpreter {
    match crate::bare_program::shebang_program(code) {
        Some("bash") => return Interpreter::Bash,
        Some("python3") => return Interpreter::Python,
        _ => {}
    }
    let tag = answer
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("```").or_else(|| l.strip_prefix("~~~")))
        .map(|t| t.trim().to_lowercase())
        .unwrap_or_default();
    if matches!(tag.as_str(), "bash" | "sh" | "shell" | "zsh") {
        Interpreter::Bash
    } else {
        Interpreter::Python
    }
}

/// The text files created or changed under `root` since `before` (with
/// their contents; a file that is not UTF-8 text is left out), and the
/// files deleted.
fn changes(root: &Path, before: &BTreeMap<String, u64>) -> (BTreeMap<String, String>, Vec<String>) {
    let after = file_states(root);
    let written = after
        .iter()
        .filter(|(file, hash)| before.get(*file) != Some(hash) && **hash != DIRECTORY)
        .filter(|(file, _)| !file.starts_with(".rebound/") && !file.starts_with(".git/"))
        .filter_map(|(file, _)| {
            let text = std::fs::read_to_string(root.join(file)).ok()?;
            Some((file.clone(), text))
        })
        .collect();
    let deleted = before
        .iter()
        .filter(|(file, hash)| **hash != DIRECTORY && !after.contains_key(*file))
        .map(|(file, _)| file)
        .filter(|file| !file.starts_with(".git/"))
        .cloned()
        .collect();
    (written, deleted)
}

/// The model call of a script step: the goal, the step, the project's
/// files and the first lines of the data files it names, and the grammar
/// of one fenced block.
fn script_request(
    deps: &AgentDeps,
    goal: &str,
    step: &PlanStep,
    workspace: &Path,
    saved: Option<&ProgramFile>,
) -> ChatRequest {
    let files = crate::workspace::listing(workspace, 40, 0);
    let data = data_heads(workspace, &format!("{goal}\n{}", step.description));
    let user = render(
        prompts::SCRIPT_USER,
        &[
            ("goal", goal),
            ("step", &step.description),
            ("files", &files),
            ("data", &data),
        ],
    );
    let system = match saved {
        Some(saved) => render(
            prompts::PROGRAM_FILE,
            &[
                ("file", &saved.file),
                ("language", saved.interpreter.language()),
                ("fence", saved.interpreter.extension()),
            ],
        ),
        None => prompts::SCRIPT.to_string(),
    };
    ChatRequest::new()
        .system(system)
        .message(Message::user(user))
        .max_tokens(SCRIPT_TOKENS.max(deps.config.max_answer_tokens))
        .grammar(FENCE_GRAMMAR)
}

/// The first lines of the workspace's text files that `text` names (by
/// path, or every file of a directory it names), at most
/// [`DATA_FILES_SHOWN`].
fn data_heads(workspace: &Path, text: &str) -> String {
    let mut shown: Vec<String> = Vec::new();
    let mut files: Vec<String> = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || "`'\"(),;:".contains(c)) {
        let word = word
            .trim_end_matches(['.', '!', '?'])
            .trim_start_matches("./");
        if word.is_empty() || word.contains("..") || word.starts_with('/') {
            continue;
        }
        let path = workspace.join(word);
        if path.is_file() {
            files.push(word.to_string());
        } else if path.is_dir() && !word.is_empty() {
            let mut inside: Vec<String> = std::fs::read_dir(&path)
                .map(|entries| {
                    entries
                        .flatten()
                        .filter(|e| e.path().is_file())
                        .map(|e| {
                            format!(
                                "{}/{}",
                                word.trim_end_matches('/'),
                                e.file_name().to_string_lossy()
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            inside.sort();
            files.extend(inside);
        }
    }
    for file in files {
        if shown.len() >= DATA_FILES_SHOWN
            || shown.iter().any(|s| s.starts_with(&format!("{file}:")))
        {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(workspace.join(&file)) else {
            continue;
        };
        let total = text.lines().count();
        let head: Vec<String> = text
            .lines()
            .take(DATA_HEAD_LINES)
            .map(|l| shorten(l, DATA_LINE_CHARS))
            .collect();
        let more = total.saturating_sub(head.len());
        let mut block = format!("{file}: ({total} lines)\n{}", head.join("\n"));
        if more > 0 {
            block.push_str(&format!("\n... ({more} more lines)"));
        }
        shown.push(block);
    }
    if shown.is_empty() {
        String::new()
    } else {
        format!("First lines of the files named:\n{}\n", shown.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_fence_names_the_interpreter() {
        let fenced = |answer: &str| {
            let code = answer.lines().skip(1).take_while(|l| !l.starts_with("```"));
            interpreter(answer, &code.collect::<Vec<_>>().join("\n"))
        };
        assert_eq!(fenced("```bash\necho hi\n```"), Interpreter::Bash);
        assert_eq!(fenced("```sh\necho hi\n```"), Interpreter::Bash);
        assert_eq!(fenced("```python\nprint(1)\n```"), Interpreter::Python);
        assert_eq!(fenced("```\nprint(1)\n```"), Interpreter::Python);
        // A `#!` line says more than the fence.
        assert_eq!(
            fenced("```python\n#!/bin/bash\necho hi\n```"),
            Interpreter::Bash
        );
        assert_eq!(
            fenced("```sh\n#!/usr/bin/env python3\nprint(1)\n```"),
            Interpreter::Python
        );
    }

    #[test]
    fn data_files_named_by_the_goal_or_their_directory_are_shown_by_their_first_lines() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir(ws.join("logs")).unwrap();
        std::fs::write(ws.join("logs/a.log"), "one\ntwo\n").unwrap();
        let long: String = (1..=20).map(|i| format!("row {i}\n")).collect();
        std::fs::write(ws.join("sales.csv"), long).unwrap();
        let heads = data_heads(ws, "Count the lines of logs/ and sum `sales.csv`.");
        assert!(heads.contains("logs/a.log: (2 lines)\none\ntwo"), "{heads}");
        assert!(heads.contains("sales.csv: (20 lines)\nrow 1\n"), "{heads}");
        assert!(heads.contains("(14 more lines)"), "{heads}");
        assert!(!heads.contains("row 7"), "{heads}");
        assert_eq!(data_heads(ws, "nothing named ../etc/passwd"), "");
    }

    #[test]
    fn changes_are_the_files_written_and_deleted_outside_git_and_rebound() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("keep.txt"), "a").unwrap();
        std::fs::write(root.join("gone.txt"), "a").unwrap();
        let before = file_states(root);
        std::fs::write(root.join("report.txt"), "x: 1\n").unwrap();
        std::fs::remove_file(root.join("gone.txt")).unwrap();
        std::fs::create_dir_all(root.join(".rebound/scripts")).unwrap();
        std::fs::write(root.join(".rebound/scripts/s.py"), "print(1)").unwrap();
        let (written, deleted) = changes(root, &before);
        assert_eq!(
            written.into_iter().collect::<Vec<_>>(),
            vec![("report.txt".to_string(), "x: 1\n".to_string())]
        );
        assert_eq!(deleted, vec!["gone.txt".to_string()]);
    }

    #[test]
    fn a_python_program_has_the_project_root_as_its_place() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".rebound/scripts")).unwrap();
        std::fs::write(root.join("helper.py"), "NAME = 'helper'\n").unwrap();
        let code =
            "from helper import NAME\nprint(NAME, os.path.dirname(os.path.abspath(__file__)))\n";
        std::fs::write(
            root.join(".rebound/scripts/s.py"),
            format!("{PYTHON_PRELUDE}{code}"),
        )
        .unwrap();
        let out = std::process::Command::new("python3")
            .arg(".rebound/scripts/s.py")
            .current_dir(root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let root = root.canonicalize().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            format!("helper {}", root.display())
        );
    }
}
