//! The prompts, as files in `prompts/` included at compile time, and their
//! rendering. They are short on purpose: a 1.5B local model reads every
//! token of them on every call.
//!
//! A template's `{{name}}` placeholders are replaced by [`render`].

/// The planner's system text.
pub const PLANNER: &str = include_str!("../prompts/planner.md");
/// The planner's user message: goal, files, context.
pub const PLANNER_USER: &str = include_str!("../prompts/planner_user.md");
/// Repair mode's addition to the planner's message: the failed step and
/// its error.
pub const REPAIR: &str = include_str!("../prompts/repair.md");
/// The reviewer's feedback, added to the planner's message on a replan.
pub const FEEDBACK: &str = include_str!("../prompts/feedback.md");
/// The steps done so far, added to the planner's message.
pub const DONE: &str = include_str!("../prompts/done.md");
/// The failing checks, added to the planner's message.
pub const CHECKS: &str = include_str!("../prompts/checks.md");
/// The planner's note that every check passes already.
pub const CHECKS_PASS: &str = include_str!("../prompts/checks_pass.md");
/// The planner's request for a check, when the run has none.
pub const WRITE_CHECK: &str = include_str!("../prompts/write_check.md");
/// The planner is told its repair plan is the plan that just failed.
pub const SAME_PLAN: &str = include_str!("../prompts/same_plan.md");
/// The planner is told which edits found nothing to change.
pub const UNCHANGED_EDITS: &str = include_str!("../prompts/unchanged_edits.md");
/// The planner is told which places its edits failed to fix again and again.
pub const EXHAUSTED_EDITS: &str = include_str!("../prompts/exhausted_edits.md");
/// The planner is told its last plans changed nothing, with them listed.
pub const NEW_APPROACH: &str = include_str!("../prompts/new_approach.md");
/// The executor's system text.
pub const EXECUTOR: &str = include_str!("../prompts/executor.md");
/// The executor's user message.
pub const EXECUTOR_USER: &str = include_str!("../prompts/executor_user.md");
/// What the executor is asked at the end of its tool loop.
pub const EXECUTOR_REPORT: &str = include_str!("../prompts/executor_report.md");
/// The edit step's system text.
pub const EDITOR: &str = include_str!("../prompts/editor.md");
/// The edit step's user message: goal, instruction, failures, the span.
pub const EDITOR_USER: &str = include_str!("../prompts/editor_user.md");

/// The editor's user message when a new definition is added at the end of
/// a file: the file as it is, and what to add.
pub const EDITOR_INSERT: &str = include_str!("../prompts/editor_insert.md");
/// The script step's system text.
pub const SCRIPT: &str = include_str!("../prompts/script.md");
/// The script step's system text when the artifact is a program file
/// (`{{file}}`, its `{{language}}`, the `{{fence}}` tag).
pub const PROGRAM_FILE: &str = include_str!("../prompts/program_file.md");
/// The script step's user message: goal, step, files, the data's first
/// lines.
pub const SCRIPT_USER: &str = include_str!("../prompts/script_user.md");
/// What the script model is told after its program failed to run.
pub const SCRIPT_FAILED: &str = include_str!("../prompts/script_failed.md");
/// What the next script candidate is told when the last one ran but a
/// check failed on what it wrote.
pub const SCRIPT_CHECKS_FAILED: &str = include_str!("../prompts/script_checks_failed.md");
/// The reviewer's system text.
pub const REVIEWER: &str = include_str!("../prompts/reviewer.md");
/// The reviewer's user message: goal, plan, results.
pub const REVIEWER_USER: &str = include_str!("../prompts/reviewer_user.md");

/// Added to the reviewer's message after the plan's last step: a
/// `continue` would only make a new plan.
pub const REVIEWER_LAST_STEP: &str =
    "No step of the plan is left: answer \"finish\" if the goal is reached, else \"replan\".\n";
/// The reflector's system text.
pub const REFLECTOR: &str = include_str!("../prompts/reflector.md");
/// The reflector's user message.
pub const REFLECTOR_USER: &str = include_str!("../prompts/reflector_user.md");
/// The tutoring coordinator's system text.
pub const COORDINATOR: &str = include_str!("../prompts/coordinator.md");
/// The course advisor's system text.
pub const COURSE_ADVISOR: &str = include_str!("../prompts/course_advisor.md");
/// The learning planner's system text.
pub const LEARNING_PLANNER: &str = include_str!("../prompts/learning_planner.md");

/// Replaces each `{{name}}` of `template` by its value in `vars`. A
/// placeholder without a value is left as it is (tests catch that).
pub fn render(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (name, value) in vars {
        out = out.replace(&format!("{{{{{name}}}}}"), value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_fills_placeholders() {
        assert_eq!(
            render("a {{x}} b {{y}}", &[("x", "1"), ("y", "2")]),
            "a 1 b 2"
        );
        assert_eq!(render("{{missing}}", &[]), "{{missing}}");
    }
}
