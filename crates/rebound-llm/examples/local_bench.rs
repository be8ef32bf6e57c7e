//! Measures the embedded local model on a realistic agent conversation: a
//! planner call, then executor calls that extend the same conversation.
//! Each call runs twice: warm (the KV cache holds the previous call's
//! prefix, as in a real run) and cold (the cache was evicted first). Then
//! an edit call (a function given back with one change, the agent's
//! commonest answer) and the planner call are generated with and without
//! prompt-lookup drafting. Prints one JSON line.
//!
//! First, the agent's own calls, as a real run made them (`examples/prompts/`:
//! a planner, an edit, a review, a script and a sampled script call, kept
//! with `REBOUND_LOG=rebound_llm=trace`): each as a new process's first call
//! (no state anywhere), then as the next process's (the system text's state
//! from disk). For each: prompt and generated tokens per second, tokens
//! served from disk, accepted draft tokens per verify step, wall time; and
//! the process's peak RSS. `--agent-calls` measures only these, `--only
//! NAME` only that call, `--no-lookup` them without drafting.
//!
//! ```text
//! cargo run --release -p rebound-llm --features local --example local_bench [-- <name or path.gguf>] [--agent-calls] [--only planner] [--no-lookup]
//! ```

use std::error::Error;
use std::time::Instant;

use rebound_llm::local::{known_model_path, LocalModel, LocalStats};
use rebound_llm::{ChatModel, ChatRequest, LlmError, Message};

const PLANNER_SYSTEM: &str = "You are the planner of a coding agent working in a git repository. \
Break the user's goal into at most 4 concrete steps; each step has a description and, when a \
shell command does it, the command. Prefer running the tests first to see what fails.";

/// The agent's own planner instructions (a real system text, for the
/// prompt states on disk).
const AGENT_PLANNER_SYSTEM: &str = include_str!("../../rebound-agent/prompts/planner.md");

const EXECUTOR_SYSTEM: &str = "You are the executor of a coding agent. You execute one plan \
step at a time with the shell tool, then report whether the step succeeded and what it showed.";

const EDITOR_SYSTEM: &str = "You are a careful programmer. Rewrite the part of the file you \
are shown so that it makes the change asked for; keep everything else as it is.";

const PARSE_EXPR: &str = "def parse_expr(text):
    \"\"\"The tokens of an arithmetic expression: numbers and operators.\"\"\"
    tokens = []
    number = ''
    for char in text:
        if char.isdigit() or char == '.':
            number += char
            continue
        if number:
            tokens.append(float(number))
            number = ''
        if char in '+-*/':
            tokens.append(char)
        elif char in '()':
            tokens.append(char)
        elif char.isspace():
            continue
        else:
            raise ValueError(f'unexpected character {char!r} in {text!r}')
    if number:
        tokens.append(float(number))
    return tokens
";

const REPO: &str = "Repository files:\n\
calc/__init__.py\ncalc/ops.py (def add(a, b), def sub(a, b), def mul(a, b), def div(a, b))\n\
calc/parse.py (def parse_expr(text) -> list of tokens)\n\
tests/test_ops.py (12 tests)\ntests/test_parse.py (7 tests)\n\
pyproject.toml (pytest configured, python >= 3.10)\nREADME.md";

const PYTEST_OUTPUT: &str = "$ python -m pytest -q\n\
....F.....F........\n\
FAILED tests/test_ops.py::test_div_by_zero - ZeroDivisionError: division by zero\n\
FAILED tests/test_ops.py::test_sub_negative - assert 1 == -1\n\
2 failed, 17 passed in 0.31s\nexit code: 1";

fn plan_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {"steps": {"type": "array", "items": {
            "type": "object",
            "properties": {"description": {"type": "string"}, "command": {"type": ["string", "null"]}},
            "required": ["description", "command"]}}},
        "required": ["steps"]
    })
}

fn executor_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {"success": {"type": "boolean"}, "output": {"type": "string"}},
        "required": ["success", "output"]
    })
}

/// The agent's calls as a real run made them: (name, the request as JSON).
const AGENT_CALLS: [(&str, &str); 5] = [
    ("planner", include_str!("prompts/planner.json")),
    ("edit", include_str!("prompts/edit.json")),
    ("review", include_str!("prompts/review.json")),
    ("script", include_str!("prompts/script.json")),
    (
        "script-sampled",
        include_str!("prompts/script-sampled.json"),
    ),
];

/// Each of [`AGENT_CALLS`] as a new process's first call (nothing cached,
/// no state on disk), then as the next process's (the system text's state
/// from disk), with its figures.
async fn agent_calls(
    model: &LocalModel,
    only: Option<&str>,
) -> Result<Vec<serde_json::Value>, Box<dyn Error>> {
    let states = std::env::temp_dir().join(format!("rebound-bench-calls-{}", std::process::id()));
    let mut figures = Vec::new();
    for (name, json) in AGENT_CALLS {
        if only.is_some_and(|only| only != name) {
            continue;
        }
        let request: ChatRequest = serde_json::from_str(json)?;
        let _ = std::fs::remove_dir_all(&states);
        model.set_prompt_state_dir(Some(states.clone()));
        model.forget_cache();
        let (first_text, first, first_wall) = timed(model, &request).await?;
        model.forget_cache();
        let (next_text, next, next_wall) = timed(model, &request).await?;
        let per_second = |tokens: usize, seconds: f64| tokens as f64 / seconds.max(1e-9);
        figures.push(serde_json::json!({
            "call": name,
            "prompt_tokens": first.prompt_tokens,
            "prompt_tps": per_second(first.prompt_tokens - first.reused_tokens, first.prompt_seconds),
            "generated": first.generated_tokens,
            "generation_tps": per_second(first.generated_tokens, first.generation_seconds),
            "drafted": first.draft_tokens,
            "accepted_drafts": first.accepted_draft_tokens,
            "accepted_per_verify": first.accepted_draft_tokens as f64 / first.verify_steps.max(1) as f64,
            "grammar_fallbacks": first.grammar_fallbacks,
            "wall_seconds": first_wall,
            "disk_tokens_next_process": next.disk_tokens,
            "wall_seconds_next_process": next_wall,
            "same_answer": first_text == next_text,
        }));
    }
    model.set_prompt_state_dir(None);
    let _ = std::fs::remove_dir_all(&states);
    Ok(figures)
}

/// The process's peak resident memory in MiB (`VmHWM`), when Linux says.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// The command line: `[<name or path.gguf>] [--agent-calls] [--only NAME]
/// [--no-lookup]`.
struct Options {
    /// The model measured (default: the 0.5B).
    model: String,
    /// Only the agent calls, not the synthetic conversation.
    agent_calls_only: bool,
    /// Only the agent call of this name.
    only: Option<String>,
    /// The agent calls with prompt-lookup drafting (`--no-lookup`: without).
    lookup: bool,
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, Box<dyn Error>> {
        let mut options = Options {
            model: "qwen2.5-coder-0.5b".to_string(),
            agent_calls_only: false,
            only: None,
            lookup: true,
        };
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--agent-calls" => options.agent_calls_only = true,
                "--no-lookup" => options.lookup = false,
                "--only" => options.only = Some(args.next().ok_or("--only needs a call's name")?),
                flag if flag.starts_with("--") => {
                    return Err(format!("unknown option {flag}").into())
                }
                _ => options.model = arg,
            }
        }
        if let Some(only) = &options.only {
            if !AGENT_CALLS.iter().any(|(name, _)| name == only) {
                let names: Vec<&str> = AGENT_CALLS.iter().map(|(name, _)| *name).collect();
                return Err(
                    format!("no agent call {only:?}; the calls: {}", names.join(", ")).into(),
                );
            }
        }
        Ok(options)
    }
}

/// Runs `request`, returning its stats and wall time.
async fn timed(
    model: &LocalModel,
    request: &ChatRequest,
) -> Result<(String, LocalStats, f64), LlmError> {
    let started = Instant::now();
    let (response, stats) = model.chat_with_stats(request).await?;
    let seconds = started.elapsed().as_secs_f64();
    Ok((response.text, stats, seconds))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let options = Options::parse(std::env::args().skip(1))?;
    let path = if options.model.ends_with(".gguf") {
        options.model.clone().into()
    } else {
        known_model_path(&options.model)?
    };
    let started = Instant::now();
    let model = LocalModel::open(&path)?;
    let load_seconds = started.elapsed().as_secs_f64();
    model.set_prompt_lookup(options.lookup);
    let calls = agent_calls(&model, options.only.as_deref()).await?;
    model.set_prompt_lookup(true);
    if options.agent_calls_only {
        let line = serde_json::json!({
            "model": model.name(),
            "threads": std::env::var("REBOUND_THREADS").unwrap_or_else(|_| "physical cores".to_string()),
            "load_seconds": load_seconds,
            "agent_calls": calls,
            "peak_rss_mib": peak_rss_mib(),
        });
        println!("{line}");
        return Ok(());
    }
    // Cold calls are cold: no prompt states from disk until measured
    // below, nothing left of the agent calls in memory.
    model.set_prompt_state_dir(None);
    model.forget_cache();

    // The warm run: the conversation as an agent runs it.
    let mut requests = Vec::new();
    let mut warm = Vec::new();
    let mut conversation = vec![Message::user(format!(
        "Goal: make the failing Python tests pass.\n{REPO}"
    ))];
    let planner = ChatRequest {
        system: Some(PLANNER_SYSTEM.to_string()),
        messages: conversation.clone(),
        ..ChatRequest::new()
    }
    .response_schema("Plan", plan_schema())
    .max_tokens(200);
    let (plan_text, stats, seconds) = timed(&model, &planner).await?;
    requests.push(planner);
    warm.push((stats, seconds));
    conversation.push(Message::assistant(plan_text.clone()));
    let steps: Vec<String> = serde_json::from_str::<serde_json::Value>(&plan_text)?
        .get("steps")
        .and_then(|s| s.as_array())
        .map(|steps| {
            steps
                .iter()
                .filter_map(|s| s.get("description")?.as_str().map(str::to_string))
                .take(3)
                .collect()
        })
        .unwrap_or_default();
    for (i, step) in steps.iter().enumerate() {
        conversation.push(Message::user(format!(
            "Execute step {}: {step}\nShell result:\n{PYTEST_OUTPUT}",
            i + 1
        )));
        let executor = ChatRequest {
            system: Some(format!("{PLANNER_SYSTEM}\n\n{EXECUTOR_SYSTEM}")),
            messages: conversation.clone(),
            ..ChatRequest::new()
        }
        .response_schema("StepResult", executor_schema())
        .max_tokens(64);
        let (text, stats, seconds) = timed(&model, &executor).await?;
        requests.push(executor);
        warm.push((stats, seconds));
        conversation.push(Message::assistant(text));
    }

    // The cold run: the same requests, each after forgetting the cache
    // (the KV cache and the saved prompt states).
    let mut cold = Vec::new();
    for request in &requests {
        model.forget_cache();
        let (_, stats, seconds) = timed(&model, request).await?;
        cold.push((stats, seconds));
    }

    // A new process's first planner call, on the agent's own planner
    // text: without a stored state (it is stored), then with it.
    let states = std::env::temp_dir().join(format!("rebound-bench-states-{}", std::process::id()));
    model.set_prompt_state_dir(Some(states.clone()));
    let agent_planner = ChatRequest {
        system: Some(AGENT_PLANNER_SYSTEM.to_string()),
        messages: requests[0].messages.clone(),
        ..ChatRequest::new()
    }
    .response_schema("Plan", plan_schema())
    .max_tokens(200);
    model.forget_cache();
    let (stored_text, stored, stored_wall) = timed(&model, &agent_planner).await?;
    model.forget_cache();
    let (disk_text, disk, disk_wall) = timed(&model, &agent_planner).await?;
    model.set_prompt_state_dir(None);
    let _ = std::fs::remove_dir_all(&states);
    let disk_prefix = serde_json::json!({
        "prompt_tokens": disk.prompt_tokens,
        "system_tokens_from_disk": disk.disk_tokens,
        "prompt_seconds_without": stored.prompt_seconds,
        "prompt_seconds_with": disk.prompt_seconds,
        "wall_seconds_without": stored_wall,
        "wall_seconds_with": disk_wall,
        "same_answer": stored_text == disk_text,
    });

    // Drafting: the same answers with and without prompt lookup.
    let edit = ChatRequest::new()
        .system(EDITOR_SYSTEM)
        .message(Message::user(format!(
            "Change to make: `parse_expr` must also accept `%` as an operator.\n\
             The part to rewrite, def parse_expr of calc/parse.py:\n```python\n{PARSE_EXPR}```\n\
             Write the new code of this whole part in one ```python block."
        )))
        .max_tokens(400);
    let mut drafting = Vec::new();
    for (kind, request) in [("edit", &edit), ("planner", &requests[0])] {
        let mut pair = Vec::new();
        for on in [false, true] {
            model.set_prompt_lookup(on);
            model.forget_cache();
            let (text, stats, seconds) = timed(&model, request).await?;
            pair.push((text, stats, seconds));
        }
        let (plain, drafted) = (&pair[0], &pair[1]);
        drafting.push(serde_json::json!({
            "call": kind,
            "generated": drafted.1.generated_tokens,
            "plain_generation_tps": plain.1.generated_tokens as f64 / plain.1.generation_seconds,
            "drafted_generation_tps": drafted.1.generated_tokens as f64 / drafted.1.generation_seconds,
            "generation_speedup": plain.1.generation_seconds / drafted.1.generation_seconds,
            "wall_plain_seconds": plain.2,
            "wall_drafted_seconds": drafted.2,
            "drafted": drafted.1.draft_tokens,
            "accepted": drafted.1.accepted_draft_tokens,
            "verify_steps": drafted.1.verify_steps,
            "accepted_per_verify": drafted.1.accepted_draft_tokens as f64 / drafted.1.verify_steps.max(1) as f64,
            "same_answer": plain.0 == drafted.0,
        }));
    }
    model.set_prompt_lookup(true);

    let sum = |runs: &[(LocalStats, f64)], f: fn(&LocalStats) -> f64| -> f64 {
        runs.iter().map(|(s, _)| f(s)).sum()
    };
    let wall = |runs: &[(LocalStats, f64)]| -> f64 { runs.iter().map(|(_, w)| w).sum() };
    let cold_prompt_tokens = sum(&cold, |s| (s.prompt_tokens - s.reused_tokens) as f64);
    let cold_prompt_seconds = sum(&cold, |s| s.prompt_seconds);
    let warm_prompt_seconds = sum(&warm, |s| s.prompt_seconds);
    let generated =
        sum(&cold, |s| s.generated_tokens as f64) + sum(&warm, |s| s.generated_tokens as f64);
    let generation_seconds =
        sum(&cold, |s| s.generation_seconds) + sum(&warm, |s| s.generation_seconds);
    let line = serde_json::json!({
        "model": model.name(),
        "threads": std::env::var("REBOUND_THREADS").unwrap_or_else(|_| "physical cores".to_string()),
        "load_seconds": load_seconds,
        "calls": requests.len(),
        "prompt_tokens": sum(&warm, |s| s.prompt_tokens as f64),
        "reused_prompt_tokens_warm": sum(&warm, |s| s.reused_tokens as f64),
        "prompt_tokens_per_second": cold_prompt_tokens / cold_prompt_seconds,
        "generation_tokens_per_second": generated / generation_seconds,
        "cold_prompt_seconds": cold_prompt_seconds,
        "warm_prompt_seconds": warm_prompt_seconds,
        "prefix_reuse_prompt_speedup": cold_prompt_seconds / warm_prompt_seconds,
        "cold_total_seconds": wall(&cold),
        "warm_total_seconds": wall(&warm),
        "prefix_reuse_total_speedup": wall(&cold) / wall(&warm),
        "per_call_warm": warm.iter().map(|(s, w)| serde_json::json!({
            "prompt_tokens": s.prompt_tokens, "reused": s.reused_tokens,
            "restored": s.restored_tokens,
            "drafted": s.draft_tokens, "accepted_drafts": s.accepted_draft_tokens,
            "verify_steps": s.verify_steps,
            "prompt_seconds": s.prompt_seconds, "generated": s.generated_tokens,
            "generation_seconds": s.generation_seconds, "grammar_fallbacks": s.grammar_fallbacks,
            "wall_seconds": w})).collect::<Vec<_>>(),
        "prompt_lookup": drafting,
        "prompt_state_on_disk": disk_prefix,
        "same_answers_warm_and_cold": warm.iter().zip(&cold).all(|(w, c)| w.0.generated_tokens == c.0.generated_tokens),
        "agent_calls": calls,
        "peak_rss_mib": peak_rss_mib(),
    });
    println!("{line}");
    Ok(())
}
