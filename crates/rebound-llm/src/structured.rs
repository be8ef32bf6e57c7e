//! Structured output: ask for a Rust type, get a value of it.
//!
//! The schema comes from the type (`schemars`). A provider that enforces
//! schemas gets it as `response_schema`; others get it in the system text,
//! and the answer is extracted tolerantly (code fences, prose around the
//! JSON). An answer the token limit cut off keeps its whole array elements
//! when they make a value; any other invalid answer gets one repair
//! attempt that shows the model the validation error; after that the error
//! carries the raw text.

use serde::de::DeserializeOwned;

use crate::{
    chat_observed, ChatModel, ChatRequest, FinishReason, LlmError, Message, TextObserver, Usage,
};

/// A structured answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Structured<T> {
    /// The value.
    pub value: T,
    /// The text it was read from.
    pub raw: String,
    /// Tokens used by all attempts.
    pub usage: Usage,
    /// Attempts made (1, or 2 after a repair).
    pub attempts: u32,
}

/// How many answers are read before giving up: the first and one repair.
const ATTEMPTS: u32 = 2;

/// The repair request after an answer the token limit cut off.
const CUT_OFF: &str = "Your answer was cut off at the length limit before its JSON was complete. Answer again, much shorter: fewer items, one short sentence each, only the JSON.";

/// Asks `model` for a `T`: the schema of `T` goes with `request` (as
/// `response_schema`, or in the system text when the model does not enforce
/// schemas), and the answer is read into a `T`. An invalid answer gets one
/// repair attempt; a second is a [`LlmError::StructuredOutput`] with the
/// path to the bad field and the raw text.
///
/// ```
/// use rebound_llm::{chat_structured, ChatRequest, LlmError, Message, ScriptedModel, Step};
///
/// #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
/// struct Verdict {
///     done: bool,
///     reason: String,
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), LlmError> {
/// let model = ScriptedModel::new([
///     Step::text(r#"{"done": "yes"}"#),
///     Step::text(r#"Sure: {"done": true, "reason": "the tests pass"}"#),
/// ]);
/// let request = ChatRequest::new().message(Message::user("Are we done?"));
/// let verdict = chat_structured::<Verdict>(&model, request).await?;
/// assert!(verdict.value.done);
/// assert_eq!(verdict.attempts, 2);
/// # Ok(())
/// # }
/// ```
pub async fn chat_structured<T>(
    model: &dyn ChatModel,
    request: ChatRequest,
) -> Result<Structured<T>, LlmError>
where
    T: DeserializeOwned + schemars::JsonSchema,
{
    chat_structured_observed(model, request, &|_| {}).await
}

/// [`chat_structured`], handing each piece of every answer's text to
/// `on_text` as it arrives ([`chat_observed`]).
pub async fn chat_structured_observed<T>(
    model: &dyn ChatModel,
    request: ChatRequest,
    on_text: TextObserver<'_>,
) -> Result<Structured<T>, LlmError>
where
    T: DeserializeOwned + schemars::JsonSchema,
{
    let schema = schemars::schema_for!(T).to_value();
    chat_structured_with_schema::<T>(model, request, schema, on_text).await
}

/// [`chat_structured_observed`] with `schema` in place of `T`'s own: a
/// narrower schema built at run time (the names that exist in a
/// workspace as an enum, say), which a provider that enforces schemas
/// holds the model to. The answer is still read as a `T`, so `schema`
/// must admit only values of `T`.
pub async fn chat_structured_with_schema<T>(
    model: &dyn ChatModel,
    request: ChatRequest,
    schema: serde_json::Value,
    on_text: TextObserver<'_>,
) -> Result<Structured<T>, LlmError>
where
    T: DeserializeOwned + schemars::JsonSchema,
{
    let type_name = T::schema_name().to_string();
    let mut request = request.response_schema(schema_name(&type_name), schema.clone());
    if !model.enforces_schema() {
        let instruction = format!(
            "Answer with only a JSON value that matches this JSON schema, with no prose and no code fences:\n{schema}"
        );
        request.system = Some(match request.system.take() {
            Some(system) => format!("{system}\n\n{instruction}"),
            None => instruction,
        });
    }
    let mut usage = Usage::default();
    let mut attempt = 0;
    loop {
        attempt += 1;
        let response = chat_observed(model, &request, on_text).await?;
        usage += response.usage;
        match parse::<T>(&response.text).or_else(|error| whole_part(&response, error)) {
            Ok(value) => {
                return Ok(Structured {
                    value,
                    raw: response.text,
                    usage,
                    attempts: attempt,
                })
            }
            Err(error) if attempt >= ATTEMPTS => {
                return Err(LlmError::StructuredOutput {
                    type_name,
                    attempts: attempt,
                    error,
                    raw: response.text,
                })
            }
            Err(_) if response.finish_reason == FinishReason::Length => {
                // Cut at the token limit: correcting the cut text would be
                // cut again, and showing it costs as many tokens again.
                request.messages.push(Message::user(CUT_OFF.to_string()));
            }
            Err(error) => {
                request.messages.push(Message::assistant(response.text));
                request.messages.push(Message::user(format!(
                    "That answer is not valid: {error}. Reply with only the corrected JSON."
                )));
            }
        }
    }
}

/// The value of the whole part of an answer the token limit cut off
/// ([`crate::cut_json::whole_elements`]): a plan cut in its fourth step
/// keeps three (found on dev: asking again took as long as the first
/// answer and was cut again, and the run ended without a plan). `error`
/// when the answer was not cut, or its whole part is not a `T`.
fn whole_part<T: DeserializeOwned>(
    response: &crate::ChatResponse,
    error: String,
) -> Result<T, String> {
    if response.finish_reason != FinishReason::Length {
        return Err(error);
    }
    crate::cut_json::whole_elements(&response.text)
        .iter()
        .find_map(|closed| parse::<T>(closed).ok())
        .ok_or(error)
}

/// A provider-safe schema name: letters, digits and `_`.
fn schema_name(type_name: &str) -> String {
    let name: String = type_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "answer".to_string()
    } else {
        name
    }
}

/// Reads a `T` from a model's text: the JSON inside a code fence if there is
/// one, otherwise the first JSON value in the text (prose before or after
/// it is ignored). The error names the path to the bad field.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let json =
        extract_json(text).ok_or_else(|| "it contains no JSON object or array".to_string())?;
    let mut deserializer = serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            e.inner().to_string()
        } else {
            format!("at `{path}`: {}", e.inner())
        }
    })
}

/// The JSON part of a model's text, if any.
pub fn extract_json(text: &str) -> Option<&str> {
    if let Some(fenced) = fenced_block(text) {
        return Some(fenced);
    }
    let start = text.find(['{', '['])?;
    let rest = &text[start..];
    // The first complete JSON value from there; prose after it is ignored.
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
    match values.next() {
        Some(Ok(_)) => Some(&rest[..values.byte_offset()]),
        _ => Some(rest.trim_end()),
    }
}

/// The content of the first ``` fenced block.
fn fenced_block(text: &str) -> Option<&str> {
    let open = text.find("```")?;
    let after = &text[open + 3..];
    // Skip a language tag such as `json`.
    let body_start = after.find('\n').map(|i| i + 1)?;
    let body = &after[body_start..];
    let close = body.find("```")?;
    Some(body[..close].trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Step {
        description: String,
        command: Option<String>,
    }

    #[test]
    fn plain_json_parses() {
        let step: Step = parse(r#"{"description":"run tests","command":"pytest"}"#).unwrap();
        assert_eq!(step.command.as_deref(), Some("pytest"));
    }

    #[test]
    fn code_fences_and_prose_are_stripped() {
        let text = "Sure! Here is the plan:\n```json\n{\"description\": \"d\", \"command\": null}\n```\nGood luck.";
        assert_eq!(
            parse::<Step>(text).unwrap(),
            Step {
                description: "d".into(),
                command: None
            }
        );
        let prose = "The answer is {\"description\": \"x\", \"command\": \"ls\"} as requested.";
        assert_eq!(parse::<Step>(prose).unwrap().description, "x");
    }

    #[test]
    fn errors_name_the_path_to_the_bad_field() {
        let error = parse::<Vec<Step>>(r#"[{"description":"a","command":null},{"description":5}]"#)
            .unwrap_err();
        assert!(error.contains("[1].description"), "{error}");
        assert_eq!(
            parse::<Step>("no json here").unwrap_err(),
            "it contains no JSON object or array"
        );
    }

    #[tokio::test]
    async fn a_schema_given_at_run_time_goes_with_the_request_in_place_of_the_types() {
        #[derive(Debug, Deserialize, schemars::JsonSchema)]
        struct Pick {
            file: String,
        }
        let narrowed = serde_json::json!({
            "type": "object",
            "properties": {"file": {"enum": ["calc.py", "test_calc.py"]}},
            "required": ["file"]
        });
        let model = crate::ScriptedModel::new([crate::Step::text(r#"{"file": "calc.py"}"#)]);
        let request = ChatRequest::new().message(Message::user("Which file?"));
        let pick = chat_structured_with_schema::<Pick>(&model, request, narrowed.clone(), &|_| {})
            .await
            .unwrap();
        assert_eq!(pick.value.file, "calc.py");
        let sent = model.requests();
        let schema = sent[0].response_schema.as_ref().unwrap();
        assert_eq!(schema.schema, narrowed);
        assert_eq!(schema.name, "Pick");
    }

    #[test]
    fn schema_names_are_provider_safe() {
        assert_eq!(schema_name("Plan<Step>"), "Plan_Step_");
        assert_eq!(schema_name(""), "answer");
    }
}
