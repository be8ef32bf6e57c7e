//! The tutoring supervisor's state (note 4), with the note's wish list:
//! routing history and per-route counts kept in the state itself.

use std::collections::BTreeMap;
use std::fmt;

use rebound_graph::State;
use serde::{Deserialize, Serialize};

/// The tutoring session's state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
pub struct TutorState {
    /// What the student asked for.
    pub request: String,
    /// The conversation, one `speaker: text` line per turn (`student: ...`,
    /// `coordinator: ...`).
    #[state(append)]
    pub messages: Vec<String>,
    /// The agent the last node handed over to; `None` ends the run unless
    /// another rule of [`super::route_next`] applies first.
    pub next_agent: Option<String>,
    /// Agent turns taken so far (see [`super::increment_loop_count`]).
    pub loop_count: u32,
    /// The coordinator has answered the request.
    pub is_complete: bool,
    /// An agent needs an answer from the student: the run goes to
    /// `human_input` (see [`super::request_human_input`]).
    pub requires_human_input: bool,
    /// The question for the student, while one is pending.
    pub pending_question: Option<String>,
    /// The student's last answer to a question.
    pub human_answer: Option<String>,
    /// Questions the agents have asked the student.
    pub questions_asked: u32,
    /// The course advisor's recommendations.
    pub recommended_courses: Vec<String>,
    /// The learning planner's weekly plan, one line per item.
    pub weekly_plan: Vec<String>,
    /// Model tokens used, input and output.
    pub tokens: u64,
    /// Every routing decision, in order (see [`super::record_route`]).
    #[state(append)]
    pub route_history: Vec<RouteRecord>,
    /// How often each route was taken, by [`RouteRecord::key`]
    /// (`from -> to`); written counts are added to the totals.
    #[state(merge = add_counts)]
    pub route_counts: BTreeMap<String, u32>,
}

/// One routing decision: where the run went after a node, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteRecord {
    /// The node routed from.
    pub from: String,
    /// Where the run went: a node name, or `END`.
    pub to: String,
    /// The rule of [`super::route_next`] that decided it.
    pub reason: String,
}

impl RouteRecord {
    /// The route's key in [`TutorState::route_counts`]: `from -> to`.
    pub fn key(&self) -> String {
        format!("{} -> {}", self.from, self.to)
    }
}

impl fmt::Display for RouteRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} -> {}: {}", self.from, self.to, self.reason)
    }
}

/// Merge rule of `route_counts`: adds the written counts to the totals.
fn add_counts(totals: &mut BTreeMap<String, u32>, written: BTreeMap<String, u32>) {
    for (route, count) in written {
        let total = totals.entry(route).or_default();
        *total = total.saturating_add(count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_counts_add_up() {
        let mut state = TutorState::default();
        for _ in 0..2 {
            state.apply(TutorStateUpdate::default().route_counts(BTreeMap::from([
                ("a -> b".to_string(), 1),
                ("b -> END".to_string(), 2),
            ])));
        }
        assert_eq!(
            state.route_counts,
            BTreeMap::from([("a -> b".to_string(), 2), ("b -> END".to_string(), 4)])
        );
    }
}
