//! The supervisor's router (note 4), its helpers, and the routing history.

use std::collections::BTreeMap;

use rebound_graph::{PathMap, Route, State, END, START};

use super::state::{RouteRecord, TutorState, TutorStateUpdate};
use super::{AGENTS, HUMAN_INPUT};

/// Where the run goes after any node of the supervisor, with the reason, in
/// the note's priority order:
///
/// 1. `loop_count > max_loop_count` → END;
/// 2. `is_complete` → END;
/// 3. `requires_human_input` → `human_input`;
/// 4. a valid `next_agent` (one of [`AGENTS`]) → that agent;
/// 5. an invalid or missing `next_agent` → END (safe fallback).
///
/// `human_input` is a node but not an agent: the only way to the student is
/// `requires_human_input`, so `next_agent: "human_input"` ends the run.
pub fn route_next(state: &TutorState, max_loop_count: u32) -> Route {
    if state.loop_count > max_loop_count {
        return Route::end().because(format!(
            "loop_count {} > max_loop_count {max_loop_count}: stopping",
            state.loop_count
        ));
    }
    if state.is_complete {
        return Route::end().because("is_complete: the request is answered");
    }
    if state.requires_human_input {
        return Route::to(HUMAN_INPUT).because("requires_human_input: waiting for the student");
    }
    match state.next_agent.as_deref() {
        Some(agent) => match AGENTS.iter().find(|known| **known == agent) {
            Some(known) => Route::to(*known).because(format!("next_agent is {known}")),
            None => Route::end().because(format!(
                "next_agent {agent:?} is not a known agent: safe fallback to END"
            )),
        },
        None => Route::end().because("no next_agent: safe fallback to END"),
    }
}

/// The targets [`route_next`] may answer: every agent, `human_input` and
/// END. No fallback: any other answer would be a typed routing error.
pub(super) fn paths() -> PathMap {
    AGENTS
        .iter()
        .chain([&HUMAN_INPUT])
        .fold(PathMap::new(), |paths, name| paths.route(*name, *name))
        .route(END, END)
}

/// How a routing target is written in the history: `END`, `START`, or the
/// node's name.
fn display_target(target: &str) -> &str {
    match target {
        END => "END",
        START => "START",
        other => other,
    }
}

/// Adds to `update` the routing decision that follows node `from`, with its
/// count. The router only reads the state, so the node that writes the
/// state records the route [`route_next`] takes once `update` is merged
/// into `state` (the supervisor runs one node per superstep, so the two are
/// the same decision).
pub fn record_route(
    from: &str,
    state: &TutorState,
    update: TutorStateUpdate,
    max_loop_count: u32,
) -> TutorStateUpdate {
    let mut after = state.clone();
    after.apply(update.clone());
    let route = route_next(&after, max_loop_count);
    let record = RouteRecord {
        from: from.to_string(),
        to: route
            .targets()
            .map(display_target)
            .collect::<Vec<_>>()
            .join(", "),
        reason: route.reason().unwrap_or_default().to_string(),
    };
    let key = record.key();
    update
        .route_history(vec![record])
        .route_counts(BTreeMap::from([(key, 1)]))
}

/// An update counting one more agent turn.
pub fn increment_loop_count(state: &TutorState) -> TutorStateUpdate {
    TutorStateUpdate::default().loop_count(state.loop_count.saturating_add(1))
}

/// Extends `update` so that the run asks the student `question` and then
/// comes back to `asker`: raises `requires_human_input`, sets the pending
/// question, hands back to `asker`, and adds the question to the
/// conversation.
pub fn request_human_input(
    update: TutorStateUpdate,
    state: &TutorState,
    asker: &str,
    question: &str,
) -> TutorStateUpdate {
    update
        .requires_human_input(true)
        .pending_question(Some(question.to_string()))
        .questions_asked(state.questions_asked.saturating_add(1))
        .next_agent(Some(asker.to_string()))
        .messages(vec![format!("{asker}: {question}")])
}
