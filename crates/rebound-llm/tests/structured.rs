//! Structured output against the scripted model: the schema in the prompt,
//! tolerant extraction, one repair attempt, and the typed error after it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use async_trait::async_trait;
use rebound_llm::{
    chat_structured, ChatModel, ChatRequest, ChatResponse, LlmError, Message, Role, ScriptedModel,
    Step, Usage,
};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Verdict {
    verdict: Kind,
    reason: String,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Continue,
    Retry,
    Replan,
    Finish,
}

fn request() -> ChatRequest {
    ChatRequest::new()
        .system("You review.")
        .message(Message::user("Tests pass now."))
}

#[tokio::test]
async fn the_schema_goes_into_the_prompt_and_fenced_answers_parse() {
    let model = ScriptedModel::new([Step::text(
        "Here you go:\n```json\n{\"verdict\": \"finish\", \"reason\": \"tests pass\"}\n```",
    )
    .expect_system_contains("You review.")
    .expect_system_contains("\"replan\"")]);
    let answer = chat_structured::<Verdict>(&model, request()).await.unwrap();
    assert_eq!(
        answer.value,
        Verdict {
            verdict: Kind::Finish,
            reason: "tests pass".into()
        }
    );
    assert_eq!(answer.attempts, 1);
    let sent = &model.requests()[0];
    assert_eq!(sent.response_schema.as_ref().unwrap().name, "Verdict");
}

#[tokio::test]
async fn an_invalid_answer_gets_one_repair_that_shows_the_error() {
    let model = ScriptedModel::new([
        Step::text(r#"{"verdict": "done", "reason": "ok"}"#),
        Step::text(r#"{"verdict": "finish", "reason": "ok"}"#).expect_user_contains("verdict"),
    ]);
    let answer = chat_structured::<Verdict>(&model, request()).await.unwrap();
    assert_eq!(answer.attempts, 2);
    assert_eq!(answer.value.verdict, Kind::Finish);
    let repair = &model.requests()[1];
    let roles: Vec<Role> = repair.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::User]);
    assert!(
        repair.messages[2]
            .content
            .contains("unknown variant `done`"),
        "{:?}",
        repair.messages[2]
    );
}

#[tokio::test]
async fn an_answer_cut_at_the_length_limit_is_asked_again_shorter() {
    let cut = ChatResponse {
        text: r#"{"verdict": "finish", "reason": "the tests pass and the"#.into(),
        finish_reason: rebound_llm::FinishReason::Length,
        ..ChatResponse::default()
    };
    let model = ScriptedModel::new([
        Step::reply(cut),
        Step::text(r#"{"verdict": "finish", "reason": "ok"}"#).expect_user_contains("shorter"),
    ]);
    let answer = chat_structured::<Verdict>(&model, request()).await.unwrap();
    assert_eq!((answer.attempts, answer.value.verdict), (2, Kind::Finish));
    let repair = &model.requests()[1];
    let roles: Vec<Role> = repair.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::User],
        "the cut text is not sent back"
    );
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Steps {
    steps: Vec<String>,
}

#[tokio::test]
async fn an_answer_cut_in_a_list_keeps_its_whole_items_without_asking_again() {
    let cut = ChatResponse {
        text: r#"{"steps": ["make", "make test", "grep -qxF 'a' out.txt || grep -qxF 'b"#.into(),
        finish_reason: rebound_llm::FinishReason::Length,
        ..ChatResponse::default()
    };
    let model = ScriptedModel::new([Step::reply(cut)]);
    let answer = chat_structured::<Steps>(&model, request()).await.unwrap();
    assert_eq!(answer.attempts, 1);
    assert_eq!(answer.value.steps, ["make", "make test"]);
    assert_eq!(model.remaining(), 0);

    // Not cut by the limit: an invalid answer, asked again.
    let model = ScriptedModel::new([
        Step::text(r#"{"steps": ["make", "make te"#),
        Step::text(r#"{"steps": ["make"]}"#),
    ]);
    let answer = chat_structured::<Steps>(&model, request()).await.unwrap();
    assert_eq!((answer.attempts, answer.value.steps.len()), (2, 1));
}

#[tokio::test]
async fn after_the_repair_the_error_carries_the_raw_text() {
    let model = ScriptedModel::new([
        Step::text("I think we are done."),
        Step::text("{\"verdict\": 3}"),
    ]);
    let error = chat_structured::<Verdict>(&model, request())
        .await
        .unwrap_err();
    match error {
        LlmError::StructuredOutput {
            type_name,
            attempts,
            error,
            raw,
        } => {
            assert_eq!(type_name, "Verdict");
            assert_eq!(attempts, 2);
            assert_eq!(raw, "{\"verdict\": 3}");
            assert!(error.contains("verdict"), "{error}");
        }
        other => panic!("expected StructuredOutput, got {other:?}"),
    }
    assert_eq!(model.remaining(), 0);
}

/// A provider that enforces schemas itself gets no schema text in the prompt.
struct Enforcing(ScriptedModel);

#[async_trait]
impl ChatModel for Enforcing {
    fn name(&self) -> &str {
        "enforcing"
    }
    fn enforces_schema(&self) -> bool {
        true
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut response = self.0.chat(request).await?;
        response.usage = Usage {
            input_tokens: 10,
            output_tokens: 5,
        };
        Ok(response)
    }
}

#[tokio::test]
async fn native_schema_mode_keeps_the_prompt_clean_and_counts_usage() {
    let model = Enforcing(ScriptedModel::new([Step::text(
        r#"{"verdict":"continue","reason":"next"}"#,
    )]));
    let answer = chat_structured::<Verdict>(&model, request()).await.unwrap();
    assert_eq!(answer.value.verdict, Kind::Continue);
    assert_eq!(answer.usage.output_tokens, 5);
    assert_eq!(model.0.requests()[0].system.as_deref(), Some("You review."));
}

#[tokio::test]
async fn the_default_stream_yields_the_whole_answer_then_done() {
    use futures_util::StreamExt;
    let model = ScriptedModel::new([Step::text("hello")]);
    let pieces: Vec<_> = model.chat_stream(&request()).await.unwrap().collect().await;
    assert_eq!(pieces.len(), 2);
    assert_eq!(
        pieces[0].as_ref().unwrap(),
        &rebound_llm::StreamDelta::Text {
            text: "hello".into()
        }
    );
}
