//! Whether a run's plans get anywhere: the plans made so far, and how many
//! in a row left the workspace and the checks as they were. A plan
//! identical to one already tried is refused; after [`STALE_PLANS_WARNED`]
//! plans that changed nothing, the planner is asked for a different
//! approach with the tried plans listed; after [`STALE_PLANS_STOP`], the run
//! stops with the reason instead of spending its budget.

use std::hash::{DefaultHasher, Hash, Hasher};

use serde::{Deserialize, Serialize};

use crate::checks::CheckResult;
use crate::PlanStep;

/// Plans in a row that changed nothing before the planner is asked for a
/// different approach.
pub const STALE_PLANS_WARNED: u32 = 2;

/// Plans in a row that changed nothing before the run stops.
pub const STALE_PLANS_STOP: u32 = 3;

/// Plans kept, the most recent ones.
const TRIED_KEPT: usize = 8;

/// The plans of a run and how they fared, kept in its state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// The plans made, oldest first (the last [`TRIED_KEPT`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tried: Vec<Vec<PlanStep>>,
    /// The workspace and the checks when the last plan was made
    /// ([`mark`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<u64>,
    /// Plans in a row after which the mark was the same.
    #[serde(default)]
    pub stale: u32,
    /// The workspace's content ([`crate::unchanged::mark`]) when the
    /// first plan was made: a finish with the workspace still at it did
    /// nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<u64>,
    /// Finishes refused because the workspace was as the run found it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unchanged_finishes: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Progress {
    /// This progress when a new plan is about to be made, the workspace
    /// and checks standing at `mark`.
    pub fn at_planning(&self, mark: u64) -> Progress {
        Progress {
            tried: self.tried.clone(),
            mark: Some(mark),
            stale: if self.mark == Some(mark) {
                self.stale + 1
            } else {
                0
            },
            start: self.start,
            unchanged_finishes: self.unchanged_finishes,
        }
    }

    /// Whether the workspace, at `mark` now ([`crate::unchanged::mark`]),
    /// is as it was when the first plan was made.
    pub fn nothing_changed(&self, mark: u64) -> bool {
        self.start == Some(mark)
    }

    /// Whether a finish with nothing changed is refused: none was yet
    /// ([`crate::unchanged::UNCHANGED_FINISHES_REFUSED`]).
    pub fn refuses_unchanged_finish(&self) -> bool {
        self.unchanged_finishes < crate::unchanged::UNCHANGED_FINISHES_REFUSED
    }

    /// This progress with `plan` made.
    pub fn with_plan(&self, plan: &[PlanStep]) -> Progress {
        let mut tried = self.tried.clone();
        tried.push(plan.to_vec());
        let skip = tried.len().saturating_sub(TRIED_KEPT);
        tried.drain(..skip);
        Progress {
            tried,
            ..self.clone()
        }
    }

    /// Whether nothing changed since the last plan was made: a plan
    /// identical to a tried one would do the same again.
    pub fn unchanged(&self) -> bool {
        self.stale > 0
    }

    /// Whether the planner must be told to change its approach.
    pub fn wants_new_approach(&self) -> bool {
        self.stale >= STALE_PLANS_WARNED
    }

    /// Whether the run should stop: too many plans changed nothing.
    pub fn exhausted(&self) -> bool {
        self.stale >= STALE_PLANS_STOP
    }
}

/// Where a run stands, in one number: the workspace's files (and git
/// state, [`crate::checks::fingerprint`]) and which checks pass with what
/// output.
pub fn mark(fingerprint: u64, results: &[CheckResult]) -> u64 {
    let mut hasher = DefaultHasher::new();
    fingerprint.hash(&mut hasher);
    for result in results {
        (result.passed, &result.output).hash(&mut hasher);
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_that_change_nothing_are_counted_until_something_changes() {
        let start = Progress {
            start: Some(10),
            ..Progress::default()
        }
        .at_planning(1);
        assert_eq!(start.stale, 0);
        assert_eq!(start.start, Some(10));
        let plan = vec![PlanStep::command("look", "ls")];
        let second = start.with_plan(&plan).at_planning(1);
        assert_eq!(second.start, Some(10), "the first plan's workspace is kept");
        assert!(second.nothing_changed(10) && !second.nothing_changed(11));
        assert_eq!(second.stale, 1);
        assert!(!second.wants_new_approach());
        let third = second.with_plan(&plan).at_planning(1);
        assert!(third.wants_new_approach() && !third.exhausted());
        let fourth = third.with_plan(&plan).at_planning(1);
        assert!(fourth.exhausted());
        assert_eq!(fourth.tried.len(), 3);
        let moved = fourth.at_planning(2);
        assert_eq!(moved.stale, 0, "a change resets the count");
    }

    #[test]
    fn only_the_last_plans_are_kept() {
        let mut progress = Progress::default();
        for i in 0..20 {
            progress = progress.with_plan(&[PlanStep::command("n", format!("echo {i}"))]);
        }
        assert_eq!(progress.tried.len(), TRIED_KEPT);
        assert_eq!(progress.tried[0][0].command.as_deref(), Some("echo 12"));
    }
}
