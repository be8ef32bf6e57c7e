//! Making a plan, shared by the workflows: the planner's prompt (goal,
//! files, repair context, feedback, steps done) and the cleaning of its
//! answer.

use rebound_graph::{NodeContext, NodeError};
use rebound_llm::{ChatRequest, Message};

use crate::checks::proposal::{self, Considered};
use crate::checks::{CheckResult, Evidence};
use crate::events::{AgentEvent, Emit};
use crate::llm::ask_with_schema;
use crate::plan::{edit_place, PlanAnswer, PlanWithCheck, StepKind};
use crate::plan_schema::{plan_schema, step_choices, StepChoices};
use crate::prompts;
use crate::step_check::Checked;
use crate::{AgentDeps, PlanStep, StepFailure};

/// Most steps a plan may have; a longer one is cut.
pub const MAX_PLAN_STEPS: usize = 8;

/// Lines of `git status --short` a planner prompt shows.
const UNCOMMITTED_LINES: usize = 12;

pub(crate) use crate::plan::plan_text;
use crate::planner_prompt::{files_for_prompt, planner_context, render_planner_message};
pub use crate::planner_prompt::{
    localized_failures, planner_message, PlanContext, MAX_DESCRIPTION_CHARS,
};

/// What the planner answered.
#[derive(Debug)]
pub(crate) struct Planned {
    /// The steps, or why the answer was unusable or empty.
    pub(crate) steps: Result<Vec<PlanStep>, String>,
    /// What became of the check the planner was asked to propose (adopted
    /// or refused: [`crate::checks::proposal::consider`]); `None` when it
    /// was not asked or the plan was unusable.
    pub(crate) considered: Option<Considered>,
    /// Tokens used.
    pub(crate) tokens: u64,
    /// The harness made the plan without the model (a recipe whose steps
    /// are all needed, such as a branch made and then a commit taken off).
    pub(crate) by_harness: bool,
}

impl Planned {
    /// No plan, for `why`, after `tokens` of model calls.
    fn failed(why: String, tokens: u64) -> Planned {
        Planned {
            steps: Err(why),
            considered: None,
            tokens,
            by_harness: false,
        }
    }
}

/// What one planner call gave.
struct Asked {
    /// The steps, or why the answer was unusable.
    steps: Result<Vec<PlanStep>, String>,
    /// The check it proposed, when asked for one.
    check: Option<String>,
    /// Tokens used.
    tokens: u64,
    /// Of those, the prompt's.
    prompt_tokens: u64,
}

/// One planner call (journaled under `planner`): a [`PlanWithCheck`] when
/// `write_check`, else a [`PlanAnswer`], its steps held to `choices`
/// ([`plan_schema`]).
async fn ask_planner(
    ctx: &NodeContext,
    deps: &AgentDeps,
    request: ChatRequest,
    write_check: bool,
    choices: &StepChoices,
) -> Result<Asked, NodeError> {
    let model = deps.model.as_ref();
    if write_check {
        let schema = plan_schema(schemars::schema_for!(PlanWithCheck).to_value(), choices);
        let answer =
            ask_with_schema::<PlanWithCheck>(ctx, "planner", model, request, Some(schema)).await?;
        let check = answer
            .value
            .as_ref()
            .ok()
            .map(|plan| plan.check.trim().to_string())
            .filter(|check| !check.is_empty());
        Ok(Asked {
            steps: answer.value.map(|plan| plan.steps),
            check,
            tokens: answer.tokens,
            prompt_tokens: answer.input_tokens,
        })
    } else {
        let schema = plan_schema(schemars::schema_for!(PlanAnswer).to_value(), choices);
        let answer =
            ask_with_schema::<PlanAnswer>(ctx, "planner", model, request, Some(schema)).await?;
        Ok(Asked {
            steps: answer.value.map(|plan| plan.steps),
            check: None,
            tokens: answer.tokens,
            prompt_tokens: answer.input_tokens,
        })
    }
}

/// Asks the model for a plan (journaled under `planner`), with a proposed
/// check when `context.write_check`, and emits the plan event. A repair
/// plan identical to the plan that failed is refused once, with the
/// reason, and asked again. When the checks fail at a located definition
/// and the plan edits no such file, an edit of it goes first
/// ([`localized_edit`]).
pub(crate) async fn make_plan(
    ctx: &NodeContext,
    deps: &AgentDeps,
    goal: &str,
    context: &PlanContext<'_>,
    evidence: &Evidence,
    approved_all: bool,
) -> Result<Planned, NodeError> {
    let workspace = deps.workspace.workspace();
    let localized = context
        .localized
        .clone()
        .or_else(|| localized_failures(workspace, context.checks));
    let context = &PlanContext {
        localized,
        ..context.clone()
    };
    let protected = crate::checks::clauses::protected_files(goal, workspace);
    let edit = deps
        .config
        .localized_edits
        .then(|| {
            localized_edit(workspace, context.checks, &context.failed_edits)
                .or_else(|| named_file_edit(goal, workspace, context.checks, &context.failed_edits))
        })
        .flatten()
        .filter(|edit| {
            // Never an edit of a file the goal says not to change.
            let file = edit.file.as_deref().unwrap_or_default();
            !protected.iter().any(|p| p == file)
        });
    if let Some(steps) = harness_steps(goal, workspace, context, &protected).await {
        return Ok(harness_plan(ctx, steps, context.failure.is_some()));
    }
    let first = context.failure.is_none() && context.progress.tried.is_empty();
    if let (None, Some(steps)) = (
        &edit,
        crate::artifact_plan::artifact_plan(goal, workspace, first),
    ) {
        // The goal asks for a file computed from its data and nothing
        // else: the plan is the one script step the planner would write.
        return Ok(harness_plan(ctx, steps, false));
    }
    if let (Some(edit), None, false) = (&edit, context.failure, context.write_check) {
        // Not in repair mode, a check fails, and localization found the
        // code: the harness's plan is that edit, and the checks judge it
        // (no model call; the planner repairs when it fails).
        return Ok(harness_plan(ctx, vec![edit.clone()], false));
    }
    let exhausted = crate::plan::exhausted_edits(&context.failed_edits);
    let choices = step_choices(workspace, &protected)
        .without_targets_of(&context.unchanged_edits)
        .without_targets_of(&exhausted);
    let request = planner_request(deps, goal, context).await;
    let mut asked = ask_planner(ctx, deps, request.clone(), context.write_check, &choices).await?;
    let mut tokens = asked.tokens;
    let repeated = asked
        .steps
        .as_deref()
        .ok()
        .and_then(|steps| repeated_plan(steps, context));
    if let Some(tried) = repeated {
        if context.failure.is_some() || context.feedback.is_some() {
            let again = refused_request(&request, &tried);
            asked = ask_planner(ctx, deps, again, context.write_check, &choices).await?;
            tokens += asked.tokens;
        }
    }
    let steps = match asked.steps {
        Ok(steps) => clean(steps),
        Err(error) => {
            return Ok(Planned::failed(
                format!("the planner could not plan: {error}"),
                tokens,
            ))
        }
    };
    if steps.is_empty() {
        return Ok(Planned::failed(
            "the planner answered with an empty plan".to_string(),
            tokens,
        ));
    }
    let mut steps = corrected_steps(steps, goal, workspace, &protected, context.failure);
    // An edit exactly like one that failed in this run, or of a target
    // whose model found nothing to change or whose edits failed
    // [`crate::plan::EXHAUSTED_AFTER`] times, is left out (when the plan
    // has other steps): it would meet the same end.
    let futile = |step: &PlanStep| {
        context.failed_edits.contains(step)
            || (step.kind == StepKind::Edit
                && context
                    .unchanged_edits
                    .iter()
                    .chain(&exhausted)
                    .any(|edit| edit_place(edit) == edit_place(step)))
    };
    if steps.iter().any(|s| !futile(s)) {
        steps.retain(|s| !futile(s));
    }
    if let Some(edit) = edit {
        steps.insert(0, edit);
        steps.dedup();
        steps.truncate(MAX_PLAN_STEPS);
    }
    AgentEvent::Plan {
        steps: steps.clone(),
        repair: context.failure.is_some(),
        prompt_tokens: asked.prompt_tokens,
    }
    .emit(ctx);
    let considered = if context.write_check {
        Some(
            proposal::consider(
                ctx,
                deps,
                goal,
                evidence,
                asked.check.as_deref(),
                approved_all,
            )
            .await?,
        )
    } else {
        None
    };
    Ok(Planned {
        steps: Ok(steps),
        considered,
        tokens,
        by_harness: false,
    })
}

/// The plan tried before that `steps` repeats, if any: the failed plan
/// of a repair, or, while the plans change nothing, any tried one.
fn repeated_plan(steps: &[PlanStep], context: &PlanContext<'_>) -> Option<Vec<PlanStep>> {
    let cleaned = clean(steps.to_vec());
    context
        .failure
        .map(|failure| &failure.plan)
        .into_iter()
        .chain(
            context
                .progress
                .tried
                .iter()
                .filter(|_| context.progress.unchanged()),
        )
        .find(|plan| !plan.is_empty() && same_actions(&cleaned, plan))
        .cloned()
}

/// The planner's call again, after an answer that repeats `tried`: that
/// plan as the model writes plans (its JSON, so the new answer does not
/// copy a display format), and the request for another.
fn refused_request(request: &ChatRequest, tried: &[PlanStep]) -> ChatRequest {
    let failed = serde_json::to_string(&PlanAnswer {
        steps: tried.to_vec(),
    })
    .unwrap_or_else(|_| plan_text(tried));
    request
        .clone()
        .message(Message::assistant(failed))
        .message(Message::user(prompts::SAME_PLAN))
}

/// A plan the harness makes without the model, when the checks or the
/// goal leave one thing to do that it knows how to do: install a check's
/// missing tool, rename a module's file to its import, write a package's
/// lost `__init__.py`, revert the commit the goal names, make the tag or
/// the commit the goal asks for. Each is tried once (`progress.tried`);
/// the checks judge it.
async fn harness_steps(
    goal: &str,
    workspace: &std::path::Path,
    context: &PlanContext<'_>,
    protected: &[String],
) -> Option<Vec<PlanStep>> {
    let (checks, tried) = (context.checks, &context.progress.tried);
    if let Some(steps) = crate::install::install_plan(checks, tried) {
        return Some(steps);
    }
    if let Some(steps) = crate::module_name::rename_plan(checks, workspace, protected, tried) {
        return Some(steps);
    }
    if let Some(steps) = crate::install::dependency_plan(checks, workspace, tried) {
        return Some(steps);
    }
    if let Some(steps) = crate::node_install::node_dependency_plan(checks, workspace, tried) {
        return Some(steps);
    }
    if let Some(steps) = crate::discovery_plan::discovery_plan(checks, workspace, tried) {
        return Some(steps);
    }
    if let Some(steps) = crate::package_init::init_plan(checks, workspace, tried) {
        return Some(steps);
    }
    if let Some(steps) = crate::exec_bit::exec_bit_plan(checks, workspace, tried) {
        return Some(steps);
    }
    if let Some(steps) = crate::shebang_plan::shebang_plan(checks, workspace, tried) {
        return Some(steps);
    }
    if let Some(steps) = crate::example_config::example_copy_plan(checks, workspace, tried) {
        return Some(steps);
    }
    if let Some(steps) = crate::uncommit_plan::uncommit_plan(checks, workspace, tried).await {
        return Some(steps);
    }
    if let Some(steps) = crate::untrack_plan::untrack_plan(goal, checks, workspace, tried).await {
        return Some(steps);
    }
    if let Some(steps) = crate::split_plan::split_plan(goal, checks, workspace, tried).await {
        return Some(steps);
    }
    if let Some(steps) = crate::merge_plan::merge_plan(goal, workspace, tried).await {
        return Some(steps);
    }
    if let Some(steps) = crate::revert_plan::revert_plan(goal, checks, workspace, tried).await {
        return Some(steps);
    }
    if let Some(steps) = crate::move_plan::move_plan(goal, checks, workspace, tried).await {
        return Some(steps);
    }
    if let Some(steps) = crate::restore_plan::restore_plan(goal, checks, workspace, tried) {
        return Some(steps);
    }
    if let Some(steps) = crate::cherry_pick_plan::cherry_pick_plan(goal, checks, workspace, tried) {
        return Some(steps);
    }
    if let Some(steps) = crate::tag_plan::tag_plan(goal, checks, workspace, tried).await {
        return Some(steps);
    }
    crate::commit_plan::commit_plan(goal, checks, workspace, tried).await
}

/// The planner's call: its system text, the goal, the project's files
/// (and what is not committed yet), and what it is told beyond the goal.
async fn planner_request(deps: &AgentDeps, goal: &str, context: &PlanContext<'_>) -> ChatRequest {
    let workspace = deps.workspace.workspace();
    let uncommitted = crate::git::uncommitted(workspace, UNCOMMITTED_LINES).await;
    let history = crate::git_history::history_for_prompt(goal, workspace).await;
    let extra = planner_context(context);
    let mut files = files_for_prompt(workspace, goal, &format!("{extra}{history}"));
    if !uncommitted.is_empty() {
        files.push_str(&format!(
            "\n\nNot committed yet (`git status --short`):\n{uncommitted}"
        ));
    }
    if !history.is_empty() {
        files.push_str(&format!("\n\n{history}"));
    }
    ChatRequest::new()
        .system(prompts::PLANNER)
        .max_tokens(deps.config.max_answer_tokens)
        .message(Message::user(render_planner_message(goal, &files, &extra)))
}

/// The planner's steps as the harness runs them: repaired where a small
/// model writes them wrong, without copied examples, computed files and
/// data fixes as scripts or edits, and without a repeat of the failed
/// step.
fn corrected_steps(
    steps: Vec<PlanStep>,
    goal: &str,
    workspace: &std::path::Path,
    protected: &[String],
    failure: Option<&StepFailure>,
) -> Vec<PlanStep> {
    let steps = repaired_steps(steps, workspace, protected);
    let steps = without_copied_examples(steps);
    let steps = without_example_file(steps, goal, workspace);
    let steps = computed_files_as_scripts(steps, goal, workspace);
    let steps = scripts_as_edits(merged_scripts(steps), goal, workspace, protected);
    skip_repeated_failure(steps, failure)
}

/// `steps` without those whose command copies the check request's example
/// ([`proposal::PROMPT_EXAMPLES`]), unless no other step is left: such a
/// step looks for text nothing asks for, like the check it was copied
/// with (found on dev: the former example, `grep -qx 'expected line'
/// out.txt`, planned as a step in four runs whose goals had no check, and
/// run in each repair).
fn without_copied_examples(steps: Vec<PlanStep>) -> Vec<PlanStep> {
    without_unless_alone(steps, |step| {
        step.command
            .as_deref()
            .is_some_and(|c| proposal::PROMPT_EXAMPLES.iter().any(|e| c.contains(e)))
    })
}

/// `steps` without those `copies` says copied the check request's
/// example, unless no other step would be left.
fn without_unless_alone(
    mut steps: Vec<PlanStep>,
    copies: impl Fn(&PlanStep) -> bool,
) -> Vec<PlanStep> {
    if steps.iter().any(|step| !copies(step)) {
        steps.retain(|step| !copies(step));
    }
    steps
}

/// `steps` without the `create` and `edit` steps that write the check
/// request's example file ([`proposal::EXAMPLE_FILE`]) when the goal does
/// not name it and the workspace does not have it, unless no other step
/// is left: nothing asked for that file (found on dev: "write the count
/// and total to out.txt" planned beside the real fix, three plans in a
/// row, in a run whose goal was to fix a script).
fn without_example_file(
    steps: Vec<PlanStep>,
    goal: &str,
    workspace: &std::path::Path,
) -> Vec<PlanStep> {
    let example = proposal::EXAMPLE_FILE;
    if goal.contains(example) || workspace.join(example).exists() {
        return steps;
    }
    without_unless_alone(steps, |step| {
        matches!(step.kind, StepKind::Create | StepKind::Edit)
            && step
                .file
                .as_deref()
                .is_some_and(|f| f.trim().trim_start_matches("./") == example)
    })
}

/// `steps` with a `create` of the file the goal asks to be written made a
/// `script` step, when the goal names files or directories of the
/// workspace it is computed from: a small planner writes "create
/// TODO.md: one line per TODO comment under src/" although the prompt
/// says a file computed from data is a script; by hand, the model sees
/// none of the data (found on dev, twice).
fn computed_files_as_scripts(
    steps: Vec<PlanStep>,
    goal: &str,
    workspace: &std::path::Path,
) -> Vec<PlanStep> {
    let Some(output) = crate::checks::clauses::output_file(goal) else {
        return steps;
    };
    if !crate::artifact_plan::names_workspace_data(goal, workspace, &output) {
        return steps;
    }
    steps
        .into_iter()
        .map(|step| {
            let file = step
                .file
                .as_deref()
                .map(|f| f.trim().trim_start_matches("./"));
            if step.kind == StepKind::Create && file == Some(output.as_str()) {
                PlanStep {
                    kind: StepKind::Script,
                    description: format!("{} (write {output})", step.description),
                    command: None,
                    file: None,
                    target: None,
                }
            } else {
                step
            }
        })
        .collect()
}

/// `steps` with each run of consecutive `script` steps made one, its
/// description theirs joined with "then": each program runs on its own
/// and passes nothing to the next, so a small planner's "read the
/// tickets", "remove duplicates", "sort them", each a script, is one
/// program written three times, each reading and writing everything
/// again (found on dev: four script steps, a model call each, in runs
/// that ended at their time limit).
fn merged_scripts(steps: Vec<PlanStep>) -> Vec<PlanStep> {
    let mut merged: Vec<PlanStep> = Vec::with_capacity(steps.len());
    for step in steps {
        if step.kind == StepKind::Script {
            if let Some(last) = merged.last_mut().filter(|l| l.kind == StepKind::Script) {
                let joined = format!(
                    "{}; then {}",
                    last.description.trim_end().trim_end_matches('.'),
                    step.description.trim()
                );
                last.description = crate::llm::shorten(&joined, MAX_DESCRIPTION_CHARS);
                continue;
            }
        }
        merged.push(step);
    }
    merged
}

/// Words of a goal that asks for a program to be fixed.
static FIX_WORDS: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)\b(?:fix|fixes|repair|correct|bug|buggy|broken|wrong)\b").ok()
});

/// `steps` with each `script` step made an edit of the source file the
/// goal names, when the goal names exactly one (an existing file of a
/// language the harness parses, not a test, not protected) and asks for
/// no file to be written: the goal is to fix that program, and a script
/// step would compute an answer beside it instead (found on dev: "Fix
/// total.sh (not the data file)" planned as programs that summed the
/// data into an `out.txt` nobody asked for, three plans in a row).
fn scripts_as_edits(
    steps: Vec<PlanStep>,
    goal: &str,
    workspace: &std::path::Path,
    protected: &[String],
) -> Vec<PlanStep> {
    if crate::checks::clauses::output_file(goal).is_some()
        || !steps.iter().any(|s| s.kind == StepKind::Script)
        || !FIX_WORDS.as_ref().is_some_and(|words| words.is_match(goal))
    {
        return steps;
    }
    let mut named: Vec<&str> = crate::checks::clauses::path_words(goal)
        .filter(|word| {
            crate::localize::Language::from_path(word)
                .is_some_and(|language| language != crate::localize::Language::Json)
                && workspace.join(word).is_file()
                && !crate::localize::is_test_file(word)
                && !protected.iter().any(|p| p == word)
        })
        .collect();
    named.sort_unstable();
    named.dedup();
    let [file] = named.as_slice() else {
        return steps;
    };
    let mut edits: Vec<PlanStep> = steps
        .into_iter()
        .map(|step| {
            if step.kind == StepKind::Script {
                PlanStep::edit(step.description, *file, "")
            } else {
                step
            }
        })
        .collect();
    edits.dedup();
    edits
}

/// A plan the harness made without the model: emitted like the
/// planner's, with no prompt.
fn harness_plan(ctx: &NodeContext, steps: Vec<PlanStep>, repair: bool) -> Planned {
    AgentEvent::Plan {
        steps: steps.clone(),
        repair,
        prompt_tokens: 0,
    }
    .emit(ctx);
    Planned {
        steps: Ok(steps),
        considered: None,
        tokens: 0,
        by_harness: true,
    }
}

/// `steps` read by [`crate::step_check`], each as planned or repaired
/// (a refused step is kept as planned: it fails when it runs, with the
/// reason, and the planner repairs it); a step that would do nothing is
/// left out, unless no other step is left (then it fails with the reason
/// when it runs).
fn repaired_steps(
    steps: Vec<PlanStep>,
    workspace: &std::path::Path,
    protected: &[String],
) -> Vec<PlanStep> {
    let read: Vec<(PlanStep, Checked)> = steps
        .into_iter()
        .map(|step| {
            let checked = crate::step_check::check_step(&step, workspace, protected);
            (step, checked)
        })
        .collect();
    let kept = read
        .iter()
        .filter(|(_, checked)| !matches!(checked, Checked::Dropped(_)))
        .count();
    read.into_iter()
        .filter_map(|(step, checked)| match checked {
            Checked::Repaired(repaired, why) => {
                tracing::info!(%why, "a planned step was repaired");
                Some(repaired)
            }
            Checked::Dropped(why) if kept > 0 => {
                tracing::info!(%why, "a planned step was left out");
                None
            }
            Checked::Fine(_) | Checked::Refused(_) | Checked::Dropped(_) => Some(step),
        })
        .collect()
}

/// Whether two plans do the same things (descriptions aside): the same
/// kinds, commands, files and targets, in the same order.
fn same_actions(a: &[PlanStep], b: &[PlanStep]) -> bool {
    let action = |s: &PlanStep| (s.kind, s.command.clone(), s.file.clone(), s.target.clone());
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| action(x) == action(y))
}

/// The target of a harness-made edit of a whole file.
const WHOLE_FILE: &str = "whole file";

/// Lines on each side of a data file's reported error line in a
/// harness-made window edit.
const DATA_WINDOW_RADIUS: u32 = 2;

/// The longest failure message quoted in a harness-made edit step.
const EDIT_REASON_CHARS: usize = 160;

/// An edit step the harness makes when a check fails and localization
/// finds the code it points at in a file under test (a traceback's frame,
/// a definition a failed assertion calls, where a compiler or parser
/// reported the error): the edit of that definition, or, in a data file
/// (JSON, TOML, YAML), of the few lines around the reported error line
/// (a small model asked for a whole data file rewrites its values too);
/// once that has failed in this run (`failed_edits`), the edit of the
/// whole file (when it is at most [`crate::edit::MAX_EDIT_LINES`] lines),
/// whose other definitions may hold the cause or the way to fix it; once
/// both have failed, none. Outside repair mode it is the whole plan; in repair mode
/// it goes first in the planner's.
pub fn localized_edit(
    workspace: &std::path::Path,
    checks: &[CheckResult],
    failed_edits: &[PlanStep],
) -> Option<PlanStep> {
    // A check's own script is never the harness's to edit: a check that
    // passes because its script changed proves nothing.
    let scripts = check_scripts(checks);
    // The first failing check whose output leads somewhere (found on
    // dev: `pip install -e .` failed first with output that names no
    // place, and the `tomllib` check after it, which does, was never read).
    let (result, failures, suspect) = checks.iter().filter(|r| !r.passed).find_map(|result| {
        let failures = crate::localize::parse(&result.command, &result.output, workspace);
        let suspect = crate::localize::locate(workspace, &failures)
            .into_iter()
            .find(|s| {
                s.reason != crate::localize::SuspectReason::Test
                    && !scripts.contains(&s.file.as_str())
            })?;
        Some((result, failures, suspect))
    })?;
    let suspect = &suspect;
    let definition = match &suspect.span {
        Some(span)
            if !span.name.is_empty()
                && !matches!(
                    span.kind,
                    crate::localize::DefinitionKind::Document
                        | crate::localize::DefinitionKind::Member
                ) =>
        {
            Some(span.name.clone())
        }
        _ => None,
    };
    let message = failures
        .get(suspect.failure)
        .map(|f| crate::llm::shorten(f.message.trim(), EDIT_REASON_CHARS))
        .unwrap_or_default();
    let lines = std::fs::read_to_string(workspace.join(&suspect.file))
        .map_or(0, |text| text.lines().count());
    let window = data_window(&suspect.file, suspect.line, lines);
    let whole = (lines <= crate::edit::MAX_EDIT_LINES as usize).then(|| WHOLE_FILE.to_string());
    let tried = |target: &str| {
        failed_edits.iter().any(|step| {
            step.kind == StepKind::Edit && edit_place(step) == (Some(suspect.file.as_str()), target)
        })
    };
    let target = definition
        .into_iter()
        .chain(window)
        .chain(whole)
        .find(|t| !tried(t))?;
    let what = if target == WHOLE_FILE {
        suspect.file.clone()
    } else if target.starts_with("lines ") {
        format!("{target} of {}", suspect.file)
    } else {
        format!("`{target}` in {}", suspect.file)
    };
    Some(PlanStep::edit(
        format!(
            "Fix {what} so that `{}` passes: {message}",
            crate::checks::shown_command(&result.command)
        ),
        suspect.file.clone(),
        target,
    ))
}

/// The scripts the checks run (`bash check.sh`, `./run_tests`), without
/// a leading `./`.
fn check_scripts(checks: &[CheckResult]) -> Vec<&str> {
    checks
        .iter()
        .filter_map(|check| crate::checks::guard::script(&check.command))
        .map(|script| script.trim_start_matches("./"))
        .collect()
}

/// An edit of the one program source the goal names ("Fix hours.sh so
/// it ...", "Fix attendance.c"), whole, when a check fails and its output
/// leads nowhere (a program's output compared with what the goal says it
/// prints: no traceback, no test report). Found on dev: with the output
/// check failing and no location, the planner spent its plans building
/// and running the program and comparing its output, and never edited
/// the file the goal said to fix. `None` when the goal names no source
/// file or several, the file is longer than an edit's span, or this edit
/// failed before.
fn named_file_edit(
    goal: &str,
    workspace: &std::path::Path,
    checks: &[CheckResult],
    failed_edits: &[PlanStep],
) -> Option<PlanStep> {
    let failing = checks.iter().find(|r| !r.passed)?;
    let mut named: Vec<&str> = crate::checks::clauses::path_words(goal)
        .filter(|word| crate::checks::clauses::is_file_name(word))
        .filter(|word| workspace.join(word).is_file())
        .collect();
    named.sort_unstable();
    named.dedup();
    let [file] = named.as_slice() else {
        return None;
    };
    // A check's own script is not the program.
    if check_scripts(checks).contains(file) {
        return None;
    }
    let lines = std::fs::read_to_string(workspace.join(file))
        .ok()?
        .lines()
        .count();
    if lines > crate::edit::MAX_EDIT_LINES as usize {
        return None;
    }
    let tried = failed_edits
        .iter()
        .any(|step| step.kind == StepKind::Edit && edit_place(step) == (Some(*file), WHOLE_FILE));
    (!tried).then(|| {
        PlanStep::edit(
            format!(
                "Fix {file} as the goal asks, so that `{}` passes",
                crate::checks::shown_command(&failing.command)
            ),
            file.to_string(),
            WHOLE_FILE.to_string(),
        )
    })
}

/// The target `lines A-B` around `line` of the data file `file` (of
/// `lines` lines), [`DATA_WINDOW_RADIUS`] lines on each side, when `file`
/// is a data file longer than that window and `line` is in it.
fn data_window(file: &str, line: u32, lines: usize) -> Option<String> {
    let lines = u32::try_from(lines).ok()?;
    if !crate::edit::is_data_file(file) || line == 0 || line > lines {
        return None;
    }
    let start = line.saturating_sub(DATA_WINDOW_RADIUS).max(1);
    let end = (line + DATA_WINDOW_RADIUS).min(lines);
    (end - start + 1 < lines).then(|| format!("lines {start}-{end}"))
}

/// Drops empty steps, turns blank commands, files and targets into none,
/// names a step by its command when its description is blank, cuts
/// descriptions to [`MAX_DESCRIPTION_CHARS`], merges a step identical to
/// the one before it and an edit or observation identical to any earlier
/// one, and cuts the plan to [`MAX_PLAN_STEPS`].
fn clean(mut steps: Vec<PlanStep>) -> Vec<PlanStep> {
    for step in &mut steps {
        for field in [&mut step.command, &mut step.file, &mut step.target] {
            if field.as_deref().is_some_and(|c| c.trim().is_empty()) {
                *field = None;
            }
        }
        if step.description.trim().is_empty() {
            step.description = match (&step.command, &step.file) {
                (Some(command), _) => command.clone(),
                (None, Some(file)) if step.kind == StepKind::Edit => format!("Edit {file}"),
                (None, Some(file)) if step.kind == StepKind::Create => format!("Create {file}"),
                _ => String::new(),
            };
        }
        step.description = crate::llm::shorten(&step.description, MAX_DESCRIPTION_CHARS);
    }
    steps.retain(|step| !step.description.trim().is_empty());
    steps.dedup();
    // An edit or an observation planned twice would do the same again
    // (a command run twice may not: `make` before and after an edit).
    let mut seen: Vec<PlanStep> = Vec::new();
    steps.retain(|step| {
        if step.kind == StepKind::Run {
            return true;
        }
        if seen.contains(step) {
            return false;
        }
        seen.push(step.clone());
        true
    });
    steps.truncate(MAX_PLAN_STEPS);
    steps
}

/// A repair plan that starts by running the failed command unchanged would
/// fail at once with the same error (small models like to "check first"):
/// that step is dropped when the plan has others.
fn skip_repeated_failure(mut steps: Vec<PlanStep>, failure: Option<&StepFailure>) -> Vec<PlanStep> {
    let failed = failure
        .and_then(|f| f.step.command.as_deref())
        .map(str::trim);
    if steps.len() > 1 && failed.is_some() && steps[0].command.as_deref().map(str::trim) == failed {
        steps.remove(0);
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_failed as failed;
    use crate::planner_prompt::MAX_SPACE_RUN;

    fn step(command: &str) -> PlanStep {
        PlanStep::command(command, command)
    }

    fn script(description: &str) -> PlanStep {
        PlanStep {
            kind: StepKind::Script,
            description: description.into(),
            command: None,
            file: None,
            target: None,
        }
    }

    #[test]
    fn an_edit_planned_twice_is_done_once_but_a_command_may_run_again() {
        let mean = PlanStep::edit("edit", "stats.c", "mean");
        let max = PlanStep::edit("edit", "stats.c", "max_value");
        let steps = clean(vec![
            step("make"),
            mean.clone(),
            max.clone(),
            mean.clone(),
            step("make"),
            max.clone(),
        ]);
        assert_eq!(steps, [step("make"), mean, max, step("make")]);
    }

    #[test]
    fn a_create_of_the_file_computed_from_data_is_a_script_step() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir(ws.join("src")).unwrap();
        std::fs::write(ws.join("src/app.py"), "# TODO: x\n").unwrap();
        let goal =
            "List every TODO comment under src/ in a new file TODO.md, one line per comment.";
        let create = PlanStep {
            kind: StepKind::Create,
            description: "Create TODO.md with the comments".into(),
            command: None,
            file: Some("TODO.md".into()),
            target: None,
        };
        let other = PlanStep {
            file: Some("notes.md".into()),
            ..create.clone()
        };
        let steps = computed_files_as_scripts(vec![create.clone(), other.clone()], goal, ws);
        assert_eq!(steps[0].kind, StepKind::Script);
        assert!(steps[0].description.contains("(write TODO.md)"));
        assert_eq!(steps[1], other, "not the goal's output");
        let by_hand = "Create a new file TODO.md that says hello.";
        assert_eq!(
            computed_files_as_scripts(vec![create.clone()], by_hand, ws),
            [create],
            "no data named"
        );
    }

    #[test]
    fn a_script_step_is_an_edit_of_the_one_program_the_goal_asks_to_fix() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("total.sh"), "echo 1\n").unwrap();
        std::fs::write(ws.join("expenses.txt"), "1\n").unwrap();
        let script = script("Count the expenses");
        let goal = "total.sh leaves out the last line of expenses.txt. Fix the script (not the data file).";
        assert_eq!(
            scripts_as_edits(vec![script.clone(), step("bash total.sh")], goal, ws, &[]),
            vec![
                PlanStep::edit("Count the expenses", "total.sh", ""),
                step("bash total.sh")
            ]
        );
        let protected = vec!["total.sh".to_string()];
        assert_eq!(
            scripts_as_edits(vec![script.clone()], goal, ws, &protected),
            vec![script.clone()],
            "a protected file is not edited"
        );
        let artifact =
            "Fix the sums: run total.sh on expenses.txt and write sum.txt with the total.";
        assert_eq!(
            scripts_as_edits(vec![script.clone()], artifact, ws, &[]),
            vec![script.clone()],
            "the goal asks for a file: a script computes it"
        );
        let no_fix = "total.sh counts expenses.txt; print what it says.";
        assert_eq!(
            scripts_as_edits(vec![script.clone()], no_fix, ws, &[]),
            vec![script.clone()]
        );
    }

    #[test]
    fn consecutive_script_steps_are_one_program() {
        let steps = vec![
            script("Read the tickets and extract the addresses."),
            script("Remove duplicates"),
            script("Sort them (write emails.txt)"),
            step("cat emails.txt"),
            script("Count them"),
        ];
        let merged = merged_scripts(steps);
        assert_eq!(
            merged,
            vec![
                script("Read the tickets and extract the addresses; then Remove duplicates; then Sort them (write emails.txt)"),
                step("cat emails.txt"),
                script("Count them"),
            ]
        );
    }

    #[test]
    fn a_step_writing_the_check_examples_file_is_left_out_unless_the_goal_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let create = PlanStep {
            kind: StepKind::Create,
            description: "Write the count and total to FILE.".into(),
            command: None,
            file: Some("FILE".into()),
            target: None,
        };
        let fix = PlanStep::edit("Count the last line too", "total.sh", "");
        let goal = "total.sh leaves out the last line. Fix the script.";
        assert_eq!(
            without_example_file(vec![fix.clone(), create.clone()], goal, ws),
            vec![fix.clone()]
        );
        assert_eq!(
            without_example_file(vec![create.clone()], goal, ws),
            vec![create.clone()],
            "alone, it stays"
        );
        let named = "Write the totals to FILE.";
        assert_eq!(
            without_example_file(vec![fix.clone(), create.clone()], named, ws),
            [fix.clone(), create.clone()]
        );
        std::fs::write(ws.join("FILE"), "x\n").unwrap();
        assert_eq!(
            without_example_file(vec![fix.clone(), create.clone()], goal, ws),
            [fix, create],
            "the workspace has it"
        );
    }

    #[test]
    fn a_step_copying_the_check_example_is_left_out_unless_alone() {
        let copied = step("grep -qxF 'LINE' FILE");
        let build = step("bash build.sh");
        assert_eq!(
            without_copied_examples(vec![copied.clone(), build.clone()]),
            [build]
        );
        assert_eq!(without_copied_examples(vec![copied.clone()]), [copied]);
    }

    #[test]
    fn a_repair_prompt_stays_small_whatever_the_outputs() {
        let huge = "x".repeat(100_000);
        let failure = StepFailure {
            step: step(&format!("python3 -c '{}'", "x".repeat(5_000))),
            error: format!("{}^^^\n{huge}", " ".repeat(400)),
            plan: Vec::new(),
        };
        let results: Vec<CheckResult> = (0..3)
            .map(|i| CheckResult {
                command: format!("check{i}"),
                passed: false,
                exit_code: Some(1),
                output: huge.clone(),
                duration_ms: 1,
            })
            .collect();
        let context = PlanContext {
            failure: Some(&failure),
            checks: &results,
            done: (0..20).map(|i| format!("Listed the files {i}")).collect(),
            write_check: true,
            ..PlanContext::default()
        };
        let message = planner_message("Write report.txt", "logs/\nlogs/a.log\n", &context);
        assert!(
            !message.contains(&" ".repeat(MAX_SPACE_RUN + 1)),
            "{message}"
        );
        assert!(message.contains("- (15 earlier steps)\n- Listed the files 15\n"));
        assert!(
            message.len() < 3_000,
            "{} characters: {message}",
            message.len()
        );
    }

    #[test]
    fn a_repair_prompt_quotes_a_checks_failure_once() {
        let output = "  File \"<string>\", line 1\n    import os; for x in y: pass\nSyntaxError: invalid syntax\n";
        let results = [failed("python3 -c 'import os; for x in y: pass'", output)];
        let failure = |error: &str| StepFailure {
            step: step("python3 report.py"),
            error: error.to_string(),
            plan: Vec::new(),
        };
        let quoted = failure(&format!("no candidate improved report.txt\n{output}"));
        let context = PlanContext {
            failure: Some(&quoted),
            checks: &results,
            ..PlanContext::default()
        };
        let message = planner_message("Write report.txt", "report.py", &context);
        assert_eq!(message.matches("SyntaxError").count(), 1, "{message}");
        let other = failure("exit code 2: No such file or directory");
        let context = PlanContext {
            failure: Some(&other),
            checks: &results,
            ..PlanContext::default()
        };
        let message = planner_message("Write report.txt", "report.py", &context);
        assert!(message.contains("SyntaxError"), "{message}");
    }

    #[test]
    fn the_files_are_shown_whole_only_when_the_prompt_has_room() {
        let dir = tempfile::tempdir().unwrap();
        let log: String = (0..20)
            .map(|i| format!("2024-05-01 10:{i:02}:00 INFO GET /items 200\n"))
            .collect();
        std::fs::write(dir.path().join("api.log"), &log).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "rotate weekly\n").unwrap();
        let roomy = files_for_prompt(dir.path(), "Count the lines", "");
        assert!(roomy.contains("rotate weekly"), "{roomy}");
        let big_context = "a failing check said: ".repeat(150);
        let tight = files_for_prompt(dir.path(), "Count the lines", &big_context);
        assert_eq!(tight, "api.log\nnotes.txt");
    }

    #[test]
    fn the_one_source_the_goal_names_is_edited_when_a_check_leads_nowhere() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("hours.sh"), "echo $((08 + 1))\n").unwrap();
        std::fs::write(dir.path().join("util.sh"), "true\n").unwrap();
        std::fs::write(dir.path().join("sheet.txt"), "ines 08:00\n").unwrap();
        let check = failed(
            "diff <(bash hours.sh) <(printf 'ines 9')",
            "1c1\n< 1\n---\n> ines 9\n",
        );
        let goal = "`bash hours.sh` prints the wrong hours for sheet.txt. Fix hours.sh; don't change sheet.txt.";
        let edit = named_file_edit(goal, dir.path(), std::slice::from_ref(&check), &[]).unwrap();
        assert_eq!(edit.file.as_deref(), Some("hours.sh"));
        assert_eq!(edit.target.as_deref(), Some(WHOLE_FILE));
        assert!(
            edit.description.contains("so that `diff"),
            "{}",
            edit.description
        );
        // Tried already, two sources named, none named, nothing failing,
        // or the file is the check's own script: none.
        assert_eq!(
            named_file_edit(goal, dir.path(), std::slice::from_ref(&check), &[edit]),
            None
        );
        let two = "Fix hours.sh and util.sh.";
        assert_eq!(
            named_file_edit(two, dir.path(), std::slice::from_ref(&check), &[]),
            None
        );
        assert_eq!(
            named_file_edit("Fix it.", dir.path(), std::slice::from_ref(&check), &[]),
            None
        );
        let passing = CheckResult {
            passed: true,
            ..check.clone()
        };
        assert_eq!(named_file_edit(goal, dir.path(), &[passing], &[]), None);
        let own = failed("bash hours.sh", "");
        assert_eq!(named_file_edit(goal, dir.path(), &[own], &[]), None);
    }

    #[test]
    fn the_harness_never_edits_a_checks_own_script() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("show.py"),
            "def main():\n    return 1 / 0\n\n\nmain()\n",
        )
        .unwrap();
        let output = format!(
            "Traceback (most recent call last):\n  File \"{0}/show.py\", line 5, in <module>\n    main()\n  File \"{0}/show.py\", line 2, in main\n    return 1 / 0\nZeroDivisionError: division by zero\n",
            dir.path().display()
        );
        let result = |command: &str| failed(command, &output);
        assert_eq!(
            localized_edit(dir.path(), &[result("python3 show.py")], &[]),
            None,
            "the check runs show.py"
        );
        let edit = localized_edit(dir.path(), &[result("python3 -m unittest")], &[]).unwrap();
        assert_eq!(edit.file.as_deref(), Some("show.py"));
        assert_eq!(edit.target.as_deref(), Some("main"));
    }

    #[test]
    fn a_data_file_is_edited_around_its_error_line_then_whole() {
        let dir = tempfile::tempdir().unwrap();
        let toml =
            "# a\nname = relay\nversion = \"1\"\n\n[server\nhost = \"h\"\nport = 1\nworkers = 4\n";
        std::fs::write(dir.path().join("settings.toml"), toml).unwrap();
        std::fs::write(
            dir.path().join("show.py"),
            "import tomllib\nwith open(\"settings.toml\", \"rb\") as f:\n    tomllib.load(f)\n",
        )
        .unwrap();
        let output = format!(
            "Traceback (most recent call last):\n  File \"{}/show.py\", line 3, in <module>\n    tomllib.load(f)\ntomllib.TOMLDecodeError: Invalid value (at line 2, column 8)\n",
            dir.path().display()
        );
        let failed = failed("python3 show.py", &output);
        let first = localized_edit(dir.path(), std::slice::from_ref(&failed), &[]).unwrap();
        assert_eq!(first.file.as_deref(), Some("settings.toml"));
        assert_eq!(first.target.as_deref(), Some("lines 1-4"));
        assert!(
            first
                .description
                .starts_with("Fix lines 1-4 of settings.toml"),
            "{}",
            first.description
        );
        let second = localized_edit(dir.path(), &[failed], &[first]).unwrap();
        assert_eq!(second.target.as_deref(), Some(WHOLE_FILE));
        assert_eq!(data_window("a.json", 9, 10), Some("lines 7-10".to_string()));
        assert_eq!(
            data_window("a.toml", 2, 4),
            None,
            "the window would be the whole file"
        );
        assert_eq!(data_window("a.py", 5, 40), None, "code has definitions");
        assert_eq!(data_window("a.yml", 41, 40), None, "past the end");
    }

    #[test]
    fn a_repair_plan_does_not_start_with_the_failed_command() {
        let failure = StepFailure {
            step: step("python3 -m unittest"),
            error: "exit code 1".into(),
            plan: Vec::new(),
        };
        let plan = vec![
            step("python3 -m unittest"),
            step("sed -i s/b - a/a - b/ calc.py"),
            step("python3 -m unittest"),
        ];
        let kept = skip_repeated_failure(plan.clone(), Some(&failure));
        assert_eq!(kept, plan[1..]);
        assert_eq!(
            skip_repeated_failure(plan.clone(), None),
            plan,
            "not in repair mode"
        );
        let long = clean(vec![PlanStep::task("d".repeat(1_000_000))]);
        assert!(long[0].description.chars().count() < MAX_DESCRIPTION_CHARS + 60);
        assert!(long[0].description.contains("characters cut"));
        let only = vec![step("python3 -m unittest")];
        assert_eq!(
            skip_repeated_failure(only.clone(), Some(&failure)),
            only,
            "never empties a plan"
        );
    }
}
