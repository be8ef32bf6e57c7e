#![doc = include_str!("../README.md")]
//!
//! - [`task`]: the suite's format (`task.toml`, `workspace/`,
//!   `solution.sh`) and its discovery;
//! - [`copy`]: a task's working copy (a temp git repository) and what
//!   changed in it;
//! - [`agent`]: the agent's run, as a child `rebound run --json`;
//! - [`shell`]: the eval's own commands (setup, check, reference fix);
//! - [`report`]: the totals and the JSON document.

pub mod agent;
pub mod copy;
pub mod report;
pub mod shell;
pub mod task;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rebound_agent::CheckReport;
use serde::Serialize;

use agent::{run_agent, AgentOptions, AgentRun};
use copy::{prepare, Changes};
use shell::bash;
use task::{Task, SOLUTION_FILE};

/// How the tasks are worked on.
#[derive(Debug, Clone)]
pub enum Mode {
    /// The agent works on each task.
    Agent(AgentOptions),
    /// Each task's reference fix (`solution.sh`) is applied instead: the
    /// check must fail before it and pass after it, which proves the task.
    Reference,
}

/// How each task is judged.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// Agent or reference.
    pub mode: Mode,
    /// Wall time of a check (and of a reference fix).
    pub check_timeout: Duration,
    /// Keep each task's temp dir.
    pub keep: bool,
}

/// One task's result.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TaskResult {
    /// The task's name.
    pub task: String,
    /// Its split (`dev` or `test`), empty when it is in neither.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub split: String,
    /// Its directory.
    pub dir: PathBuf,
    /// The task's check passed and no protected file changed.
    pub solved: bool,
    /// The agent said it finished, with evidence (exit code 0).
    pub claimed: bool,
    /// The agent finished without evidence (exit code 4): it said nothing
    /// verified its finish. Not a claim of success, and counted apart.
    pub unverified: bool,
    /// Claimed but not solved.
    pub false_success: bool,
    /// Why it is (not) solved, in a few words.
    pub verdict: String,
    /// The task could not be run (an invalid `task.toml`, a failed setup).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The agent's exit code (`None`: killed or not run).
    pub exit_code: Option<i32>,
    /// The agent's stop reason.
    pub stop: Option<String>,
    /// The agent's own checks verified its finish.
    pub verified: bool,
    /// The checks the agent used, and where it found them.
    pub agent_checks: Vec<CheckReport>,
    /// Model calls made.
    pub model_calls: u64,
    /// Their time, in milliseconds.
    pub model_ms: u64,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// The largest planner prompt of the run, in tokens (0: the planner
    /// model was not asked).
    pub planner_prompt_tokens: u64,
    /// The agent's time after its own checks all passed (to its end), in
    /// milliseconds: `None` when they did not pass at its end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_pass_ms: Option<u64>,
    /// The agent's time limit (`--task-timeout`), in milliseconds (0: no
    /// agent ran).
    #[serde(default)]
    pub budget_ms: u64,
    /// Wall time of the whole task, in milliseconds.
    pub wall_ms: u64,
    /// The agent's run (or the reference fix), in milliseconds.
    pub agent_ms: u64,
    /// Everything else: copying, git, the checks, in milliseconds.
    pub overhead_ms: u64,
    /// Lines added.
    pub lines_added: u64,
    /// Lines removed.
    pub lines_removed: u64,
    /// Files changed.
    pub files_changed: Vec<String>,
    /// Protected files (tests, check inputs) that were changed.
    pub protected_changed: Vec<String>,
    /// The end of the check's output.
    pub check_output: String,
    /// Reference mode: the check failed before the fix, as it must.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_before: Option<bool>,
    /// With `--keep`: the task's temp dir (the workspace is `ws/` in it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<PathBuf>,
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Works on `task` and judges it.
pub async fn evaluate(task: &Task, options: &EvalOptions) -> TaskResult {
    let started = Instant::now();
    let mut result = TaskResult {
        task: task.name.clone(),
        split: task.split.clone(),
        dir: task.dir.clone(),
        ..TaskResult::default()
    };
    if let Err(error) = judge(task, options, &mut result).await {
        result.verdict = "error".to_string();
        result.error = Some(error);
        result.solved = false;
        result.false_success = false;
    }
    result.wall_ms = millis(started.elapsed());
    result.overhead_ms = result.wall_ms.saturating_sub(result.agent_ms);
    result
}

async fn judge(task: &Task, options: &EvalOptions, result: &mut TaskResult) -> Result<(), String> {
    let spec = task.spec.as_ref().map_err(Clone::clone)?;
    let workdir = prepare(task, spec).await?;
    let task_dir = task.dir.to_string_lossy().to_string();
    let env = [("TASK_DIR", task_dir.as_str())];
    let log = workdir.log();
    let run = match &options.mode {
        Mode::Agent(agent) => {
            run_agent(&spec.goal, &workdir.ws, spec.budget.max_iters, agent, &log).await?
        }
        Mode::Reference => {
            let before = bash(
                &spec.check,
                &workdir.ws,
                &env,
                options.check_timeout,
                workdir.logs(),
            )
            .await
            .map_err(|e| format!("cannot run the check: {e}"))?;
            result.failed_before = Some(!before.success());
            let solution = task.dir.join(SOLUTION_FILE);
            if !solution.is_file() {
                return Err(format!("{}: no reference fix", solution.display()));
            }
            let command = format!("bash {}", shell::quote(&solution.to_string_lossy())?);
            let ran = bash(
                &command,
                &workdir.ws,
                &env,
                options.check_timeout,
                workdir.logs(),
            )
            .await
            .map_err(|e| format!("cannot run the reference fix: {e}"))?;
            AgentRun {
                exit_code: ran.exit_code,
                timed_out: ran.timed_out,
                stop: Some(format!("solution.sh: {}", ran.status())),
                duration: ran.duration,
                ..AgentRun::default()
            }
        }
    };
    result.agent_ms = millis(run.duration);
    result.exit_code = run.exit_code;
    result.claimed = run.claimed();
    result.unverified = matches!(options.mode, Mode::Agent(_)) && run.unverified();
    result.stop = if run.timed_out {
        Some(format!(
            "killed at the time limit ({:.0} s)",
            run.duration.as_secs_f64()
        ))
    } else {
        run.stop.clone()
    };
    result.verified = run.verified;
    result.agent_checks = run.checks.clone();
    result.model_calls = run.model_calls;
    result.model_ms = run.model_ms;
    result.input_tokens = run.input_tokens;
    result.output_tokens = run.output_tokens;
    result.planner_prompt_tokens = run.planner_prompt_tokens;
    result.after_pass_ms = run.after_pass().map(millis);
    if let Mode::Agent(agent) = &options.mode {
        result.budget_ms = millis(agent.timeout);
    }

    let after = workdir.snapshot().await?;
    let Changes {
        files,
        added,
        removed,
    } = workdir.changes(&after).await?;
    result.protected_changed = protected(&spec.protected, &files)?;
    result.files_changed = files;
    result.lines_added = added;
    result.lines_removed = removed;

    let check = bash(
        &spec.check,
        &workdir.ws,
        &env,
        options.check_timeout,
        workdir.logs(),
    )
    .await
    .map_err(|e| format!("cannot run the check: {e}"))?;
    result.check_output = check.tail.clone();
    result.solved = check.success()
        && result.protected_changed.is_empty()
        && result.failed_before != Some(false);
    result.false_success = result.claimed && !result.solved;
    result.verdict = if result.failed_before == Some(false) {
        "invalid task: the check passes before any change".to_string()
    } else if !result.protected_changed.is_empty() {
        format!(
            "changed protected files: {}",
            result.protected_changed.join(", ")
        )
    } else if check.success() {
        "check passed".to_string()
    } else {
        format!("check failed ({})", check.status())
    };
    if options.keep {
        result.kept = Some(workdir.keep());
    }
    Ok(())
}

/// The files of `changed` that a `protected` pattern matches.
fn protected(patterns: &[String], changed: &[String]) -> Result<Vec<String>, String> {
    let mut builder = globset::GlobSetBuilder::new();
    for pattern in patterns {
        let glob = globset::GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("protected pattern {pattern:?}: {e}"))?;
        builder.add(glob);
    }
    let set = builder
        .build()
        .map_err(|e| format!("protected patterns: {e}"))?;
    Ok(changed
        .iter()
        .filter(|f| set.is_match(f.as_str()))
        .cloned()
        .collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn protected_patterns_match_within_and_across_directories() {
        let changed = vec![
            "test_calc.py".to_string(),
            "calc.py".to_string(),
            "logs/a/b.log".to_string(),
            "pkg/test_x.py".to_string(),
        ];
        let hit = protected(&["test_*.py".into(), "logs/**".into()], &changed).unwrap();
        assert_eq!(
            hit,
            ["test_calc.py", "logs/a/b.log"],
            "`*` does not cross `/`"
        );
        let hit = protected(&["**/test_*.py".into()], &changed).unwrap();
        assert_eq!(hit, ["test_calc.py", "pkg/test_x.py"]);
    }
}
