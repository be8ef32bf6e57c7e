//! The planner's prompt: what it is told beyond the goal ([`PlanContext`]):
//! the failure it repairs or the reviewer's feedback, the failing checks
//! (localized when they can be), the steps done, the project's files
//! within the prompt's token budget.

use crate::checks::verify::VERIFY_STEP;
use crate::checks::{failures_text, CheckResult};
use crate::plan::plan_text;
use crate::progress::Progress;
use crate::prompts::{self, render};
use crate::workspace::listing;
use crate::{PlanStep, StepFailure};

/// Longest step description kept, in characters: a longer one is cut (with
/// a marker) before it is shown or sent to the next model call; the
/// model's whole answer stays in the run's journal.
pub const MAX_DESCRIPTION_CHARS: usize = 500;

/// What the planner is told beyond the goal.
#[derive(Debug, Default, Clone)]
pub struct PlanContext<'a> {
    /// Repair mode: the failed step and its error.
    pub failure: Option<&'a StepFailure>,
    /// The reviewer's (or reflector's) feedback on the last plan.
    pub feedback: Option<&'a str>,
    /// Descriptions of the steps done so far.
    pub done: Vec<String>,
    /// The checks' last results (the planner sees the failing ones).
    pub checks: &'a [CheckResult],
    /// The run has no check: the planner is asked to propose one with its
    /// plan.
    pub write_check: bool,
    /// The failing checks localized ([`localized_failures`]): shown instead
    /// of their raw output when set.
    pub localized: Option<String>,
    /// Edit steps that failed earlier in the run: the harness does not
    /// try the same edit again ([`localized_edit`]).
    pub failed_edits: Vec<PlanStep>,
    /// Edit steps whose model found nothing to change: the planner is told
    /// so, and its grammar no longer offers their targets
    /// ([`crate::plan_schema::StepChoices::refused_targets`]).
    pub unchanged_edits: Vec<PlanStep>,
    /// The plans made so far in the run and whether they changed anything
    /// ([`crate::progress`]): while nothing changed, a plan identical to a
    /// tried one is refused once; after plans that changed nothing, the
    /// planner is asked for a different approach.
    pub progress: Progress,
}

/// The planner's user message.
pub fn planner_message(goal: &str, files: &str, context: &PlanContext<'_>) -> String {
    render_planner_message(goal, files, &planner_context(context))
}

/// Where `edits` edit, one `- target in file` line each.
fn places(edits: &[PlanStep]) -> String {
    edits
        .iter()
        .map(|step| {
            let file = step.file.as_deref().unwrap_or("?");
            match step.target.as_deref().map(str::trim) {
                Some(target) if !target.is_empty() => format!("- {target} in {file}"),
                _ => format!("- the whole of {file}"),
            }
        })
        .collect::<Vec<String>>()
        .join("\n")
}

/// The planner's user message around `extra`, the [`planner_context`].
pub(crate) fn render_planner_message(goal: &str, files: &str, extra: &str) -> String {
    render(
        prompts::PLANNER_USER,
        &[("goal", goal), ("files", files), ("context", extra)],
    )
}

/// Tokens a planner prompt should stay within, system text included
/// ([`crate::llm::estimate_tokens`]): the project's files are shown whole
/// only when they fit in what the rest of the prompt leaves.
const PLANNER_PROMPT_TOKENS: usize = 1_400;

/// The project's files for a planner prompt whose other parts are `goal`
/// and `extra`: with their contents when they fit in
/// [`PLANNER_PROMPT_TOKENS`], else by name.
pub(crate) fn files_for_prompt(workspace: &std::path::Path, goal: &str, extra: &str) -> String {
    let used = [prompts::PLANNER, prompts::PLANNER_USER, goal, extra]
        .iter()
        .map(|text| crate::llm::estimate_tokens(text))
        .sum::<usize>();
    listing(workspace, 40, PLANNER_PROMPT_TOKENS.saturating_sub(used))
}

/// What the planner is told beyond the goal and the files: the failure it
/// repairs or the reviewer's feedback, the failing checks (unless the
/// failure already shows how they fail), the steps done, the request for a
/// check.
pub(crate) fn planner_context(context: &PlanContext<'_>) -> String {
    let mut extra = String::new();
    if let Some(failure) = context.failure {
        let description = crate::llm::shorten(&failure.step.description, MAX_DESCRIPTION_CHARS);
        let step = match &failure.step.command {
            Some(command) => format!(
                "{description}\nFailed command: {}",
                crate::llm::shorten(command, REPAIR_COMMAND_CHARS)
            ),
            None => description,
        };
        // An overruled finish: its first line says who claimed what, the
        // localized failures replace the checks' raw output.
        let error = match (&context.localized, failure.step.description == VERIFY_STEP) {
            (Some(localized), true) => {
                let claim = failure.error.lines().next().unwrap_or_default();
                format!("{claim}\n{localized}")
            }
            _ => failure.error.clone(),
        };
        let error = crate::llm::shorten(&squeeze_spaces(&error), REPAIR_ERROR_CHARS);
        extra.push_str(&render(
            prompts::REPAIR,
            &[("step", &step), ("error", &error)],
        ));
    } else if let Some(feedback) = context.feedback {
        extra.push_str(&render(prompts::FEEDBACK, &[("feedback", feedback)]));
    }
    // The failure may already be the checks' failure: a finish they
    // overruled, or an edit whose candidates they judged.
    let shown = context.failure.is_some_and(|failure| {
        failure.step.description == VERIFY_STEP
            || shows_every_failure(&failure.error, context.checks)
    });
    if !shown {
        // In repair mode the error above often holds the same output: the
        // checks get less room, so the prompt stays small.
        let room = if context.failure.is_some() {
            REPAIR_CHECKS_CHARS
        } else {
            LOCALIZED_CHARS
        };
        extra.push_str(&checks_text(
            context.checks,
            context.localized.as_deref(),
            room,
        ));
    }
    if !context.done.is_empty() {
        let skipped = context.done.len().saturating_sub(MAX_DONE_SHOWN);
        let mut done: Vec<String> = Vec::new();
        if skipped > 0 {
            done.push(format!("- ({skipped} earlier steps)"));
        }
        done.extend(
            context.done[skipped..]
                .iter()
                .map(|d| format!("- {}", crate::llm::shorten(d, DONE_STEP_CHARS))),
        );
        extra.push_str(&render(prompts::DONE, &[("done", &done.join("\n"))]));
    }
    if !context.unchanged_edits.is_empty() {
        extra.push_str(&render(
            prompts::UNCHANGED_EDITS,
            &[("edits", &places(&context.unchanged_edits))],
        ));
    }
    let exhausted = crate::plan::exhausted_edits(&context.failed_edits);
    if !exhausted.is_empty() {
        extra.push_str(&render(
            prompts::EXHAUSTED_EDITS,
            &[
                ("times", &crate::plan::EXHAUSTED_AFTER.to_string()),
                ("edits", &places(&exhausted)),
            ],
        ));
    }
    if context.progress.wants_new_approach() && !context.progress.tried.is_empty() {
        let tried: Vec<String> = context
            .progress
            .tried
            .iter()
            .rev()
            .take(3)
            .rev()
            .map(|plan| plan_text(plan))
            .collect();
        extra.push_str(&render(
            prompts::NEW_APPROACH,
            &[("plans", &tried.join("\n---\n"))],
        ));
    }
    if context.write_check {
        extra.push_str(prompts::WRITE_CHECK);
    }
    extra
}

/// Characters of a failed step's error in a repair prompt.
const REPAIR_ERROR_CHARS: usize = 700;

/// Characters of a failed step's command in a repair prompt.
const REPAIR_COMMAND_CHARS: usize = 300;

/// The most steps already done a planner prompt lists (the last ones).
const MAX_DONE_SHOWN: usize = 5;

/// Characters of each step done a planner prompt lists.
const DONE_STEP_CHARS: usize = 160;

/// Whether `error` already shows how each failing check of `results`
/// fails: it holds the last line of the check's output.
fn shows_every_failure(error: &str, results: &[CheckResult]) -> bool {
    let mut failing = results.iter().filter(|r| !r.passed).peekable();
    failing.peek().is_some()
        && failing.all(|result| {
            result
                .output
                .lines()
                .rev()
                .map(str::trim)
                .find(|line| !line.is_empty())
                .is_some_and(|last| error.contains(last))
        })
}

/// The longest run of spaces kept in an error a prompt quotes: a caret
/// line under a long source line is hundreds of spaces, each a token or
/// more, that say nothing a model can use.
pub(crate) const MAX_SPACE_RUN: usize = 8;

/// `text` with every run of spaces longer than [`MAX_SPACE_RUN`] cut to
/// that length.
fn squeeze_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = 0;
    for c in text.chars() {
        run = if c == ' ' { run + 1 } else { 0 };
        if run <= MAX_SPACE_RUN {
            out.push(c);
        }
    }
    out
}

/// Characters of the failing checks' report in a repair prompt.
const REPAIR_CHECKS_CHARS: usize = 500;

/// What the planner is told of the checks: the failing ones, localized
/// when that found something (else with their output), in at most `room`
/// characters, or that they all pass; nothing when there are none.
fn checks_text(results: &[CheckResult], localized: Option<&str>, room: usize) -> String {
    if results.is_empty() {
        return String::new();
    }
    if results.iter().any(|r| !r.passed) {
        let text = match localized {
            Some(localized) => localized.to_string(),
            None => failures_text(results),
        };
        let text = crate::llm::shorten(&squeeze_spaces(&text), room);
        return render(prompts::CHECKS, &[("checks", &text)]);
    }
    let commands: Vec<String> = results
        .iter()
        .map(|r| format!("`{}`", crate::checks::shown_command(&r.command)))
        .collect();
    render(prompts::CHECKS_PASS, &[("checks", &commands.join(", "))])
}

/// Characters of localized failures a planner prompt gets at most.
const LOCALIZED_CHARS: usize = 1_500;

/// The failing checks of `results` as the planner should see them: each
/// check's headline, its failures parsed from the output and the code they
/// point at, in numbered windows ([`crate::localize`]). `None` when no
/// check fails, or when no failure could be read from any output (the raw
/// output is then shown as it is).
pub fn localized_failures(workspace: &std::path::Path, results: &[CheckResult]) -> Option<String> {
    let failing: Vec<&CheckResult> = results.iter().filter(|r| !r.passed).collect();
    if failing.is_empty() {
        return None;
    }
    let budget = LOCALIZED_CHARS / failing.len();
    let mut parts = Vec::new();
    let mut understood = false;
    for result in failing {
        let failures = crate::localize::parse(&result.command, &result.output, workspace);
        understood |= failures
            .iter()
            .any(|f| f.kind != crate::localize::FailureKind::Unknown);
        let suspects = crate::localize::locate(workspace, &failures);
        let text = crate::localize::render(&failures, &suspects, budget);
        let body = if text.trim().is_empty() {
            crate::llm::shorten(result.output.trim_end(), budget)
        } else {
            text.trim_end().to_string()
        };
        parts.push(format!(
            "{}:\n{body}",
            crate::checks::shown_headline(result)
        ));
    }
    understood.then(|| parts.join("\n\n"))
}
