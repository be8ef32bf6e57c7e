//! End-to-end runs of reflect-and-commit in real git repositories.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use common::{deps, plan, reflection, saver};
use rebound_agent::reflect::{self, ReflectState};
use rebound_agent::{AgentConfig, StopReason};
use rebound_graph::{RunConfig, RunOutcome};
use rebound_llm::ScriptedModel;
use rebound_tools::approval::ApprovalMode;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn log_messages(dir: &Path) -> Vec<String> {
    git(dir, &["log", "--format=%s"])
        .lines()
        .map(str::to_string)
        .collect()
}

async fn run(
    graph: &rebound_graph::CompiledGraph<ReflectState>,
    state: ReflectState,
) -> ReflectState {
    match graph
        .run(state, RunConfig::new().with_thread_id("r"))
        .await
        .unwrap()
    {
        RunOutcome::Completed(state) => state,
        other => panic!("{other:?}"),
    }
}

/// setup initialises the repository; each accepted step is one commit with
/// the step's description; a rollback restores the work tree to the last
/// commit before replanning.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commits_accepted_steps_and_rollback_restores_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("a.txt"), "base\n").unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[
            ("Write x", Some("echo x > x.txt")),
            (
                "Break a",
                Some("echo broken > a.txt && echo junk > junk.txt"),
            ),
        ]),
        reflection("proceed", "x is written"),
        reflection("rollback", "a.txt must not be broken"),
        plan(&[("Write b", Some("echo b > b.txt"))])
            .expect_user_contains("Break a")
            .expect_user_contains("a.txt must not be broken"),
        reflection("proceed", "b is written"),
    ]));
    let deps = deps(
        model.clone(),
        &work,
        ApprovalMode::Auto,
        Vec::new(),
        AgentConfig::default(),
    );
    let graph = reflect::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run(&graph, ReflectState::new("write files", 3, 20)).await;

    assert_eq!(reflect::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(model.remaining(), 0);
    assert_eq!(
        log_messages(&work),
        ["Write b", "Write x", "rebound: starting point"]
    );
    assert_eq!(
        std::fs::read_to_string(work.join("a.txt")).unwrap(),
        "base\n"
    );
    assert!(
        !work.join("junk.txt").exists(),
        "rollback removes untracked files"
    );
    assert!(work.join("x.txt").exists() && work.join("b.txt").exists());
    assert_eq!(state.rollbacks, 1);
    assert_eq!(state.commits.len(), 2);
    assert_eq!(
        git(&work, &["status", "--porcelain"]),
        "",
        "the tree is clean"
    );
}

/// When `current_attempt` exceeds `max_attempts`, the router forces a
/// rollback even though the reflector keeps asking to refine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_attempts_force_a_rollback() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    git(&work, &["init", "-q"]);
    std::fs::write(work.join("f.txt"), "v1\n").unwrap();
    git(&work, &["add", "."]);
    git(
        &work,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "mine",
        ],
    );
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Edit then fail", Some("echo v2 > f.txt && exit 1"))]),
        reflection("refine", "try again"),
        reflection("refine", "try once more"),
        plan(&[("Just succeed", Some("true"))])
            .expect_user_contains("rolled back after 2 attempts"),
        reflection("proceed", "ok"),
    ]));
    let deps = deps(
        model.clone(),
        &work,
        ApprovalMode::Auto,
        Vec::new(),
        AgentConfig::default(),
    );
    let graph = reflect::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run(&graph, ReflectState::new("edit", 1, 20)).await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(reflect::stop_reason(&state), StopReason::FinishedUnverified);
    assert_eq!(state.rollbacks, 1);
    assert_eq!(std::fs::read_to_string(work.join("f.txt")).unwrap(), "v1\n");
    assert_eq!(
        log_messages(&work),
        ["Just succeed", "mine"],
        "an existing repo is used as it is"
    );
}

/// A failed step is never committed, even when the reflector says proceed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_step_is_not_committed() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let model = Arc::new(ScriptedModel::new([
        plan(&[("Fail", Some("exit 2"))]),
        reflection("proceed", "looks fine"),
        reflection("rollback", "it keeps failing"),
        plan(&[("Pass", Some("true"))]),
        reflection("proceed", "ok"),
    ]));
    let deps = deps(
        model.clone(),
        &work,
        ApprovalMode::Auto,
        Vec::new(),
        AgentConfig::default(),
    );
    let graph = reflect::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run(&graph, ReflectState::new("x", 3, 20)).await;
    assert_eq!(model.remaining(), 0);
    assert_eq!(log_messages(&work), ["Pass", "rebound: starting point"]);
    assert_eq!(state.results.len(), 3);
}

/// A work tree with uncommitted changes is refused: a rollback would
/// destroy them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dirty_work_tree_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    git(&work, &["init", "-q"]);
    std::fs::write(work.join("f.txt"), "v1\n").unwrap();
    git(&work, &["add", "."]);
    git(
        &work,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "mine",
        ],
    );
    std::fs::write(work.join("f.txt"), "uncommitted\n").unwrap();
    let model = Arc::new(ScriptedModel::new([]));
    let deps = deps(
        model,
        &work,
        ApprovalMode::Auto,
        Vec::new(),
        AgentConfig::default(),
    );
    let graph = reflect::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = run(&graph, ReflectState::new("x", 3, 20)).await;
    match reflect::stop_reason(&state) {
        StopReason::Error { message } => assert!(message.contains("uncommitted"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        std::fs::read_to_string(work.join("f.txt")).unwrap(),
        "uncommitted\n"
    );
}
