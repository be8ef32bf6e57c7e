//! Why a tool call failed.

use std::path::PathBuf;

/// A failed tool call. Every variant has a message written for the model:
/// [`ToolError::into_output`] turns it into a [`crate::ToolOutput`] that goes
/// back into the conversation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The model called a tool that does not exist.
    #[error("there is no tool named {name:?}; the tools are: {available}")]
    UnknownTool {
        /// The name it used.
        name: String,
        /// The names it could have used, comma-separated.
        available: String,
    },
    /// The arguments do not fit the tool's schema.
    #[error("bad arguments for tool {tool:?}: {message}")]
    BadArguments {
        /// The tool.
        tool: String,
        /// What is wrong, with the path of the bad field.
        message: String,
    },
    /// A path leaves the workspace (through `..`, an absolute path or a
    /// symlink).
    #[error("path {path:?} is outside the workspace {workspace:?}: {reason}")]
    PathEscape {
        /// The path as given.
        path: String,
        /// The workspace root.
        workspace: PathBuf,
        /// How it escapes.
        reason: String,
    },
    /// The call was well-formed but cannot be done (a missing file, an
    /// ambiguous edit, a file too large...).
    #[error("{0}")]
    Failed(String),
    /// An I/O error, with what was being done.
    #[error("{action}: {source}")]
    Io {
        /// What was being done, e.g. `reading "src/lib.rs"`.
        action: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The call was cancelled.
    #[error("the tool call was cancelled")]
    Cancelled,
    /// An MCP server failed to start, died or answered badly.
    #[error("MCP server {server:?}: {message}")]
    Mcp {
        /// The server's name from config.
        server: String,
        /// What happened.
        message: String,
    },
}

impl ToolError {
    /// A [`ToolError::Failed`] from a message.
    pub fn failed(message: impl Into<String>) -> Self {
        ToolError::Failed(message.into())
    }

    /// An [`ToolError::Io`] naming what was being done.
    pub fn io(action: impl Into<String>, source: std::io::Error) -> Self {
        ToolError::Io {
            action: action.into(),
            source,
        }
    }
}
