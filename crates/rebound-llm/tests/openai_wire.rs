//! `OpenAiModel` against a loopback server speaking Chat Completions.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::{Reply, TestServer, FAKE_KEY};
use futures_util::StreamExt;
use rebound_llm::{
    chat_structured, ChatModel, ChatRequest, ChatResponse, FinishReason, HttpOptions, LlmError,
    Message, OpenAiModel, StreamDelta, ToolCall, ToolDefinition, Usage,
};
use serde_json::json;

fn options(server: &TestServer) -> HttpOptions {
    HttpOptions::new(server.url("/v1"))
        .api_key(FAKE_KEY)
        .timeout(Duration::from_secs(5))
        .stall_timeout(Duration::from_millis(300))
        .max_retries(2)
        .backoff(Duration::from_millis(10), Duration::from_secs(2))
}

fn model(server: &TestServer) -> OpenAiModel {
    OpenAiModel::new("gpt-test", options(server)).unwrap()
}

fn answer(message: serde_json::Value, finish_reason: &str) -> Reply {
    Reply::json(
        200,
        json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
        }),
    )
}

fn shell_tool() -> ToolDefinition {
    ToolDefinition {
        name: "shell".into(),
        description: "Runs a command".into(),
        parameters: json!({"type": "object", "properties": {"cmd": {"type": "string"}}}),
    }
}

async fn collect(model: &OpenAiModel, request: &ChatRequest) -> Vec<Result<StreamDelta, LlmError>> {
    model.chat_stream(request).await.unwrap().collect().await
}

#[tokio::test]
async fn a_json_answer_and_the_exact_request() {
    let server = TestServer::start(vec![answer(
        json!({"role": "assistant", "content": "Hello."}),
        "stop",
    )])
    .await;
    let request = ChatRequest::new()
        .system("Be brief.")
        .message(Message::user("Say hello"))
        .tool(shell_tool())
        .temperature(0.5)
        .max_tokens(64)
        .stop("END");
    let response = model(&server).chat(&request).await.unwrap();
    assert_eq!(
        response,
        ChatResponse {
            text: "Hello.".into(),
            tool_calls: vec![],
            usage: Usage {
                input_tokens: 12,
                output_tokens: 5
            },
            finish_reason: FinishReason::Stop,
        }
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    let bearer = format!("Bearer {FAKE_KEY}");
    assert_eq!(requests[0].header("authorization"), Some(bearer.as_str()));
    assert_eq!(
        requests[0].body,
        json!({
            "model": "gpt-test",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Say hello"}
            ],
            "tools": [{
                "type": "function",
                "function": {
                    "name": "shell",
                    "description": "Runs a command",
                    "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}}
                }
            }],
            "temperature": 0.5,
            "max_tokens": 64,
            "stop": ["END"]
        })
    );
}

#[tokio::test]
async fn tool_results_go_out_and_tool_calls_come_back() {
    let server = TestServer::start(vec![answer(
        json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [
                {"id": "call_2", "type": "function", "function": {"name": "shell", "arguments": "{\"cmd\":\"pytest\"}"}},
                {"id": "call_3", "type": "function", "function": {"name": "read", "arguments": ""}}
            ]
        }),
        "tool_calls",
    )])
    .await;
    let request = ChatRequest::new()
        .message(Message::user("Fix the tests"))
        .message(Message::assistant_tool_calls(
            "",
            vec![ToolCall {
                id: "call_1".into(),
                name: "shell".into(),
                arguments: json!({"cmd": "ls"}),
            }],
        ))
        .message(Message::tool_result("call_1", "src tests"));
    let response = model(&server).chat(&request).await.unwrap();
    assert_eq!(
        response.tool_calls,
        vec![
            ToolCall {
                id: "call_2".into(),
                name: "shell".into(),
                arguments: json!({"cmd": "pytest"})
            },
            ToolCall {
                id: "call_3".into(),
                name: "read".into(),
                arguments: json!({})
            }
        ]
    );
    assert_eq!(response.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        server.requests()[0].body["messages"],
        json!([
            {"role": "user", "content": "Fix the tests"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "shell", "arguments": "{\"cmd\":\"ls\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "src tests"}
        ])
    );
}

fn chunk(delta: serde_json::Value, finish_reason: Option<&str>) -> (Option<&'static str>, String) {
    let data = json!({
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    });
    (None, data.to_string())
}

fn usage_chunk() -> (Option<&'static str>, String) {
    let data =
        json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}});
    (None, data.to_string())
}

#[tokio::test]
async fn streamed_text_arrives_in_pieces() {
    let server = TestServer::start(vec![Reply::sse([
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"content": "Hel"}), None),
        chunk(json!({"content": "lo"}), None),
        chunk(json!({}), Some("stop")),
        usage_chunk(),
        (None, "[DONE]".to_string()),
    ])])
    .await;
    let request = ChatRequest::new().message(Message::user("hi"));
    let deltas = collect(&model(&server), &request).await;
    assert_eq!(
        deltas,
        vec![
            Ok(StreamDelta::Text { text: "Hel".into() }),
            Ok(StreamDelta::Text { text: "lo".into() }),
            Ok(StreamDelta::Done {
                usage: Usage {
                    input_tokens: 7,
                    output_tokens: 3
                },
                finish_reason: FinishReason::Stop
            }),
        ]
    );
    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "gpt-test",
            "messages": [{"role": "user", "content": "hi"}],
            "stream": true,
            "stream_options": {"include_usage": true}
        })
    );
}

#[tokio::test]
async fn streamed_tool_call_arguments_arrive_in_pieces() {
    let server = TestServer::start(vec![Reply::sse([
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "shell", "arguments": ""}}]}),
            None,
        ),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"cmd\":"}}]}), None),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"ls\"}"}}]}), None),
        chunk(json!({}), Some("tool_calls")),
        (None, "[DONE]".to_string()),
    ])])
    .await;
    let deltas = collect(
        &model(&server),
        &ChatRequest::new().message(Message::user("hi")),
    )
    .await;
    let piece = |id: Option<&str>, name: Option<&str>, arguments: &str| {
        Ok(StreamDelta::ToolCall {
            index: 0,
            id: id.map(Into::into),
            name: name.map(Into::into),
            arguments: arguments.into(),
        })
    };
    assert_eq!(
        deltas,
        vec![
            piece(Some("call_1"), Some("shell"), ""),
            piece(None, None, "{\"cmd\":"),
            piece(None, None, "\"ls\"}"),
            Ok(StreamDelta::Done {
                usage: Usage::default(),
                finish_reason: FinishReason::ToolCalls
            }),
        ]
    );
}

#[tokio::test]
async fn a_stalled_stream_times_out() {
    let server = TestServer::start(vec![
        Reply::sse([chunk(json!({"content": "Hel"}), None)]).stalled()
    ])
    .await;
    let started = Instant::now();
    let deltas = collect(
        &model(&server),
        &ChatRequest::new().message(Message::user("hi")),
    )
    .await;
    let elapsed = started.elapsed();
    assert_eq!(
        deltas,
        vec![
            Ok(StreamDelta::Text { text: "Hel".into() }),
            Err(LlmError::Timeout {
                provider: "openai".into(),
                timeout: Duration::from_millis(300)
            }),
        ]
    );
    assert!(
        elapsed >= Duration::from_millis(300) && elapsed < Duration::from_secs(2),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn a_refused_key_is_never_shown() {
    let server = TestServer::start(vec![Reply::json(
        401,
        json!({"error": {"message": format!("Incorrect API key provided: {FAKE_KEY}"), "type": "invalid_request_error", "code": "invalid_api_key"}}),
    )])
    .await;
    let model = model(&server);
    let error = model
        .chat(&ChatRequest::new().message(Message::user("x")))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        LlmError::Authentication {
            provider: "openai".into()
        }
    );
    assert!(!error.to_string().contains(FAKE_KEY));
    assert!(!format!("{error:?}").contains(FAKE_KEY));
    assert!(!format!("{model:?}").contains(FAKE_KEY));
    assert_eq!(
        server.requests().len(),
        1,
        "authentication failures are not retried"
    );
}

#[tokio::test]
async fn a_rate_limit_is_retried_after_the_delay_it_asks_for() {
    let server = TestServer::start(vec![
        Reply::json(429, json!({"error": {"message": "slow down"}})).header("retry-after", "1"),
        answer(json!({"role": "assistant", "content": "ok"}), "stop"),
    ])
    .await;
    let response = model(&server)
        .chat(&ChatRequest::new().message(Message::user("x")))
        .await
        .unwrap();
    assert_eq!(response.text, "ok");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let waited = requests[1].at - requests[0].at;
    assert!(
        waited >= Duration::from_millis(950) && waited < Duration::from_millis(1500),
        "{waited:?}"
    );
}

#[tokio::test]
async fn a_server_error_is_retried() {
    let server = TestServer::start(vec![
        Reply::raw(500, "oops"),
        answer(json!({"role": "assistant", "content": "ok"}), "stop"),
    ])
    .await;
    let response = model(&server)
        .chat(&ChatRequest::new().message(Message::user("x")))
        .await
        .unwrap();
    assert_eq!(response.text, "ok");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn exhausted_retries_return_the_last_error() {
    let overloaded = Reply::json(503, json!({"error": {"message": "overloaded"}}));
    let server = TestServer::start(vec![overloaded.clone(), overloaded.clone(), overloaded]).await;
    let error = model(&server)
        .chat(&ChatRequest::new().message(Message::user("x")))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        LlmError::Server {
            provider: "openai".into(),
            status: 503,
            message: "overloaded".into()
        }
    );
    assert_eq!(
        server.requests().len(),
        3,
        "the first attempt and two retries"
    );
}

#[tokio::test]
async fn a_retry_after_beyond_the_cap_is_not_waited_for() {
    let server = TestServer::start(vec![Reply::raw(429, "").header("retry-after", "3600")]).await;
    let error = model(&server)
        .chat(&ChatRequest::new().message(Message::user("x")))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        LlmError::RateLimited {
            provider: "openai".into(),
            retry_after: Some(Duration::from_secs(3600))
        }
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_body_that_is_not_json_is_malformed() {
    let server = TestServer::start(vec![Reply::raw(200, "{\"choices\": [")]).await;
    let error = model(&server)
        .chat(&ChatRequest::new().message(Message::user("x")))
        .await
        .unwrap_err();
    assert!(
        matches!(error, LlmError::MalformedResponse { .. }),
        "{error}"
    );
    assert_eq!(
        server.requests().len(),
        1,
        "malformed answers are not retried"
    );
}

#[tokio::test]
async fn a_context_overflow_is_its_own_error() {
    let message = "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.";
    let server = TestServer::start(vec![Reply::json(
        400,
        json!({"error": {"message": message, "type": "invalid_request_error", "code": "context_length_exceeded"}}),
    )])
    .await;
    let error = model(&server)
        .chat(&ChatRequest::new().message(Message::user("x")))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        LlmError::ContextTooLong {
            provider: "openai".into(),
            message: message.into()
        }
    );
}

#[tokio::test]
async fn a_refused_connection_is_a_transport_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let options = HttpOptions::new(format!("http://{addr}/v1"))
        .max_retries(1)
        .backoff(Duration::from_millis(5), Duration::from_millis(10));
    let model = OpenAiModel::new("m", options).unwrap();
    let error = model.chat(&ChatRequest::new()).await.unwrap_err();
    assert!(matches!(error, LlmError::Transport { .. }), "{error}");
}

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Plan {
    steps: Vec<String>,
}

#[tokio::test]
async fn structured_output_uses_json_schema_mode() {
    let server = TestServer::start(vec![answer(
        json!({"role": "assistant", "content": "{\"steps\": [\"pytest\"]}"}),
        "stop",
    )])
    .await;
    let model = model(&server);
    assert!(model.enforces_schema());
    let plan = chat_structured::<Plan>(&model, ChatRequest::new().message(Message::user("Plan")))
        .await
        .unwrap();
    assert_eq!(
        plan.value,
        Plan {
            steps: vec!["pytest".into()]
        }
    );
    let body = &server.requests()[0].body;
    assert_eq!(
        body["response_format"],
        json!({
            "type": "json_schema",
            "json_schema": {
                "name": "Plan",
                "schema": schemars::schema_for!(Plan).to_value(),
                "strict": false
            }
        })
    );
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": "Plan"}]),
        "no schema in the prompt"
    );
}

/// Arguments that are not JSON are the model's mistake: the answer is
/// still read, and the call carries why its arguments could not be read
/// (bounded), for the caller to send back as a failed tool output.
#[tokio::test]
async fn tool_call_arguments_that_are_not_json_are_kept_as_a_marked_call() {
    let garbage = format!("{{cmd: pytest {}", "x".repeat(5000));
    let server = TestServer::start(vec![answer(
        json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "shell", "arguments": garbage}}
            ]
        }),
        "tool_calls",
    )])
    .await;
    let request = ChatRequest::new().message(Message::user("Fix the tests"));
    let response = model(&server).chat(&request).await.unwrap();
    let call = &response.tool_calls[0];
    assert_eq!(call.name, "shell");
    let problem = call.arguments_error().unwrap();
    assert!(problem.contains("not valid JSON"), "{problem}");
    assert!(problem.contains("{cmd: pytest"), "{problem}");
    assert!(problem.len() < 600, "bounded: {}", problem.len());
}
