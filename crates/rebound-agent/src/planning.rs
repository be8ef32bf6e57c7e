//! Making a plan, shared by the workflows: the planner's prompt (goal,
//! files, repair context, feedback, steps done) and the cleaning of its
//! answer.

use rebound_graph::{NodeContext, NodeError};
use rebound_llm::{ChatRequest, Message};

use crate::checks::proposal::{self, Considered};
use crate::checks::{failures_text, verify::VERIFY_STEP, CheckResult, Evidence};
use crate::events::AgentEvent;
use crate::llm::ask;
use crate::plan::{PlanAnswer, PlanWithCheck};
use crate::prompts::{self, render};
use crate::workspace::listing;
use crate::{AgentDeps, PlanStep, StepFailure};

/// Most steps a plan may have; a longer one is cut.
pub const MAX_PLAN_STEPS: usize = 8;

/// Longest step description kept, in characters: a longer one is cut (with
/// a marker) before it is shown or sent to the next model call; the
/// model's whole answer stays in the run's journal.
pub const MAX_DESCRIPTION_CHARS: usize = 500;

/// What the planner is told beyond the goal.
#[derive(Debug, Default)]
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
}

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
}

/// The planner's user message.
pub fn planner_message(goal: &str, files: &str, context: &PlanContext<'_>) -> String {
    let mut extra = String::new();
    if let Some(failure) = context.failure {
        let step = match &failure.step.command {
            Some(command) => format!("{}\nFailed command: {command}", failure.step.description),
            None => failure.step.description.clone(),
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
        extra.push_str(&render(
            prompts::REPAIR,
            &[("step", &step), ("error", &error)],
        ));
    } else if let Some(feedback) = context.feedback {
        extra.push_str(&render(prompts::FEEDBACK, &[("feedback", feedback)]));
    }
    let repairs_checks = context
        .failure
        .is_some_and(|failure| failure.step.description == VERIFY_STEP);
    if !repairs_checks {
        extra.push_str(&checks_text(context.checks, context.localized.as_deref()));
    }
    if !context.done.is_empty() {
        let done: Vec<String> = context.done.iter().map(|d| format!("- {d}")).collect();
        extra.push_str(&render(prompts::DONE, &[("done", &done.join("\n"))]));
    }
    if context.write_check {
        extra.push_str(prompts::WRITE_CHECK);
    }
    render(
        prompts::PLANNER_USER,
        &[("goal", goal), ("files", files), ("context", &extra)],
    )
}

/// What the planner is told of the checks: the failing ones, localized
/// when that found something (else with their output), or that they all
/// pass; nothing when there are none.
fn checks_text(results: &[CheckResult], localized: Option<&str>) -> String {
    if results.is_empty() {
        return String::new();
    }
    if results.iter().any(|r| !r.passed) {
        let text = match localized {
            Some(localized) => localized.to_string(),
            None => failures_text(results),
        };
        return render(prompts::CHECKS, &[("checks", &text)]);
    }
    let commands: Vec<String> = results.iter().map(|r| format!("`{}`", r.command)).collect();
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
            result.output.trim_end().to_string()
        } else {
            text.trim_end().to_string()
        };
        parts.push(format!("{}:\n{body}", result.headline()));
    }
    understood.then(|| parts.join("\n\n"))
}

/// Asks the model for a plan (journaled under `planner`), with a proposed
/// check when `context.write_check`, and emits the plan event.
pub(crate) async fn make_plan(
    ctx: &NodeContext,
    deps: &AgentDeps,
    goal: &str,
    context: &PlanContext<'_>,
    evidence: &Evidence,
    approved_all: bool,
) -> Result<Planned, NodeError> {
    let workspace = deps.workspace.workspace();
    let files = listing(workspace, 40);
    let localized = context
        .localized
        .clone()
        .or_else(|| localized_failures(workspace, context.checks));
    let context = &PlanContext {
        failure: context.failure,
        feedback: context.feedback,
        done: context.done.clone(),
        checks: context.checks,
        write_check: context.write_check,
        localized,
    };
    let request = ChatRequest::new()
        .system(prompts::PLANNER)
        .max_tokens(deps.config.max_answer_tokens)
        .message(Message::user(planner_message(goal, &files, context)));
    let (answer, check, tokens) = if context.write_check {
        let answer = ask::<PlanWithCheck>(ctx, "planner", deps.model.as_ref(), request).await?;
        let check = answer
            .value
            .as_ref()
            .ok()
            .map(|plan| plan.check.trim().to_string())
            .filter(|check| !check.is_empty());
        let steps = answer.value.map(|plan| plan.steps);
        (steps, check, answer.tokens)
    } else {
        let answer = ask::<PlanAnswer>(ctx, "planner", deps.model.as_ref(), request).await?;
        (answer.value.map(|plan| plan.steps), None, answer.tokens)
    };
    let steps = match answer {
        Ok(steps) => clean(steps),
        Err(error) => {
            return Ok(Planned {
                steps: Err(format!("the planner could not plan: {error}")),
                considered: None,
                tokens,
            })
        }
    };
    if steps.is_empty() {
        return Ok(Planned {
            steps: Err("the planner answered with an empty plan".to_string()),
            considered: None,
            tokens,
        });
    }
    let steps = skip_repeated_failure(steps, context.failure);
    AgentEvent::Plan {
        steps: steps.clone(),
        repair: context.failure.is_some(),
    }
    .emit(ctx);
    let considered = if context.write_check {
        Some(proposal::consider(ctx, deps, evidence, check.as_deref(), approved_all).await?)
    } else {
        None
    };
    Ok(Planned {
        steps: Ok(steps),
        considered,
        tokens,
    })
}

/// Drops empty steps, turns blank commands into none, names a step by its
/// command when its description is blank, cuts descriptions to
/// [`MAX_DESCRIPTION_CHARS`] and the plan to [`MAX_PLAN_STEPS`].
fn clean(mut steps: Vec<PlanStep>) -> Vec<PlanStep> {
    for step in &mut steps {
        if step.command.as_deref().is_some_and(|c| c.trim().is_empty()) {
            step.command = None;
        }
        if step.description.trim().is_empty() {
            step.description = step.command.clone().unwrap_or_default();
        }
        step.description = crate::llm::shorten(&step.description, MAX_DESCRIPTION_CHARS);
    }
    steps.retain(|step| !step.description.trim().is_empty());
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

/// The plan as numbered lines, with commands.
pub(crate) fn plan_text(steps: &[PlanStep]) -> String {
    steps
        .iter()
        .enumerate()
        .map(|(i, step)| match &step.command {
            Some(command) => format!("{}. {} (`{command}`)", i + 1, step.description),
            None => format!("{}. {}", i + 1, step.description),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(command: &str) -> PlanStep {
        PlanStep {
            description: command.to_string(),
            command: Some(command.to_string()),
        }
    }

    #[test]
    fn a_repair_plan_does_not_start_with_the_failed_command() {
        let failure = StepFailure {
            step: step("python3 -m unittest"),
            error: "exit code 1".into(),
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
        let long = clean(vec![PlanStep {
            description: "d".repeat(1_000_000),
            command: None,
        }]);
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
