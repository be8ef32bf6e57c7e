//! Budgets: tokens and working time stop a run with a typed stop reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::{deps, plan, review, saver};
use rebound_agent::pev::{self, PevState};
use rebound_agent::{AgentConfig, BudgetKind, StopReason};
use rebound_graph::RunConfig;
use rebound_llm::{ChatResponse, ScriptedModel, Step, Usage};
use rebound_tools::approval::ApprovalMode;

fn with_usage(step_text: &str, input: u64, output: u64) -> Step {
    let mut response = ChatResponse::text(step_text);
    response.usage = Usage {
        input_tokens: input,
        output_tokens: output,
    };
    Step::reply(response)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_budget_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = AgentConfig::default();
    config.budget.max_tokens = Some(1_000);
    let plan_json = r#"{"steps": [{"description": "look", "command": "ls"}]}"#;
    let review_json = r#"{"verdict": "continue", "reason": "more to do", "fix_suggestions": []}"#;
    let model = Arc::new(ScriptedModel::new([
        with_usage(plan_json, 400, 100),
        with_usage(review_json, 500, 50),
        with_usage(plan_json, 1, 1),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::Auto,
        Vec::new(),
        config,
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = graph
        .invoke(PevState::new("x", 10), RunConfig::new().with_thread_id("t"))
        .await
        .unwrap();
    assert_eq!(state.tokens, 1_050);
    assert_eq!(
        model.remaining(),
        1,
        "no model call after the budget ran out"
    );
    match pev::stop_reason(&state) {
        StopReason::Budget { budget, detail } => {
            assert_eq!(budget, BudgetKind::Tokens);
            assert!(detail.contains("1050 tokens"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    let summary = pev::summarize(&state);
    assert_eq!(summary.tokens, 1_050);
    assert!(!summary.stop_reason.is_finished());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_time_budget_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = AgentConfig::default();
    config.budget.max_seconds = Some(1);
    let model = Arc::new(ScriptedModel::new([
        plan(&[("wait", Some("sleep 1.2")), ("never", Some("touch never"))]),
        review("continue", "unused", &[]),
    ]));
    let deps = deps(
        model.clone(),
        dir.path(),
        ApprovalMode::Auto,
        Vec::new(),
        config,
    );
    let graph = pev::build(deps)
        .unwrap()
        .with_checkpointer(saver(dir.path()));
    let state = graph
        .invoke(PevState::new("x", 10), RunConfig::new().with_thread_id("t"))
        .await
        .unwrap();
    assert!(state.work_ms >= 1_000);
    assert!(!dir.path().join("never").exists());
    assert!(matches!(
        pev::stop_reason(&state),
        StopReason::Budget {
            budget: BudgetKind::WallTime,
            ..
        }
    ));
}
