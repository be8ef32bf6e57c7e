//! Running the agent on a task: this same `rebound` binary, `run --json`
//! in the task's copy, as a child process (a crash or a hang of the agent
//! is a result, not the eval's end). Its JSON lines are read as they come:
//! the model calls and their tokens, and the closing summary.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use rebound_agent::CheckReport;
use rebound_protocol::{AgentEvent, Event, ModelEvent, Payload};
use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The file, beside the agent's stderr log, that keeps its JSON lines.
pub const EVENTS_FILE: &str = "events.jsonl";

/// How the agent is run on every task.
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// The `rebound` binary, found once when the eval starts (a binary
    /// rebuilt during a long eval then runs the later tasks, instead of a
    /// path that no longer exists).
    pub exe: std::path::PathBuf,
    /// `--model`, when given.
    pub model: Option<String>,
    /// `--approval`.
    pub approval: String,
    /// `--max-iters` for every task, over the task's own budget.
    pub max_iters: Option<u32>,
    /// `--workflow`, when given.
    pub workflow: Option<String>,
    /// Wall time before the run is killed.
    pub timeout: Duration,
}

/// What the agent's run gave.
#[derive(Debug, Clone, Default)]
pub struct AgentRun {
    /// Its exit code (`None`: killed).
    pub exit_code: Option<i32>,
    /// Killed at the timeout.
    pub timed_out: bool,
    /// The stop reason, in words.
    pub stop: Option<String>,
    /// Whether its checks verified the finish.
    pub verified: bool,
    /// The checks it used.
    pub checks: Vec<CheckReport>,
    /// Model calls made.
    pub model_calls: u64,
    /// Their time, in milliseconds.
    pub model_ms: u64,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// The largest planner prompt, in tokens.
    pub planner_prompt_tokens: u64,
    /// How long it ran.
    pub duration: Duration,
    /// When (from its start) every one of its checks last began to pass:
    /// `None` when they never all passed, or a later run of them failed.
    pub passing_since: Option<Duration>,
}

impl AgentRun {
    /// Whether the agent said it finished, with evidence: exit code 0.
    pub fn claimed(&self) -> bool {
        self.exit_code == Some(0)
    }

    /// Whether the agent finished without evidence: exit code 4, a finish
    /// it said nothing verified.
    pub fn unverified(&self) -> bool {
        self.exit_code == Some(4)
    }

    /// How long the run went on after its checks all passed (and stayed
    /// passing): time a run that knew it was done did not need.
    pub fn after_pass(&self) -> Option<Duration> {
        self.passing_since
            .map(|since| self.duration.saturating_sub(since))
    }
}

/// One line of `rebound run --json`, as far as the eval reads it.
/// The closing `{"summary": ...}` line.
#[derive(Debug, Deserialize)]
struct SummaryLine {
    summary: Summary,
}

/// The summary of the run.
#[derive(Debug, Default, Deserialize)]
struct Summary {
    #[serde(default)]
    stop: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    verified: bool,
    #[serde(default)]
    checks: Vec<CheckReport>,
}

/// Runs `rebound run <goal>` in `ws`, its stderr appended to `log` and
/// its JSON lines (every event, then the summary) to [`EVENTS_FILE`] beside
/// it, for a look afterwards (`rebound eval --keep`).
pub async fn run_agent(
    goal: &str,
    ws: &Path,
    max_iters: Option<u32>,
    options: &AgentOptions,
    log: &Path,
) -> Result<AgentRun, String> {
    let stderr = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let mut command = tokio::process::Command::new(&options.exe);
    command
        .arg("run")
        .arg(goal)
        .arg("--workspace")
        .arg(ws)
        .args(["--json", "--no-input", "--approval", &options.approval])
        .current_dir(ws)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .process_group(0)
        .kill_on_drop(true);
    if let Some(model) = &options.model {
        command.args(["--model", model]);
    }
    if let Some(workflow) = &options.workflow {
        command.args(["--workflow", workflow]);
    }
    if let Some(max_iters) = options.max_iters.or(max_iters) {
        command.args(["--max-iters", &max_iters.to_string()]);
    }
    let events_path = log.with_file_name(EVENTS_FILE);
    let mut events = tokio::fs::File::create(&events_path)
        .await
        .map_err(|e| format!("cannot create {}: {e}", events_path.display()))?;
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start `rebound run`: {e}"))?;
    let mut run = AgentRun::default();
    let stdout = child.stdout.take();
    let read = async {
        if let Some(stdout) = stdout {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                read_line(&line, started.elapsed(), &mut run);
                // The log is for people; a full disk must not end the run.
                let _ = events.write_all(line.as_bytes()).await;
                let _ = events.write_all(b"\n").await;
            }
        }
        child.wait().await
    };
    match tokio::time::timeout(options.timeout, read).await {
        Ok(status) => {
            run.exit_code = status
                .map_err(|e| format!("cannot wait for `rebound run`: {e}"))?
                .code();
        }
        Err(_) => {
            if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            let _ = child.wait().await;
            run.timed_out = true;
        }
    }
    run.duration = started.elapsed();
    Ok(run)
}

/// Folds one JSON line of the run, read `at` that time from its start,
/// into `run`: its model calls, plans and check runs (decoded as
/// [`Event`]s), and the closing summary; other output is ignored.
fn read_line(line: &str, at: Duration, run: &mut AgentRun) {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
        return;
    };
    if let Ok(SummaryLine { summary }) = SummaryLine::deserialize(&value) {
        run.stop = summary.stop.or(summary.error);
        run.verified = summary.verified;
        run.checks = summary.checks;
        return;
    }
    let Event::Custom { payload, .. } = Event::decode(value) else {
        return;
    };
    match payload {
        Payload::Model(ModelEvent::ModelCall(call)) => {
            run.model_calls += 1;
            run.model_ms += call.duration_ms;
            run.input_tokens += call.input_tokens;
            run.output_tokens += call.output_tokens;
        }
        Payload::Agent(AgentEvent::Plan { prompt_tokens, .. }) => {
            run.planner_prompt_tokens = run.planner_prompt_tokens.max(prompt_tokens);
        }
        Payload::Agent(AgentEvent::Checks { results, .. }) => {
            let pass = !results.is_empty() && results.iter().all(|r| r.passed);
            run.passing_since = match (pass, run.passing_since) {
                (true, since) => since.or(Some(at)),
                (false, _) => None,
            };
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_calls_and_the_summary_are_read_from_the_json_lines() {
        let mut run = AgentRun::default();
        for line in [
            r#"{"event":"run_started","thread_id":"t"}"#,
            r#"{"event":"custom","node":"planner","step":1,"payload":{"model_call":{"model":"m","input_tokens":100,"output_tokens":20,"duration_ms":1}}}"#,
            r#"{"event":"custom","node":"executor","step":2,"payload":{"tool_output":{"stream":"stdout","line":"x"}}}"#,
            r#"{"event":"custom","node":"reviewer","step":3,"payload":{"model_call":{"model":"m","input_tokens":50,"output_tokens":5,"duration_ms":2}}}"#,
            r#"{"event":"custom","node":"planner","step":4,"payload":{"plan":{"steps":[],"repair":false,"prompt_tokens":700}}}"#,
            r#"{"event":"custom","node":"planner","step":5,"payload":{"plan":{"steps":[],"repair":true,"prompt_tokens":650}}}"#,
            r#"{"event":"custom_from_the_future","payload":{"model_call":{"input_tokens":9}}}"#,
            "not json at all",
            r#"{"summary":{"status":"finished","stop":"finished (unverified)","verified":false,"checks":[]}}"#,
        ] {
            read_line(line, Duration::from_secs(1), &mut run);
        }
        assert_eq!(
            (run.model_calls, run.input_tokens, run.output_tokens),
            (2, 150, 25)
        );
        assert_eq!(run.model_ms, 3, "the calls' durations added");
        assert_eq!(run.planner_prompt_tokens, 700, "the largest");
        assert_eq!(run.stop.as_deref(), Some("finished (unverified)"));
        assert!(!run.verified);
        assert_eq!(run.passing_since, None, "no check ran");
    }

    #[test]
    fn the_time_after_the_checks_pass_is_counted_from_when_they_last_began_to() {
        let checks = |passed: bool| {
            format!(
                r#"{{"event":"custom","node":"reviewer","step":3,"payload":{{"checks":{{"when":"after_change","results":[{{"command":"make test","passed":{passed},"exit_code":{},"output":"","duration_ms":1}}]}}}}}}"#,
                if passed { 0 } else { 1 }
            )
        };
        let mut run = AgentRun::default();
        read_line(&checks(false), Duration::from_secs(5), &mut run);
        assert_eq!(run.passing_since, None);
        read_line(&checks(true), Duration::from_secs(10), &mut run);
        read_line(&checks(true), Duration::from_secs(20), &mut run);
        assert_eq!(
            run.passing_since,
            Some(Duration::from_secs(10)),
            "since the first pass"
        );
        run.duration = Duration::from_secs(50);
        assert_eq!(run.after_pass(), Some(Duration::from_secs(40)));
        read_line(&checks(false), Duration::from_secs(30), &mut run);
        assert_eq!(run.after_pass(), None, "a later failure resets it");
    }
}
