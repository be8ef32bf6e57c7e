//! The [`Tool`] trait and its typed form, [`TypedTool`].

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{ToolContext, ToolError};

/// What a tool call produced. Serializable: tool calls are journaled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// Whether the call did what it was asked (for the shell: exit code 0).
    pub success: bool,
    /// What the model sees.
    pub content: String,
    /// Structured facts for programs: an exit code, a duration, whether
    /// output was truncated, where the full log is. `null` when there are none.
    #[serde(default)]
    pub details: serde_json::Value,
}

impl ToolOutput {
    /// A successful output with `content` and no details.
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput {
            success: true,
            content: content.into(),
            details: serde_json::Value::Null,
        }
    }

    /// A failed output with `content` and no details.
    pub fn failure(content: impl Into<String>) -> Self {
        ToolOutput {
            success: false,
            content: content.into(),
            details: serde_json::Value::Null,
        }
    }

    /// The same output with `details`.
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = details;
        self
    }
}

/// A tool with JSON arguments: what the registry holds and the model calls.
///
/// Most tools implement [`TypedTool`] instead, which derives the schema
/// and parses the arguments; MCP tools, whose schemas arrive at run time,
/// implement this directly.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// What it does, for the model.
    fn description(&self) -> &str;
    /// The JSON schema of its arguments object.
    fn parameters(&self) -> serde_json::Value;
    /// The command line an approval policy must judge before this call
    /// runs, if the call runs one (the shell tool's `command`).
    fn command_line(&self, _arguments: &serde_json::Value) -> Option<String> {
        None
    }
    /// Runs the call. Bad arguments are [`ToolError::BadArguments`].
    async fn call(
        &self,
        arguments: serde_json::Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError>;
}

/// A tool whose arguments are a Rust type: the schema comes from
/// `schemars`, and the arguments are parsed (with the path of a bad field in
/// the error) before [`TypedTool::run`] sees them.
#[async_trait]
pub trait TypedTool: Send + Sync {
    /// The arguments.
    type Args: DeserializeOwned + schemars::JsonSchema + Send;
    /// The name the model calls it by.
    const NAME: &'static str;
    /// What it does, for the model.
    fn description(&self) -> &str;
    /// See [`Tool::command_line`].
    fn command_line(&self, _args: &Self::Args) -> Option<String> {
        None
    }
    /// Runs the call.
    async fn run(&self, args: Self::Args, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;
}

/// Parses `arguments` as `A`, naming the tool and the path of a bad field.
pub(crate) fn parse_args<A: DeserializeOwned>(
    tool: &str,
    arguments: serde_json::Value,
) -> Result<A, ToolError> {
    serde_path_to_error::deserialize(arguments).map_err(|e| {
        let path = e.path().to_string();
        let message = if path == "." {
            e.inner().to_string()
        } else {
            format!("at `{path}`: {}", e.inner())
        };
        ToolError::BadArguments {
            tool: tool.to_string(),
            message,
        }
    })
}

#[async_trait]
impl<T: TypedTool> Tool for T {
    fn name(&self) -> &str {
        T::NAME
    }

    fn description(&self) -> &str {
        TypedTool::description(self)
    }

    fn parameters(&self) -> serde_json::Value {
        schemars::schema_for!(T::Args).to_value()
    }

    fn command_line(&self, arguments: &serde_json::Value) -> Option<String> {
        let args = parse_args::<T::Args>(T::NAME, arguments.clone()).ok()?;
        TypedTool::command_line(self, &args)
    }

    async fn call(
        &self,
        arguments: serde_json::Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let args = parse_args::<T::Args>(T::NAME, arguments)?;
        self.run(args, ctx).await
    }
}

impl ToolError {
    /// The failed [`ToolOutput`] the model sees for this error.
    pub fn into_output(self) -> ToolOutput {
        let kind = match &self {
            ToolError::UnknownTool { .. } => "unknown_tool",
            ToolError::BadArguments { .. } => "bad_arguments",
            ToolError::PathEscape { .. } => "path_escape",
            ToolError::Failed(_) => "failed",
            ToolError::Io { .. } => "io",
            ToolError::Cancelled => "cancelled",
            ToolError::Mcp { .. } => "mcp",
        };
        ToolOutput {
            success: false,
            content: format!("error: {self}"),
            details: serde_json::json!({ "error": kind }),
        }
    }
}
