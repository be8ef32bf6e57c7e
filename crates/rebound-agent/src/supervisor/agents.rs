//! The supervisor's nodes: three model-backed agents and the student.
//!
//! Each agent asks the model for a small structured answer (journaled, so a
//! re-run node does not call the model again), writes its part of the
//! state, counts one agent turn, emits an [`AgentEvent::Agent`] with what it
//! said, and records the routing decision that follows it. An unusable
//! answer never fails the run: each agent has a fallback that either hands
//! back to the coordinator or ends the run (and every agent turn counts
//! towards `max_loop_count`, so no fallback can loop for ever).

use rebound_graph::{Interrupt, NodeContext, NodeError};
use rebound_llm::{ChatRequest, Message};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::routing::{increment_loop_count, record_route, request_human_input};
use super::state::{TutorState, TutorStateUpdate};
use super::{AGENTS, COORDINATOR, COURSE_ADVISOR, HUMAN_INPUT, LEARNING_PLANNER};
use crate::events::{AgentEvent, Emit};
use crate::llm::{ask, shorten};
use crate::{prompts, AgentDeps};

/// How many questions the agents may ask the student in one session; after
/// that, the learning planner plans without asking.
pub const MAX_QUESTIONS: u32 = 2;
/// Conversation lines shown to an agent (the most recent ones).
const CONVERSATION_LINES: usize = 10;
/// Characters of one conversation line shown to an agent.
const LINE_CHARS: usize = 300;
/// Courses or plan items kept from one answer.
const MAX_ITEMS: usize = 8;
/// The name the student's answers are given in the conversation and events.
pub const STUDENT: &str = "student";

/// The coordinator's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CoordinatorAnswer {
    /// Who acts next: "course_advisor", "learning_planner", or "none" when
    /// nobody needs to (null is read as "none" too). The schema has no null,
    /// so a grammar-constrained model must choose.
    #[schemars(required, extend("enum" = ["course_advisor", "learning_planner", "none"]))]
    pub next_agent: Option<String>,
    /// True when the student's request is fully answered. Not in the schema
    /// the model sees (JSON-schema grammars order properties by name, so a
    /// local model would have to decide it before `next_agent`); when it is
    /// absent, "none" means complete.
    #[serde(default)]
    #[schemars(skip)]
    pub is_complete: Option<bool>,
    /// A short reply to the student.
    pub reply: String,
}

/// The course advisor's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CourseAdvice {
    /// The recommended courses, 2 to 4, each a name with a one-line reason.
    pub courses: Vec<String>,
    /// A short reply to the student.
    pub reply: String,
}

/// The learning planner's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LearningPlan {
    /// A question for the student when the plan needs their answer (how many
    /// hours a week they can study); null otherwise.
    pub question: Option<String>,
    /// The weekly plan, one line per item; empty when asking a question.
    pub weekly_plan: Vec<String>,
}

/// The payload of the `human_input` interrupt:
/// `{"kind": "human_input", "question": ..., "asked_by": ...}`. Resume the
/// run with the student's answer as a JSON string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "human_input")]
pub struct HumanInputRequest {
    /// The question for the student.
    pub question: String,
    /// The agent that asked, which gets the answer.
    pub asked_by: Option<String>,
}

impl HumanInputRequest {
    /// The request an interrupt carries, if it is a `human_input` one.
    pub fn from_interrupt(interrupt: &Interrupt) -> Option<HumanInputRequest> {
        // serde does not check a struct's tag when reading it: check it here.
        if interrupt.node != HUMAN_INPUT || interrupt.payload["kind"] != HUMAN_INPUT {
            return None;
        }
        serde_json::from_value(interrupt.payload.clone()).ok()
    }
}

/// What every agent is told: the request, what is done so far, and the
/// recent conversation.
pub fn context_message(state: &TutorState) -> String {
    let courses = if state.recommended_courses.is_empty() {
        "none yet".to_string()
    } else {
        state.recommended_courses.join("; ")
    };
    let plan = if state.weekly_plan.is_empty() {
        "none yet".to_string()
    } else {
        format!("ready ({} items)", state.weekly_plan.len())
    };
    let skip = state.messages.len().saturating_sub(CONVERSATION_LINES);
    let conversation = state
        .messages
        .iter()
        .skip(skip)
        .map(|line| shorten(line, LINE_CHARS))
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "Student's request: {}\nRecommended courses: {courses}\nWeekly plan: {plan}\nConversation so far:\n{conversation}",
        state.request
    )
}

/// The model request of an agent with `system` text.
fn agent_request(system: &str, state: &TutorState, deps: &AgentDeps) -> ChatRequest {
    ChatRequest::new()
        .system(system)
        .max_tokens(deps.config.max_answer_tokens)
        .message(Message::user(context_message(state)))
}

/// Reads a model's `next_agent` leniently: case, spaces and dashes do not
/// matter for a known agent, and an empty value, "none" or "null" is no
/// agent. Anything else is kept as given, so that [`super::route_next`]
/// ends the run with the invalid name in its reason.
pub fn normalize_agent(name: Option<String>) -> Option<String> {
    let name = name?;
    let key = name.trim().to_lowercase().replace([' ', '-'], "_");
    match key.as_str() {
        "" | "none" | "null" | "nobody" => None,
        known if AGENTS.contains(&known) => Some(key),
        _ => Some(name),
    }
}

/// Trimmed, non-empty items, at most [`MAX_ITEMS`].
fn clean_items(items: Vec<String>) -> Vec<String> {
    items
        .into_iter()
        .map(|item| item.trim().to_string())
        .filter(|item| !item.is_empty())
        .take(MAX_ITEMS)
        .collect()
}

/// `text`, or `fallback` when it is blank.
fn or_default(text: String, fallback: impl FnOnce() -> String) -> String {
    let text = text.trim();
    if text.is_empty() {
        fallback()
    } else {
        text.to_string()
    }
}

/// Emits what `name` said and makes it a conversation line.
fn say(ctx: &NodeContext, name: &str, message: String) -> Vec<String> {
    let line = format!("{name}: {message}");
    AgentEvent::Agent {
        name: name.to_string(),
        message,
    }
    .emit(ctx);
    vec![line]
}

/// *coordinator*: reads the conversation and picks the `next_agent`, or
/// completes the session. An unusable answer completes the session when
/// the courses and the plan are both there, and otherwise ends the run
/// (no `next_agent`).
pub async fn coordinator(
    state: &TutorState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<TutorStateUpdate, NodeError> {
    let request = agent_request(prompts::COORDINATOR, state, deps);
    let answer = ask::<CoordinatorAnswer>(ctx, COORDINATOR, deps.model.as_ref(), request).await?;
    let (next_agent, is_complete, reply) = match answer.value {
        Ok(answer) => {
            let next_agent = normalize_agent(answer.next_agent);
            // A turn handed to an agent is not the end, whatever the flag says.
            let handed_over = next_agent
                .as_deref()
                .is_some_and(|agent| AGENTS.contains(&agent));
            let is_complete = match answer.is_complete {
                Some(flag) => flag && !handed_over,
                None => next_agent.is_none(),
            };
            let reply = or_default(answer.reply, || match (&next_agent, is_complete) {
                (_, true) => "your request is answered".to_string(),
                (Some(agent), false) => format!("over to {agent}"),
                (None, false) => "I have nothing more to add".to_string(),
            });
            (next_agent, is_complete, reply)
        }
        Err(error) => {
            let done = !state.recommended_courses.is_empty() && !state.weekly_plan.is_empty();
            let reply = if done {
                "(my answer was unusable, but the courses and the plan are ready) that is all"
                    .to_string()
            } else {
                format!(
                    "(my answer was unusable: {}) stopping here",
                    shorten(&error, 200)
                )
            };
            (None, done, reply)
        }
    };
    let update = increment_loop_count(state)
        .tokens(state.tokens.saturating_add(answer.tokens))
        .next_agent(next_agent)
        .is_complete(is_complete)
        .messages(say(ctx, COORDINATOR, reply));
    Ok(record_route(
        COORDINATOR,
        state,
        update,
        deps.config.max_loop_count,
    ))
}

/// *course_advisor*: recommends courses and hands back to the coordinator.
/// An unusable answer (or one with no courses) keeps the courses there are.
pub async fn course_advisor(
    state: &TutorState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<TutorStateUpdate, NodeError> {
    let request = agent_request(prompts::COURSE_ADVISOR, state, deps);
    let answer = ask::<CourseAdvice>(ctx, COURSE_ADVISOR, deps.model.as_ref(), request).await?;
    let mut update = increment_loop_count(state)
        .tokens(state.tokens.saturating_add(answer.tokens))
        .next_agent(Some(COORDINATOR.to_string()));
    let message = match answer.value {
        Ok(advice) => {
            let courses = clean_items(advice.courses);
            let reply = or_default(advice.reply, || "here are my recommendations".to_string());
            if courses.is_empty() {
                format!("{reply} (no courses recommended)")
            } else {
                let message = format!("{reply} Courses: {}", courses.join("; "));
                update = update.recommended_courses(courses);
                message
            }
        }
        Err(error) => format!(
            "(my answer was unusable: {}) no courses this time",
            shorten(&error, 200)
        ),
    };
    let update = update.messages(say(ctx, COURSE_ADVISOR, message));
    Ok(record_route(
        COURSE_ADVISOR,
        state,
        update,
        deps.config.max_loop_count,
    ))
}

/// *learning_planner*: makes the weekly plan, or asks the student a
/// question first (at most [`MAX_QUESTIONS`] in a session) through
/// [`request_human_input`]. A plan in the answer wins over a question. An
/// answer with neither, or an unusable one, hands back to the coordinator
/// without a plan.
pub async fn learning_planner(
    state: &TutorState,
    ctx: &NodeContext,
    deps: &AgentDeps,
) -> Result<TutorStateUpdate, NodeError> {
    let request = agent_request(prompts::LEARNING_PLANNER, state, deps);
    let answer = ask::<LearningPlan>(ctx, LEARNING_PLANNER, deps.model.as_ref(), request).await?;
    let update = increment_loop_count(state).tokens(state.tokens.saturating_add(answer.tokens));
    let to_coordinator = update.next_agent(Some(COORDINATOR.to_string()));
    let update = match answer.value {
        Ok(plan) => {
            let items = clean_items(plan.weekly_plan);
            let question = plan
                .question
                .map(|q| q.trim().to_string())
                .filter(|q| !q.is_empty());
            match question {
                _ if !items.is_empty() => {
                    let message = format!("here is your weekly plan: {}", items.join("; "));
                    to_coordinator
                        .messages(say(ctx, LEARNING_PLANNER, message))
                        .weekly_plan(items)
                }
                Some(question) if state.questions_asked < MAX_QUESTIONS => {
                    say(ctx, LEARNING_PLANNER, question.clone());
                    request_human_input(to_coordinator, state, LEARNING_PLANNER, &question)
                }
                Some(_) => to_coordinator.messages(say(
                    ctx,
                    LEARNING_PLANNER,
                    format!(
                        "I have asked {MAX_QUESTIONS} questions already and still have no plan"
                    ),
                )),
                None => to_coordinator.messages(say(
                    ctx,
                    LEARNING_PLANNER,
                    "I could not make a plan this time".to_string(),
                )),
            }
        }
        Err(error) => to_coordinator.messages(say(
            ctx,
            LEARNING_PLANNER,
            format!(
                "(my answer was unusable: {}) no plan this time",
                shorten(&error, 200)
            ),
        )),
    };
    Ok(record_route(
        LEARNING_PLANNER,
        state,
        update,
        deps.config.max_loop_count,
    ))
}

/// *human_input*: asks the student the pending question through an
/// interrupt (payload: [`HumanInputRequest`]). When the run is resumed with
/// the answer, the answer becomes a `student: ...` message and
/// `human_answer`, the question is cleared, and the run goes back to the
/// agent that asked. Needs a checkpointer and a thread id.
pub fn human_input(
    state: &TutorState,
    ctx: &NodeContext,
    max_loop_count: u32,
) -> Result<TutorStateUpdate, NodeError> {
    let question = state
        .pending_question
        .clone()
        .unwrap_or_else(|| "Is there anything you would like to add?".to_string());
    let answer: serde_json::Value = ctx.interrupt(HumanInputRequest {
        question,
        asked_by: state.next_agent.clone(),
    })?;
    let answer = match answer {
        serde_json::Value::String(text) => text.trim().to_string(),
        other => other.to_string(),
    };
    let update = TutorStateUpdate::default()
        .requires_human_input(false)
        .pending_question(None)
        .human_answer(Some(answer.clone()))
        .messages(say(ctx, STUDENT, answer));
    Ok(record_route(HUMAN_INPUT, state, update, max_loop_count))
}
