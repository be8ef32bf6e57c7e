//! What the goal's programs print now, for the planner. A goal whose
//! evidence is a program's output ("`node summits.js` should list my
//! summits highest first, but ...") has no failing test to localize, and
//! no check that runs the program: the planner saw only the goal's words,
//! and spent its plans on `observe` steps that run the program (found on
//! dev: js-summit-ranking planned nothing else until its iteration
//! budget). So before each plan the harness runs the commands the goal
//! quotes that run a workspace program, in a scratch copy (whatever they
//! write is thrown away), and shows their output: what is wrong with it
//! now, and after an edit, whether the edit changed it.

use rebound_graph::{NodeContext, NodeError};
use rebound_tools::approval::CommandRule;

use crate::checks::Evidence;
use crate::llm::shorten;
use crate::tool_call::{run_tool_call, tool_context, SHELL_TOOL};
use crate::AgentDeps;

/// Characters of each program's output shown.
const OUTPUT_CHARS: usize = 900;

/// Seconds a program may run before it is stopped.
const TIMEOUT_SECS: u64 = 20;

/// One program's output, as the planner is shown it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramOutput {
    /// The command, as the goal quotes it.
    pub command: String,
    /// What it printed (the shell's report: exit code, then output),
    /// shortened.
    pub output: String,
}

/// Runs the [`program_commands`](crate::checks::program_commands) that none of the run's checks runs (a
/// check's output is shown already) in a scratch copy of the workspace,
/// and returns what they printed. A command the goal quotes is the user's
/// own, so it runs without asking, as the goal's checks do (the policy's
/// forbidden commands still apply). Nothing when the workspace is too big
/// to copy.
pub async fn programs_now(
    ctx: &NodeContext,
    deps: &AgentDeps,
    goal: &str,
    evidence: &Evidence,
    approved_all: bool,
) -> Result<Vec<ProgramOutput>, NodeError> {
    let workspace = deps.workspace.workspace();
    let programs: Vec<String> = crate::checks::program_commands(goal, workspace)
        .into_iter()
        .filter(|program| {
            !evidence
                .checks
                .iter()
                .any(|c| c.command.contains(program.as_str()))
        })
        .collect();
    if programs.is_empty() {
        return Ok(Vec::new());
    }
    let Ok((scratch_deps, _scratch)) = crate::scratch::Scratch::copy(workspace)
        .and_then(|scratch| Ok((scratch.deps(deps)?, scratch)))
    else {
        return Ok(Vec::new());
    };
    let tools = tool_context(ctx, &scratch_deps.workspace, "program-output");
    let mut outputs = Vec::with_capacity(programs.len());
    for command in programs {
        let policy = deps
            .approval
            .clone()
            .with_rules([CommandRule::allow(command.clone()).because("a command the goal quotes")]);
        let outcome = run_tool_call(
            ctx,
            &scratch_deps.tools,
            &policy,
            approved_all,
            SHELL_TOOL,
            serde_json::json!({ "command": command, "timeout_secs": TIMEOUT_SECS }),
            &tools,
        )
        .await?;
        if outcome.forbidden.is_some() || outcome.denied.is_some() {
            continue;
        }
        outputs.push(ProgramOutput {
            output: shorten(&outcome.output.content, OUTPUT_CHARS),
            command,
        });
    }
    Ok(outputs)
}

/// The outputs as the planner's prompt shows them.
pub fn prompt_text(outputs: &[ProgramOutput]) -> String {
    outputs
        .iter()
        .map(|o| {
            crate::prompts::render(
                crate::prompts::PROGRAM_OUTPUT,
                &[("command", &o.command), ("output", o.output.trim_end())],
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_names_each_command_and_its_output() {
        let text = prompt_text(&[ProgramOutput {
            command: "node summits.js".to_string(),
            output: "exit code 0 (success)\n1. Uetliberg 870 m\n".to_string(),
        }]);
        assert!(text.contains("`node summits.js`"), "{text}");
        assert!(text.contains("1. Uetliberg 870 m"), "{text}");
    }
}
