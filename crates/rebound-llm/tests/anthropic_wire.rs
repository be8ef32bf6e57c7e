//! `AnthropicModel` against a loopback server speaking the Messages API.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::{Reply, TestServer, FAKE_KEY};
use futures_util::StreamExt;
use rebound_llm::{
    AnthropicModel, ChatModel, ChatRequest, ChatResponse, FinishReason, HttpOptions, LlmError,
    Message, StreamDelta, ToolCall, ToolDefinition, Usage,
};
use serde_json::json;

fn model(server: &TestServer) -> AnthropicModel {
    let options = HttpOptions::new(server.url(""))
        .api_key(FAKE_KEY)
        .timeout(Duration::from_secs(5))
        .stall_timeout(Duration::from_millis(300))
        .max_retries(2)
        .backoff(Duration::from_millis(10), Duration::from_secs(2));
    AnthropicModel::new("claude-test", options).unwrap()
}

fn answer(content: serde_json::Value, stop_reason: &str) -> Reply {
    Reply::json(
        200,
        json!({
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": content,
            "stop_reason": stop_reason,
            "usage": {"input_tokens": 20, "output_tokens": 4}
        }),
    )
}

fn user(text: &str) -> ChatRequest {
    ChatRequest::new().message(Message::user(text))
}

fn event(name: &'static str, data: serde_json::Value) -> (Option<&'static str>, String) {
    (Some(name), data.to_string())
}

async fn collect(
    model: &AnthropicModel,
    request: &ChatRequest,
) -> Vec<Result<StreamDelta, LlmError>> {
    model.chat_stream(request).await.unwrap().collect().await
}

#[tokio::test]
async fn a_json_answer_and_the_exact_request() {
    let server = TestServer::start(vec![answer(
        json!([{"type": "text", "text": "Hello."}]),
        "end_turn",
    )])
    .await;
    let request = ChatRequest::new()
        .system("Be brief.")
        .message(Message::user("Say hello"))
        .tool(ToolDefinition {
            name: "shell".into(),
            description: "Runs a command".into(),
            parameters: json!({"type": "object"}),
        })
        .temperature(0.7)
        .stop("END");
    let response = model(&server).chat(&request).await.unwrap();
    assert_eq!(
        response,
        ChatResponse {
            text: "Hello.".into(),
            tool_calls: vec![],
            usage: Usage {
                input_tokens: 20,
                output_tokens: 4
            },
            finish_reason: FinishReason::Stop,
        }
    );
    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(requests[0].header("x-api-key"), Some(FAKE_KEY));
    assert_eq!(requests[0].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(
        requests[0].body,
        json!({
            "model": "claude-test",
            "max_tokens": 4096,
            "system": "Be brief.",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Say hello"}]}],
            "tools": [{"name": "shell", "description": "Runs a command", "input_schema": {"type": "object"}}],
            "temperature": 0.7,
            "stop_sequences": ["END"]
        })
    );
}

#[tokio::test]
async fn tool_results_merge_and_tool_calls_come_back() {
    let server = TestServer::start(vec![answer(
        json!([
            {"type": "text", "text": "Running."},
            {"type": "tool_use", "id": "toolu_3", "name": "shell", "input": {"cmd": "pytest"}}
        ]),
        "tool_use",
    )])
    .await;
    let call = |id: &str, cmd: &str| ToolCall {
        id: id.into(),
        name: "shell".into(),
        arguments: json!({"cmd": cmd}),
    };
    let request = ChatRequest::new()
        .message(Message::user("Fix it"))
        .message(Message::assistant_tool_calls(
            "",
            vec![call("toolu_1", "ls"), call("toolu_2", "cat a")],
        ))
        .message(Message::tool_result("toolu_1", "a"))
        .message(Message::tool_result("toolu_2", "x = 1"))
        .max_tokens(100);
    let response = model(&server).chat(&request).await.unwrap();
    assert_eq!(response.text, "Running.");
    assert_eq!(response.tool_calls, vec![call("toolu_3", "pytest")]);
    assert_eq!(response.finish_reason, FinishReason::ToolCalls);
    let body = &server.requests()[0].body;
    assert_eq!(body["max_tokens"], json!(100));
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "Fix it"}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "shell", "input": {"cmd": "ls"}},
                {"type": "tool_use", "id": "toolu_2", "name": "shell", "input": {"cmd": "cat a"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "x = 1"}
            ]}
        ])
    );
}

fn message_start() -> (Option<&'static str>, String) {
    event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": 9, "output_tokens": 1}}}),
    )
}

#[tokio::test]
async fn streamed_text_and_tool_arguments_arrive_in_pieces() {
    let server = TestServer::start(vec![Reply::sse([
        message_start(),
        event("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        event("ping", json!({"type": "ping"})),
        event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me "}})),
        event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "look."}})),
        event("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        event("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "shell", "input": {}}})),
        event("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}})),
        event("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"cmd\": \"l"}})),
        event("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "s\"}"}})),
        event("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
        event("content_block_start", json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_2", "name": "status", "input": {}}})),
        event("content_block_stop", json!({"type": "content_block_stop", "index": 2})),
        event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 15}})),
        event("message_stop", json!({"type": "message_stop"})),
    ])])
    .await;
    let deltas = collect(&model(&server), &user("hi")).await;
    let piece = |index, id: Option<&str>, name: Option<&str>, arguments: &str| {
        Ok(StreamDelta::ToolCall {
            index,
            id: id.map(Into::into),
            name: name.map(Into::into),
            arguments: arguments.into(),
        })
    };
    assert_eq!(
        deltas,
        vec![
            Ok(StreamDelta::Text {
                text: "Let me ".into()
            }),
            Ok(StreamDelta::Text {
                text: "look.".into()
            }),
            piece(0, Some("toolu_1"), Some("shell"), ""),
            piece(0, None, None, "{\"cmd\": \"l"),
            piece(0, None, None, "s\"}"),
            piece(1, Some("toolu_2"), Some("status"), ""),
            piece(1, None, None, "{}"),
            Ok(StreamDelta::Done {
                usage: Usage {
                    input_tokens: 9,
                    output_tokens: 15
                },
                finish_reason: FinishReason::ToolCalls
            }),
        ]
    );
    assert_eq!(server.requests()[0].body["stream"], json!(true));
}

#[tokio::test]
async fn an_error_event_ends_the_stream_with_a_typed_error() {
    let server = TestServer::start(vec![Reply::sse([
        message_start(),
        event("error", json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
    ])])
    .await;
    let deltas = collect(&model(&server), &user("hi")).await;
    assert_eq!(
        deltas,
        vec![Err(LlmError::Server {
            provider: "anthropic".into(),
            status: 529,
            message: "Overloaded".into()
        })]
    );
}

#[tokio::test]
async fn a_stalled_stream_times_out() {
    let server = TestServer::start(vec![Reply::sse([message_start()]).stalled()]).await;
    let started = Instant::now();
    let deltas = collect(&model(&server), &user("hi")).await;
    assert_eq!(
        deltas,
        vec![Err(LlmError::Timeout {
            provider: "anthropic".into(),
            timeout: Duration::from_millis(300)
        })]
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn a_refused_key_is_never_shown() {
    let server = TestServer::start(vec![Reply::json(
        401,
        json!({"type": "error", "error": {"type": "authentication_error", "message": format!("invalid x-api-key {FAKE_KEY}")}}),
    )])
    .await;
    let model = model(&server);
    let error = model.chat(&user("x")).await.unwrap_err();
    assert_eq!(
        error,
        LlmError::Authentication {
            provider: "anthropic".into()
        }
    );
    assert!(!error.to_string().contains(FAKE_KEY));
    assert!(!format!("{error:?}").contains(FAKE_KEY));
    assert!(!format!("{model:?}").contains(FAKE_KEY));
}

#[tokio::test]
async fn overloaded_is_retried() {
    let server = TestServer::start(vec![
        Reply::json(529, json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
        answer(json!([{"type": "text", "text": "ok"}]), "end_turn"),
    ])
    .await;
    assert_eq!(model(&server).chat(&user("x")).await.unwrap().text, "ok");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_prompt_too_long_is_a_context_error() {
    let message = "prompt is too long: 210000 tokens > 200000 maximum";
    let server = TestServer::start(vec![Reply::json(
        400,
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}}),
    )])
    .await;
    assert_eq!(
        model(&server).chat(&user("x")).await.unwrap_err(),
        LlmError::ContextTooLong {
            provider: "anthropic".into(),
            message: message.into()
        }
    );
}

#[tokio::test]
async fn an_answer_without_content_is_malformed() {
    let server = TestServer::start(vec![Reply::json(200, json!({"type": "message"}))]).await;
    let error = model(&server).chat(&user("x")).await.unwrap_err();
    assert!(
        matches!(error, LlmError::MalformedResponse { .. }),
        "{error}"
    );
}
