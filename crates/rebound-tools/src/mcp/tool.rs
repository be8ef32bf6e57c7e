//! One tool of an MCP server, as a [`Tool`]: its exposed name, the call
//! (with timeout, cancellation and a dead server noticed), and the result
//! turned into a [`ToolOutput`].

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock};
use rmcp::service::{Peer, RoleClient};
use rmcp::ServiceError;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::process::ProcessObserver;
use crate::{Tool, ToolContext, ToolError, ToolOutput};

/// The longest tool name OpenAI accepts (`^[a-zA-Z0-9_-]{1,64}$`).
const MAX_TOOL_NAME: usize = 64;

/// How long a call keeps waiting for its answer once the server has exited:
/// a server may answer and then exit, and the answer is still in the pipe.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// What the tools of one server share with their client.
pub(super) struct Session {
    pub(super) server: String,
    pub(super) peer: Peer<RoleClient>,
    pub(super) call_timeout: Duration,
    pub(super) process: ProcessObserver,
    /// Cancelled when the client is shut down or dropped.
    pub(super) closed: CancellationToken,
}

impl Session {
    fn error(&self, message: impl Into<String>) -> ToolError {
        ToolError::Mcp {
            server: self.server.clone(),
            message: message.into(),
        }
    }

    /// The error for a call to `tool` whose server is gone.
    async fn server_gone(&self, tool: &str) -> ToolError {
        if self.closed.is_cancelled() {
            return self.error(format!(
                "cannot call tool {tool:?}: the client of this server was shut down"
            ));
        }
        let _ = self.process.wait_exit(Duration::from_secs(1)).await;
        let message = match self.process.exit_status() {
            Some(_) => format!("the server exited during the call to tool {tool:?}"),
            None => format!("the server closed its connection during the call to tool {tool:?}"),
        };
        self.error(self.process.explain(&message))
    }
}

/// A tool of an MCP server.
pub(super) struct McpTool {
    session: Arc<Session>,
    /// The name the model sees: `<server>__<tool>`, sanitized.
    name: String,
    /// The name the server knows it by.
    remote_name: String,
    description: String,
    parameters: Value,
}

impl McpTool {
    /// The tools of `session`'s server, named `<server>__<tool>` (sanitized,
    /// at most 64 characters, unique).
    pub(super) fn from_listing(
        session: &Arc<Session>,
        listed: Vec<rmcp::model::Tool>,
    ) -> Vec<McpTool> {
        let mut used = HashSet::new();
        listed
            .into_iter()
            .map(|tool| {
                let remote_name = tool.name.to_string();
                let name = exposed_name(&session.server, &remote_name, &mut used);
                let description = tool
                    .description
                    .as_deref()
                    .or(tool.title.as_deref())
                    .filter(|description| !description.trim().is_empty())
                    .map(str::to_string)
                    .unwrap_or_else(|| {
                        format!(
                            "Tool {remote_name:?} of the MCP server {:?}.",
                            session.server
                        )
                    });
                let mut parameters = (*tool.input_schema).clone();
                parameters
                    .entry("type")
                    .or_insert_with(|| Value::String("object".to_string()));
                McpTool {
                    session: session.clone(),
                    name,
                    remote_name,
                    description,
                    parameters: Value::Object(parameters),
                }
            })
            .collect()
    }

    fn details(&self) -> serde_json::Map<String, Value> {
        let mut details = serde_json::Map::new();
        details.insert("server".into(), json!(self.session.server));
        details.insert("tool".into(), json!(self.remote_name));
        details
    }

    fn map_response(
        &self,
        response: Result<CallToolResponse, ServiceError>,
    ) -> Result<ToolOutput, ToolError> {
        let session = &self.session;
        let tool = &self.remote_name;
        match response {
            Ok(CallToolResponse::Complete(result)) => Ok(self.output(result)),
            Ok(CallToolResponse::InputRequired(_)) => Err(session.error(format!(
                "tool {tool:?} asked the client for more input, which rebound does not support"
            ))),
            Ok(CallToolResponse::Task(_)) => Err(session.error(format!(
                "tool {tool:?} answered with a task to poll, which rebound does not support"
            ))),
            Ok(_) => Err(session.error(format!(
                "tool {tool:?} answered with a result rebound does not understand"
            ))),
            Err(ServiceError::McpError(error)) => Err(session.error(format!(
                "tool {tool:?} failed with error {}: {}",
                error.code.0, error.message
            ))),
            Err(ServiceError::Timeout { timeout }) => Err(self.timeout_error(timeout)),
            Err(error) => Err(session.error(format!("calling tool {tool:?} failed: {error}"))),
        }
    }

    fn timeout_error(&self, timeout: Duration) -> ToolError {
        self.session.error(format!(
            "tool {:?} did not answer within {} s (the call was cancelled)",
            self.remote_name,
            timeout.as_secs_f64()
        ))
    }

    /// The output the model sees for `result`.
    fn output(&self, result: CallToolResult) -> ToolOutput {
        let mut parts: Vec<String> = result.content.iter().map(describe_block).collect();
        if parts.is_empty() {
            if let Some(structured) = &result.structured_content {
                parts.push(structured.to_string());
            }
        }
        let mut details = self.details();
        if let Some(structured) = result.structured_content {
            details.insert("structured_content".into(), structured);
        }
        let is_error = result.is_error.unwrap_or(false);
        if is_error {
            details.insert("is_error".into(), Value::Bool(true));
        }
        ToolOutput {
            success: !is_error,
            content: parts.join("\n"),
            details: Value::Object(details),
        }
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    async fn call(&self, arguments: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let arguments = match arguments {
            Value::Object(arguments) => arguments,
            // A model calling a tool without arguments may send nothing.
            Value::Null => serde_json::Map::new(),
            other => {
                return Err(ToolError::BadArguments {
                    tool: self.name.clone(),
                    message: format!(
                        "the arguments must be a JSON object, not {}",
                        json_kind(&other)
                    ),
                })
            }
        };
        let session = &self.session;
        if session.closed.is_cancelled() || session.process.exit_status().is_some() {
            return Err(session.server_gone(&self.remote_name).await);
        }
        let params = CallToolRequestParams::new(self.remote_name.clone()).with_arguments(arguments);
        // Dropping this future before it finishes sends the server
        // `notifications/cancelled` for the request.
        let call = session.peer.call_tool_once(params);
        tokio::pin!(call);
        let deadline = tokio::time::sleep(session.call_timeout);
        tokio::pin!(deadline);
        let response = tokio::select! {
            biased;
            response = &mut call => response,
            _ = ctx.cancellation().cancelled() => return Err(ToolError::Cancelled),
            _ = session.closed.cancelled() => return Err(session.server_gone(&self.remote_name).await),
            _ = session.process.exited() => {
                match tokio::time::timeout(EXIT_GRACE, &mut call).await {
                    Ok(Ok(response)) => Ok(response),
                    _ => return Err(session.server_gone(&self.remote_name).await),
                }
            }
            _ = &mut deadline => return Err(self.timeout_error(session.call_timeout)),
        };
        match response {
            Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
                Err(session.server_gone(&self.remote_name).await)
            }
            response => self.map_response(response),
        }
    }
}

/// The text the model sees for one content block: text as is, other
/// content summarised.
fn describe_block(block: &ContentBlock) -> String {
    if let ContentBlock::Text(text) = block {
        return text.text.clone();
    }
    let value = serde_json::to_value(block).unwrap_or(Value::Null);
    let field = |name: &str| value.get(name).and_then(Value::as_str).unwrap_or("");
    let kind = field("type");
    match kind {
        "image" | "audio" => format!(
            "[{kind} content: {}, {} bytes of base64]",
            field("mimeType"),
            field("data").len()
        ),
        "resource" => {
            let resource = value.get("resource").cloned().unwrap_or(Value::Null);
            let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
            match resource.get("text").and_then(Value::as_str) {
                Some(text) => format!("[resource {uri}]\n{text}"),
                None => {
                    let blob = resource.get("blob").and_then(Value::as_str).unwrap_or("");
                    let mime = resource
                        .get("mimeType")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown type");
                    format!("[resource {uri}: {mime}, {} bytes of base64]", blob.len())
                }
            }
        }
        "resource_link" => format!("[resource link: {} ({})]", field("uri"), field("name")),
        _ => format!("[{kind} content]"),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `name` with every character outside `[a-zA-Z0-9_-]` replaced by `_`.
pub(super) fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `<server>__<tool>`, sanitized, cut to 64 characters, and made unique
/// among `used` with a `_2`, `_3`... suffix.
fn exposed_name(server: &str, tool: &str, used: &mut HashSet<String>) -> String {
    let mut base = sanitize(&format!("{server}__{tool}"));
    // Sanitized names are ASCII: any byte index is a character boundary.
    base.truncate(MAX_TOOL_NAME);
    let mut name = base.clone();
    let mut n = 2;
    while used.contains(&name) {
        let suffix = format!("_{n}");
        let keep = MAX_TOOL_NAME.saturating_sub(suffix.len()).min(base.len());
        name = format!("{}{suffix}", &base[..keep]);
        n += 1;
    }
    used.insert(name.clone());
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_prefixed_sanitized_and_unique() {
        let mut used = HashSet::new();
        assert_eq!(exposed_name("fs", "read", &mut used), "fs__read");
        assert_eq!(
            exposed_name("my.server", "dotted.name/x", &mut used),
            "my_server__dotted_name_x"
        );
        assert_eq!(
            exposed_name("my.server", "dotted_name.x", &mut used),
            "my_server__dotted_name_x_2"
        );
        let long = "t".repeat(100);
        let first = exposed_name("s", &long, &mut used);
        let second = exposed_name("s", &long, &mut used);
        assert_eq!(first, format!("s__{}", "t".repeat(61)));
        assert_eq!(second, format!("s__{}_2", "t".repeat(59)));
        assert_eq!(exposed_name("é", "ß", &mut used), "____");
    }

    #[test]
    fn non_text_content_is_summarised() {
        let image = ContentBlock::image("aGVsbG8=", "image/png");
        assert_eq!(
            describe_block(&image),
            "[image content: image/png, 8 bytes of base64]"
        );
        let resource = ContentBlock::embedded_text("file:///a.txt", "hello");
        assert_eq!(describe_block(&resource), "[resource file:///a.txt]\nhello");
        assert_eq!(describe_block(&ContentBlock::text("plain")), "plain");
    }
}
