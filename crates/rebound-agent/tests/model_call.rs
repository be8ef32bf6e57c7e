//! A model call made from a node through the journal is not repeated when
//! the node runs again after an interrupt, and reports its usage once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rebound_agent::model_call::{chat_journaled, node_error};
use rebound_graph::checkpoint::MemorySaver;
use rebound_graph::{
    Event, NodeContext, NodeError, NodeOptions, RetryPolicy, RunConfig, RunOutcome, State,
    StateGraph, END, START,
};
use rebound_llm::{
    ChatRequest, ChatResponse, HttpOptions, LlmError, Message, OpenAiModel, ScriptedModel, Step,
    Usage,
};
use rebound_protocol::{ModelEvent, Payload};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

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
    let Payload::Model(ModelEvent::ModelCall(call)) = Payload::decode(&usage_events[0]) else {
        panic!("not a model call: {}", usage_events[0]);
    };
    assert_eq!((call.model.as_str(), call.output_tokens), ("scripted", 3));
    assert_eq!(call.input_tokens, 12);

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

/// An OpenAI-compatible endpoint on 127.0.0.1 that answers every request
/// with 503 and counts them.
async fn overloaded_endpoint() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&requests);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let counted = Arc::clone(&counted);
            tokio::spawn(async move {
                // Read the head, then the body its Content-Length announces.
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    let n = socket.read(&mut buf).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    request.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&request).to_string();
                    let Some(head_end) = text.find("\r\n\r\n") else {
                        continue;
                    };
                    let length = text[..head_end]
                        .lines()
                        .find_map(|l| {
                            let (name, value) = l.split_once(':')?;
                            name.eq_ignore_ascii_case("content-length")
                                .then(|| value.trim().parse::<usize>().ok())?
                        })
                        .unwrap_or(0);
                    if request.len() >= head_end + 4 + length {
                        break;
                    }
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let body = r#"{"error":{"message":"overloaded"}}"#;
                let response = format!(
                    "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    (url, requests)
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct Answer {
    text: String,
}

/// One retry layer per call: a node with a retry policy of 3 calling a
/// provider that retried a 503 twice does not run the call again (3
/// requests, not 9).
#[tokio::test]
async fn a_node_does_not_retry_what_the_provider_retried() {
    let (url, requests) = overloaded_endpoint().await;
    let options = HttpOptions::new(url)
        .api_key("sk-test")
        .timeout(Duration::from_secs(5))
        .max_retries(2)
        .backoff(Duration::from_millis(10), Duration::from_millis(50));
    let model = Arc::new(OpenAiModel::new("gpt-test", options).unwrap());
    let mut graph = StateGraph::<Answer>::new();
    graph
        .add_node("ask", move |_, ctx: NodeContext| {
            let model = Arc::clone(&model);
            async move {
                let request = ChatRequest::new().message(Message::user("x"));
                let response = chat_journaled(&ctx, "ask", model.as_ref(), &request).await?;
                Ok::<_, NodeError>(AnswerUpdate::default().text(response.text))
            }
        })
        .add_edge(START, "ask")
        .add_edge("ask", END)
        .configure_node(
            "ask",
            NodeOptions::new().retry(
                RetryPolicy::new(3)
                    .initial_backoff(Duration::from_millis(1))
                    .max_backoff(Duration::from_millis(2)),
            ),
        );
    let error = graph
        .compile()
        .unwrap()
        .invoke(Answer::default(), RunConfig::new())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("overloaded"), "{error}");
    assert_eq!(
        requests.load(Ordering::SeqCst),
        3,
        "the provider's attempt and two retries, and no retry of the node"
    );
}
