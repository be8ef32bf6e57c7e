//! The eval's results for people (a line as each task ends, a table and
//! totals) and for programs (one JSON document). The text is plain: a
//! terminal front escapes what it prints (task notes quote commands'
//! output).

use std::collections::BTreeMap;
use std::time::Duration;

use rebound_protocol::human_duration;
use serde::Serialize;

use super::TaskResult;

/// The suite's numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Tasks judged (errors included).
    pub tasks: usize,
    /// Solved by the task's own check.
    pub solved: usize,
    /// The agent said it finished, with evidence (exit 0).
    pub claimed: usize,
    /// Claimed but not solved: the first number to read. Each got past
    /// the agent's own checks: a check too weak to prove the goal.
    pub false_successes: usize,
    /// The agent finished without evidence (exit 4): no claim of success,
    /// but a finish a user must check by hand.
    pub unverified: usize,
    /// Of those, the ones the task's check refutes: work the agent thought
    /// done and could not verify.
    pub unverified_not_solved: usize,
    /// Tasks that could not be run.
    pub errors: usize,
    /// Model calls.
    pub model_calls: u64,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// The agents' time, in milliseconds.
    pub agent_ms: u64,
    /// The model calls' time, in milliseconds.
    pub model_ms: u64,
    /// The median of the model time of the solved tasks, in milliseconds
    /// (0 when none was solved).
    pub median_model_ms_per_solved: u64,
    /// The median of the model calls of the solved tasks (0 when none
    /// was solved).
    pub median_calls_per_solved: u64,
    /// The largest planner prompt of any task, in tokens.
    pub max_planner_prompt_tokens: u64,
    /// Runs that spent more than half their time after their own checks
    /// all passed: they knew they were done and went on.
    pub mostly_after_pass: usize,
    /// Runs that spent more than half their time limit after their own
    /// checks all passed: the measure of a run that knew it was
    /// done and went on (`mostly_after_pass` is the stricter one, by the
    /// run's own time).
    #[serde(default)]
    pub over_half_budget_after_pass: usize,
    /// The eval's own time per task (copy, git, checks), on average, in
    /// milliseconds.
    pub overhead_ms_per_task: u64,
}

impl Totals {
    /// The totals of `results`.
    pub fn of(results: &[TaskResult]) -> Totals {
        let overhead: u64 = results.iter().map(|r| r.overhead_ms).sum();
        Totals {
            tasks: results.len(),
            solved: results.iter().filter(|r| r.solved).count(),
            claimed: results.iter().filter(|r| r.claimed).count(),
            false_successes: results.iter().filter(|r| r.false_success).count(),
            unverified: results.iter().filter(|r| r.unverified).count(),
            unverified_not_solved: results.iter().filter(|r| r.unverified && !r.solved).count(),
            errors: results.iter().filter(|r| r.error.is_some()).count(),
            model_calls: results.iter().map(|r| r.model_calls).sum(),
            input_tokens: results.iter().map(|r| r.input_tokens).sum(),
            output_tokens: results.iter().map(|r| r.output_tokens).sum(),
            agent_ms: results.iter().map(|r| r.agent_ms).sum(),
            model_ms: results.iter().map(|r| r.model_ms).sum(),
            median_model_ms_per_solved: median(
                results
                    .iter()
                    .filter(|r| r.solved)
                    .map(|r| r.model_ms)
                    .collect(),
            ),
            median_calls_per_solved: median(
                results
                    .iter()
                    .filter(|r| r.solved)
                    .map(|r| r.model_calls)
                    .collect(),
            ),
            max_planner_prompt_tokens: results
                .iter()
                .map(|r| r.planner_prompt_tokens)
                .max()
                .unwrap_or(0),
            mostly_after_pass: results
                .iter()
                .filter(|r| r.after_pass_ms.is_some_and(|after| after * 2 > r.agent_ms))
                .count(),
            over_half_budget_after_pass: results
                .iter()
                .filter(|r| {
                    r.budget_ms > 0 && r.after_pass_ms.is_some_and(|after| after * 2 > r.budget_ms)
                })
                .count(),
            overhead_ms_per_task: overhead / u64::try_from(results.len().max(1)).unwrap_or(1),
        }
    }
}

/// The median of `values` (the lower middle one of an even count; 0 for
/// none).
fn median(mut values: Vec<u64>) -> u64 {
    values.sort_unstable();
    match values.len() {
        0 => 0,
        n => values[(n - 1) / 2],
    }
}

/// The JSON document: every task, then the totals.
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// `agent` or `reference`.
    pub mode: &'a str,
    /// The model, when given.
    pub model: Option<&'a str>,
    /// One result per task.
    pub tasks: &'a [TaskResult],
    /// The numbers.
    pub totals: Totals,
    /// The numbers of each split (`dev`, `test`), when the tasks have
    /// splits: the test split's are the ones to quote.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub splits: BTreeMap<String, Totals>,
}

/// The totals of each split of `results` (empty when no task has one).
pub fn split_totals(results: &[TaskResult]) -> BTreeMap<String, Totals> {
    let mut splits: BTreeMap<String, Vec<TaskResult>> = BTreeMap::new();
    for result in results.iter().filter(|r| !r.split.is_empty()) {
        splits
            .entry(result.split.clone())
            .or_default()
            .push(result.clone());
    }
    splits
        .into_iter()
        .map(|(split, results)| (split, Totals::of(&results)))
        .collect()
}

/// A task's name as the table shows it: with its split (`test/calc`).
pub fn display_name(result: &TaskResult) -> String {
    if result.split.is_empty() {
        result.task.clone()
    } else {
        format!("{}/{}", result.split, result.task)
    }
}

/// A task's result in one word.
pub fn outcome(result: &TaskResult) -> &'static str {
    if result.error.is_some() {
        "ERROR"
    } else if result.false_success {
        "FALSE SUCCESS"
    } else if result.solved {
        "solved"
    } else if result.unverified {
        "unverified, not solved"
    } else {
        "not solved"
    }
}

/// Why a task came out as it did, in one line: the error, or the
/// verdict and the agent's stop reason.
pub fn note(result: &TaskResult) -> String {
    let note = match (&result.error, &result.stop) {
        (Some(error), _) => error.clone(),
        (None, Some(stop)) => format!("{}; agent: {stop}", result.verdict),
        (None, None) => result.verdict.clone(),
    };
    note.replace('\n', " ")
}

/// A task's line as it ends: what came of it, why, and what it cost.
pub fn progress_line(result: &TaskResult) -> String {
    format!(
        "{:13} {}: {} ({} model calls in {}, {})",
        outcome(result),
        display_name(result),
        cut(&note(result), 160),
        result.model_calls,
        human_duration(Duration::from_millis(result.model_ms)),
        human_duration(Duration::from_millis(result.wall_ms))
    )
}

/// The table's lines: a header, one row per task, the totals of each
/// split (when the tasks have splits), then of all.
pub fn table(results: &[TaskResult]) -> Vec<String> {
    let width = results
        .iter()
        .map(|r| display_name(r).chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 32);
    let mut lines = vec![format!(
        "{:width$}  {:22}  {:7}  {:>4}  {:>5}  {:>13}  {:>7}  {:>9}  NOTE",
        "TASK", "RESULT", "CLAIMED", "EXIT", "CALLS", "TOKENS IN/OUT", "TIME", "+/-"
    )];
    for r in results {
        let note = note(r);
        lines.push(format!(
            "{:width$}  {:22}  {:7}  {:>4}  {:>5}  {:>13}  {:>7}  {:>9}  {}",
            cut(&display_name(r), width),
            outcome(r),
            if r.claimed { "yes" } else { "no" },
            r.exit_code
                .map_or_else(|| "-".to_string(), |c| c.to_string()),
            r.model_calls,
            format!("{}/{}", r.input_tokens, r.output_tokens),
            human_duration(Duration::from_millis(r.wall_ms)),
            format!("+{}/-{}", r.lines_added, r.lines_removed),
            cut(&note, 120)
        ));
    }
    let splits = split_totals(results);
    for (split, totals) in &splits {
        lines.push(format!("{split}: {}", totals_line(totals)));
    }
    let all = totals_line(&Totals::of(results));
    lines.push(if splits.is_empty() {
        all
    } else {
        format!("all: {all}")
    });
    lines
}

/// The totals in one line.
fn totals_line(t: &Totals) -> String {
    format!(
        "solved {}/{} | claimed {} | false successes {} | unverified finishes {} ({} not solved) | errors {} | model calls {} (median {} per solved task) | model time {} (median {} per solved task) | tokens {}/{} (planner prompt at most {}) | agent time {} ({} runs over half of it after their checks passed, {} over half their time limit) | eval overhead {} per task",
        t.solved,
        t.tasks,
        t.claimed,
        t.false_successes,
        t.unverified,
        t.unverified_not_solved,
        t.errors,
        t.model_calls,
        t.median_calls_per_solved,
        human_duration(Duration::from_millis(t.model_ms)),
        human_duration(Duration::from_millis(t.median_model_ms_per_solved)),
        t.input_tokens,
        t.output_tokens,
        t.max_planner_prompt_tokens,
        human_duration(Duration::from_millis(t.agent_ms)),
        t.mostly_after_pass,
        t.over_half_budget_after_pass,
        human_duration(Duration::from_millis(t.overhead_ms_per_task)),
    )
}

/// `text` cut to `max` characters, with an ellipsis when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(name: &str, solved: bool, claimed: bool) -> TaskResult {
        TaskResult {
            task: name.to_string(),
            solved,
            claimed,
            false_success: claimed && !solved,
            verdict: if solved {
                "check passed"
            } else {
                "check failed (exit 1)"
            }
            .to_string(),
            model_calls: 2,
            model_ms: if solved { 4_000 } else { 9_000 },
            overhead_ms: 300,
            ..TaskResult::default()
        }
    }

    #[test]
    fn totals_count_false_successes_apart() {
        let unverified = |name: &str, solved: bool| TaskResult {
            unverified: true,
            ..result(name, solved, false)
        };
        let results = [
            TaskResult {
                agent_ms: 10_000,
                after_pass_ms: Some(6_000),
                budget_ms: 120_000,
                ..result("a", true, true)
            },
            result("b", false, true),
            result("c", false, false),
            unverified("d", false),
            TaskResult {
                agent_ms: 10_000,
                after_pass_ms: Some(4_000),
                ..unverified("e", true)
            },
        ];
        let totals = Totals::of(&results);
        assert_eq!(totals.mostly_after_pass, 1, "a, not e");
        assert_eq!(
            totals.over_half_budget_after_pass, 0,
            "a's 6 s are not half of its 120 s limit"
        );
        let long = TaskResult {
            agent_ms: 120_000,
            after_pass_ms: Some(70_000),
            budget_ms: 120_000,
            ..result("f", false, false)
        };
        assert_eq!(Totals::of(&[long]).over_half_budget_after_pass, 1);
        assert_eq!(
            (totals.solved, totals.claimed, totals.false_successes),
            (2, 2, 1)
        );
        assert_eq!((totals.unverified, totals.unverified_not_solved), (2, 1));
        assert_eq!(totals.model_calls, 10);
        assert_eq!(totals.median_calls_per_solved, 2);
        assert_eq!(totals.model_ms, 2 * 4_000 + 3 * 9_000);
        assert_eq!(totals.median_model_ms_per_solved, 4_000);
        assert_eq!(median(vec![9, 1, 5, 3]), 3);
        assert_eq!(median(vec![]), 0);
        assert_eq!(totals.overhead_ms_per_task, 300);
        let lines = table(&results);
        assert!(lines[2].contains("FALSE SUCCESS"), "{lines:?}");
        assert!(lines[3].contains("not solved"));
        assert!(progress_line(&results[1]).starts_with("FALSE SUCCESS b: check failed"));
        assert!(lines[4].contains("unverified, not solved"), "{lines:?}");
        assert!(
            lines[6].starts_with(
                "solved 2/5 | claimed 2 | false successes 1 | unverified finishes 2 (1 not solved)"
            ),
            "{}",
            lines[6]
        );
    }

    #[test]
    fn each_split_gets_its_totals_before_those_of_all() {
        let split = |name: &str, split: &str, solved: bool| TaskResult {
            split: split.to_string(),
            ..result(name, solved, solved)
        };
        let results = [
            split("a", "dev", true),
            split("b", "dev", false),
            split("c", "test", true),
        ];
        let lines = table(&results);
        assert!(lines[1].starts_with("dev/a "), "{lines:?}");
        assert!(lines[3].starts_with("test/c "), "{lines:?}");
        assert!(lines[4].starts_with("dev: solved 1/2 |"), "{lines:?}");
        assert!(lines[5].starts_with("test: solved 1/1 |"), "{lines:?}");
        assert!(lines[6].starts_with("all: solved 2/3 |"), "{lines:?}");
        let splits = split_totals(&results);
        assert_eq!(splits["test"].solved, 1);
        assert!(split_totals(&[result("x", true, true)]).is_empty());
    }
}
