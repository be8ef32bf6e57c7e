//! Running a run's checks from inside a node: through the shell tool, the
//! approval policy and the node's journal, like any command of the agent.

use rebound_graph::{NodeContext, NodeError};
use rebound_tools::approval::{ApprovalAnswer, CommandRule};

use crate::tool_call::run_tool_call;
use serde::{Deserialize, Serialize};

use super::{all_passed, Check, CheckResult, CheckSource, CheckWhen};
use crate::events::{AgentEvent, Emit};
use crate::llm::shorten;
use crate::tool_call::{tool_context, SHELL_TOOL};
use crate::AgentDeps;

/// What running every check gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckRun {
    /// Why they ran.
    pub when: CheckWhen,
    /// One result per check, in order.
    pub results: Vec<CheckResult>,
    /// The workspace's fingerprint after the checks ran.
    pub fingerprint: u64,
    /// The user answered "approve all" to a check's approval.
    pub approved_all: bool,
    /// The files the checks read, with their content hashes after the run
    /// ([`super::guard::guarded_files`]).
    #[serde(default)]
    pub guarded: std::collections::BTreeMap<String, u64>,
}

impl CheckRun {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        all_passed(&self.results)
    }
}

/// The details the shell tool reports, as far as checks need them.
#[derive(Debug, Default, Deserialize)]
struct ShellDetails {
    #[serde(default)]
    exit_code: Option<i32>,
    #[serde(default)]
    duration_ms: u64,
}

/// Runs `checks` in order (every one, even after a failure: the planner
/// sees them all), their output streamed like a step's, and emits a
/// `checks` event. A denied or forbidden check counts as failed. A check the user wrote
/// (`--check`, the goal) runs without asking; the others are judged by
/// the approval policy like any command. Each run is journaled, so a node
/// that runs again replays the results.
pub async fn run_checks(
    ctx: &NodeContext,
    deps: &AgentDeps,
    checks: &[Check],
    when: CheckWhen,
    approved_all: bool,
) -> Result<CheckRun, NodeError> {
    let tools = tool_context(ctx, &deps.workspace, "checks");
    let mut results = Vec::with_capacity(checks.len());
    let mut approved_all = approved_all;
    for check in checks {
        let policy = if check.source.is_users_own() {
            deps.approval.clone().with_rules([
                CommandRule::allow(check.command.clone()).because("the user's own check")
            ])
        } else {
            deps.approval.clone()
        };
        let outcome = run_tool_call(
            ctx,
            &deps.tools,
            &policy,
            approved_all,
            SHELL_TOOL,
            serde_json::json!({ "command": check.command }),
            &tools,
        )
        .await?;
        approved_all |= matches!(outcome.answer, Some(ApprovalAnswer::ApproveAll));
        let details: ShellDetails =
            serde_json::from_value(outcome.output.details.clone()).unwrap_or_default();
        let passed =
            outcome.output.success && outcome.denied.is_none() && outcome.forbidden.is_none();
        let mut output = shorten(&outcome.output.content, super::KEPT_OUTPUT_CHARS);
        // A test run the user named that ran no test passes and proves
        // nothing (a detected one stays a guard: it shows the code still
        // builds, and never verified a finish alone).
        let named =
            check.source.is_users_own() || matches!(check.source, CheckSource::Config { .. });
        let workspace = deps.workspace.workspace();
        let vacuous: Option<String> = (passed && named)
            .then(|| {
                super::vacuous::no_tests_ran(&outcome.output.content)
                    .map(str::to_string)
                    .or_else(|| {
                        super::vacuous::tests_left_out(
                            &outcome.output.content,
                            &check.command,
                            workspace,
                        )
                    })
            })
            .flatten();
        if let Some(why) = &vacuous {
            output.push_str(&format!(
                "\nnote: {why}: a pass that proves nothing counts as a failure; the tests must be found and run\n"
            ));
        }
        results.push(CheckResult {
            command: check.command.clone(),
            passed: passed && vacuous.is_none(),
            exit_code: details.exit_code,
            output,
            duration_ms: details.duration_ms,
        });
    }
    let run = CheckRun {
        when,
        results,
        fingerprint: super::fingerprint(deps.workspace.workspace()),
        approved_all,
        guarded: super::guard::guarded_files(deps.workspace.workspace(), checks),
    };
    AgentEvent::Checks {
        when,
        results: run.results.clone(),
    }
    .emit(ctx);
    Ok(run)
}
