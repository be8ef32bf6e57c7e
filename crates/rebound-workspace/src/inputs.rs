//! A new thread's first state from the JSON a server client sends: for
//! the agent's workflows `{"goal": "...", "checks": ["command", ...]}`, for
//! the supervisor `{"request": "..."}`.

use rebound_agent::supervisor::TutorState;
use rebound_agent::workflow::Workflow;
use rebound_agent::Budget;
use serde::Deserialize;

use crate::config::Settings;

/// A new thread's input for the agent's workflows: the goal and, if any,
/// the commands that prove it done (else they are found as `rebound run`
/// finds them).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GoalInput {
    goal: String,
    #[serde(default)]
    checks: Vec<String>,
}

/// Makes a workflow's first state from `{"goal": ..., "checks": [...]}`,
/// with the settings' budget and configured checks; an empty goal or
/// another shape is an error in words for the client.
pub fn goal_input<S: Workflow>(
    settings: &Settings,
) -> impl Fn(serde_json::Value) -> Result<S, String> + Send + Sync + 'static {
    let budget: Budget = settings.agent.budget.clone();
    let configured = settings.checks.clone();
    let workspace = settings.workspace.clone();
    move |value| {
        let input: GoalInput = serde_json::from_value(value).map_err(|e| {
            format!("expected {{\"goal\": \"...\", \"checks\": [\"command\", ...]}}: {e}")
        })?;
        let goal = input.goal.trim();
        if goal.is_empty() {
            return Err("the goal is empty: say what the agent should achieve".to_string());
        }
        let checks = rebound_agent::checks::resolve(&input.checks, &configured, goal, &workspace);
        Ok(S::start(goal, &budget, checks))
    }
}

/// A new supervisor thread's input: the student's request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestInput {
    request: String,
}

/// Makes the supervisor's first state from `{"request": ...}`, or takes a
/// whole state as it is.
pub fn request_input(value: serde_json::Value) -> Result<TutorState, String> {
    let input = match serde_json::from_value::<RequestInput>(value.clone()) {
        Ok(input) => input,
        Err(e) => {
            return serde_json::from_value(value)
                .map_err(|_| format!("expected {{\"request\": \"...\"}}: {e}"))
        }
    };
    let request = input.request.trim();
    if request.is_empty() {
        return Err("the request is empty: say what the student asks for".to_string());
    }
    Ok(rebound_agent::supervisor::initial_state(request))
}
