//! The candidates of an edit: the greedy answer, then seeded samples,
//! each spliced, syntax-checked and judged by the checks; the mutants run
//! between them while the checks fail. The first candidate that makes
//! every check pass is kept, else the best that improves, else the
//! original is written back.

use std::collections::BTreeSet;

use rebound_graph::NodeError;
use rebound_llm::ChatRequest;
use rebound_tools::ToolContext;

use super::job::{lines, outcome, write, EditCall, EditJob, Tried};
use super::keep::{as_addition, as_definition_rewrites, asks_removal, only_deletes};
use super::mutant_trials::{try_mutants, MUTANTS};
use super::request::edit_request;
use super::tally::Tally;
use super::{broken_by_edit, check_syntax, extract_code, losses, splice, EditError, Syntax};
use crate::checks::{run_checks, CheckRun, CheckWhen};
use crate::llm::shorten;
use crate::model_call::sample_candidate;
use crate::step::StepOutcome;
use crate::tool_call::tool_context;

/// Tries the candidates of `job` (see the module's documentation).
pub(super) async fn try_candidates(
    call: &EditCall<'_>,
    job: &EditJob,
) -> Result<StepOutcome, NodeError> {
    let mut trial = Candidates::new(call, job);
    let candidates = call.deps.config.edit_candidates;
    // Mutants (renames of a missing name, then one-token changes of the
    // span) are tried while the checks fail.
    let mutable =
        call.deps.config.edit_mutants > 0 && trial.before.as_ref().is_some_and(|b| !b.passed());
    // A build that lacks a flag its output names (`-lm`, `-Iinclude`),
    // or a file its parser can be walked through: those mutants go
    // before any model call.
    // So do the one-token changes of a whole file the goal names.
    let mutants_first =
        mutable && (!job.flag_mutants.is_empty() || job.syntax_repair.is_some() || job.named_whole);
    // The greedy answer, then (when it did not do it) the one-token
    // changes of the span, then samples that cost a model call each.
    let attempts = mutants_first
        .then_some(None)
        .into_iter()
        .chain(std::iter::once(Some(0)))
        .chain((mutable && !mutants_first).then_some(None))
        .chain((1..=candidates).map(Some));
    for attempt in attempts {
        let done = match attempt {
            None => trial.mutants().await?,
            Some(number) => trial.candidate(number).await?,
        };
        if let Some(done) = done {
            return Ok(done);
        }
    }
    trial.finish().await
}

/// An edit's candidates in progress.
struct Candidates<'a> {
    call: &'a EditCall<'a>,
    job: &'a EditJob,
    /// The tool context the harness writes files through.
    tools: ToolContext,
    /// Whether every command was approved for the run.
    approved_all: bool,
    /// Whether the span's file parsed before the edit.
    syntax_before: Syntax,
    /// Where the checks stood before the edit (`None`: no check).
    before: Option<Tally>,
    /// The edit's model call, the same for every candidate but its seed.
    request: ChatRequest,
    /// Tokens the candidates cost.
    tokens: u64,
    /// What became of each candidate.
    tried: Vec<Tried>,
    /// The candidates' code seen so far, normalized.
    seen: BTreeSet<String>,
    /// The best candidate that improved, with its text and checks' run.
    best: Option<(Tally, String, CheckRun)>,
    /// The checks' failures after the first candidate that did not help.
    first_failure: Option<String>,
}

impl<'a> Candidates<'a> {
    fn new(call: &'a EditCall<'a>, job: &'a EditJob) -> Self {
        let EditJob {
            label,
            workspace,
            span,
            original,
            baseline,
            ..
        } = job;
        Candidates {
            call,
            job,
            tools: tool_context(call.ctx, &call.deps.workspace, label),
            approved_all: job.approved_all,
            syntax_before: check_syntax(&span.file, original),
            before: baseline
                .as_deref()
                .map(|results| Tally::of(workspace, results)),
            request: edit_request(
                call.deps,
                call.goal,
                call.step,
                span,
                baseline.as_deref(),
                workspace,
            ),
            tokens: 0,
            tried: Vec::new(),
            seen: BTreeSet::new(),
            best: None,
            first_failure: None,
        }
    }

    /// Records what became of candidate `number`.
    fn note(&mut self, number: u32, verdict: String, unchanged: bool) {
        self.tried.push(Tried {
            name: candidate_name(number),
            verdict,
            unchanged,
        });
    }

    /// The step's outcome now.
    fn outcome(&self, success: bool, run: Option<CheckRun>, note: Option<&str>) -> StepOutcome {
        outcome(
            success,
            &self.job.span,
            &self.tried,
            run,
            self.tokens,
            self.approved_all,
            note,
        )
    }

    /// Tries the mutants: the step's outcome when one is kept.
    async fn mutants(&mut self) -> Result<Option<StepOutcome>, NodeError> {
        let found = try_mutants(
            self.call,
            self.job,
            &self.tools,
            &self.syntax_before,
            &mut self.approved_all,
        )
        .await?;
        if let Some(verdict) = found.verdict {
            self.tried.push(Tried {
                name: MUTANTS.to_string(),
                verdict,
                unchanged: false,
            });
        }
        Ok(found.run.map(|run| self.outcome(true, Some(run), None)))
    }

    /// Tries candidate `number`: the step's outcome when it ends the step
    /// (every check passes, no check can judge it, or the model says
    /// there is nothing to change).
    async fn candidate(&mut self, number: u32) -> Result<Option<StepOutcome>, NodeError> {
        let key = format!("{}:candidate", self.job.label);
        let response =
            sample_candidate(self.call.ctx, self.call.deps, &key, &self.request, number).await?;
        self.tokens += response.usage.input_tokens + response.usage.output_tokens;
        let (code, new_text) = match self.spliced(&response.text, number) {
            Spliced::Text { code, text } => (code, text),
            Spliced::Refused => return Ok(None),
            Spliced::NothingToChange => return Ok(Some(self.nothing_to_change())),
        };
        let Some(new_text) = self.kept_whole(&code, new_text, number) else {
            return Ok(None);
        };
        let span = &self.job.span;
        if let Some(reason) =
            broken_by_edit(&self.syntax_before, &check_syntax(&span.file, &new_text))
        {
            self.note(
                number,
                format!("refused, it breaks the syntax: {reason}"),
                false,
            );
            return Ok(None);
        }
        self.judge(number, new_text).await
    }

    /// The candidate's code and the file with it spliced in, or why not
    /// (a refusal is noted).
    fn spliced(&mut self, answer: &str, number: u32) -> Spliced {
        let EditJob {
            span,
            original,
            implicated,
            ..
        } = self.job;
        match extract_code(answer)
            .and_then(|code| splice(original, span, &code).map(|text| (code, text)))
        {
            Ok((code, text)) => {
                if !self.seen.insert(normalized(&code)) {
                    self.note(
                        number,
                        "the same as an earlier candidate".to_string(),
                        false,
                    );
                    return Spliced::Refused;
                }
                Spliced::Text { code, text }
            }
            Err(EditError::NoChange) if !implicated => {
                // No failing check points at this file, and the model
                // gives the code back as it is: there is nothing to
                // change here (the checks still judge the finish).
                self.note(
                    number,
                    "the model rewrote it as it is: nothing to change".to_string(),
                    false,
                );
                Spliced::NothingToChange
            }
            Err(error) => {
                let unchanged = matches!(error, EditError::NoChange);
                self.note(number, format!("refused: {error}"), unchanged);
                Spliced::Refused
            }
        }
    }

    /// The step's outcome when the model says the span needs no change
    /// and no failure points at its file.
    fn nothing_to_change(&self) -> StepOutcome {
        let span = &self.job.span;
        let mut done = self.outcome(true, None, None);
        done.no_change = true;
        done.output = format!(
            "{} of {} needs no change\n{}",
            span.label,
            span.file,
            lines(&self.tried)
        );
        done
    }

    /// `new_text`, or a form of it that keeps what the span's file must
    /// keep (new definitions beside the shown ones, or each fixed
    /// definition in its own place); `None` (noted) when none does.
    fn kept_whole(&mut self, code: &str, new_text: String, number: u32) -> Option<String> {
        let EditJob { span, original, .. } = self.job;
        let repair = matches!(self.syntax_before, Syntax::Invalid(_));
        let lost = |text: &str| {
            losses(
                &span.file,
                original,
                text,
                &self.call.step.description,
                span.is_whole_file(original),
                repair,
            )
        };
        let dropped = lost(&new_text);
        if dropped.is_empty() {
            return Some(new_text);
        }
        // New definitions in place of the shown ones: an addition beside
        // them, when that keeps everything.
        if let Some(text) = as_addition(&span.file, original, &span.text, code)
            .and_then(|added| splice(original, span, &added).ok())
            .filter(|text| lost(text).is_empty())
        {
            return Some(text);
        }
        // Only the definitions it fixed, for a larger span: each replaces
        // its own.
        if let Some(text) =
            as_definition_rewrites(&span.file, original, code).filter(|text| lost(text).is_empty())
        {
            return Some(text);
        }
        self.note(
            number,
            format!(
                "refused, it drops what it should keep: {}",
                dropped.join(", ")
            ),
            false,
        );
        None
    }

    /// Writes candidate `number`'s `new_text` and judges it by the checks:
    /// the step's outcome when every check passes (or none can judge it);
    /// otherwise the original is written back, and a candidate that
    /// improves is remembered as the best so far.
    async fn judge(
        &mut self,
        number: u32,
        new_text: String,
    ) -> Result<Option<StepOutcome>, NodeError> {
        let EditCall {
            ctx,
            deps,
            evidence,
            ..
        } = *self.call;
        let EditJob {
            span,
            original,
            workspace,
            ..
        } = self.job;
        if self.before.is_none()
            && only_deletes(original, &new_text)
            && !asks_removal(&format!(
                "{}\n{}",
                self.call.step.description, self.call.goal
            ))
        {
            self.note(
                number,
                "refused: it only deletes lines, and no check can judge that".to_string(),
                false,
            );
            return Ok(None);
        }
        write(ctx, deps, &self.tools, &span.file, &new_text).await?;
        if self.before.is_none() {
            // No check can judge it: the first usable candidate is kept.
            self.note(number, "applied (no check to judge it)".to_string(), false);
            return Ok(Some(self.outcome(true, None, None)));
        }
        let run = run_checks(
            ctx,
            deps,
            &evidence.checks,
            CheckWhen::Edit,
            self.approved_all,
        )
        .await?;
        self.approved_all |= run.approved_all;
        let after = Tally::of(workspace, &run.results);
        if after.passed() {
            self.note(number, "kept: every check passes".to_string(), false);
            return Ok(Some(self.outcome(true, Some(run), None)));
        }
        let (improves, before_failures) = self.before.as_ref().map_or((false, 0), |before| {
            (after.improves_on(before), before.failures.len())
        });
        let verdict = if improves {
            let better = self
                .best
                .as_ref()
                .is_none_or(|(tally, _, _)| after.failures.len() < tally.failures.len());
            let verdict = format!(
                "better ({} failure(s) after, {} before), the checks still fail",
                after.failures.len(),
                before_failures
            );
            if better {
                self.best = Some((after, new_text, run));
            }
            verdict
        } else {
            self.first_failure
                .get_or_insert_with(|| crate::checks::failures_text(&run.results));
            format!(
                "reverted: {} failure(s) after, {} before",
                after.failures.len(),
                before_failures
            )
        };
        self.note(number, verdict, false);
        write(ctx, deps, &self.tools, &span.file, original).await?;
        Ok(None)
    }

    /// The step's outcome when no candidate made every check pass: the
    /// best that improved (written), else a failure that says what each
    /// did and what the checks said after the first.
    async fn finish(mut self) -> Result<StepOutcome, NodeError> {
        if let Some((_, text, run)) = self.best.take() {
            write(
                self.call.ctx,
                self.call.deps,
                &self.tools,
                &self.job.span.file,
                &text,
            )
            .await?;
            return Ok(self.outcome(
                true,
                Some(run),
                Some("kept the best candidate; the checks still fail"),
            ));
        }
        let unchanged = self
            .tried
            .iter()
            .filter(|t| t.name != MUTANTS)
            .all(|t| t.unchanged);
        let note = unchanged.then_some(
            "The editor changed nothing: an edit step rewrites a file's text; to run a program \
             (git, make, a script), use a run step with its command.",
        );
        let mut result = self.outcome(false, None, note);
        if let Some(text) = &self.first_failure {
            result.output = shorten(
                &format!(
                    "{}\nThe checks after the first candidate:\n{text}",
                    result.output
                ),
                self.call.deps.config.prompt_output_chars,
            );
        }
        Ok(result)
    }
}

/// What came of splicing a candidate in.
enum Spliced {
    /// Its code, and the file with it.
    Text {
        /// The code block of the answer.
        code: String,
        /// The span's file with the code in the span's place.
        text: String,
    },
    /// Refused (noted): not code, a duplicate, or no change where one is
    /// needed.
    Refused,
    /// The code given back as it is, where no failure points: nothing to
    /// change.
    NothingToChange,
}

/// The name of candidate `number` in a step's output (`candidate 1` is
/// the greedy one).
fn candidate_name(number: u32) -> String {
    format!("candidate {}", number + 1)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::request::fence_language;

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
