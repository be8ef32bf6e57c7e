//! A model call made from a node through the journal is not repeated when
//! the node runs again after an interrupt, and reports its usage once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use rebound_graph::checkpoint::MemorySaver;
use rebound_graph::{Event, NodeError, RunConfig, RunOutcome, State, StateGraph, END, START};
use rebound_llm::{
    chat_journaled, ChatRequest, ChatResponse, LlmError, Message, ScriptedModel, Step, Usage,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct Chat {
    answer: String,
    approved: bool,
}

fn graph(model: Arc<ScriptedModel>) -> rebound_graph::CompiledGraph<Chat> {
    let mut graph = StateGraph::<Chat>::new();
    graph
        .add_node("ask", move |_s, ctx| {
            let model = Arc::clone(&model);
            async move {
                let request = ChatRequest::new().message(Message::user("plan it"));
                let response = chat_journaled(&ctx, "plan", model.as_ref(), &request).await?;
                let approved: bool =
                    ctx.interrupt(serde_json::json!({"approve": response.text}))?;
                Ok::<_, NodeError>(
                    ChatUpdate::default()
                        .answer(response.text)
                        .approved(approved),
                )
            }
        })
        .add_edge(START, "ask")
        .add_edge("ask", END);
    graph
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(MemorySaver::new()))
}

#[tokio::test]
async fn a_resumed_node_does_not_call_the_model_again() {
    let model = Arc::new(ScriptedModel::new([Step::reply(ChatResponse {
        usage: Usage {
            input_tokens: 12,
            output_tokens: 3,
        },
        ..ChatResponse::text("run pytest")
    })]));
    let graph = graph(Arc::clone(&model));
    let config = RunConfig::new().with_thread_id("t");

    let mut stream = graph.stream(Chat::default(), config.clone());
    let mut usage_events = Vec::new();
    while let Some(event) = stream.next_event().await {
        if let Event::Custom { payload, .. } = event {
            usage_events.push(payload);
        }
    }
    assert!(stream.outcome().await.unwrap().is_interrupted());
    assert_eq!(usage_events.len(), 1);
    assert_eq!(usage_events[0]["llm_call"]["output_tokens"], 3);
    assert_eq!(usage_events[0]["llm_call"]["model"], "scripted");

    // The script has no second answer: a second call would fail the run.
    let done = graph
        .resume_with(serde_json::json!(true), config)
        .await
        .unwrap();
    let RunOutcome::Completed(state) = done else {
        panic!("not completed")
    };
    assert_eq!(state.answer, "run pytest");
    assert!(state.approved);
    assert_eq!(model.requests().len(), 1, "the model was called once");
}

#[tokio::test]
async fn permanent_model_errors_are_not_retried_and_transient_ones_are() {
    use rebound_llm::node_error;
    let auth = node_error(LlmError::Authentication {
        provider: "p".into(),
    });
    assert!(!auth.is_retryable());
    let limited = node_error(LlmError::RateLimited {
        provider: "p".into(),
        retry_after: None,
    });
    assert!(limited.is_retryable());
}
