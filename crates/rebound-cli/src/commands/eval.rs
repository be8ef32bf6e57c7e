//! `rebound eval DIR...`: the agent on a task suite, judged by each task's
//! own check (see `rebound_eval`).

use std::io::IsTerminal;
use std::time::Duration;

use rebound_eval::agent::AgentOptions;
use rebound_eval::report::{progress_line, split_totals, table, Report, Totals};
use rebound_eval::{evaluate, task, EvalOptions, Mode};

use crate::cli::{EvalArgs, GlobalArgs};
use crate::exit::{usage, Exit};
use crate::render::{out, out_text, sanitize};

/// Runs the suite and reports. Exit code 0 when every task could be run
/// and no claim was false (with `--reference`: every task proven); 1
/// otherwise.
pub async fn eval(global: &GlobalArgs, args: EvalArgs) -> anyhow::Result<Exit> {
    if let Some(model) = &args.model {
        <rebound_llm::ModelSpec as std::str::FromStr>::from_str(model)
            .map_err(|e| usage(format!("--model: {e}")))?;
    }
    let tasks = task::discover(&args.paths);
    let mode = if args.reference {
        Mode::Reference
    } else {
        Mode::Agent(AgentOptions {
            exe: std::env::current_exe()
                .map_err(|e| anyhow::anyhow!("cannot find the rebound binary: {e}"))?,
            model: args.model.clone(),
            approval: args.approval.as_str().to_string(),
            max_iters: args.max_iters,
            workflow: args.workflow.map(|w| w.to_string()),
            timeout: Duration::from_secs(args.task_timeout),
        })
    };
    let options = EvalOptions {
        mode,
        check_timeout: Duration::from_secs(args.check_timeout),
        keep: args.keep,
    };
    let bar = progress_bar(tasks.len());
    let mut results = Vec::with_capacity(tasks.len());
    for task in &tasks {
        bar.set_message(if task.split.is_empty() {
            task.name.clone()
        } else {
            format!("{}/{}", task.split, task.name)
        });
        let result = evaluate(task, &options).await;
        let line = sanitize(&progress_line(&result)).into_owned();
        if bar.is_hidden() {
            eprintln!("{line}");
        } else {
            bar.println(line);
        }
        bar.inc(1);
        results.push(result);
    }
    bar.finish_and_clear();
    let totals = Totals::of(&results);
    if global.json {
        let report = Report {
            mode: if args.reference { "reference" } else { "agent" },
            model: args.model.as_deref(),
            tasks: &results,
            totals: totals.clone(),
            splits: split_totals(&results),
        };
        out(serde_json::to_string(&report)?);
    } else {
        for line in table(&results) {
            out_text(line);
        }
        for result in results.iter().filter(|r| r.kept.is_some()) {
            if let Some(dir) = &result.kept {
                out_text(format!(
                    "kept {}: {}",
                    result.task,
                    dir.join("ws").display()
                ));
            }
        }
    }
    let all_proven = !args.reference || totals.solved == totals.tasks;
    Ok(
        if totals.errors == 0 && totals.false_successes == 0 && all_proven {
            Exit::Success
        } else {
            Exit::Stopped
        },
    )
}

/// A progress bar on stderr when it is a terminal (hidden otherwise).
fn progress_bar(len: usize) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(u64::try_from(len).unwrap_or(u64::MAX));
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} tasks, {elapsed} — {msg}")
    {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}
