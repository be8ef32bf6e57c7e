//! The agent's settings and its per-run budget.

use serde::{Deserialize, Serialize};

/// Limits on one run: what it may spend before it stops with
/// [`crate::StopReason::Budget`] or [`crate::StopReason::MaxIterations`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Budget {
    /// Review rounds (`iters`, counted by `advance`) before the run stops.
    pub max_iters: u32,
    /// Failed attempts in a row (pev: failed steps before a success; reflect:
    /// executions of one step) before the run stops (pev) or rolls back
    /// (reflect).
    pub max_attempts: u32,
    /// Working time of the run's nodes, in seconds (time spent waiting for
    /// an approval does not count). `None`: unlimited.
    pub max_seconds: Option<u64>,
    /// Model tokens, input and output, over the run. `None`: unlimited.
    pub max_tokens: Option<u64>,
    /// Denied approvals before the run stops as
    /// [`crate::StopReason::UserDenied`].
    pub max_denials: u32,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_iters: 12,
            max_attempts: 4,
            max_seconds: None,
            max_tokens: None,
            max_denials: 3,
        }
    }
}

/// How the agent works, beyond its budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgentConfig {
    /// The run's limits.
    pub budget: Budget,
    /// Model turns of the executor's tool loop for one step.
    pub max_tool_turns: u32,
    /// Characters of a command's or tool's output that go into a prompt
    /// (head and tail are kept).
    pub prompt_output_chars: usize,
    /// Supervisor: agent turns before the run ends (note 4's `max_loop_count`).
    pub max_loop_count: u32,
    /// Largest answer, in tokens, asked of the model per call.
    pub max_answer_tokens: u32,
    /// Sampled candidates an edit step tries after the greedy one, when
    /// the checks still fail (0: only the greedy one).
    pub edit_candidates: u32,
    /// Mutants an edit step tries when the greedy candidate leaves the
    /// checks failing: a name the failures say is missing renamed to the
    /// most similar defined one wherever it is used, then one-token
    /// operator changes of the span (`b - a` → `a - b`, `>` → `>=`); kept
    /// only when every check passes; 0: none.
    pub edit_mutants: u32,
    /// The seed of sampled candidates: the same seed gives the same
    /// candidates, so a run can be reproduced.
    pub seed: u64,
    /// When a check fails at code localization can find, the plan starts
    /// with an edit of that code ([`crate::planning::localized_edit`]);
    /// `false` leaves every step to the planner.
    pub localized_edits: bool,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            budget: Budget::default(),
            max_tool_turns: 6,
            prompt_output_chars: 1500,
            max_loop_count: 10,
            max_answer_tokens: 512,
            edit_candidates: 4,
            edit_mutants: 40,
            seed: 0,
            localized_edits: true,
        }
    }
}

impl Budget {
    /// The stop reason when `tokens` or `work_ms` are over this budget.
    pub fn exhausted(&self, tokens: u64, work_ms: u64) -> Option<crate::StopReason> {
        use crate::{BudgetKind, StopReason};
        if let Some(max) = self.max_tokens.filter(|max| tokens >= *max) {
            return Some(StopReason::Budget {
                budget: BudgetKind::Tokens,
                detail: format!("{tokens} tokens used, the limit is {max}"),
            });
        }
        if let Some(max) = self
            .max_seconds
            .filter(|max| work_ms >= max.saturating_mul(1000))
        {
            return Some(StopReason::Budget {
                budget: BudgetKind::WallTime,
                detail: format!(
                    "{:.1} s of work, the limit is {max} s",
                    work_ms as f64 / 1e3
                ),
            });
        }
        None
    }

    /// The stop reason when the user just denied a command (`message`) and
    /// `denials` reached [`Budget::max_denials`].
    pub fn denied(&self, denials: u32, message: Option<&str>) -> Option<crate::StopReason> {
        message
            .filter(|_| denials >= self.max_denials)
            .map(|message| crate::StopReason::UserDenied {
                message: message.to_string(),
            })
    }
}
