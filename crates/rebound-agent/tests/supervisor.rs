//! The supervisor of design note 4: a test for every row of `route_next`'s
//! table and its priority order, the helpers, and whole sessions on the real
//! graph with a scripted model and a checkpointer (SQLite on a temp file, or
//! in memory): the human-in-the-loop interrupt and resume, the loop limit
//! from `AgentConfig`, and unusable model answers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use rebound_agent::events::AgentEvent;
use rebound_agent::supervisor::{
    self, increment_loop_count, normalize_agent, record_route, request_human_input, route_next,
    CoordinatorAnswer, HumanInputRequest, RouteRecord, TutorState, TutorStateUpdate, AGENTS,
    COORDINATOR, COURSE_ADVISOR, HUMAN_INPUT, LEARNING_PLANNER, MAX_QUESTIONS,
};
use rebound_agent::{AgentConfig, AgentDeps};
use rebound_graph::checkpoint::{Checkpointer, MemorySaver};
use rebound_graph::{
    CompiledGraph, Event, Input, Interrupt, InterruptKind, Route, RunConfig, RunOutcome, State, END,
};
use rebound_llm::{ChatModel, ScriptedModel, Step};
use rebound_protocol::Payload;
use rebound_tools::approval::{ApprovalMode, ApprovalPolicy};
use rebound_tools::{ToolContext, ToolRegistry};
use serde_json::json;

// ---------------------------------------------------------------------------
// Set-up
// ---------------------------------------------------------------------------

fn deps(model: Arc<dyn ChatModel>, config: AgentConfig) -> Arc<AgentDeps> {
    Arc::new(AgentDeps {
        model,
        tools: ToolRegistry::new(),
        approval: ApprovalPolicy::new(ApprovalMode::Auto),
        workspace: ToolContext::new(std::env::temp_dir()).unwrap(),
        config,
        mcp: None,
    })
}

fn config(max_loop_count: u32) -> AgentConfig {
    AgentConfig {
        max_loop_count,
        ..AgentConfig::default()
    }
}

fn sqlite(dir: &tempfile::TempDir) -> Arc<dyn Checkpointer> {
    Arc::new(rebound_sqlite::SqliteSaver::open_default(dir.path().join("tutor.db")).unwrap())
}

fn graph(
    model: &Arc<ScriptedModel>,
    config: AgentConfig,
    saver: Arc<dyn Checkpointer>,
) -> CompiledGraph<TutorState> {
    supervisor::build(deps(model.clone(), config))
        .unwrap()
        .with_checkpointer(saver)
}

fn coordinator_says(next_agent: Option<&str>, is_complete: bool, reply: &str) -> Step {
    Step::json(json!({"next_agent": next_agent, "is_complete": is_complete, "reply": reply}))
        .expect_system_contains("You are the coordinator")
}

fn advisor_says(courses: &[&str], reply: &str) -> Step {
    Step::json(json!({"courses": courses, "reply": reply}))
        .expect_system_contains("You are a course advisor")
}

fn planner_says(question: Option<&str>, weekly_plan: &[&str]) -> Step {
    Step::json(json!({"question": question, "weekly_plan": weekly_plan}))
        .expect_system_contains("You are a learning planner")
}

/// Runs `input` to its end or interrupt, collecting the events.
async fn run(
    graph: &CompiledGraph<TutorState>,
    input: impl Into<Input<TutorState>>,
    thread: &str,
) -> (RunOutcome<TutorState>, Vec<Event>) {
    let mut stream = graph.stream(input, RunConfig::new().with_thread_id(thread));
    let mut events = Vec::new();
    while let Some(event) = stream.next_event().await {
        events.push(event);
    }
    (stream.outcome().await.unwrap(), events)
}

fn completed(outcome: RunOutcome<TutorState>) -> TutorState {
    match outcome {
        RunOutcome::Completed(state) => state,
        other => panic!("expected the run to complete, got {other:?}"),
    }
}

/// `name: message` of every agent event.
fn agent_lines(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::Custom { payload, .. } => match Payload::decode(payload) {
                Payload::Agent(AgentEvent::Agent { name, message }) => {
                    Some(format!("{name}: {message}"))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The engine's routing decisions after nodes (not START), written like
/// the state's route history.
fn engine_routes(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::RouteChosen {
                from, to, reason, ..
            } if &**from != rebound_graph::START => {
                let to: Vec<&str> = to
                    .iter()
                    .map(|t| if &**t == END { "END" } else { &**t })
                    .collect();
                Some(format!(
                    "{from} -> {}: {}",
                    to.join(", "),
                    reason.as_deref().unwrap_or_default()
                ))
            }
            _ => None,
        })
        .collect()
}

fn history(state: &TutorState) -> Vec<String> {
    state
        .route_history
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn counts(pairs: &[(&str, u32)]) -> BTreeMap<String, u32> {
    pairs
        .iter()
        .map(|(route, count)| (route.to_string(), *count))
        .collect()
}

fn targets(route: &Route) -> Vec<&str> {
    route.targets().collect()
}

fn with_agent(agent: &str) -> TutorState {
    TutorState {
        next_agent: Some(agent.to_string()),
        ..TutorState::default()
    }
}

// ---------------------------------------------------------------------------
// route_next: every row of the table
// ---------------------------------------------------------------------------

#[test]
fn row1_loop_count_over_the_limit_ends() {
    let state = TutorState {
        loop_count: 11,
        ..with_agent(COORDINATOR)
    };
    let route = route_next(&state, 10);
    assert_eq!(targets(&route), [END]);
    assert_eq!(
        route.reason(),
        Some("loop_count 11 > max_loop_count 10: stopping")
    );
}

#[test]
fn row1_loop_count_at_the_limit_does_not_end() {
    let state = TutorState {
        loop_count: 10,
        ..with_agent(COURSE_ADVISOR)
    };
    assert_eq!(targets(&route_next(&state, 10)), [COURSE_ADVISOR]);
}

#[test]
fn row1_the_limit_is_the_argument() {
    let state = TutorState {
        loop_count: 4,
        ..with_agent(COURSE_ADVISOR)
    };
    assert_eq!(targets(&route_next(&state, 3)), [END]);
    assert_eq!(targets(&route_next(&state, 4)), [COURSE_ADVISOR]);
    assert_eq!(targets(&route_next(&state, 0)), [END]);
}

#[test]
fn row2_is_complete_ends() {
    let state = TutorState {
        is_complete: true,
        ..TutorState::default()
    };
    let route = route_next(&state, 10);
    assert_eq!(targets(&route), [END]);
    assert_eq!(route.reason(), Some("is_complete: the request is answered"));
}

#[test]
fn row3_requires_human_input_goes_to_human_input() {
    let state = TutorState {
        requires_human_input: true,
        ..TutorState::default()
    };
    let route = route_next(&state, 10);
    assert_eq!(targets(&route), [HUMAN_INPUT]);
    assert_eq!(
        route.reason(),
        Some("requires_human_input: waiting for the student")
    );
}

#[test]
fn row4_a_valid_next_agent_is_chosen() {
    for agent in AGENTS {
        let route = route_next(&with_agent(agent), 10);
        assert_eq!(targets(&route), [agent]);
        assert_eq!(
            route.reason(),
            Some(format!("next_agent is {agent}").as_str())
        );
    }
}

#[test]
fn row5_an_unknown_next_agent_ends() {
    for agent in ["librarian", "", "Coordinator", " coordinator", END] {
        let route = route_next(&with_agent(agent), 10);
        assert_eq!(targets(&route), [END], "next_agent {agent:?}");
        assert_eq!(
            route.reason(),
            Some(
                format!("next_agent {agent:?} is not a known agent: safe fallback to END").as_str()
            )
        );
    }
}

#[test]
fn row5_human_input_is_not_a_valid_next_agent() {
    // `human_input` is a node, but the only way there is the flag.
    let route = route_next(&with_agent(HUMAN_INPUT), 10);
    assert_eq!(targets(&route), [END]);
    assert_eq!(
        route.reason(),
        Some("next_agent \"human_input\" is not a known agent: safe fallback to END")
    );
}

#[test]
fn row5_a_missing_next_agent_ends() {
    let route = route_next(&TutorState::default(), 10);
    assert_eq!(targets(&route), [END]);
    assert_eq!(route.reason(), Some("no next_agent: safe fallback to END"));
}

// ---------------------------------------------------------------------------
// route_next: the priority order
// ---------------------------------------------------------------------------

#[test]
fn the_loop_limit_wins_over_is_complete() {
    let state = TutorState {
        loop_count: 11,
        is_complete: true,
        ..TutorState::default()
    };
    let route = route_next(&state, 10);
    assert_eq!(targets(&route), [END]);
    assert_eq!(
        route.reason(),
        Some("loop_count 11 > max_loop_count 10: stopping")
    );
}

#[test]
fn the_loop_limit_wins_over_requires_human_input_and_next_agent() {
    let state = TutorState {
        loop_count: 11,
        requires_human_input: true,
        ..with_agent(LEARNING_PLANNER)
    };
    let route = route_next(&state, 10);
    assert_eq!(targets(&route), [END]);
    assert!(route.reason().is_some_and(|r| r.starts_with("loop_count")));
}

#[test]
fn is_complete_wins_over_requires_human_input() {
    let state = TutorState {
        is_complete: true,
        requires_human_input: true,
        ..TutorState::default()
    };
    let route = route_next(&state, 10);
    assert_eq!(targets(&route), [END]);
    assert_eq!(route.reason(), Some("is_complete: the request is answered"));
}

#[test]
fn is_complete_wins_over_a_valid_next_agent() {
    let state = TutorState {
        is_complete: true,
        ..with_agent(COURSE_ADVISOR)
    };
    let route = route_next(&state, 10);
    assert_eq!(targets(&route), [END]);
    assert_eq!(route.reason(), Some("is_complete: the request is answered"));
}

#[test]
fn requires_human_input_wins_over_any_next_agent() {
    for agent in [Some(COURSE_ADVISOR), Some("librarian"), None] {
        let state = TutorState {
            requires_human_input: true,
            next_agent: agent.map(str::to_string),
            ..TutorState::default()
        };
        assert_eq!(targets(&route_next(&state, 10)), [HUMAN_INPUT], "{agent:?}");
    }
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

#[test]
fn increment_loop_count_adds_one() {
    let state = TutorState {
        loop_count: 4,
        ..TutorState::default()
    };
    let mut after = state.clone();
    after.apply(increment_loop_count(&state));
    assert_eq!(after.loop_count, 5);
}

#[test]
fn request_human_input_raises_the_flag_and_comes_back_to_the_asker() {
    let mut state = TutorState::default();
    let update = request_human_input(
        TutorStateUpdate::default(),
        &state,
        LEARNING_PLANNER,
        "How many hours?",
    );
    state.apply(update);
    assert_eq!(
        state,
        TutorState {
            messages: vec!["learning_planner: How many hours?".to_string()],
            next_agent: Some(LEARNING_PLANNER.to_string()),
            requires_human_input: true,
            pending_question: Some("How many hours?".to_string()),
            questions_asked: 1,
            ..TutorState::default()
        }
    );
    assert_eq!(targets(&route_next(&state, 10)), [HUMAN_INPUT]);
}

#[test]
fn record_route_records_the_route_of_the_merged_state() {
    let state = TutorState {
        route_counts: counts(&[("coordinator -> course_advisor", 2)]),
        ..TutorState::default()
    };
    let update = record_route(
        COORDINATOR,
        &state,
        TutorStateUpdate::default().next_agent(Some(COURSE_ADVISOR.to_string())),
        10,
    );
    let mut after = state.clone();
    after.apply(update);
    assert_eq!(
        after.route_history,
        [RouteRecord {
            from: COORDINATOR.to_string(),
            to: COURSE_ADVISOR.to_string(),
            reason: "next_agent is course_advisor".to_string(),
        }]
    );
    assert_eq!(
        after.route_counts,
        counts(&[("coordinator -> course_advisor", 3)])
    );

    let ended = record_route(
        COURSE_ADVISOR,
        &state,
        TutorStateUpdate::default().next_agent(None),
        10,
    );
    assert_eq!(
        ended.route_history.unwrap()[0].to_string(),
        "course_advisor -> END: no next_agent: safe fallback to END"
    );
}

#[test]
fn a_models_agent_name_is_read_leniently_but_unknown_names_are_kept() {
    let agent = |name: &str| normalize_agent(Some(name.to_string()));
    assert_eq!(agent("Course Advisor").as_deref(), Some(COURSE_ADVISOR));
    assert_eq!(
        agent(" learning-planner ").as_deref(),
        Some(LEARNING_PLANNER)
    );
    assert_eq!(agent("none"), None);
    assert_eq!(agent(""), None);
    assert_eq!(agent("Librarian").as_deref(), Some("Librarian"));
    assert_eq!(agent("human_input").as_deref(), Some("human_input"));
    assert_eq!(normalize_agent(None), None);
}

#[test]
fn the_human_input_payload_has_its_kind() {
    let request = HumanInputRequest {
        question: "How many hours?".to_string(),
        asked_by: Some(LEARNING_PLANNER.to_string()),
    };
    let payload = serde_json::to_value(&request).unwrap();
    assert_eq!(
        payload,
        json!({"kind": "human_input", "question": "How many hours?", "asked_by": "learning_planner"})
    );
    let interrupt = Interrupt {
        id: "3:human_input:0".to_string(),
        node: HUMAN_INPUT.to_string(),
        kind: InterruptKind::Dynamic,
        payload,
    };
    assert_eq!(HumanInputRequest::from_interrupt(&interrupt), Some(request));
    let approval = Interrupt {
        payload: json!({"kind": "approval", "question": "run rm?"}),
        ..interrupt
    };
    assert_eq!(HumanInputRequest::from_interrupt(&approval), None);
}

#[test]
fn the_coordinator_schema_lists_the_agents_it_may_choose() {
    let schema = schemars::schema_for!(CoordinatorAnswer).to_value();
    assert_eq!(
        schema["properties"]["next_agent"]["enum"],
        json!(["course_advisor", "learning_planner", "none"])
    );
    // Required, so a grammar-constrained model cannot leave it out; the
    // flag is derived, so it is not asked of the model at all.
    assert_eq!(schema["required"], json!(["next_agent", "reply"]));
    assert!(schema["properties"].get("is_complete").is_none());
}

/// A model answer without `is_complete` (what a grammar-constrained model
/// writes): "none" completes the run, an agent name hands over; a flag that
/// contradicts a hand-over is overruled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_flag_none_completes_and_an_agent_hands_over() {
    let model = Arc::new(ScriptedModel::new([
        Step::json(
            json!({"next_agent": "course_advisor", "is_complete": true, "reply": "advisor first"}),
        ),
        advisor_says(&["ML 101"], "take ML 101"),
        Step::json(json!({"next_agent": "none", "reply": "done"})),
    ]));
    let graph = graph(&model, AgentConfig::default(), Arc::new(MemorySaver::new()));
    let state = completed(
        run(&graph, supervisor::initial_state(REQUEST), "derived")
            .await
            .0,
    );
    assert_eq!(model.remaining(), 0);
    assert!(state.is_complete);
    assert_eq!(state.recommended_courses, ["ML 101"]);
    assert_eq!(
        history(&state).last().map(String::as_str),
        Some("coordinator -> END: is_complete: the request is answered")
    );
}

// ---------------------------------------------------------------------------
// Whole sessions
// ---------------------------------------------------------------------------

const REQUEST: &str = "I want to learn machine learning: which courses, and a weekly plan?";
const QUESTION: &str = "How many hours a week can you study?";

/// The note's session: coordinator → course_advisor → coordinator →
/// learning_planner, which asks the student; the run stops at the
/// interrupt (saved in SQLite), resumes with the answer, the plan is made
/// and the coordinator completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_asks_the_student_and_completes_after_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::new([
        coordinator_says(Some(COURSE_ADVISOR), false, "Let's find courses first.")
            .expect_user_contains("Student's request: I want to learn machine learning")
            .expect_user_contains("Recommended courses: none yet"),
        advisor_says(
            &[
                "Python for Data Science: the tools",
                "Introduction to Machine Learning: the core",
            ],
            "Start with these two.",
        ),
        coordinator_says(Some(LEARNING_PLANNER), false, "Now a weekly plan.")
            .expect_user_contains("Recommended courses: Python for Data Science: the tools;"),
        planner_says(Some(QUESTION), &[]),
        planner_says(
            None,
            &[
                "Mon: 2 h Python",
                "Wed: 2 h ML theory",
                "Sat: 2 h exercises",
            ],
        )
        .expect_user_contains("student: 6 hours a week"),
        coordinator_says(None, true, "All set: courses and a plan.")
            .expect_user_contains("Weekly plan: ready (3 items)"),
    ]));
    let graph = graph(&model, AgentConfig::default(), sqlite(&dir));

    let (outcome, events) = run(&graph, supervisor::initial_state(REQUEST), "t1").await;
    let RunOutcome::Interrupted {
        state, interrupts, ..
    } = outcome
    else {
        panic!("expected the run to stop at human_input, got {outcome:?}");
    };
    assert!(
        interrupts[0].id.ends_with(":human_input:0"),
        "the id names the step, the node and the call: {interrupts:?}"
    );
    assert_eq!(
        interrupts,
        [Interrupt {
            id: interrupts[0].id.clone(),
            node: HUMAN_INPUT.to_string(),
            kind: InterruptKind::Dynamic,
            payload: json!({"kind": "human_input", "question": QUESTION, "asked_by": "learning_planner"}),
        }]
    );
    assert!(state.requires_human_input);
    assert_eq!(state.pending_question.as_deref(), Some(QUESTION));
    assert_eq!(model.remaining(), 2, "nothing after the question yet");
    let mut all_events = events;

    let (outcome, events) = run(&graph, Input::ResumeWith(json!("6 hours a week")), "t1").await;
    let state = completed(outcome);
    all_events.extend(events);
    assert_eq!(model.remaining(), 0);
    assert_eq!(model.requests().len(), 6, "no model call was repeated");

    assert_eq!(
        state.messages,
        [
            "student: I want to learn machine learning: which courses, and a weekly plan?",
            "coordinator: Let's find courses first.",
            "course_advisor: Start with these two. Courses: Python for Data Science: the tools; Introduction to Machine Learning: the core",
            "coordinator: Now a weekly plan.",
            "learning_planner: How many hours a week can you study?",
            "student: 6 hours a week",
            "learning_planner: here is your weekly plan: Mon: 2 h Python; Wed: 2 h ML theory; Sat: 2 h exercises",
            "coordinator: All set: courses and a plan.",
        ]
    );
    assert!(state.is_complete);
    assert!(!state.requires_human_input);
    assert_eq!(state.pending_question, None);
    assert_eq!(state.human_answer.as_deref(), Some("6 hours a week"));
    assert_eq!(state.questions_asked, 1);
    assert_eq!(state.loop_count, 6);
    assert_eq!(state.recommended_courses.len(), 2);
    assert_eq!(state.weekly_plan.len(), 3);
    assert_eq!(
        history(&state),
        [
            "coordinator -> course_advisor: next_agent is course_advisor",
            "course_advisor -> coordinator: next_agent is coordinator",
            "coordinator -> learning_planner: next_agent is learning_planner",
            "learning_planner -> human_input: requires_human_input: waiting for the student",
            "human_input -> learning_planner: next_agent is learning_planner",
            "learning_planner -> coordinator: next_agent is coordinator",
            "coordinator -> END: is_complete: the request is answered",
        ]
    );
    assert_eq!(
        state.route_counts,
        counts(&[
            ("coordinator -> END", 1),
            ("coordinator -> course_advisor", 1),
            ("coordinator -> learning_planner", 1),
            ("course_advisor -> coordinator", 1),
            ("human_input -> learning_planner", 1),
            ("learning_planner -> coordinator", 1),
            ("learning_planner -> human_input", 1),
        ])
    );
    // The history in the state is the route the engine took.
    assert_eq!(engine_routes(&all_events), history(&state));
    // Every agent's reply (and the student's answer) is an event.
    assert_eq!(
        agent_lines(&all_events),
        state.messages[1..].to_vec(),
        "one agent event per conversation line"
    );
}

/// A coordinator that keeps handing the turn to itself is stopped by
/// `AgentConfig::max_loop_count`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loop_limit_from_the_config_stops_a_looping_coordinator() {
    for max_loop_count in [3, 0] {
        let model =
            Arc::new(ScriptedModel::new((0..20).map(|_| {
                coordinator_says(Some(COORDINATOR), false, "let me think again")
            })));
        let graph = graph(&model, config(max_loop_count), Arc::new(MemorySaver::new()));
        let (outcome, _) = run(&graph, supervisor::initial_state(REQUEST), "loop").await;
        let state = completed(outcome);
        let turns = max_loop_count + 1;
        assert_eq!(state.loop_count, turns);
        assert_eq!(model.requests().len(), turns as usize);
        assert!(!state.is_complete);
        assert_eq!(
            history(&state).last().map(String::as_str),
            Some(
                format!(
                    "coordinator -> END: loop_count {turns} > max_loop_count {max_loop_count}: stopping"
                )
                .as_str()
            )
        );
        let mut expected = counts(&[("coordinator -> END", 1)]);
        if max_loop_count > 0 {
            expected.insert("coordinator -> coordinator".to_string(), max_loop_count);
        }
        assert_eq!(state.route_counts, expected);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_loop_limit_is_ten() {
    let model = Arc::new(ScriptedModel::new(
        (0..20).map(|_| coordinator_says(Some(COORDINATOR), false, "again")),
    ));
    let graph = graph(&model, AgentConfig::default(), Arc::new(MemorySaver::new()));
    let state = completed(
        run(&graph, supervisor::initial_state(REQUEST), "loop")
            .await
            .0,
    );
    assert_eq!(state.loop_count, 11);
    assert_eq!(
        state.route_counts.get("coordinator -> coordinator"),
        Some(&10)
    );
}

/// An unusable coordinator answer (not JSON, twice: the answer and its one
/// repair) ends the run through the missing `next_agent`; nothing panics.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unusable_coordinator_answer_ends_the_run_safely() {
    let model = Arc::new(ScriptedModel::new([
        Step::text("I think the course advisor should go next."),
        Step::text("Sure! The course advisor.").expect_user_contains("That answer is not valid"),
    ]));
    let graph = graph(&model, AgentConfig::default(), Arc::new(MemorySaver::new()));
    let state = completed(
        run(&graph, supervisor::initial_state(REQUEST), "bad")
            .await
            .0,
    );
    assert_eq!(model.remaining(), 0);
    assert!(!state.is_complete);
    assert_eq!(state.next_agent, None);
    assert_eq!(state.loop_count, 1);
    assert!(
        state.messages[1].starts_with("coordinator: (my answer was unusable: the model's answer is not a valid CoordinatorAnswer"),
        "{}",
        state.messages[1]
    );
    assert_eq!(
        history(&state),
        ["coordinator -> END: no next_agent: safe fallback to END"]
    );
}

/// When the courses and the plan are there, an unusable coordinator answer
/// completes the session instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unusable_coordinator_answer_completes_a_finished_session() {
    let model = Arc::new(ScriptedModel::new([
        Step::text("{\"next\": 1}"),
        Step::text("{\"still\": \"wrong\"}"),
    ]));
    let graph = graph(&model, AgentConfig::default(), Arc::new(MemorySaver::new()));
    let input = TutorState {
        recommended_courses: vec!["Intro to ML".to_string()],
        weekly_plan: vec!["Mon: 2 h".to_string()],
        ..supervisor::initial_state(REQUEST)
    };
    let state = completed(run(&graph, input, "done").await.0);
    assert!(state.is_complete);
    assert_eq!(
        history(&state),
        ["coordinator -> END: is_complete: the request is answered"]
    );
}

/// Unusable answers of the other agents hand back to the coordinator,
/// which then decides; an agent name in the wrong case still routes, and an
/// unknown one ends the run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unusable_agent_answers_and_unknown_agents_are_handled() {
    let model = Arc::new(ScriptedModel::new([
        coordinator_says(Some("Course Advisor"), false, "Courses first."),
        Step::text("Here are some courses: ML, Python."),
        Step::text("{\"courses\": \"ML, Python\", \"reply\": \"ok\"}"),
        coordinator_says(Some("learning_planner"), false, "Then a plan."),
        planner_says(None, &[]),
        coordinator_says(Some("librarian"), false, "Ask the librarian."),
    ]));
    let graph = graph(&model, AgentConfig::default(), Arc::new(MemorySaver::new()));
    let state = completed(
        run(&graph, supervisor::initial_state(REQUEST), "odd")
            .await
            .0,
    );
    assert_eq!(model.remaining(), 0);
    assert!(state.recommended_courses.is_empty());
    assert!(state.weekly_plan.is_empty());
    assert!(state.messages[2].starts_with("course_advisor: (my answer was unusable"));
    assert_eq!(
        state.messages[4],
        "learning_planner: I could not make a plan this time"
    );
    assert_eq!(
        history(&state),
        [
            "coordinator -> course_advisor: next_agent is course_advisor",
            "course_advisor -> coordinator: next_agent is coordinator",
            "coordinator -> learning_planner: next_agent is learning_planner",
            "learning_planner -> coordinator: next_agent is coordinator",
            "coordinator -> END: next_agent \"librarian\" is not a known agent: safe fallback to END",
        ]
    );
}

/// After `MAX_QUESTIONS` questions the planner does not ask again: no
/// interrupt, back to the coordinator.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_stops_asking_after_max_questions() {
    let model = Arc::new(ScriptedModel::new([
        coordinator_says(Some(LEARNING_PLANNER), false, "A plan."),
        planner_says(Some(QUESTION), &[]),
        coordinator_says(None, false, "I give up."),
    ]));
    let graph = graph(&model, AgentConfig::default(), Arc::new(MemorySaver::new()));
    let input = TutorState {
        questions_asked: MAX_QUESTIONS,
        ..supervisor::initial_state(REQUEST)
    };
    let state = completed(run(&graph, input, "asked").await.0);
    assert!(!state.requires_human_input);
    assert_eq!(state.questions_asked, MAX_QUESTIONS);
    assert_eq!(
        state.messages[2],
        format!(
            "learning_planner: I have asked {MAX_QUESTIONS} questions already and still have no plan"
        )
    );
    assert_eq!(
        state.route_counts.get("learning_planner -> coordinator"),
        Some(&1)
    );
}

/// A non-string resume value is taken as its JSON text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_number_as_the_answer_becomes_a_message() {
    let model = Arc::new(ScriptedModel::new([
        coordinator_says(Some(LEARNING_PLANNER), false, "A plan."),
        planner_says(Some(QUESTION), &[]),
        planner_says(None, &["Mon: 3 h"]).expect_user_contains("student: 6"),
        coordinator_says(None, true, "Done."),
    ]));
    let graph = graph(&model, AgentConfig::default(), Arc::new(MemorySaver::new()));
    let (outcome, _) = run(&graph, supervisor::initial_state(REQUEST), "n").await;
    assert!(outcome.is_interrupted());
    let state = completed(run(&graph, Input::ResumeWith(json!(6)), "n").await.0);
    assert_eq!(state.human_answer.as_deref(), Some("6"));
    assert!(state.is_complete);
}

/// Without a checkpointer, reaching `human_input` is an error that says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn human_input_needs_a_checkpointer() {
    let model = Arc::new(ScriptedModel::new([
        coordinator_says(Some(LEARNING_PLANNER), false, "A plan."),
        planner_says(Some(QUESTION), &[]),
    ]));
    let graph = supervisor::build(deps(model, AgentConfig::default())).unwrap();
    let error = graph
        .run(supervisor::initial_state(REQUEST), RunConfig::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("checkpointer"), "{error}");
}
