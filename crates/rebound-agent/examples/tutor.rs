//! Design note 4 with models: the tutoring supervisor of
//! `rebound_agent::supervisor`, where `coordinator`, `course_advisor` and
//! `learning_planner` are model-backed agents and `human_input` asks you.
//!
//! ```text
//! cargo run -p rebound-agent --example tutor -- --scripted
//! cargo run -p rebound-agent --features local --example tutor -- [--model local:qwen2.5-coder-1.5b] [REQUEST...]
//! cargo run -p rebound-agent --example tutor -- --model openai:gpt-4o-mini [REQUEST...]
//! ```
//!
//! The default model is the embedded local one (`scripts/fetch-model`
//! installs it; the build needs the `local` feature). `--scripted` uses a
//! scripted model instead, so the program runs anywhere; its answers are
//! about machine learning whatever the request. The run is kept in memory
//! under a thread id; when the learning planner asks a question, the
//! program asks you on the terminal (or, when stdin is not a terminal,
//! answers "about 6 hours a week") and resumes the run with the answer.

use std::error::Error;
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

use rebound_agent::events::AgentEvent;
use rebound_agent::supervisor::{self, HumanInputRequest, TutorState};
use rebound_agent::{AgentConfig, AgentDeps};
use rebound_graph::checkpoint::MemorySaver;
use rebound_graph::{CompiledGraph, Event, Input, RunConfig, RunOutcome};
use rebound_llm::{from_spec, ChatModel, ModelSpec, ScriptedModel, Step};
use rebound_protocol::Payload;
use rebound_tools::approval::{ApprovalMode, ApprovalPolicy};
use rebound_tools::{ToolContext, ToolRegistry};
use serde_json::json;

/// The model when `--model` is not given: the embedded local one.
const DEFAULT_MODEL: &str = "local:qwen2.5-coder-1.5b";
/// The answer given to a question when stdin is not a terminal.
const SCRIPTED_ANSWER: &str = "about 6 hours a week";
/// The request when none is given on the command line.
const DEFAULT_REQUEST: &str =
    "I want to get into machine learning: which courses should I take, and can you make me a weekly study plan?";
/// Questions answered in one session before the program gives up.
const MAX_ANSWERS: usize = 10;

const USAGE: &str =
    "usage: tutor [--scripted | --model PROVIDER:MODEL] [--max-loops N] [REQUEST...]";

/// The command line.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    /// The model string, or `None` for `--scripted`.
    model: Option<String>,
    /// `AgentConfig::max_loop_count`, when given.
    max_loop_count: Option<u32>,
    /// What the student asks.
    request: String,
}

/// Parses the arguments after the program name; `Ok(None)` means `--help`.
fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut model = None;
    let mut scripted = false;
    let mut max_loop_count = None;
    let mut words = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => {
                (name.to_string(), Some(value.to_string()))
            }
            _ => (arg.clone(), None),
        };
        let mut value = |option: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{option} needs a value"))
        };
        match name.as_str() {
            "-h" | "--help" => return Ok(None),
            "--scripted" => scripted = true,
            "--model" => model = Some(value("--model")?),
            "--max-loops" => {
                let text = value("--max-loops")?;
                max_loop_count = Some(text.parse().map_err(|_| {
                    format!("--max-loops needs a non-negative whole number, got {text:?}")
                })?);
            }
            option if option.starts_with("--") => return Err(format!("unknown option {option:?}")),
            _ => words.push(arg),
        }
    }
    if scripted && model.is_some() {
        return Err("--scripted and --model exclude each other".to_string());
    }
    let model = if scripted {
        None
    } else {
        Some(model.unwrap_or_else(|| DEFAULT_MODEL.to_string()))
    };
    let request = if words.is_empty() {
        DEFAULT_REQUEST.to_string()
    } else {
        words.join(" ")
    };
    Ok(Some(Options {
        model,
        max_loop_count,
        request,
    }))
}

/// The scripted model of `--scripted`: one session in which the planner
/// asks for the student's hours.
fn scripted_model() -> ScriptedModel {
    let coordinator = |next: Option<&str>, done: bool, reply: &str| {
        Step::json(json!({"next_agent": next, "is_complete": done, "reply": reply}))
    };
    ScriptedModel::new([
        coordinator(
            Some("course_advisor"),
            false,
            "Let's first find the right courses for you.",
        ),
        Step::json(json!({
            "courses": [
                "Python for Data Science: the language and tools ML work is done in",
                "Linear Algebra and Statistics Refresher: the maths behind the models",
                "Introduction to Machine Learning: supervised learning end to end",
            ],
            "reply": "These three, in this order.",
        })),
        coordinator(
            Some("learning_planner"),
            false,
            "Now a weekly plan around those courses.",
        ),
        Step::json(json!({
            "question": "How many hours a week can you study?",
            "weekly_plan": [],
        })),
        Step::json(json!({
            "question": null,
            "weekly_plan": [
                "Weeks 1-3: Python for Data Science, three sessions a week",
                "Weeks 4-6: Linear Algebra and Statistics Refresher, three sessions a week",
                "Weeks 7-9: Introduction to Machine Learning, three sessions a week",
                "Every week: end the last session with a 15-minute review",
            ],
        })),
        coordinator(
            None,
            true,
            "You're all set: three courses and a nine-week plan.",
        ),
    ])
}

/// The model `options` name, or why it cannot be used.
fn model(options: &Options) -> Result<Arc<dyn ChatModel>, String> {
    let Some(text) = &options.model else {
        return Ok(Arc::new(scripted_model()));
    };
    let spec: ModelSpec = text.parse().map_err(|e| format!("{e}"))?;
    from_spec(&spec).map_err(|e| {
        let hint = if matches!(spec, ModelSpec::Local { .. }) {
            "\n(the local model needs `--features local` and `scripts/fetch-model`; or run with --scripted)"
        } else {
            "\n(or run with --scripted)"
        };
        format!("cannot use model {text:?}: {e}{hint}")
    })
}

/// Writes one event as a line; skips node starts.
fn write_event(out: &mut impl Write, event: &Event) -> std::io::Result<()> {
    match event {
        Event::NodeStarted { .. } => Ok(()),
        Event::Custom { step, payload, .. } => match Payload::decode(payload) {
            Payload::Agent(AgentEvent::Agent { name, message }) => {
                writeln!(out, "[{step}] >> {name}: {message}")
            }
            _ => writeln!(out, "{event}"),
        },
        other => writeln!(out, "{other}"),
    }
}

/// Runs `input` on `config`'s thread, printing its events, and returns how
/// it ended.
async fn run_printed(
    graph: &CompiledGraph<TutorState>,
    input: Input<TutorState>,
    config: &RunConfig,
    out: &mut impl Write,
) -> Result<RunOutcome<TutorState>, Box<dyn Error>> {
    let mut stream = graph.stream(input, config.clone());
    while let Some(event) = stream.next_event().await {
        write_event(out, &event)?;
    }
    Ok(stream.outcome().await?)
}

/// The student's answer to `question`: a line from the terminal, or the
/// scripted answer.
async fn answer(
    question: &HumanInputRequest,
    out: &mut impl Write,
) -> Result<String, Box<dyn Error>> {
    let asker = question.asked_by.as_deref().unwrap_or("the tutor");
    writeln!(out, "\n{asker} asks: {}", question.question)?;
    if !std::io::stdin().is_terminal() {
        writeln!(
            out,
            "(stdin is not a terminal: answering {SCRIPTED_ANSWER:?})\n"
        )?;
        return Ok(SCRIPTED_ANSWER.to_string());
    }
    write!(out, "> ")?;
    out.flush()?;
    let line = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map(|read| (read, line))
    })
    .await??;
    match line {
        (0, _) => Err("stdin closed before an answer".into()),
        (_, line) => Ok(line.trim().to_string()),
    }
}

/// Writes a titled list, or `(none)`.
fn write_list<T: std::fmt::Display>(
    out: &mut impl Write,
    title: &str,
    items: impl IntoIterator<Item = T>,
) -> std::io::Result<()> {
    writeln!(out, "{title}:")?;
    let mut empty = true;
    for (i, item) in items.into_iter().enumerate() {
        empty = false;
        writeln!(out, "  {:>2}. {item}", i + 1)?;
    }
    if empty {
        writeln!(out, "  (none)")?;
    }
    Ok(())
}

/// Writes the final state, its routing history and per-route counts.
fn write_final_state(out: &mut impl Write, state: &TutorState) -> std::io::Result<()> {
    writeln!(out, "\n== final state ==")?;
    writeln!(
        out,
        "loop_count: {}, is_complete: {}, questions asked: {}, tokens: {}",
        state.loop_count, state.is_complete, state.questions_asked, state.tokens
    )?;
    write_list(out, "messages", &state.messages)?;
    write_list(out, "recommended courses", &state.recommended_courses)?;
    write_list(out, "weekly plan", &state.weekly_plan)?;
    write_list(out, "route history", &state.route_history)?;
    let counts = state
        .route_counts
        .iter()
        .map(|(route, count)| format!("{count} x {route}"));
    write_list(out, "route counts", counts)
}

async fn run(options: Options, model: Arc<dyn ChatModel>) -> Result<(), Box<dyn Error>> {
    let mut config = AgentConfig::default();
    if let Some(max) = options.max_loop_count {
        config.max_loop_count = max;
    }
    let deps = Arc::new(AgentDeps {
        model,
        tools: ToolRegistry::new(),
        approval: ApprovalPolicy::new(ApprovalMode::Auto),
        workspace: ToolContext::new(std::env::temp_dir())?,
        config,
        mcp: None,
    });
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "tutor: model {}, max_loop_count {}",
        deps.model.name(),
        deps.config.max_loop_count
    )?;
    writeln!(out, "request: {}\n", options.request)?;
    let graph = supervisor::build(deps)?.with_checkpointer(Arc::new(MemorySaver::new()));
    let run_config = RunConfig::new().with_thread_id(format!("tutor-{}", std::process::id()));
    let mut input = Input::State(supervisor::initial_state(options.request));
    let mut answers = 0;
    let state = loop {
        match run_printed(&graph, input, &run_config, &mut out).await? {
            RunOutcome::Completed(state) => break state,
            RunOutcome::Interrupted { interrupts, .. } => {
                let Some(question) = interrupts
                    .iter()
                    .find_map(HumanInputRequest::from_interrupt)
                else {
                    return Err(format!("the run stopped at an interrupt this program does not handle: {interrupts:?}").into());
                };
                answers += 1;
                if answers > MAX_ANSWERS {
                    return Err(format!("more than {MAX_ANSWERS} questions: giving up").into());
                }
                input = Input::ResumeWith(json!(answer(&question, &mut out).await?));
            }
        }
    };
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
    let model = match model(&options) {
        Ok(model) => model,
        Err(message) => {
            eprintln!("tutor: {message}");
            return ExitCode::from(2);
        }
    };
    match run(options, model).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tutor: error: {error}");
            ExitCode::FAILURE
        }
    }
}
