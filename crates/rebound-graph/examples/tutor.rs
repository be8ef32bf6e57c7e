//! Design note 4: an education tutoring supervisor with a human in the loop.
//!
//! A `coordinator` reads the student's request and the conversation so far and
//! picks the `next_agent`; `course_advisor` recommends courses;
//! `learning_planner` makes a weekly plan and, when it does not know how many
//! hours a week the student has, calls [`request_human_input`] so the run goes
//! to `human_input`. Every node routes back through [`route_next`], whose rules
//! in priority order are:
//!
//! 1. `loop_count > max_loop_count` → END
//! 2. `is_complete` → END
//! 3. `requires_human_input` → `human_input`
//! 4. a valid `next_agent` → that agent
//! 5. an invalid or missing `next_agent` → END (safe fallback)
//!
//! The agents are scripted functions (no model). `human_input` reads a line
//! from stdin when stdin is a terminal, and otherwise answers with a scripted
//! line. The program prints the run's event stream as a trace, then the final
//! state with its routing history and per-route counts.
//!
//! ```text
//! cargo run -p rebound-graph --example tutor -- [--max-loops N] [REQUEST...]
//! ```

use std::collections::BTreeMap;
use std::error::Error;
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

use rebound_graph::{
    CompiledGraph, Event, NodeContext, NodeError, PathMap, Route, RunConfig, RunStatus, State,
    StateGraph, END, START,
};
use serde::{Deserialize, Serialize};

/// The supervisor.
const COORDINATOR: &str = "coordinator";
/// Recommends courses.
const COURSE_ADVISOR: &str = "course_advisor";
/// Makes a weekly plan.
const LEARNING_PLANNER: &str = "learning_planner";
/// Asks the student.
const HUMAN_INPUT: &str = "human_input";
/// The names a `next_agent` may hold. `human_input` is not one of them: the
/// only way to the student is `requires_human_input`.
const AGENTS: [&str; 3] = [COORDINATOR, COURSE_ADVISOR, LEARNING_PLANNER];

/// The loop limit when `--max-loops` is not given (the note's default).
const DEFAULT_MAX_LOOP_COUNT: u32 = 10;
/// The answer `human_input` gives when stdin is not a terminal.
const SCRIPTED_ANSWER: &str = "about 6 hours a week";
/// The request used when none is given on the command line.
const DEFAULT_REQUEST: &str =
    "I want to get into machine learning: which courses should I take, and can you make me a weekly study plan?";

/// The tutoring session's state.
#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct TutorState {
    /// What the student asked for.
    request: String,
    /// The conversation: every agent and the student append their lines.
    #[state(append)]
    messages: Vec<String>,
    /// The agent the last node handed over to.
    next_agent: Option<String>,
    /// Agent turns taken so far (see [`increment_loop_count`]).
    loop_count: u32,
    /// The coordinator has answered the request.
    is_complete: bool,
    /// An agent needs an answer from the student.
    requires_human_input: bool,
    /// The question for the student, while one is pending.
    pending_question: Option<String>,
    /// The student's last answer.
    human_answer: Option<String>,
    /// Hours per week the student can study, once known.
    weekly_hours: Option<u32>,
    /// The course advisor's recommendations.
    recommended_courses: Vec<String>,
    /// The learning planner's plan, one line per block of weeks.
    weekly_plan: Vec<String>,
    /// Every routing decision: `from -> to: reason`.
    #[state(append)]
    route_history: Vec<String>,
    /// How often each route (`from -> to`) was taken.
    #[state(merge = add_counts)]
    route_counts: BTreeMap<String, u32>,
}

/// Merge rule of `route_counts`: adds the written counts to the totals.
fn add_counts(totals: &mut BTreeMap<String, u32>, written: BTreeMap<String, u32>) {
    for (route, count) in written {
        let total = totals.entry(route).or_default();
        *total = total.saturating_add(count);
    }
}

// ---------------------------------------------------------------------------
// Routing
// ---------------------------------------------------------------------------

/// The supervisor's router: where to go after any node, with the reason.
fn route_next(state: &TutorState, max_loop_count: u32) -> Route {
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

/// The conditional edge's declared targets: every agent, `human_input` and
/// END, with END for anything else.
fn supervisor_paths() -> PathMap {
    AGENTS
        .iter()
        .chain([&HUMAN_INPUT])
        .fold(PathMap::new(), |paths, name| paths.route(*name, *name))
        .route(END, END)
        .fallback(END)
}

/// How a target is shown in the trace and in the routing history.
fn display_target(target: &str) -> &str {
    match target {
        END => "END",
        START => "START",
        other => other,
    }
}

/// Adds the routing decision that will follow `from` to its update: the
/// router only reads the state, so the node that writes the state records the
/// route `route_next` will take once its update is merged.
fn record_route(
    from: &str,
    state: &TutorState,
    update: TutorStateUpdate,
    max_loop_count: u32,
) -> TutorStateUpdate {
    let mut after = state.clone();
    after.apply(update.clone());
    let route = route_next(&after, max_loop_count);
    let to = route
        .targets()
        .map(display_target)
        .collect::<Vec<_>>()
        .join(", ");
    let key = format!("{from} -> {to}");
    let entry = match route.reason() {
        Some(reason) => format!("{key}: {reason}"),
        None => key.clone(),
    };
    update
        .route_history(vec![entry])
        .route_counts(BTreeMap::from([(key, 1)]))
}

// ---------------------------------------------------------------------------
// Helpers of the note
// ---------------------------------------------------------------------------

/// An update counting one more agent turn.
fn increment_loop_count(state: &TutorState) -> TutorStateUpdate {
    TutorStateUpdate::default().loop_count(state.loop_count.saturating_add(1))
}

/// Extends `update` so the run asks the student `question` and then comes
/// back to `asker`.
fn request_human_input(update: TutorStateUpdate, asker: &str, question: &str) -> TutorStateUpdate {
    update
        .requires_human_input(true)
        .pending_question(Some(question.to_string()))
        .next_agent(Some(asker.to_string()))
        .messages(vec![format!("{asker}: {question}")])
}

// ---------------------------------------------------------------------------
// Agents (scripted)
// ---------------------------------------------------------------------------

/// What the request asks for.
struct Wants {
    courses: bool,
    plan: bool,
}

fn wants(request: &str) -> Wants {
    let request = request.to_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| request.contains(w));
    Wants {
        courses: any(&["course", "recommend", "class", "learn"]),
        plan: any(&["plan", "schedule", "week", "study"]),
    }
}

/// The supervisor: picks the next agent from the request and what is done.
fn coordinator(state: &TutorState) -> TutorStateUpdate {
    let update = increment_loop_count(state);
    let wants = wants(&state.request);
    if wants.courses && state.recommended_courses.is_empty() {
        update
            .next_agent(Some(COURSE_ADVISOR.to_string()))
            .messages(vec![format!(
                "{COORDINATOR}: the student needs course recommendations first; over to {COURSE_ADVISOR}"
            )])
    } else if wants.plan && state.weekly_plan.is_empty() {
        update
            .next_agent(Some(LEARNING_PLANNER.to_string()))
            .messages(vec![format!(
                "{COORDINATOR}: now a weekly plan; over to {LEARNING_PLANNER}"
            )])
    } else if !wants.courses && !wants.plan {
        update
            .is_complete(true)
            .next_agent(None)
            .messages(vec![format!(
                "{COORDINATOR}: I can recommend courses or make a study plan; ask me for either"
            )])
    } else {
        let hours = state
            .weekly_hours
            .map_or_else(String::new, |h| format!(" at {h} h/week"));
        update
            .is_complete(true)
            .next_agent(None)
            .messages(vec![format!(
                "{COORDINATOR}: all done: {} recommended course(s) and a weekly plan{hours}",
                state.recommended_courses.len(),
            )])
    }
}

/// Courses by topic keyword; the first match wins.
const CATALOG: &[(&str, &[&str])] = &[
    (
        "machine learning",
        &[
            "Python for Data Science",
            "Linear Algebra and Statistics Refresher",
            "Introduction to Machine Learning",
        ],
    ),
    (
        "web",
        &[
            "HTML and CSS Foundations",
            "JavaScript Essentials",
            "Building Web Apps",
        ],
    ),
    (
        "data",
        &[
            "From Spreadsheets to SQL",
            "Python for Data Analysis",
            "Data Visualisation",
        ],
    ),
];
/// Courses when no topic matches.
const GENERAL_COURSES: &[&str] = &["Learning How to Learn", "Introduction to Programming"];

/// Recommends courses for the request's topic, then hands back.
fn course_advisor(state: &TutorState) -> TutorStateUpdate {
    let request = state.request.to_lowercase();
    let (topic, courses) = CATALOG
        .iter()
        .find(|(topic, _)| request.contains(topic))
        .map_or(("general study", GENERAL_COURSES), |(topic, courses)| {
            (*topic, *courses)
        });
    let courses: Vec<String> = courses.iter().map(ToString::to_string).collect();
    increment_loop_count(state)
        .messages(vec![format!(
            "{COURSE_ADVISOR}: for {topic} I recommend, in order: {}",
            courses.join("; ")
        )])
        .recommended_courses(courses)
        .next_agent(Some(COORDINATOR.to_string()))
}

/// The first number in a free-text answer, if it is a plausible weekly hours count.
fn parse_hours(answer: &str) -> Option<u32> {
    let digits: String = answer
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok().filter(|h| (1..=168).contains(h))
}

/// Three weeks per course, the weekly hours split into sessions.
fn make_plan(courses: &[String], hours: u32) -> Vec<String> {
    let sessions = match hours {
        0..=1 => 1,
        2..=5 => 2,
        _ => 3,
    };
    let minutes = hours.saturating_mul(60) / sessions;
    let mut plan: Vec<String> = courses
        .iter()
        .enumerate()
        .map(|(i, course)| {
            let first = i * 3 + 1;
            format!(
                "weeks {first}-{}: {course} ({sessions} sessions of {minutes} min)",
                first + 2
            )
        })
        .collect();
    plan.push("every week: the last session ends with a 15-minute review".to_string());
    plan
}

/// Makes the weekly plan, asking the student for their hours when unknown.
fn learning_planner(state: &TutorState) -> TutorStateUpdate {
    let update = increment_loop_count(state);
    let answered = state.human_answer.as_deref().and_then(parse_hours);
    let Some(hours) = state.weekly_hours.or(answered) else {
        let question = match &state.human_answer {
            Some(answer) => format!(
                "I could not read a number of hours from {answer:?}. How many hours per week can you study?"
            ),
            None => "How many hours per week can you study?".to_string(),
        };
        return request_human_input(update, LEARNING_PLANNER, &question);
    };
    let courses = if state.recommended_courses.is_empty() {
        vec![format!("material for: {}", state.request)]
    } else {
        state.recommended_courses.clone()
    };
    let plan = make_plan(&courses, hours);
    update
        .messages(vec![format!(
            "{LEARNING_PLANNER}: a {}-week plan at {hours} h/week is ready",
            courses.len() * 3
        )])
        .weekly_hours(Some(hours))
        .weekly_plan(plan)
        .next_agent(Some(COORDINATOR.to_string()))
}

/// Wraps a scripted agent as a sync node that records its routing decision.
fn agent_node(
    name: &'static str,
    agent: fn(&TutorState) -> TutorStateUpdate,
    max_loop_count: u32,
) -> impl Fn(&TutorState, &NodeContext) -> Result<TutorStateUpdate, NodeError> + Send + Sync + 'static
{
    move |state, _ctx| Ok(record_route(name, state, agent(state), max_loop_count))
}

// ---------------------------------------------------------------------------
// Human input
// ---------------------------------------------------------------------------

/// Where `human_input` gets its answers.
#[derive(Debug, Clone)]
enum AnswerSource {
    /// One line from stdin (stdin is a terminal).
    Terminal,
    /// A fixed answer (stdin is not a terminal, or a test).
    Scripted(String),
}

/// Asks the pending question, records the answer and clears the request.
/// Tells the trace what it asks (and, when scripted, what it answered) through
/// custom events, so nothing prints from inside the graph.
async fn human_input(
    state: Arc<TutorState>,
    ctx: NodeContext,
    source: AnswerSource,
    max_loop_count: u32,
) -> Result<TutorStateUpdate, NodeError> {
    let question = state
        .pending_question
        .clone()
        .unwrap_or_else(|| "Anything to add?".to_string());
    let answer = match source {
        AnswerSource::Terminal => {
            ctx.emit(|| serde_json::json!({ "question": question }));
            let line = tokio::task::spawn_blocking(|| {
                let mut line = String::new();
                std::io::stdin().lock().read_line(&mut line).map(|_| line)
            })
            .await??;
            line.trim().to_string()
        }
        AnswerSource::Scripted(answer) => {
            ctx.emit(|| serde_json::json!({ "question": question, "scripted_answer": answer }));
            answer
        }
    };
    let update = TutorStateUpdate::default()
        .requires_human_input(false)
        .pending_question(None)
        .messages(vec![format!("student: {answer}")])
        .human_answer(Some(answer));
    Ok(record_route(HUMAN_INPUT, &state, update, max_loop_count))
}

// ---------------------------------------------------------------------------
// The graph and its trace
// ---------------------------------------------------------------------------

/// The tutoring graph: START → coordinator, then every node → [`route_next`].
fn build_graph(
    max_loop_count: u32,
    answers: AnswerSource,
) -> Result<CompiledGraph<TutorState>, Box<dyn Error>> {
    let mut graph = StateGraph::<TutorState>::new();
    graph
        .add_sync_node(
            COORDINATOR,
            agent_node(COORDINATOR, coordinator, max_loop_count),
        )
        .add_sync_node(
            COURSE_ADVISOR,
            agent_node(COURSE_ADVISOR, course_advisor, max_loop_count),
        )
        .add_sync_node(
            LEARNING_PLANNER,
            agent_node(LEARNING_PLANNER, learning_planner, max_loop_count),
        )
        .add_node(HUMAN_INPUT, move |state, ctx| {
            human_input(state, ctx, answers.clone(), max_loop_count)
        })
        .add_edge(START, COORDINATOR);
    for node in AGENTS.iter().chain([&HUMAN_INPUT]) {
        graph.add_conditional_edges(
            *node,
            move |state: &TutorState| route_next(state, max_loop_count),
            supervisor_paths(),
        );
    }
    Ok(graph.compile()?)
}

/// Writes one event of the run as a trace line (or nothing, for events the
/// trace skips).
fn write_event(out: &mut impl Write, event: &Event) -> std::io::Result<()> {
    match event {
        Event::RunStarted { run_id, .. } => writeln!(out, "run {run_id} started"),
        Event::NodeFinished {
            node,
            step,
            attempt,
            changed,
            ..
        } => {
            let fields = changed.names().collect::<Vec<_>>().join(", ");
            let retried = if *attempt > 1 {
                format!(" (attempt {attempt})")
            } else {
                String::new()
            };
            writeln!(out, "[{step}] {node} finished{retried}; wrote: {fields}")
        }
        Event::RouteChosen {
            from, to, reason, ..
        } => {
            let to = to
                .iter()
                .map(|t| display_target(t))
                .collect::<Vec<_>>()
                .join(", ");
            let from = display_target(from);
            match reason {
                Some(reason) => writeln!(out, "    route {from} -> {to}  ({reason})"),
                None => writeln!(out, "    route {from} -> {to}"),
            }
        }
        Event::Custom {
            node,
            step,
            payload,
        } => {
            let question = payload["question"].as_str().unwrap_or("?");
            writeln!(out, "[{step}] {node} asks: {question}")?;
            match payload["scripted_answer"].as_str() {
                Some(answer) => writeln!(
                    out,
                    "[{step}] {node}: stdin is not a terminal; answering with the scripted {answer:?}"
                ),
                None => {
                    write!(out, "> ")?;
                    out.flush()
                }
            }
        }
        Event::Retry {
            node, step, error, ..
        } => writeln!(out, "[{step}] {node} failed, retrying: {error}"),
        Event::Error {
            node,
            step,
            message,
            ..
        } => writeln!(
            out,
            "[{step}] error{}: {message}",
            node.as_deref()
                .map(|n| format!(" in {n}"))
                .unwrap_or_default()
        ),
        Event::RunFinished {
            status,
            steps,
            duration,
            ..
        } => {
            let status = match status {
                RunStatus::Completed => "completed",
                RunStatus::Failed => "failed",
                RunStatus::Cancelled => "cancelled",
                RunStatus::Interrupted => "interrupted",
            };
            writeln!(
                out,
                "run {status} after {steps} supersteps in {:.2} ms",
                duration.as_secs_f64() * 1000.0
            )
        }
        _ => Ok(()),
    }
}

/// Runs the graph, writing its trace to `out` as the events arrive, and
/// returns the final state.
async fn run_traced(
    graph: &CompiledGraph<TutorState>,
    input: TutorState,
    out: &mut impl Write,
) -> Result<TutorState, Box<dyn Error>> {
    let mut run = graph.stream(input, RunConfig::new());
    while let Some(event) = run.next_event().await {
        write_event(out, &event)?;
    }
    Ok(run.result().await?)
}

/// Writes a titled list, numbered or bulleted, or `(none)` when it is empty.
fn write_list<T: std::fmt::Display>(
    out: &mut impl Write,
    title: &str,
    items: impl IntoIterator<Item = T>,
    numbered: bool,
) -> std::io::Result<()> {
    writeln!(out, "{title}:")?;
    let mut empty = true;
    for (i, item) in items.into_iter().enumerate() {
        empty = false;
        if numbered {
            writeln!(out, "  {:>2}. {item}", i + 1)?;
        } else {
            writeln!(out, "  - {item}")?;
        }
    }
    if empty {
        writeln!(out, "  (none)")?;
    }
    Ok(())
}

/// Writes the final state: the outcome, the conversation, the results, the
/// routing history and the per-route counts.
fn write_final_state(out: &mut impl Write, state: &TutorState) -> std::io::Result<()> {
    writeln!(out, "\n== final state ==")?;
    writeln!(
        out,
        "loop_count: {}, is_complete: {}, weekly_hours: {}",
        state.loop_count,
        state.is_complete,
        state
            .weekly_hours
            .map_or_else(|| "unknown".to_string(), |h| h.to_string())
    )?;
    write_list(out, "messages", &state.messages, true)?;
    write_list(
        out,
        "recommended courses",
        &state.recommended_courses,
        false,
    )?;
    write_list(out, "weekly plan", &state.weekly_plan, false)?;
    write_list(out, "route history", &state.route_history, true)?;
    let counts = state
        .route_counts
        .iter()
        .map(|(route, count)| format!("{count} x {route}"));
    write_list(out, "route counts", counts, false)
}

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

const USAGE: &str = "usage: tutor [--max-loops N] [REQUEST...]";

/// The command line.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    max_loop_count: u32,
    request: String,
}

/// Parses the arguments after the program name; `Ok(None)` means `--help`.
fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut max_loop_count = DEFAULT_MAX_LOOP_COUNT;
    let mut words = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let value = if arg == "--max-loops" {
            Some(args.next().ok_or("--max-loops needs a number")?)
        } else {
            arg.strip_prefix("--max-loops=").map(str::to_string)
        };
        if let Some(value) = value {
            max_loop_count = value.parse().map_err(|_| {
                format!("--max-loops needs a non-negative whole number, got {value:?}")
            })?;
        } else if arg == "-h" || arg == "--help" {
            return Ok(None);
        } else if arg.starts_with("--") {
            return Err(format!("unknown option {arg:?}"));
        } else {
            words.push(arg);
        }
    }
    let request = if words.is_empty() {
        DEFAULT_REQUEST.to_string()
    } else {
        words.join(" ")
    };
    Ok(Some(Options {
        max_loop_count,
        request,
    }))
}

async fn run(options: Options) -> Result<(), Box<dyn Error>> {
    let interactive = std::io::stdin().is_terminal();
    let answers = if interactive {
        AnswerSource::Terminal
    } else {
        AnswerSource::Scripted(SCRIPTED_ANSWER.to_string())
    };
    let graph = build_graph(options.max_loop_count, answers)?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "tutor: max_loop_count = {}, {}",
        options.max_loop_count,
        if interactive {
            "answers from the terminal"
        } else {
            "stdin is not a terminal: scripted answers"
        }
    )?;
    writeln!(out, "request: {}\n", options.request)?;
    let input = TutorState {
        request: options.request.clone(),
        messages: vec![format!("student: {}", options.request)],
        ..TutorState::default()
    };
    let state = run_traced(&graph, input, &mut out).await?;
    write_final_state(&mut out, &state)?;
    out.flush()?;
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("tutor: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(options).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tutor: error: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(route: &Route) -> Vec<&str> {
        route.targets().collect()
    }

    fn with_agent(agent: &str) -> TutorState {
        TutorState {
            next_agent: Some(agent.to_string()),
            ..TutorState::default()
        }
    }

    // --- each row of the priority table ---

    #[test]
    fn loop_count_over_the_limit_ends() {
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
    fn loop_count_at_the_limit_does_not_end() {
        let state = TutorState {
            loop_count: 10,
            ..with_agent(COURSE_ADVISOR)
        };
        assert_eq!(targets(&route_next(&state, 10)), [COURSE_ADVISOR]);
    }

    #[test]
    fn the_limit_comes_from_the_argument() {
        let state = TutorState {
            loop_count: 4,
            ..with_agent(COURSE_ADVISOR)
        };
        assert_eq!(targets(&route_next(&state, 3)), [END]);
        assert_eq!(targets(&route_next(&state, 4)), [COURSE_ADVISOR]);
    }

    #[test]
    fn is_complete_ends() {
        let state = TutorState {
            is_complete: true,
            ..TutorState::default()
        };
        let route = route_next(&state, 10);
        assert_eq!(targets(&route), [END]);
        assert_eq!(route.reason(), Some("is_complete: the request is answered"));
    }

    #[test]
    fn requires_human_input_goes_to_human_input() {
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
    fn a_valid_next_agent_is_chosen() {
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
    fn an_invalid_next_agent_ends() {
        // `human_input` is a node but not an agent: only the flag leads there.
        for agent in ["librarian", "", "Coordinator", HUMAN_INPUT, END] {
            let route = route_next(&with_agent(agent), 10);
            assert_eq!(targets(&route), [END], "next_agent {agent:?}");
            assert_eq!(
                route.reason(),
                Some(
                    format!("next_agent {agent:?} is not a known agent: safe fallback to END")
                        .as_str()
                )
            );
        }
    }

    #[test]
    fn a_missing_next_agent_ends() {
        let route = route_next(&TutorState::default(), 10);
        assert_eq!(targets(&route), [END]);
        assert_eq!(route.reason(), Some("no next_agent: safe fallback to END"));
    }

    // --- the priority order ---

    #[test]
    fn the_loop_limit_wins_over_everything() {
        let state = TutorState {
            loop_count: 11,
            is_complete: true,
            requires_human_input: true,
            ..with_agent(LEARNING_PLANNER)
        };
        let route = route_next(&state, 10);
        assert_eq!(targets(&route), [END]);
        assert!(route.reason().is_some_and(|r| r.starts_with("loop_count")));
    }

    #[test]
    fn the_loop_limit_wins_over_requires_human_input() {
        let state = TutorState {
            loop_count: 11,
            requires_human_input: true,
            ..with_agent(LEARNING_PLANNER)
        };
        assert_eq!(targets(&route_next(&state, 10)), [END]);
    }

    #[test]
    fn is_complete_wins_over_requires_human_input_and_next_agent() {
        let state = TutorState {
            is_complete: true,
            requires_human_input: true,
            ..with_agent(COURSE_ADVISOR)
        };
        let route = route_next(&state, 10);
        assert_eq!(targets(&route), [END]);
        assert_eq!(route.reason(), Some("is_complete: the request is answered"));
    }

    #[test]
    fn requires_human_input_wins_over_next_agent() {
        for agent in [Some(COURSE_ADVISOR), Some("librarian"), None] {
            let state = TutorState {
                requires_human_input: true,
                next_agent: agent.map(str::to_string),
                ..TutorState::default()
            };
            assert_eq!(targets(&route_next(&state, 10)), [HUMAN_INPUT], "{agent:?}");
        }
    }

    // --- helpers and merge rule ---

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
    fn request_human_input_raises_the_flag_and_comes_back() {
        let mut state = TutorState::default();
        state.apply(request_human_input(
            TutorStateUpdate::default(),
            LEARNING_PLANNER,
            "How many hours?",
        ));
        assert!(state.requires_human_input);
        assert_eq!(state.pending_question.as_deref(), Some("How many hours?"));
        assert_eq!(state.next_agent.as_deref(), Some(LEARNING_PLANNER));
        assert_eq!(state.messages, ["learning_planner: How many hours?"]);
        assert_eq!(targets(&route_next(&state, 10)), [HUMAN_INPUT]);
    }

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

    #[test]
    fn hours_are_read_from_free_text() {
        assert_eq!(parse_hours("about 6 hours a week"), Some(6));
        assert_eq!(parse_hours("12"), Some(12));
        assert_eq!(parse_hours("six"), None);
        assert_eq!(parse_hours("0 hours"), None);
        assert_eq!(parse_hours("99999999999999"), None);
    }

    #[test]
    fn arguments_are_parsed() {
        let args = |list: &[&str]| parse_args(list.iter().map(ToString::to_string));
        assert_eq!(
            args(&[]),
            Ok(Some(Options {
                max_loop_count: 10,
                request: DEFAULT_REQUEST.to_string()
            }))
        );
        assert_eq!(
            args(&["--max-loops", "3", "web", "courses"]),
            Ok(Some(Options {
                max_loop_count: 3,
                request: "web courses".to_string()
            }))
        );
        assert_eq!(
            args(&["--max-loops=4"]).map(|o| o.map(|o| o.max_loop_count)),
            Ok(Some(4))
        );
        assert_eq!(args(&["--help"]), Ok(None));
        assert!(args(&["--max-loops"]).is_err());
        assert!(args(&["--max-loops", "-1"]).is_err());
        assert!(args(&["--verbose"]).is_err());
    }

    // --- the whole graph ---

    fn request(text: &str) -> TutorState {
        TutorState {
            request: text.to_string(),
            ..TutorState::default()
        }
    }

    #[tokio::test]
    async fn the_whole_session_runs_with_a_scripted_student() -> Result<(), Box<dyn Error>> {
        let graph = build_graph(10, AnswerSource::Scripted(SCRIPTED_ANSWER.to_string()))?;
        let mut trace = Vec::new();
        let state = run_traced(&graph, request(DEFAULT_REQUEST), &mut trace).await?;

        assert!(state.is_complete);
        assert!(!state.requires_human_input);
        assert_eq!(state.pending_question, None);
        assert_eq!(state.loop_count, 6);
        assert_eq!(state.weekly_hours, Some(6));
        assert_eq!(state.human_answer.as_deref(), Some(SCRIPTED_ANSWER));
        assert_eq!(
            state.recommended_courses,
            [
                "Python for Data Science",
                "Linear Algebra and Statistics Refresher",
                "Introduction to Machine Learning"
            ]
        );
        assert_eq!(
            state.weekly_plan,
            [
                "weeks 1-3: Python for Data Science (3 sessions of 120 min)",
                "weeks 4-6: Linear Algebra and Statistics Refresher (3 sessions of 120 min)",
                "weeks 7-9: Introduction to Machine Learning (3 sessions of 120 min)",
                "every week: the last session ends with a 15-minute review",
            ]
        );
        assert_eq!(
            state.messages,
            [
                "coordinator: the student needs course recommendations first; over to course_advisor",
                "course_advisor: for machine learning I recommend, in order: Python for Data Science; Linear Algebra and Statistics Refresher; Introduction to Machine Learning",
                "coordinator: now a weekly plan; over to learning_planner",
                "learning_planner: How many hours per week can you study?",
                "student: about 6 hours a week",
                "learning_planner: a 9-week plan at 6 h/week is ready",
                "coordinator: all done: 3 recommended course(s) and a weekly plan at 6 h/week",
            ]
        );
        assert_eq!(
            state.route_history,
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
            BTreeMap::from([
                ("coordinator -> END".to_string(), 1),
                ("coordinator -> course_advisor".to_string(), 1),
                ("coordinator -> learning_planner".to_string(), 1),
                ("course_advisor -> coordinator".to_string(), 1),
                ("human_input -> learning_planner".to_string(), 1),
                ("learning_planner -> coordinator".to_string(), 1),
                ("learning_planner -> human_input".to_string(), 1),
            ])
        );

        // The trace shows every route the engine took, with the same reasons.
        let trace = String::from_utf8(trace)?;
        let routes: Vec<&str> = trace
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("route "))
            .collect();
        assert_eq!(routes.first(), Some(&"START -> coordinator"));
        for (engine, recorded) in routes.iter().skip(1).zip(&state.route_history) {
            let (path, reason) = recorded.split_once(": ").unwrap_or_default();
            assert_eq!(*engine, format!("{path}  ({reason})"));
        }
        assert_eq!(routes.len(), state.route_history.len() + 1);
        assert!(trace.contains("answering with the scripted \"about 6 hours a week\""));
        assert!(trace.contains("run completed after 7 supersteps"));
        Ok(())
    }

    #[tokio::test]
    async fn the_loop_limit_stops_a_student_who_never_answers() -> Result<(), Box<dyn Error>> {
        let graph = build_graph(3, AnswerSource::Scripted("no idea".to_string()))?;
        let state = graph
            .invoke(request("make me a weekly plan"), RunConfig::new())
            .await?;
        assert!(!state.is_complete);
        assert_eq!(state.loop_count, 4);
        assert_eq!(state.weekly_plan, Vec::<String>::new());
        assert_eq!(
            state.route_history.last().map(String::as_str),
            Some("learning_planner -> END: loop_count 4 > max_loop_count 3: stopping")
        );
        assert_eq!(
            state.route_counts.get("learning_planner -> human_input"),
            Some(&2)
        );
        Ok(())
    }
}
