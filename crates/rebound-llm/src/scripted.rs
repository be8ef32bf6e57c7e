//! [`ScriptedModel`]: replays a list of answers, for tests, and fails loudly
//! when a call does not match what the script expects.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use crate::{ChatModel, ChatRequest, ChatResponse, DeltaStream, LlmError, StreamDelta, ToolCall};

type Check = Arc<dyn Fn(&ChatRequest) -> Result<(), String> + Send + Sync>;

/// One scripted answer, with what the call it answers must look like.
#[derive(Clone)]
pub struct Step {
    reply: Result<ChatResponse, LlmError>,
    checks: Vec<(String, Check)>,
}

impl Step {
    /// Answers with text.
    pub fn text(text: impl Into<String>) -> Self {
        Step::reply(ChatResponse::text(text))
    }

    /// Answers with a JSON value, as text.
    pub fn json(value: serde_json::Value) -> Self {
        Step::text(value.to_string())
    }

    /// Answers with one tool call.
    pub fn tool_call(name: impl Into<String>, arguments: serde_json::Value) -> Self {
        let name = name.into();
        Step::reply(ChatResponse::tool_calls(vec![ToolCall {
            id: format!("call_{name}"),
            name,
            arguments,
        }]))
    }

    /// Answers with a whole response.
    pub fn reply(response: ChatResponse) -> Self {
        Step {
            reply: Ok(response),
            checks: Vec::new(),
        }
    }

    /// Fails the call with `error`.
    pub fn error(error: LlmError) -> Self {
        Step {
            reply: Err(error),
            checks: Vec::new(),
        }
    }

    /// The call's last user message must contain `text`.
    #[must_use]
    pub fn expect_user_contains(self, text: impl Into<String>) -> Self {
        let text = text.into();
        let label = format!("the last user message contains {text:?}");
        self.expect(label, move |request| match request.last_user_text() {
            Some(last) if last.contains(&text) => Ok(()),
            Some(last) => Err(format!("the last user message is {last:?}")),
            None => Err("there is no user message".to_string()),
        })
    }

    /// The call's system text must contain `text`.
    #[must_use]
    pub fn expect_system_contains(self, text: impl Into<String>) -> Self {
        let text = text.into();
        let label = format!("the system text contains {text:?}");
        self.expect(label, move |request| match &request.system {
            Some(system) if system.contains(&text) => Ok(()),
            Some(system) => Err(format!("the system text is {system:?}")),
            None => Err("there is no system text".to_string()),
        })
    }

    /// The call must offer the tool `name`.
    #[must_use]
    pub fn expect_tool(self, name: impl Into<String>) -> Self {
        let name = name.into();
        let label = format!("the tool {name:?} is offered");
        self.expect(label, move |request| {
            if request.tools.iter().any(|t| t.name == name) {
                Ok(())
            } else {
                let offered: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
                Err(format!("the tools offered are {offered:?}"))
            }
        })
    }

    /// A custom check, described by `label`.
    #[must_use]
    pub fn expect(
        mut self,
        label: impl Into<String>,
        check: impl Fn(&ChatRequest) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.checks.push((label.into(), Arc::new(check)));
        self
    }
}

/// A model that replays [`Step`]s in order and records every request.
///
/// A call that does not pass its step's checks, or that comes when the
/// script is used up, fails with [`LlmError::Script`] saying why.
///
/// ```
/// use rebound_llm::{ChatModel, ChatRequest, LlmError, Message, ScriptedModel, Step};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), LlmError> {
/// let model = ScriptedModel::new([
///     Step::text("run `cargo test`").expect_user_contains("tests"),
///     Step::tool_call("shell", serde_json::json!({"command": "cargo test"})),
/// ]);
/// let ask = |text: &str| ChatRequest::new().message(Message::user(text));
/// assert_eq!(model.chat(&ask("How do I run the tests?")).await?.text, "run `cargo test`");
/// let call = model.chat(&ask("Run them")).await?;
/// assert_eq!(call.tool_calls[0].name, "shell");
/// assert!(matches!(model.chat(&ask("And now?")).await, Err(LlmError::Script(_))));
/// assert_eq!(model.requests().len(), 3);
/// # Ok(())
/// # }
/// ```
pub struct ScriptedModel {
    name: String,
    steps: Mutex<VecDeque<Step>>,
    requests: Mutex<Vec<ChatRequest>>,
    streams: bool,
}

impl ScriptedModel {
    /// A model answering with `steps`, in order.
    pub fn new(steps: impl IntoIterator<Item = Step>) -> Self {
        ScriptedModel {
            name: "scripted".to_string(),
            steps: Mutex::new(steps.into_iter().collect()),
            requests: Mutex::new(Vec::new()),
            streams: false,
        }
    }

    /// This model, streaming each text answer a line at a time as a local
    /// model streams its tokens ([`ChatModel::streams_tokens`]), so a
    /// reader can watch it arrive or cut it ([`crate::chat_observed_until`]).
    pub fn streaming(mut self) -> Self {
        self.streams = true;
        self
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        lock(&self.requests).clone()
    }

    /// How many steps are left.
    pub fn remaining(&self) -> usize {
        lock(&self.steps).len()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[async_trait]
impl ChatModel for ScriptedModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn streams_tokens(&self) -> bool {
        self.streams
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<DeltaStream, LlmError> {
        let response = self.chat(request).await?;
        if !self.streams || !response.tool_calls.is_empty() {
            return Ok(crate::model::whole_answer_stream(response));
        }
        let pieces: Vec<Result<StreamDelta, LlmError>> = response
            .text
            .split_inclusive('\n')
            .map(|line| {
                Ok(StreamDelta::Text {
                    text: line.to_string(),
                })
            })
            .chain([Ok(StreamDelta::Done {
                usage: response.usage,
                finish_reason: response.finish_reason,
            })])
            .collect();
        Ok(Box::pin(futures_util::stream::iter(pieces)))
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let number = {
            let mut requests = lock(&self.requests);
            requests.push(request.clone());
            requests.len()
        };
        let Some(step) = lock(&self.steps).pop_front() else {
            return Err(LlmError::Script(format!(
                "call #{number} has no scripted answer left (last user message: {:?})",
                request.last_user_text().unwrap_or("")
            )));
        };
        for (label, check) in &step.checks {
            if let Err(found) = check(request) {
                return Err(LlmError::Script(format!(
                    "call #{number} expected {label}, but {found}"
                )));
            }
        }
        step.reply
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Message;

    #[tokio::test]
    async fn replays_in_order_and_records_requests() {
        let model = ScriptedModel::new([
            Step::text("one"),
            Step::tool_call("shell", serde_json::json!({"cmd": "ls"})),
        ]);
        let request = ChatRequest::new().message(Message::user("hi"));
        assert_eq!(model.chat(&request).await.unwrap().text, "one");
        let second = model.chat(&request).await.unwrap();
        assert_eq!(second.tool_calls[0].name, "shell");
        assert_eq!(model.requests().len(), 2);
        let third = model.chat(&request).await.unwrap_err();
        assert!(
            matches!(third, LlmError::Script(ref m) if m.contains("call #3 has no scripted answer left")),
            "{third}"
        );
    }

    #[tokio::test]
    async fn a_call_that_does_not_match_fails_loudly() {
        let model = ScriptedModel::new([Step::text("plan").expect_user_contains("tests fail")]);
        let error = model
            .chat(&ChatRequest::new().message(Message::user("all good")))
            .await
            .unwrap_err();
        assert_eq!(
            error,
            LlmError::Script(
                "call #1 expected the last user message contains \"tests fail\", but the last user message is \"all good\""
                    .into()
            )
        );
    }

    #[tokio::test]
    async fn scripted_errors_are_returned() {
        let model = ScriptedModel::new([Step::error(LlmError::Cancelled)]);
        assert_eq!(
            model.chat(&ChatRequest::new()).await,
            Err(LlmError::Cancelled)
        );
        assert_eq!(model.remaining(), 0);
    }
}
