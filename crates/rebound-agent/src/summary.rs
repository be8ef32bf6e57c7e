//! A finished run's summary from its steps, evidence and counters: what
//! pev and reflect report alike.

use crate::checks::Evidence;
use crate::{RunSummary, StepRecord, StopReason};

/// The counters of a run that its summary reports beside its steps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Counters {
    /// Repair plans (pev) or rollbacks (reflect).
    pub repairs: u32,
    /// Review rounds.
    pub iters: u32,
    /// Model tokens used.
    pub tokens: u64,
    /// Working time of the nodes, in milliseconds.
    pub work_ms: u64,
}

impl RunSummary {
    /// The summary of a run that stopped for `stop_reason` after the steps
    /// `results`, with its `evidence`, its counters and the paragraph
    /// `summary`.
    pub(crate) fn new(
        stop_reason: StopReason,
        results: &[StepRecord],
        evidence: &Evidence,
        counters: Counters,
        summary: String,
    ) -> RunSummary {
        let failed = failed_steps(results);
        RunSummary {
            stop_reason,
            steps_succeeded: u32::try_from(results.len() - failed).unwrap_or(u32::MAX),
            steps_failed: u32::try_from(failed).unwrap_or(u32::MAX),
            repairs: counters.repairs,
            iters: counters.iters,
            tokens: counters.tokens,
            work_ms: counters.work_ms,
            summary,
            checks: evidence.reports(),
            tests_changed: evidence.tests_changed.clone(),
            not_covered: evidence.uncovered(),
        }
    }
}

/// How many of `results` failed.
pub(crate) fn failed_steps(results: &[StepRecord]) -> usize {
    results.iter().filter(|r| !r.success).count()
}
