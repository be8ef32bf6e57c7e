//! The mutants of an edit, tried before or between the model's
//! candidates: the renames a goal or a failure asks for, a build file's
//! missing flags, a syntax repair, one-token changes of the span. Each is
//! judged by the checks; the first that makes them pass is kept.

use rebound_graph::NodeError;

use super::check_syntax;
use super::job::{write, EditCall, EditJob};
use super::mutate::{mutants, Mutant};
use super::rename::renames;
use super::tally::Tally;
use crate::checks::{run_checks, CheckRun, CheckWhen};
use crate::localize;

/// The name of the mutants in a step's output.
pub(super) const MUTANTS: &str = "mutants";

/// What the mutants of an edit did.
pub(super) struct MutantsTried {
    /// A line for the step's output (`None`: there was none to try).
    pub(super) verdict: Option<String>,
    /// The checks' run after the mutant that was kept, if one was.
    pub(super) run: Option<CheckRun>,
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
pub(super) async fn try_mutants(
    call: &EditCall<'_>,
    job: &EditJob,
    tools: &rebound_tools::ToolContext,
    syntax_before: &super::Syntax,
    approved_all: &mut bool,
) -> Result<MutantsTried, NodeError> {
    let EditCall { ctx, deps, .. } = *call;
    let EditJob {
        workspace,
        span,
        original,
        baseline,
        label,
        ..
    } = job;
    let limit = mutant_limit(deps.config.edit_mutants, baseline.as_deref());
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
    let found = span_mutants(job, parses, limit.saturating_sub(renamed.len()));
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
        if let Some((run, passed)) = judge(call, tools, workspace, trial, approved_all).await? {
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

/// How many mutants one edit may try: at most `configured`, and no more
/// than [`MUTANT_CHECK_MS`] of checks at the pace of the `baseline` run.
fn mutant_limit(configured: u32, baseline: Option<&[crate::checks::CheckResult]>) -> usize {
    let check_ms: u64 = baseline
        .into_iter()
        .flatten()
        .map(|r| r.duration_ms)
        .sum::<u64>()
        .max(1);
    let affordable = usize::try_from(MUTANT_CHECK_MS / check_ms).unwrap_or(usize::MAX);
    affordable.min(configured as usize)
}

/// The mutants of the span's file, at most `limit` of the operator kind:
/// a build file's missing flags first (the checks' output names them),
/// then the syntax repair of a file that does not parse, or the
/// one-token changes of a span that a failing check points at (not in a
/// test file).
fn span_mutants(job: &EditJob, parses: bool, limit: usize) -> Vec<Mutant> {
    let mut found = job.flag_mutants.clone();
    if !parses {
        found.extend(job.syntax_repair.clone());
    } else if job.implicated && !localize::is_test_file(&job.span.file) {
        found.extend(mutants(
            &job.original,
            &job.span,
            job.hint,
            limit.saturating_sub(job.flag_mutants.len()),
        ));
    }
    found
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
    call: &EditCall<'_>,
    tools: &rebound_tools::ToolContext,
    workspace: &std::path::Path,
    trial: Trial<'_>,
    approved_all: &mut bool,
) -> Result<Option<(CheckRun, bool)>, NodeError> {
    let EditCall {
        ctx,
        deps,
        evidence,
        ..
    } = *call;
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
