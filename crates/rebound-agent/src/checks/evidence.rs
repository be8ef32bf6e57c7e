//! A run's evidence as its state keeps it: the checks and what they last
//! said. One field of each workflow's state, so that pev and reflect read
//! and update it the same way.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{all_passed, guard, verify, Check, CheckResult, CheckRun, CheckSource, CheckWhen};
use crate::{CheckReport, StopReason};

/// Plans in which the planner is asked for a check, when the run has none,
/// before the run goes on without one.
pub const CHECK_PROPOSALS: u32 = 2;

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
    /// The files the checks read (tests, scripts a check names) and their
    /// content hashes when the checks first ran.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub guarded: BTreeMap<String, u64>,
    /// Guarded files that had changed when the checks last ran: passing
    /// checks then prove nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests_changed: Vec<String>,
    /// Checks the planner proposed (adopted or refused), for a run that had
    /// none.
    #[serde(default)]
    pub proposals: u32,
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
        let guarded = if self.fingerprint.is_none() {
            run.guarded.clone()
        } else {
            self.guarded.clone()
        };
        Evidence {
            checks: self.checks.clone(),
            results: run.results.clone(),
            fingerprint: Some(run.fingerprint),
            failed_at_start: if run.when == CheckWhen::Start {
                !run.passed()
            } else {
                self.failed_at_start
            },
            tests_changed: guard::changed(&guarded, &run.guarded),
            guarded,
            proposals: self.proposals,
        }
    }

    /// Whether the planner is asked to propose a check with its plan: the
    /// run has none, and has not asked [`CHECK_PROPOSALS`] times.
    pub fn wants_proposal(&self) -> bool {
        self.checks.is_empty() && self.proposals < CHECK_PROPOSALS
    }

    /// Whether `run` proves the goal without asking a model: every check
    /// passes, one failed before the first plan, none is the agent's own
    /// (an agent-written check is necessary, not sufficient), and no file
    /// the checks read has changed.
    pub fn settles(&self, run: &CheckRun) -> bool {
        run.passed()
            && self.failed_at_start
            && !self.checks.iter().any(|c| c.source == CheckSource::Agent)
            && guard::changed(&self.guarded, &run.guarded).is_empty()
    }

    /// [`Evidence::settles`] for the last results kept: every check
    /// passed when they last ran, one failed before the first plan, none
    /// is the agent's own, and no file the checks read had changed.
    pub fn settled(&self) -> bool {
        self.fingerprint.is_some()
            && !self.results.is_empty()
            && all_passed(&self.results)
            && self.failed_at_start
            && !self.checks.iter().any(|c| c.source == CheckSource::Agent)
            && self.tests_changed.is_empty()
    }

    /// The stop reason of a run that ended on a finish: `Finished` when the
    /// checks verify it ([`verify`]), `FinishedUnverified` when there are
    /// none, they only guard (detected, passing from the start), or a file
    /// they read was changed; an error when one fails (a finish that
    /// slipped past them).
    pub fn finish_reason(&self) -> StopReason {
        if self.checks.is_empty() {
            StopReason::FinishedUnverified
        } else if !all_passed(&self.results) {
            StopReason::Error {
                message: "the run ended on a finish that its checks do not confirm".to_string(),
            }
        } else if self.tests_changed.is_empty()
            && verify(&self.checks, &self.results, self.failed_at_start)
        {
            StopReason::Finished
        } else {
            StopReason::FinishedUnverified
        }
    }

    /// The checks for a run's summary.
    pub fn reports(&self) -> Vec<CheckReport> {
        CheckReport::of(&self.checks, &self.results)
    }
}
