//! Why a run stopped, and what it did.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Which budget ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BudgetKind {
    /// Working time ([`crate::Budget::max_seconds`]).
    WallTime,
    /// Model tokens ([`crate::Budget::max_tokens`]).
    Tokens,
    /// Failed attempts in a row ([`crate::Budget::max_attempts`]).
    Attempts,
}

impl fmt::Display for BudgetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BudgetKind::WallTime => "time",
            BudgetKind::Tokens => "tokens",
            BudgetKind::Attempts => "attempts",
        })
    }
}

/// Why a run stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// The goal is done, verified: the run's checks pass.
    Finished,
    /// The reviewer (or reflector) judged the goal done, and no check can
    /// verify it: there is none, or only detected ones that passed from the
    /// start (they guard against regressions; they do not prove the goal).
    /// Nothing contradicts the claim, nothing proves it.
    FinishedUnverified,
    /// `iters` reached `max_iters`.
    MaxIterations {
        /// The limit.
        limit: u32,
    },
    /// A budget ran out.
    Budget {
        /// Which one.
        budget: BudgetKind,
        /// What was used, and the limit, in words.
        detail: String,
    },
    /// The user denied commands the plan needed.
    UserDenied {
        /// The user's last message.
        message: String,
    },
    /// Plan after plan changed nothing (not a file, not a check's
    /// result), even after the planner was asked for a different
    /// approach: going on would only spend the budget.
    NoProgress {
        /// The plans in a row that changed nothing.
        plans: u32,
    },
    /// The agent could not go on (an unusable model answer, a missing tool...).
    Error {
        /// What happened.
        message: String,
    },
}

impl StopReason {
    /// Whether the run ended by finishing, verified or not (`rebound run`
    /// exits 0 for a verified finish, 4 for an unverified one).
    pub fn is_finished(&self) -> bool {
        matches!(self, StopReason::Finished | StopReason::FinishedUnverified)
    }

    /// Whether the run finished with every check passing.
    pub fn is_verified(&self) -> bool {
        matches!(self, StopReason::Finished)
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Finished => f.write_str("finished"),
            StopReason::FinishedUnverified => f.write_str("finished (unverified)"),
            StopReason::MaxIterations { limit } => write!(f, "max iterations ({limit})"),
            StopReason::Budget { budget, detail } => write!(f, "{budget} budget: {detail}"),
            StopReason::UserDenied { message } => write!(f, "user denied: {message}"),
            StopReason::NoProgress { plans } => write!(
                f,
                "no progress: {plans} plans in a row changed nothing, the last with a different approach"
            ),
            StopReason::Error { message } => write!(f, "error: {message}"),
        }
    }
}

/// The end of a run in numbers: the final result next to the final state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Why it stopped.
    pub stop_reason: StopReason,
    /// Steps that ran to success.
    pub steps_succeeded: u32,
    /// Steps that failed.
    pub steps_failed: u32,
    /// Repair plans made after a failed step.
    pub repairs: u32,
    /// Review rounds.
    pub iters: u32,
    /// Model tokens used.
    pub tokens: u64,
    /// Working time of the nodes, in milliseconds.
    pub work_ms: u64,
    /// One paragraph for a person.
    pub summary: String,
    /// The run's checks, where each came from, and how each last ran.
    #[serde(default)]
    pub checks: Vec<CheckReport>,
    /// Files the checks read (tests, a check's script) that the run
    /// changed: the checks' passing then proves nothing, and a finish is
    /// unverified.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests_changed: Vec<String>,
    /// Programs the goal names (`./stats prints the mean`) that no check
    /// ran: what the goal says they do is not verified, so neither is a
    /// finish.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_covered: Vec<String>,
}

/// A check in a run's summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckReport {
    /// The command.
    pub command: String,
    /// Where it came from.
    pub source: crate::checks::CheckSource,
    /// Whether it passed when it last ran; `None` when it never ran.
    pub passed: Option<bool>,
}

impl CheckReport {
    /// The reports of `checks`, with the last `results`.
    pub fn of(
        checks: &[crate::checks::Check],
        results: &[crate::checks::CheckResult],
    ) -> Vec<CheckReport> {
        checks
            .iter()
            .map(|check| CheckReport {
                command: check.command.clone(),
                source: check.source.clone(),
                passed: results
                    .iter()
                    .find(|r| r.command == check.command)
                    .map(|r| r.passed),
            })
            .collect()
    }
}
