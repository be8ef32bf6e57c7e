//! Script steps end to end: a scripted model, the real shell and file
//! tools, temp workspaces, SQLite. The model writes a program in a fenced
//! block; the harness runs each candidate in a scratch copy, judges it by
//! the checks there, and writes only the kept candidate's files into the
//! workspace.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{deps, review, run, saver};
use rebound_agent::checks::{Check, CheckSource};
use rebound_agent::events::AgentEvent;
use rebound_agent::pev::{self, PevState};
use rebound_agent::{AgentConfig, StepKind, StopReason};
use rebound_graph::CompiledGraph;
use rebound_llm::{ScriptedModel, Step};
use rebound_tools::approval::ApprovalMode;

const DATA: &str = "item,qty\npens,2\ncups,3\npens,4\n";
const CHECK: &str = "diff <(printf 'cups: 3\\npens: 6\\n') totals.txt";

fn workspace(dir: &Path) -> std::path::PathBuf {
    let work = dir.join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("orders.csv"), DATA).unwrap();
    work
}

fn graph(model: &Arc<ScriptedModel>, work: &Path, dir: &Path) -> CompiledGraph<PevState> {
    let config = AgentConfig {
        edit_candidates: 2,
        ..AgentConfig::default()
    };
    let deps = deps(model.clone(), work, ApprovalMode::Auto, Vec::new(), config);
    pev::build(deps).unwrap().with_checkpointer(saver(dir))
}

fn script_plan() -> Step {
    Step::json(serde_json::json!({"steps": [{
        "kind": "script",
        "description": "Sum qty per item of orders.csv into totals.txt as `item: total` lines sorted by item",
    }]}))
}

fn program(code: &str) -> Step {
    Step::text(format!("```python\n{code}```"))
}

/// Runs the goal "Write totals.txt from orders.csv" with the check that
/// judges it to its end, and checks that it finished, verified, with the
/// right totals and every scripted answer used; the run's events.
async fn finish_totals(model: &Arc<ScriptedModel>, work: &Path, dir: &Path) -> Vec<AgentEvent> {
    let graph = graph(model, work, dir);
    let input = PevState::new("Write totals.txt from orders.csv", 6)
        .with_checks(vec![Check::new(CHECK, CheckSource::Flag)]);
    let (state, events) = run(&graph, input).await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(
        std::fs::read_to_string(work.join("totals.txt")).unwrap(),
        "cups: 3\npens: 6\n"
    );
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    events
}

const WRONG: &str = "open('totals.txt', 'w').write('pens: 6\\n')\n";
const RIGHT: &str = "import csv\nfrom collections import Counter\nc = Counter()\nfor row in csv.DictReader(open('orders.csv')):\n    c[row['item']] += int(row['qty'])\nwith open('totals.txt', 'w') as f:\n    for k in sorted(c):\n        f.write(f'{k}: {c[k]}\\n')\nprint('wrote', len(c))\n";

/// The greedy program writes a wrong report in its scratch copy, which
/// the checks reject; the sampled one passes there, and only its file is
/// written into the workspace: the run finishes verified.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_candidate_the_checks_pass_in_a_scratch_copy_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([
        // No planner call: a file computed from named data is the
        // harness's one script step (`rebound_agent::artifact_plan`).
        program(WRONG).expect_user_contains("orders.csv: (4 lines)\nitem,qty"),
        // The next candidate is shown the check that failed on what the
        // wrong program wrote, and its output.
        program(RIGHT)
            .expect_user_contains("a check of the goal still fails")
            .expect_user_contains("< cups: 3"),
    ]));
    let events = finish_totals(&model, &work, dir.path()).await;
    let outputs: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Step {
                step,
                success: Some(true),
                output: Some(output),
                ..
            } if step.kind == StepKind::Script => Some(output.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(outputs.len(), 1, "{events:?}");
    assert!(outputs[0].contains("wrote totals.txt"), "{}", outputs[0]);
    assert!(
        outputs[0].contains("candidate 1: ran, wrote totals.txt; failing"),
        "{}",
        outputs[0]
    );
    assert!(
        !work.join(".rebound/scripts").exists(),
        "the program stays out of the workspace"
    );
}

/// A program that fails in every candidate writes nothing: the step fails
/// with the error, and the planner gets it (repair mode).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_that_fails_writes_nothing_and_the_planner_sees_why() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let crash = "open('totals.txt', 'w').write('half')\nraise SystemExit('no column qtty')\n";
    let model = Arc::new(ScriptedModel::new([
        // The harness's own first plan (as above).
        program(crash),
        // The next candidate is shown the failed program and its error.
        program(crash)
            .expect_user_contains("The program failed:\n")
            .expect_user_contains("no column qtty"),
        program("```"),
        Step::json(serde_json::json!({"steps": [{"description": "look", "command": "true"}]}))
            .expect_user_contains("no column qtty"),
    ]));
    let graph = graph(&model, &work, dir.path());
    let input = PevState::new("Write totals.txt from orders.csv", 1)
        .with_checks(vec![Check::new(CHECK, CheckSource::Flag)]);
    let (state, _) = run(&graph, input).await;
    assert_eq!(model.remaining(), 0);
    assert!(
        !work.join("totals.txt").exists(),
        "a failed program writes nothing"
    );
    assert_ne!(pev::stop_reason(&state), StopReason::Finished);
}

/// A program that binds an imported module to a value of its own fails
/// where it next uses the module; the next candidate is told which line
/// bound it (the traceback names only the line that uses it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_module_a_program_bound_again_is_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let shadowing = "import csv\nfrom collections import Counter\nc = Counter()\nfor line in open('orders.csv'):\n    row = next(csv.reader([line]))\n    csv = row[0]\n    c[csv] += 1\n";
    let model = Arc::new(ScriptedModel::new([
        program(shadowing),
        program(RIGHT)
            .expect_user_contains("AttributeError: 'str' object has no attribute 'reader'")
            .expect_user_contains(
                "`csv` is imported on line 1, but line 6 (`csv = row[0]`) binds `csv` to another value",
            ),
    ]));
    finish_totals(&model, &work, dir.path()).await;
}

/// The table a program writes without the header the goal gives and out
/// of the goal's order is finished by the harness (the header added, the
/// rows sorted) before the checks judge it; the rows are the program's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_goal_s_table_is_finished_to_its_header_and_order() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let goal = "From orders.csv, write totals.csv with the header `item,qty`, largest qty first.";
    let table = rebound_agent::checks::table::table_goal(goal, &work).unwrap();
    let check = rebound_agent::checks::table::table_check(&table);
    let model = Arc::new(ScriptedModel::new([
        program("open('totals.csv', 'w').write('cups,3\\npens,6\\n')\n"),
        review("finish", "the totals are written", &[]),
    ]));
    let graph = graph(&model, &work, dir.path());
    let input = PevState::new(goal, 2).with_checks(vec![Check::new(
        check,
        CheckSource::Clause {
            rule: "table".into(),
            proves: false,
        },
    )]);
    let (_, events) = run(&graph, input).await;
    assert_eq!(
        std::fs::read_to_string(work.join("totals.csv")).unwrap(),
        "item,qty\npens,6\ncups,3\n"
    );
    let said = events.iter().any(|e| match e {
        AgentEvent::Step {
            output: Some(output),
            ..
        } => output.contains("rebound finished totals.csv as the goal's table: the header line the goal gives added; rows sorted"),
        _ => false,
    });
    assert!(said, "{events:?}");
}

/// With no check to judge a program, one that fails is not the end of
/// the step: the model is shown its error and writes it again, and the
/// program that runs to its end is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_check_a_program_that_fails_is_asked_again_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let crash = "rows = list(csv.DictReader(open('orders.csv')))\nprint(rows[9])\n";
    let model = Arc::new(ScriptedModel::new([
        script_plan(),
        program(crash),
        program(RIGHT).expect_user_contains("IndexError: list index out of range"),
        review("finish", "the totals are written", &[]),
    ]));
    let graph = graph(&model, &work, dir.path());
    let input = PevState::new("Write totals.txt from orders.csv", 6);
    let (state, _) = run(&graph, input).await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(
        std::fs::read_to_string(work.join("totals.txt")).unwrap(),
        "cups: 3\npens: 6\n"
    );
    assert_eq!(pev::stop_reason(&state), StopReason::FinishedUnverified);
}

/// Once every check passes after the program wrote its file, an observe
/// step left in the plan is not run: it only reads, the checks have
/// judged, and the reviewer is asked as after the plan's last step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn observe_steps_left_after_every_check_passes_are_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let model = Arc::new(ScriptedModel::new([
        Step::json(serde_json::json!({"steps": [
            {"kind": "script", "description": "Sum qty per item of orders.csv into totals.txt"},
            {"kind": "observe", "description": "Show the report", "command": "cat totals.txt"},
        ]})),
        program(RIGHT),
        review("continue", "the report is written", &[])
            .expect_user_contains("No step of the plan is left"),
    ]));
    let graph = graph(&model, &work, dir.path());
    let input = PevState::new("Write totals.txt from orders.csv", 6)
        .with_checks(vec![Check::new(CHECK, CheckSource::Agent)]);
    let (state, events) = run(&graph, input).await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    let kinds: Vec<StepKind> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Step {
                step,
                success: Some(_),
                ..
            } => Some(step.kind),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        vec![StepKind::Script],
        "the observe step did not run"
    );
}

/// The goal's artifact is a program a check runs (`bash totals.sh`): a
/// candidate is saved as that file, not run as a generator, and the
/// checks that run it judge it; the bash program is kept although its
/// fence says Python, and the file is executable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_file_the_goal_asks_for_is_saved_and_run_by_the_checks() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    // Prints the totals itself: right output, but not the file asked for.
    let generator = "print('cups: 3')\nprint('pens: 6')\n";
    let script = "awk -F, 'NR > 1 { t[$1] += $2 } END { for (k in t) print k \": \" t[k] }' orders.csv | sort\n";
    let model = Arc::new(ScriptedModel::new([
        script_plan(),
        program(generator).expect_system_contains("the file totals.sh"),
        program(script).expect_user_contains("a check of the goal still fails"),
    ]));
    let graph = graph(&model, &work, dir.path());
    let input = PevState::new(
        "Write totals.sh: it prints `item: total` for each item of orders.csv, sorted by item.",
        6,
    )
    .with_checks(vec![Check::new(
        "diff <(printf 'cups: 3\\npens: 6\\n') <(bash totals.sh)",
        CheckSource::Flag,
    )]);
    let (state, _) = run(&graph, input).await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(pev::stop_reason(&state), StopReason::Finished);
    let saved = work.join("totals.sh");
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), script);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&saved).unwrap().permissions().mode();
    assert_eq!(mode & 0o100, 0o100, "executable: {mode:o}");
    assert!(
        !work.join("totals.txt").exists() && !work.join(".rebound/scripts").exists(),
        "nothing else is written"
    );
}

/// A program with a line one space off its block (Python refuses it with
/// an `IndentationError`) runs with that line put on its block, and its
/// report is kept: no second sample is asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_a_space_off_its_block_runs_with_its_indentation_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let off = RIGHT.replace("\nprint('wrote'", "\n print('wrote'");
    assert_ne!(off, RIGHT);
    let model = Arc::new(ScriptedModel::new([program(&off)]));
    let events = finish_totals(&model, &work, dir.path()).await;
    let repaired = events.iter().any(|e| {
        matches!(e, AgentEvent::Step { output: Some(output), .. }
            if output.contains("candidate 1 (its indentation repaired): ran"))
    });
    assert!(repaired, "{events:?}");
}

/// A candidate that copies a failed program through the line its
/// traceback names is cut off there (the model streams; the rest of the
/// copy is never generated), and the next sample is of the first request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_of_a_failed_program_is_cut_off_at_the_line_that_failed() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path());
    let crash = "rows = open('orders.csv').read().split('\\n')\ntotal = int(rows[0])\nprint(total)\nopen('totals.txt', 'w').write(str(total))\n";
    let model = Arc::new(
        ScriptedModel::new([
            program(crash),
            program(crash).expect_user_contains("The program failed:\n"),
            program(RIGHT).expect(
                "the first request again",
                |request: &rebound_llm::ChatRequest| {
                    let text = request.last_user_text().unwrap_or_default();
                    if text.contains("The program failed") {
                        Err(format!("the request shows the failed program: {text:?}"))
                    } else {
                        Ok(())
                    }
                },
            ),
        ])
        .streaming(),
    );
    let events = finish_totals(&model, &work, dir.path()).await;
    let output = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::Step {
                output: Some(output),
                ..
            } => Some(output.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        output.contains(
            "- candidate 2: cut off: the same as candidate 1 up to its line 2, where it failed\n- candidate 3: ran"
        ),
        "{output}"
    );
}
