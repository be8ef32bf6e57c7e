//! A run's evidence as its state keeps it: the checks and what they last
//! said. One field of each workflow's state, so that pev and reflect read
//! and update it the same way.

use serde::{Deserialize, Serialize};

use super::{all_passed, verify, Check, CheckResult, CheckRun, CheckWhen};
use crate::{CheckReport, StopReason};

/// The checks and their last results.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The goal's evidence: commands whose success means it is reached.
    pub checks: Vec<Check>,
    /// Their last results.
    pub results: Vec<CheckResult>,
    /// The workspace's fingerprint when they last ran (`None`: not yet).
    pub fingerprint: Option<u64>,
    /// A check failed before the first plan: the checks tell done from
    /// not done.
    pub failed_at_start: bool,
}

impl Evidence {
    /// Evidence of `checks`, not run yet.
    pub fn new(checks: Vec<Check>) -> Self {
        Evidence {
            checks,
            ..Evidence::default()
        }
    }

    /// This evidence after `run`.
    pub fn after(&self, run: &CheckRun) -> Evidence {
        Evidence {
            checks: self.checks.clone(),
            results: run.results.clone(),
            fingerprint: Some(run.fingerprint),
            failed_at_start: if run.when == CheckWhen::Start {
                !run.passed()
            } else {
                self.failed_at_start
            },
        }
    }

    /// Whether `run` proves the goal without asking a model: every check
    /// passes, and one failed before the first plan.
    pub fn settles(&self, run: &CheckRun) -> bool {
        run.passed() && self.failed_at_start
    }

    /// The stop reason of a run that ended on a finish: `Finished` when the
    /// checks verify it ([`verify`]), `FinishedUnverified` when there are
    /// none or they only guard (detected, passing from the start), an
    /// error when one fails (a finish that slipped past them).
    pub fn finish_reason(&self) -> StopReason {
        if self.checks.is_empty() {
            StopReason::FinishedUnverified
        } else if verify(&self.checks, &self.results, self.failed_at_start) {
            StopReason::Finished
        } else if all_passed(&self.results) {
            StopReason::FinishedUnverified
        } else {
            StopReason::Error {
                message: "the run ended on a finish that its checks do not confirm".to_string(),
            }
        }
    }

    /// The checks for a run's summary.
    pub fn reports(&self) -> Vec<CheckReport> {
        CheckReport::of(&self.checks, &self.results)
    }
}
