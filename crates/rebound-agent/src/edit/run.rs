//! Doing an edit step: the harness cuts the target span, one focused model
//! call writes its replacement (a fenced code block under a grammar of its
//! own), the harness splices it in, refuses a replacement that breaks the
//! file's syntax, runs the checks, and keeps the first candidate that
//! makes them pass. When the greedy candidate does not, up to
//! [`crate::AgentConfig::edit_candidates`] more are sampled (seeded, so a
//! run is reproducible); a candidate that leaves fewer failures and no new
//! ones is kept when none passes; otherwise the file is restored byte for
//! byte and the step fails with what each candidate did.

use std::collections::{BTreeMap, BTreeSet};

use rebound_graph::{NodeContext, NodeError};
use rebound_llm::{ChatRequest, Message};

use crate::model_call::sample_candidate;
use crate::tool_call::run_tool_call;
use serde::{Deserialize, Serialize};

use super::build_flags::build_mutants;
use super::file::file_named_in;
use super::keep::{as_addition, as_definition_rewrites};
use super::mutate::{mutants, Mutant};
use super::rename::renames;
use super::syntax_repair::repair_syntax;
use super::{
    broken_by_edit, check_syntax, end_of_file, extract_code, losses, resolve_target, splice,
    EditError, EditSpan,
};
use crate::checks::{run_checks, CheckResult, CheckRun, CheckWhen, Evidence};
use crate::executor::{tool_context, StepOutcome};
use crate::llm::shorten;
use crate::localize::{self, FailureKind, SuspectReason};
use crate::prompts::{self, render};
use crate::{AgentDeps, PlanStep};

/// The tool the harness writes files with (journaled, confined to the
/// workspace).
const WRITE_TOOL: &str = "write_file";

/// Characters of a file shown when a new definition is added to it.
const INSERT_CONTEXT_CHARS: usize = 4_000;

/// Tokens of room for a new definition's code.
const INSERT_TOKENS: u32 = 400;

/// Tokens of room for a new file written by hand (a `create` step): a
/// whole small program or config, not one definition. Found on dev: a
/// 60-line Python program cut at 160 tokens was refused five times ("the
/// code block is not closed").
const NEW_FILE_TOKENS: u32 = 700;

/// Characters of the failing checks' report in an edit prompt.
const FAILURE_CHARS: usize = 700;

/// The most source lines of failures (a test's failed assertion) an edit
/// prompt quotes.
const FAILING_LINES: usize = 3;

/// The grammar of an edit answer: one fenced code block and nothing else
/// (a line of code may not start with a backtick; the closing fence ends
/// the answer).
pub const FENCE_GRAMMAR: &str = r#"root ::= "```" [a-zA-Z0-9_+-]* "\n" line* "```"
line ::= [^`\n] [^\n]* "\n" | "\n"
"#;

/// How the failing checks stand: what an edit is judged by.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Checks that fail.
    pub failing_checks: usize,
    /// The failures read from their output: a test's id, else the kind and
    /// message; a failing check whose output names none counts as one.
    pub failures: BTreeSet<String>,
    /// The ids of the failing tests among them.
    pub tests: BTreeSet<String>,
    /// Where a parser of a data file or a Makefile stopped, by file: the
    /// line of its first error (a later line is progress through the
    /// file).
    pub stopped_at: BTreeMap<String, u32>,
    /// Compiler errors (Rust, C): a build that fails hides the tests it
    /// would have run, so it is never progress over failing tests.
    #[serde(default)]
    pub compile_errors: usize,
}

impl Tally {
    /// The tally of `results` (`workspace` resolves the paths in their
    /// output).
    pub fn of(workspace: &std::path::Path, results: &[CheckResult]) -> Tally {
        let mut tally = Tally::default();
        for result in results.iter().filter(|r| !r.passed) {
            tally.failing_checks += 1;
            let failures = localize::parse(&result.command, &result.output, workspace);
            let known: Vec<_> = failures
                .iter()
                .filter(|f| f.kind != FailureKind::Unknown)
                .collect();
            if known.is_empty() {
                tally.failures.insert(format!("check:{}", result.command));
            }
            for failure in known {
                if matches!(
                    failure.kind,
                    FailureKind::RustCompileError
                        | FailureKind::CCompileError
                        | FailureKind::GoCompileError
                ) {
                    tally.compile_errors += 1;
                }
                let parser = matches!(
                    failure.kind,
                    FailureKind::JsonParseError
                        | FailureKind::TomlParseError
                        | FailureKind::YamlParseError
                        | FailureKind::MakeError
                );
                if let Some(at) = failure.location.as_ref().filter(|_| parser) {
                    let line = tally.stopped_at.entry(at.file.clone()).or_insert(at.line);
                    *line = (*line).min(at.line);
                }
                match &failure.test {
                    Some(test) => {
                        tally.failures.insert(format!("test:{test}"));
                        tally.tests.insert(test.clone());
                    }
                    None => {
                        tally
                            .failures
                            .insert(format!("{:?}:{}", failure.kind, failure.message));
                    }
                }
            }
        }
        tally
    }

    /// Whether nothing fails.
    pub fn passed(&self) -> bool {
        self.failing_checks == 0
    }

    /// Whether this is strictly better than `before`: no more failing
    /// checks, no compiler error where the build passed before, no test
    /// failing that did not before, and fewer failures or
    /// a test module that failed to load now loads. A module that failed
    /// to load (unittest's `unittest.loader._FailedTest.m`, a pytest
    /// collection error of `tests/test_m.py`) stood for all its tests:
    /// once it loads, its failing tests are not new.
    pub fn improves_on(&self, before: &Tally) -> bool {
        let masked: Vec<String> = before.tests.iter().filter_map(|t| unloaded(t)).collect();
        let no_new = self
            .tests
            .iter()
            .all(|t| before.tests.contains(t) || masked.iter().any(|m| t.starts_with(m.as_str())));
        let loads = before
            .tests
            .iter()
            .any(|t| unloaded(t).is_some() && !self.tests.contains(t));
        // The same number of failures, but a parser got further through a
        // file and stopped earlier in none.
        let further = self.failures.len() == before.failures.len()
            && self
                .stopped_at
                .iter()
                .any(|(file, line)| before.stopped_at.get(file).is_some_and(|was| line > was))
            && before
                .stopped_at
                .iter()
                .all(|(file, was)| self.stopped_at.get(file).is_none_or(|line| line >= was));
        // A build that newly fails hides the tests it ran: fewer failures
        // counted is not progress.
        let builds = self.compile_errors == 0 || before.compile_errors > 0;
        self.failing_checks <= before.failing_checks
            && builds
            && no_new
            && (self.failures.len() < before.failures.len() || loads || further)
    }
}

/// The prefix of the test ids a test module that failed to load stands
/// for (`m.` for unittest's `unittest.loader._FailedTest.m`,
/// `tests/test_m.py::` for pytest's collection error of that file), or
/// `None` for a test.
fn unloaded(test: &str) -> Option<String> {
    if let Some(module) = test.strip_prefix("unittest.loader._FailedTest.") {
        return Some(format!("{module}."));
    }
    test.ends_with(".py").then(|| format!("{test}::"))
}

/// What became of one candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Tried {
    /// Which candidate: `candidate 1` is the greedy one.
    name: String,
    /// What happened, in a line.
    verdict: String,
    /// Whether the model gave the code back unchanged.
    #[serde(default)]
    unchanged: bool,
}

/// Does `step` (an edit step, number `index` of its plan) for `goal`,
/// judged by `evidence`'s checks.
pub(crate) async fn run_edit_step(
    ctx: &NodeContext,
    deps: &AgentDeps,
    goal: &str,
    index: usize,
    step: &PlanStep,
    evidence: &Evidence,
    approved_all: bool,
) -> Result<StepOutcome, NodeError> {
    let job = match prepare(ctx, deps, goal, index, step, evidence, approved_all).await? {
        Ok(job) => job,
        Err(message) => return Ok(failed(message)),
    };
    let mut outcome = try_candidates(ctx, deps, goal, step, evidence, &job).await?;
    if let Some(note) = &job.retargeted {
        outcome.output = format!("{note}\n{}", outcome.output);
    }
    Ok(outcome)
}

/// An edit step ready for its candidates: the span cut, its file's
/// original text, and where the checks stand.
struct EditJob {
    /// The step's label in journal keys and tool calls (`edit2`).
    label: String,
    /// The workspace root.
    workspace: std::path::PathBuf,
    /// The span to rewrite.
    span: EditSpan,
    /// What was edited instead, when the target was not taken as written.
    retargeted: Option<String>,
    /// The file's text before the edit (empty for a new file).
    original: String,
    /// The checks' results before the edit; `None` when there is no check.
    baseline: Option<Vec<CheckResult>>,
    /// Whether every command was approved for the run.
    approved_all: bool,
    /// Whether a failing check points at the span's file (localization
    /// found a suspect in it): an unchanged answer is then a failure.
    implicated: bool,
    /// The line of the span's file that localization suspects.
    hint: Option<u32>,
    /// The flags a failing build's output says the span's file (a build
    /// file a failing check runs) lacks, and the objects it names that no
    /// source makes, as mutants of it: tried first.
    flag_mutants: Vec<Mutant>,
    /// The span's file repaired so that it parses, when it does not and
    /// the line edits (or the JSON5 rewrite) can do it: tried first, as
    /// the parser, not the model, says what is wrong.
    syntax_repair: Option<Mutant>,
    /// The rename the goal asks for ("rename calc_total to order_total"),
    /// made in the project's code: tried first among the mutants.
    goal_rename: Option<super::rename::Rename>,
}

/// Gets `step` ready: where the checks stand (the evidence's last results
/// when nothing changed since, else a fresh run), the span (cut once and
/// journaled, so a node re-run after a crash splices against the same
/// original whatever the file holds now) and the original text. `Err`
/// with the reason when the step cannot be done.
async fn prepare(
    ctx: &NodeContext,
    deps: &AgentDeps,
    goal: &str,
    index: usize,
    step: &PlanStep,
    evidence: &Evidence,
    approved_all: bool,
) -> Result<Result<EditJob, String>, NodeError> {
    let workspace = deps.workspace.workspace().to_path_buf();
    // A plan that gave no file but whose step says which one: that one.
    let named = step
        .file
        .is_none()
        .then(|| file_named_in(&workspace, &step.description))
        .flatten();
    let Some(file) = step
        .file
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .or(named.as_deref())
    else {
        return Ok(Err(
            "an edit step needs a file: give \"file\" (and a \"target\")".to_string(),
        ));
    };
    let label = format!("edit{}", index + 1);
    let mut approved_all = approved_all;
    let baseline = if evidence.checks.is_empty() {
        None
    } else if evidence.fingerprint == Some(crate::checks::fingerprint(&workspace)) {
        Some(evidence.results.clone())
    } else {
        let run = run_checks(
            ctx,
            deps,
            &evidence.checks,
            CheckWhen::AfterChange,
            approved_all,
        )
        .await?;
        approved_all |= run.approved_all;
        Some(run.results)
    };
    let (hint, implicated) = baseline.as_deref().map_or((None, false), |results| {
        implication(&workspace, results, file)
    });
    let target = step.target.as_deref().unwrap_or_default();
    let span = ctx
        .journal(&format!("{label}:span"), async {
            resolve_forgiving(&workspace, file, target, hint).map_err(|e| e.to_string())
        })
        .await?;
    let (span, retargeted) = match span {
        Ok(resolved) => resolved,
        Err(message) => return Ok(Err(message)),
    };
    let original = ctx
        .journal(&format!("{label}:original"), async {
            if span.exists {
                std::fs::read_to_string(workspace.join(&span.file)).map_err(|e| e.to_string())
            } else {
                Ok(String::new())
            }
        })
        .await?;
    let original = match original {
        Ok(text) => text,
        Err(error) => return Ok(Err(format!("cannot read {}: {error}", span.file))),
    };
    let results = baseline.as_deref().unwrap_or(&[]);
    let mut flag_mutants = build_mutants(&workspace, &span.file, &original, results);
    flag_mutants.extend(super::build_objects::object_mutants(
        &workspace, &span.file, &original, results,
    ));
    let syntax_repair = matches!(
        check_syntax(&span.file, &original),
        super::Syntax::Invalid(_)
    )
    .then(|| repair_syntax(&span.file, &original))
    .flatten()
    .map(|repair| Mutant {
        text: repair.text,
        change: repair.change,
    });
    // The rename the goal asks for, read once (journaled: a re-run
    // tries the same one).
    let goal_rename = ctx
        .journal(&format!("{label}:goal-rename"), async {
            super::rename::goal_rename(&workspace, goal)
        })
        .await?;
    Ok(Ok(EditJob {
        implicated,
        hint,
        flag_mutants,
        syntax_repair,
        goal_rename,
        label,
        workspace,
        span,
        retargeted,
        original,
        baseline,
        approved_all,
    }))
}

/// The candidates of `job`: greedy, then seeded samples, each spliced,
/// syntax-checked and judged by the checks; the first that passes is
/// kept, else the best that improves, else the original is written back.
async fn try_candidates(
    ctx: &NodeContext,
    deps: &AgentDeps,
    goal: &str,
    step: &PlanStep,
    evidence: &Evidence,
    job: &EditJob,
) -> Result<StepOutcome, NodeError> {
    let EditJob {
        label,
        workspace,
        span,
        original,
        baseline,
        ..
    } = job;
    let tools = tool_context(ctx, deps, label);
    let mut approved_all = job.approved_all;
    let syntax_before = check_syntax(&span.file, original);
    let before = baseline
        .as_deref()
        .map(|results| Tally::of(workspace, results));
    let request = edit_request(deps, goal, step, span, baseline.as_deref(), workspace);
    let mut tokens = 0u64;
    let mut tried: Vec<Tried> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut best: Option<(Tally, String, CheckRun)> = None;
    let mut first_failure: Option<String> = None;
    let candidates = deps.config.edit_candidates;
    // Mutants (renames of a missing name, then one-token changes of the
    // span) are tried while the checks fail.
    let mutable = deps.config.edit_mutants > 0 && before.as_ref().is_some_and(|b| !b.passed());
    // A build that lacks a flag its output names (`-lm`, `-Iinclude`),
    // or a file its parser can be walked through: those mutants go
    // before any model call.
    let mutants_first = mutable && (!job.flag_mutants.is_empty() || job.syntax_repair.is_some());
    // The greedy answer, then (when it did not do it) the one-token
    // changes of the span, then samples that cost a model call each.
    let attempts = mutants_first
        .then_some(None)
        .into_iter()
        .chain(std::iter::once(Some(0)))
        .chain((mutable && !mutants_first).then_some(None))
        .chain((1..=candidates).map(Some));
    for attempt in attempts {
        let Some(number) = attempt else {
            let found = try_mutants(
                ctx,
                deps,
                evidence,
                job,
                &tools,
                &syntax_before,
                &mut approved_all,
            )
            .await?;
            if let Some(verdict) = found.verdict {
                tried.push(Tried {
                    name: MUTANTS.to_string(),
                    verdict,
                    unchanged: false,
                });
            }
            if let Some(run) = found.run {
                return Ok(outcome(
                    true,
                    span,
                    &tried,
                    Some(run),
                    tokens,
                    approved_all,
                    None,
                ));
            }
            continue;
        };
        let key = format!("{label}:candidate");
        let response = sample_candidate(ctx, deps, &key, &request, number).await?;
        tokens += response.usage.input_tokens + response.usage.output_tokens;
        let (code, new_text) = match extract_code(&response.text)
            .and_then(|code| splice(original, span, &code).map(|text| (code, text)))
        {
            Ok((code, text)) => {
                if !seen.insert(normalized(&code)) {
                    tried.push(Tried {
                        name: candidate_name(number),
                        verdict: "the same as an earlier candidate".to_string(),
                        unchanged: false,
                    });
                    continue;
                }
                (code, text)
            }
            Err(EditError::NoChange) if !job.implicated => {
                // No failing check points at this file, and the model
                // gives the code back as it is: there is nothing to
                // change here (the checks still judge the finish).
                tried.push(Tried {
                    name: candidate_name(number),
                    verdict: "the model rewrote it as it is: nothing to change".to_string(),
                    unchanged: false,
                });
                let mut done = outcome(true, span, &tried, None, tokens, approved_all, None);
                done.output = format!(
                    "{} of {} needs no change\n{}",
                    span.label,
                    span.file,
                    lines(&tried)
                );
                return Ok(done);
            }
            Err(error) => {
                tried.push(Tried {
                    name: candidate_name(number),
                    verdict: format!("refused: {error}"),
                    unchanged: matches!(error, EditError::NoChange),
                });
                continue;
            }
        };
        let lost = |text: &str| {
            losses(
                &span.file,
                original,
                text,
                &step.description,
                span.is_whole_file(original),
                matches!(syntax_before, super::Syntax::Invalid(_)),
            )
        };
        let mut new_text = new_text;
        let mut dropped = lost(&new_text);
        if !dropped.is_empty() {
            // New definitions in place of the shown ones: an addition
            // beside them, when that keeps everything.
            if let Some(text) = as_addition(&span.file, original, &span.text, &code)
                .and_then(|added| splice(original, span, &added).ok())
                .filter(|text| lost(text).is_empty())
            {
                new_text = text;
                dropped = Vec::new();
            } else if let Some(text) = as_definition_rewrites(&span.file, original, &code)
                .filter(|text| lost(text).is_empty())
            {
                // Only the definitions it fixed, for a larger span: each
                // replaces its own.
                new_text = text;
                dropped = Vec::new();
            }
        }
        if !dropped.is_empty() {
            tried.push(Tried {
                name: candidate_name(number),
                verdict: format!(
                    "refused, it drops what it should keep: {}",
                    dropped.join(", ")
                ),
                unchanged: false,
            });
            continue;
        }
        if let Some(reason) = broken_by_edit(&syntax_before, &check_syntax(&span.file, &new_text)) {
            tried.push(Tried {
                name: candidate_name(number),
                verdict: format!("refused, it breaks the syntax: {reason}"),
                unchanged: false,
            });
            continue;
        }
        write(ctx, deps, &tools, &span.file, &new_text).await?;
        let Some(before) = &before else {
            // No check can judge it: the first usable candidate is kept.
            tried.push(Tried {
                name: candidate_name(number),
                verdict: "applied (no check to judge it)".to_string(),
                unchanged: false,
            });
            return Ok(outcome(
                true,
                span,
                &tried,
                None,
                tokens,
                approved_all,
                None,
            ));
        };
        let run = run_checks(ctx, deps, &evidence.checks, CheckWhen::Edit, approved_all).await?;
        approved_all |= run.approved_all;
        let after = Tally::of(workspace, &run.results);
        if after.passed() {
            tried.push(Tried {
                name: candidate_name(number),
                verdict: "kept: every check passes".to_string(),
                unchanged: false,
            });
            return Ok(outcome(
                true,
                span,
                &tried,
                Some(run),
                tokens,
                approved_all,
                None,
            ));
        }
        let verdict = if after.improves_on(before) {
            let better = best
                .as_ref()
                .is_none_or(|(tally, _, _)| after.failures.len() < tally.failures.len());
            if better {
                best = Some((after.clone(), new_text.clone(), run.clone()));
            }
            format!(
                "better ({} failure(s) after, {} before), the checks still fail",
                after.failures.len(),
                before.failures.len()
            )
        } else {
            first_failure.get_or_insert_with(|| crate::checks::failures_text(&run.results));
            format!(
                "reverted: {} failure(s) after, {} before",
                after.failures.len(),
                before.failures.len()
            )
        };
        tried.push(Tried {
            name: candidate_name(number),
            verdict,
            unchanged: false,
        });
        write(ctx, deps, &tools, &span.file, original).await?;
    }
    if let Some((_, text, run)) = best {
        write(ctx, deps, &tools, &span.file, &text).await?;
        return Ok(outcome(
            true,
            span,
            &tried,
            Some(run),
            tokens,
            approved_all,
            Some("kept the best candidate; the checks still fail"),
        ));
    }
    let unchanged = tried
        .iter()
        .filter(|t| t.name != MUTANTS)
        .all(|t| t.unchanged);
    let note = unchanged.then_some(
        "The editor changed nothing: an edit step rewrites a file's text; to run a program \
         (git, make, a script), use a run step with its command.",
    );
    let mut result = outcome(false, span, &tried, None, tokens, approved_all, note);
    if let Some(text) = first_failure {
        result.output = shorten(
            &format!(
                "{}\nThe checks after the first candidate:\n{text}",
                result.output
            ),
            deps.config.prompt_output_chars,
        );
    }
    Ok(result)
}

/// The name of candidate `number` in a step's output (`candidate 1` is
/// the greedy one).
fn candidate_name(number: u32) -> String {
    format!("candidate {}", number + 1)
}

/// The name of the mutants in a step's output.
const MUTANTS: &str = "mutants";

/// What the mutants of an edit did.
struct MutantsTried {
    /// A line for the step's output (`None`: there was none to try).
    verdict: Option<String>,
    /// The checks' run after the mutant that was kept, if one was.
    run: Option<CheckRun>,
}

/// Tries the mutants of `job`: first the rename the goal asks for
/// ([`super::rename::goal_rename`]) and the renames of a name the
/// failures say is missing ([`renames`], in every file that uses it), then, for a
/// file that does not parse, its line-by-line syntax repair
/// ([`repair_syntax`]), else the operator mutants of the span
/// ([`mutants`], nearest the suspect line first; only when a failing
/// check points at the span's file and the file is not a test). Each is syntax-checked and judged by the
/// checks; the first that makes every check pass is kept (left written),
/// otherwise every file is restored. At most
/// [`crate::AgentConfig::edit_mutants`] in all, and no more than
/// [`MUTANT_CHECK_MS`] of checks at the baseline's pace (the count is
/// fixed before the first one runs, and the renames are journaled, so a
/// re-run after a crash tries the same ones).
async fn try_mutants(
    ctx: &NodeContext,
    deps: &AgentDeps,
    evidence: &Evidence,
    job: &EditJob,
    tools: &rebound_tools::ToolContext,
    syntax_before: &super::Syntax,
    approved_all: &mut bool,
) -> Result<MutantsTried, NodeError> {
    let EditJob {
        workspace,
        span,
        original,
        baseline,
        label,
        ..
    } = job;
    let check_ms: u64 = baseline
        .iter()
        .flatten()
        .map(|r| r.duration_ms)
        .sum::<u64>()
        .max(1);
    let affordable = usize::try_from(MUTANT_CHECK_MS / check_ms).unwrap_or(usize::MAX);
    let limit = affordable.min(deps.config.edit_mutants as usize);
    let failures: Vec<localize::Failure> = baseline
        .iter()
        .flatten()
        .filter(|r| !r.passed)
        .flat_map(|r| localize::parse(&r.command, &r.output, workspace))
        .collect();
    let before = baseline
        .as_deref()
        .map(|results| Tally::of(workspace, results));
    let renamed = ctx
        .journal(&format!("{label}:renames"), async {
            // The rename the goal asks for first, then the missing names'.
            let mut found: Vec<super::rename::Rename> = job.goal_rename.iter().cloned().collect();
            let left = limit.min(MAX_RENAME_MUTANTS).saturating_sub(found.len());
            found.extend(renames(workspace, &failures, left));
            found
        })
        .await?;
    let parses = !matches!(syntax_before, super::Syntax::Invalid(_));
    let operators = job.implicated && !localize::is_test_file(&span.file) && parses;
    let mut found = Vec::new();
    if !parses {
        found.extend(job.syntax_repair.clone());
    }
    if operators {
        found = mutants(
            original,
            span,
            job.hint,
            limit.saturating_sub(renamed.len() + job.flag_mutants.len()),
        );
    }
    // A build file's missing flags first: the checks' output names them.
    found.splice(0..0, job.flag_mutants.iter().cloned());
    let total = renamed.len() + found.len();
    if total == 0 {
        return Ok(MutantsTried {
            verdict: None,
            run: None,
        });
    }
    let mut judged = 0usize;
    let rewrites = renamed
        .iter()
        .map(|rename| {
            let files: Vec<Rewrite<'_>> = rename
                .files
                .iter()
                .map(|f| Rewrite {
                    file: &f.file,
                    original: &f.original,
                    new: &f.renamed,
                })
                .collect();
            (files, rename.change.as_str())
        })
        .chain(found.iter().map(|mutant| {
            let file = Rewrite {
                file: &span.file,
                original,
                new: &mutant.text,
            };
            (vec![file], mutant.change.as_str())
        }));
    for (files, change) in rewrites {
        // A mutant whose files do not all parse is not tried (a syntax
        // repair must parse; a rename or operator change must not break
        // what parsed).
        let breaks = files
            .iter()
            .any(|f| matches!(check_syntax(f.file, f.new), super::Syntax::Invalid(_)));
        if breaks {
            continue;
        }
        judged += 1;
        // The parser's own repair of a file that did not parse is kept
        // when it makes things better, though another check still fails
        // (found on dev: the TOML repaired, `pip install -e .` still
        // failing in the sandbox, and the repair thrown away).
        let repair = !parses
            && job
                .syntax_repair
                .as_ref()
                .is_some_and(|m| files.iter().any(|f| f.new == m.text));
        let better_than = repair.then_some(before.as_ref()).flatten();
        let trial = Trial {
            files: &files,
            better_than,
        };
        if let Some((run, passed)) =
            judge(ctx, deps, evidence, tools, workspace, trial, approved_all).await?
        {
            let how = if passed {
                "every check passes"
            } else {
                "the file parses and fewer checks fail"
            };
            return Ok(MutantsTried {
                verdict: Some(format!("kept {change} (mutant {judged} of {total}): {how}")),
                run: Some(run),
            });
        }
    }
    Ok(MutantsTried {
        verdict: Some(format!(
            "{judged} mutants tried (renames of a missing name, a build's missing flags, syntax repairs, one-token changes); none makes every check pass"
        )),
        run: None,
    })
}

/// A file a mutant rewrites whole.
struct Rewrite<'a> {
    /// The file, relative to the workspace.
    file: &'a str,
    /// Its text before.
    original: &'a str,
    /// Its text with the mutant.
    new: &'a str,
}

/// A mutant on trial: the files it rewrites, and what it must improve
/// on to be kept though a check still fails (`None`: every check must
/// pass).
struct Trial<'a> {
    files: &'a [Rewrite<'a>],
    better_than: Option<&'a Tally>,
}

/// Writes the trial's new texts and runs the checks: the run and whether
/// every check passes when they all do, or when the result improves on
/// the trial's `better_than` (the files stay written); else `None` with
/// every file written back as it was.
async fn judge(
    ctx: &NodeContext,
    deps: &AgentDeps,
    evidence: &Evidence,
    tools: &rebound_tools::ToolContext,
    workspace: &std::path::Path,
    trial: Trial<'_>,
    approved_all: &mut bool,
) -> Result<Option<(CheckRun, bool)>, NodeError> {
    let Trial { files, better_than } = trial;
    for file in files {
        write(ctx, deps, tools, file.file, file.new).await?;
    }
    let run = run_checks(ctx, deps, &evidence.checks, CheckWhen::Edit, *approved_all).await?;
    *approved_all |= run.approved_all;
    let after = Tally::of(workspace, &run.results);
    if after.passed() {
        return Ok(Some((run, true)));
    }
    if better_than.is_some_and(|before| after.improves_on(before)) {
        return Ok(Some((run, false)));
    }
    for file in files {
        write(ctx, deps, tools, file.file, file.original).await?;
    }
    Ok(None)
}

/// The most rename mutants tried in one edit.
const MAX_RENAME_MUTANTS: usize = 3;

/// Milliseconds of checks the operator mutants of one edit may take, at
/// the pace of the checks' last run.
const MUTANT_CHECK_MS: u64 = 60_000;

/// Files of at most this many lines are rewritten whole when an edit's
/// target names nothing in them.
const SMALL_FILE_LINES: u32 = 80;

/// Words of a target that name nothing by themselves.
const FILLER: &[&str] = &[
    "def", "fn", "function", "class", "method", "line", "lines", "the", "in", "of", "and", "to",
    "a", "an", "import", "from", "file",
];

/// [`resolve_target`], forgiving what a small model writes as a target: a
/// target that names nothing in the file (`4-6, def format_price` copied
/// from a report, `import math`, lines past the end) is read word by word
/// for a definition's name or a line range; failing that, the file is
/// taken whole when it is small, else the definition around `hint`. The
/// second value says what was edited instead, when the target was not
/// taken as written.
fn resolve_forgiving(
    workspace: &std::path::Path,
    file: &str,
    target: &str,
    hint: Option<u32>,
) -> Result<(EditSpan, Option<String>), EditError> {
    let error = match resolve_target(workspace, file, target, hint) {
        Ok(span) => return Ok((span, None)),
        Err(error @ (EditError::TargetNotFound { .. } | EditError::BadRange { .. })) => error,
        Err(other) => return Err(other),
    };
    if let (EditError::TargetNotFound { .. }, Some(name)) = (&error, new_definition(target)) {
        // `def median(values):` where there is no `median` yet: a new
        // definition, added at the end.
        return Ok((end_of_file(workspace, file, name)?, None));
    }
    let instead = |span: EditSpan| {
        let note = format!(
            "the target `{}` names nothing in {}: edited {} instead",
            target.trim(),
            span.file,
            span.label
        );
        (span, Some(note))
    };
    let words = target
        .split(|c: char| {
            c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | ':' | '`' | '\'' | '"')
        })
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .filter(|word| !FILLER.contains(&word.to_ascii_lowercase().as_str()))
        .filter(|word| *word != target.trim());
    for word in words {
        if let Ok(span) = resolve_target(workspace, file, word, hint) {
            return Ok(instead(span));
        }
    }
    if let Ok(span) = resolve_target(workspace, file, "", None) {
        if span.line_count() <= SMALL_FILE_LINES {
            return Ok(instead(span));
        }
    }
    if hint.is_some() {
        if let Ok(span) = resolve_target(workspace, file, "", hint) {
            return Ok(instead(span));
        }
    }
    Err(error)
}

/// Words that start a definition in a target (`def median(values):`).
const DEFINING: &[&str] = &[
    "def",
    "fn",
    "function",
    "class",
    "struct",
    "enum",
    "trait",
    "interface",
];

/// The name a target declares when it is written as a definition's head
/// (`def median(values):`, `fn parse(`, `class Cart:`), for a definition
/// that does not exist yet.
fn new_definition(target: &str) -> Option<&str> {
    let mut words = target.split_whitespace();
    let keyword = words.find(|w| !matches!(*w, "pub" | "async" | "export"))?;
    if !DEFINING.contains(&keyword) {
        return None;
    }
    let rest = words.next()?;
    let name = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .filter(|name| !name.is_empty())?;
    Some(name)
}

/// Where `results`' failures meet `file`: the line localization suspects
/// in it (outside tests), and whether a failure points at it at all (a
/// location or frame in it, or, for output that could not be read, its
/// name). Each failing check's output is parsed once.
fn implication(
    workspace: &std::path::Path,
    results: &[CheckResult],
    file: &str,
) -> (Option<u32>, bool) {
    let file = file.trim_start_matches("./");
    let mut line = None;
    let mut named = false;
    for result in results.iter().filter(|r| !r.passed) {
        let failures = localize::parse(&result.command, &result.output, workspace);
        named |= failures.iter().any(|failure| {
            failure.kind == FailureKind::Unknown && result.output.contains(file)
                || failure
                    .location
                    .iter()
                    .chain(&failure.frames)
                    .any(|at| at.file == file)
        });
        if line.is_none() {
            line = localize::locate(workspace, &failures)
                .into_iter()
                .find(|s| s.file == file && s.reason != SuspectReason::Test)
                .map(|s| s.line);
        }
    }
    (line, named || line.is_some())
}

/// The model call of an edit: the instruction, the failures, the span's
/// code, and the grammar of a fenced block.
fn edit_request(
    deps: &AgentDeps,
    goal: &str,
    step: &PlanStep,
    span: &EditSpan,
    results: Option<&[CheckResult]>,
    workspace: &std::path::Path,
) -> ChatRequest {
    let failures = results
        .map(|r| failures_brief(workspace, r, &span.file))
        .unwrap_or_default();
    let language = fence_language(&span.file);
    let (template, code) = if span.is_insertion() {
        let file = std::fs::read_to_string(workspace.join(&span.file)).unwrap_or_default();
        (prompts::EDITOR_INSERT, shorten(&file, INSERT_CONTEXT_CHARS))
    } else {
        (prompts::EDITOR_USER, span.text.clone())
    };
    let user = render(
        template,
        &[
            ("goal", goal),
            ("instruction", &step.description),
            ("failures", &failures),
            ("file", &span.file),
            ("part", &span.label),
            ("language", language),
            ("code", &code),
        ],
    );
    // Room for a rewrite a good deal longer than the original, or for a
    // new definition.
    let room = if !span.exists {
        NEW_FILE_TOKENS
    } else if span.is_insertion() {
        INSERT_TOKENS
    } else {
        u32::try_from(span.text.len() / 2).unwrap_or(u32::MAX)
    };
    let max_tokens = room
        .saturating_add(160)
        .clamp(160, deps.config.max_answer_tokens.max(160) * 3);
    ChatRequest::new()
        .system(prompts::EDITOR)
        .message(Message::user(user))
        .max_tokens(max_tokens)
        .grammar(FENCE_GRAMMAR)
}

/// The failing checks, briefly: each failure's header and message, and
/// the source lines where they show outside `file` (a test's failed
/// assertion, with the call and the value it expects); no other code (the
/// edit prompt shows the span itself).
fn failures_brief(workspace: &std::path::Path, results: &[CheckResult], file: &str) -> String {
    let failing: Vec<&CheckResult> = results.iter().filter(|r| !r.passed).collect();
    if failing.is_empty() {
        return String::new();
    }
    let budget = FAILURE_CHARS / failing.len();
    let parts: Vec<String> = failing
        .iter()
        .map(|result| {
            let failures = localize::parse(&result.command, &result.output, workspace);
            let text = localize::render(&failures, &[], budget);
            let mut body = if text.trim().is_empty() {
                shorten(result.output.trim_end(), budget)
            } else {
                text.trim_end().to_string()
            };
            for line in localize::failing_lines(workspace, &failures, file, FAILING_LINES) {
                body.push_str("\n> ");
                body.push_str(&line);
            }
            format!("{}:\n{body}", result.headline())
        })
        .collect();
    format!("The checks fail:\n{}\n", parts.join("\n"))
}

/// The tag of a fenced block of `file`'s code.
fn fence_language(file: &str) -> &'static str {
    let extension = std::path::Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    match extension {
        "py" => "python",
        "rs" => "rust",
        "c" | "h" => "c",
        "js" | "mjs" | "cjs" | "jsx" => "javascript",
        "ts" | "tsx" => "typescript",
        "sh" | "bash" => "bash",
        "json" => "json",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "go" => "go",
        _ if file.ends_with("Makefile") || file.ends_with(".mk") => "make",
        _ => "",
    }
}

/// `code` without trailing whitespace on its lines and around it, to tell
/// duplicate candidates apart from real ones.
fn normalized(code: &str) -> String {
    code.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// Writes `content` to `file` through the write tool (journaled, confined
/// to the workspace): how the harness changes the workspace's files.
pub(crate) async fn write(
    ctx: &NodeContext,
    deps: &AgentDeps,
    tools: &rebound_tools::ToolContext,
    file: &str,
    content: &str,
) -> Result<(), NodeError> {
    let outcome = run_tool_call(
        ctx,
        &deps.tools,
        &deps.approval,
        true,
        WRITE_TOOL,
        serde_json::json!({ "path": file, "content": content }),
        tools,
    )
    .await?;
    if outcome.output.success {
        Ok(())
    } else {
        Err(NodeError::msg(format!(
            "the harness could not write {file}: {}",
            outcome.output.content
        ))
        .permanent())
    }
}

/// What each candidate did, a line each.
fn lines(tried: &[Tried]) -> String {
    tried
        .iter()
        .map(|t| format!("- {}: {}", t.name, t.verdict))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A failed edit step that made no model call and changed nothing.
fn failed(message: String) -> StepOutcome {
    StepOutcome {
        success: false,
        output: message,
        denied: None,
        forbidden: None,
        approved_all: false,
        tokens: 0,
        checks: None,
    }
}

/// The step outcome after the candidates in `tried`.
fn outcome(
    success: bool,
    span: &EditSpan,
    tried: &[Tried],
    checks: Option<CheckRun>,
    tokens: u64,
    approved_all: bool,
    note: Option<&str>,
) -> StepOutcome {
    let head = if success {
        format!("edited {} of {}", span.label, span.file)
    } else {
        format!(
            "no candidate improved {} of {}; the file is unchanged",
            span.label, span.file
        )
    };
    let mut output = format!("{head}\n{}", lines(tried));
    if let Some(note) = note {
        output.push_str(&format!("\n{note}"));
    }
    StepOutcome {
        success,
        output,
        denied: None,
        forbidden: None,
        approved_all,
        tokens,
        checks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(command: &str, passed: bool, output: &str) -> CheckResult {
        CheckResult {
            command: command.to_string(),
            passed,
            exit_code: Some(if passed { 0 } else { 1 }),
            output: output.to_string(),
            duration_ms: 1,
        }
    }

    const TWO_FAIL: &str = "FF\n======================================================================\nFAIL: test_a (test_m.T.test_a)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"test_m.py\", line 5, in test_a\n    self.assertEqual(f(1), 2)\nAssertionError: 3 != 2\n\n======================================================================\nFAIL: test_b (test_m.T.test_b)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"test_m.py\", line 7, in test_b\n    self.assertEqual(f(2), 3)\nAssertionError: 4 != 3\n\n----------------------------------------------------------------------\nRan 2 tests in 0.001s\n\nFAILED (failures=2)\n";

    #[test]
    fn tallies_compare_by_failures_and_tests() {
        let dir = tempfile::tempdir().unwrap();
        let two = Tally::of(
            dir.path(),
            &[result("python3 -m unittest", false, TWO_FAIL)],
        );
        assert_eq!(two.failing_checks, 1);
        assert_eq!(two.failures.len(), 2, "{two:?}");
        let one_output = TWO_FAIL.replace(
            "FAIL: test_b (test_m.T.test_b)",
            "FAIL: test_a (test_m.T.test_a)",
        );
        let one = Tally::of(
            dir.path(),
            &[result("python3 -m unittest", false, &one_output)],
        );
        assert_eq!(one.failures.len(), 1, "{one:?}");
        assert!(one.improves_on(&two));
        assert!(!two.improves_on(&one));
        assert!(!two.improves_on(&two), "the same is not better");
        let other = TWO_FAIL
            .replace("test_b (test_m.T.test_b)", "test_c (test_m.T.test_c)")
            .replace(
                "FAIL: test_a (test_m.T.test_a)",
                "FAIL: test_c (test_m.T.test_c)",
            );
        let new_test = Tally::of(dir.path(), &[result("python3 -m unittest", false, &other)]);
        assert!(
            !new_test.improves_on(&two),
            "a test failing that did not before is not progress: {new_test:?}"
        );
        let unknown = Tally::of(dir.path(), &[result("./check.sh", false, "nope\n")]);
        assert_eq!(unknown.failures.len(), 1);
        let passed = Tally::of(dir.path(), &[result("./check.sh", true, "")]);
        assert!(passed.passed());
    }

    #[test]
    fn a_build_that_newly_fails_is_not_progress() {
        let dir = tempfile::tempdir().unwrap();
        let three = Tally::of(
            dir.path(),
            &[result("python3 -m unittest", false, TWO_FAIL)],
        );
        let broken = Tally {
            failing_checks: 1,
            failures: ["RustCompileError:function is private".to_string()].into(),
            compile_errors: 1,
            ..Tally::default()
        };
        assert!(broken.failures.len() < three.failures.len());
        assert!(!broken.improves_on(&three), "{broken:?}");
        let worse = Tally {
            failures: [
                "RustCompileError:function is private".to_string(),
                "RustCompileError:not found in this scope".to_string(),
            ]
            .into(),
            compile_errors: 2,
            ..broken.clone()
        };
        assert!(
            broken.improves_on(&worse),
            "fewer compiler errors than a build that failed already"
        );
    }

    #[test]
    fn a_target_written_as_a_new_definition_is_added() {
        assert_eq!(new_definition("def median(values):"), Some("median"));
        assert_eq!(new_definition("pub fn parse(text: &str)"), Some("parse"));
        assert_eq!(new_definition("class Cart:"), Some("Cart"));
        assert_eq!(new_definition("median"), None);
        assert_eq!(new_definition("lines 3-9"), None);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("stats.py"),
            "def mean(v):\n    return sum(v) / len(v)\n",
        )
        .unwrap();
        let (span, note) =
            resolve_forgiving(dir.path(), "stats.py", "def median(values):", None).unwrap();
        assert!(span.is_insertion(), "{span:?}");
        assert_eq!(note, None);
        let added = splice(
            "def mean(v):\n    return sum(v) / len(v)\n",
            &span,
            "def median(values):\n    return sorted(values)[len(values) // 2]\n",
        )
        .unwrap();
        assert_eq!(
            added,
            "def mean(v):\n    return sum(v) / len(v)\n\ndef median(values):\n    return sorted(values)[len(values) // 2]\n"
        );
        let (existing, _) =
            resolve_forgiving(dir.path(), "stats.py", "def mean(v):", None).unwrap();
        assert!(
            !existing.is_insertion(),
            "an existing definition is rewritten"
        );
    }

    #[test]
    fn seeds_differ_by_attempt_and_candidate() {
        assert_eq!(
            crate::model_call::candidate_seed(7, 3, 1),
            crate::model_call::candidate_seed(7, 3, 1)
        );
        assert_ne!(
            crate::model_call::candidate_seed(7, 3, 1),
            crate::model_call::candidate_seed(7, 5, 1)
        );
        assert_ne!(
            crate::model_call::candidate_seed(7, 3, 1),
            crate::model_call::candidate_seed(7, 3, 2)
        );
        assert_ne!(
            crate::model_call::candidate_seed(7, 3, 1),
            crate::model_call::candidate_seed(8, 3, 1)
        );
    }

    #[test]
    fn a_module_that_loads_again_is_progress() {
        let tally = |tests: &[&str]| Tally {
            failing_checks: 1,
            failures: tests.iter().map(|t| format!("test:{t}")).collect(),
            tests: tests.iter().map(|t| t.to_string()).collect(),
            ..Tally::default()
        };
        let unloaded = tally(&["unittest.loader._FailedTest.test_docs"]);
        let one_fails = tally(&["test_docs.DocsTest.test_minutes"]);
        assert!(one_fails.improves_on(&unloaded));
        let other_module = tally(&["test_other.T.test_x"]);
        assert!(
            !other_module.improves_on(&unloaded),
            "a new failure elsewhere"
        );
        assert!(!unloaded.improves_on(&one_fails));
        let collection = tally(&["tests/test_cart.py"]);
        let collected = tally(&[
            "tests/test_cart.py::test_add",
            "tests/test_cart.py::test_sum",
        ]);
        assert!(collected.improves_on(&collection));
        assert!(!collection.improves_on(&collection));
    }

    #[test]
    fn a_parser_that_gets_further_is_progress() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.toml"), "a = 1\nb = x\n[c\nd = 2\n").unwrap();
        std::fs::write(
            dir.path().join("show.py"),
            "import tomllib\nwith open('s.toml', 'rb') as f:\n    tomllib.load(f)\n",
        )
        .unwrap();
        let error = |line: u32| {
            format!(
                "Traceback (most recent call last):\n  File \"{}/show.py\", line 3, in <module>\n    tomllib.load(f)\ntomllib.TOMLDecodeError: Invalid value (at line {line}, column 5)\n",
                dir.path().display()
            )
        };
        let tally = |line| {
            Tally::of(
                dir.path(),
                &[result("python3 show.py", false, &error(line))],
            )
        };
        assert_eq!(
            tally(2).stopped_at.get("s.toml"),
            Some(&2),
            "{:?}",
            tally(2)
        );
        assert!(tally(3).improves_on(&tally(2)));
        assert!(!tally(2).improves_on(&tally(3)));
        assert!(!tally(2).improves_on(&tally(2)));
    }

    #[test]
    fn duplicates_differ_only_in_trailing_space() {
        assert_eq!(
            normalized("def f():\n    return 1   \n\n"),
            normalized("def f():\n    return 1")
        );
        assert_ne!(normalized("return 1"), normalized("return 2"));
        assert_eq!(fence_language("src/lib.rs"), "rust");
        assert_eq!(fence_language("Makefile"), "make");
    }
}
