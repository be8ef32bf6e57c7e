//! Tools on the wire: what a model is told a tool is
//! ([`ToolDefinition`]), and what a tool call tells as it runs
//! ([`ToolEvent`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool the model may call: its name, what it does, and a JSON schema of
/// its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
}

impl ToolDefinition {
    /// A definition whose argument schema is derived from `A`.
    ///
    /// ```
    /// use rebound_protocol::ToolDefinition;
    ///
    /// #[derive(schemars::JsonSchema)]
    /// struct Args {
    ///     /// The file to read.
    ///     path: String,
    /// }
    ///
    /// let tool = ToolDefinition::for_args::<Args>("read", "Reads a file");
    /// assert_eq!(tool.parameters["properties"]["path"]["type"], "string");
    /// ```
    pub fn for_args<A: schemars::JsonSchema>(
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            parameters: schemars::schema_for!(A).to_value(),
        }
    }
}

/// An event of a tool call: `{"tool_call": {"phase": "started", ...}}` or
/// `{"tool_output": {"stream": "stdout", "line": ...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolEvent {
    /// A call started, finished, or was answered from the journal.
    ToolCall(ToolCall),
    /// A line a running command printed.
    ToolOutput(OutputLine),
}

/// A tool call's phases, tagged by `"phase"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolCall {
    /// The tool really runs now.
    Started {
        /// The tool.
        name: String,
        /// Its command line, for a tool that runs a command.
        command: Option<String>,
    },
    /// It ran.
    Finished {
        /// The tool.
        name: String,
        /// Its command line, for a tool that runs a command.
        command: Option<String>,
        /// Whether it did what it was asked (for a command: exit code 0).
        success: bool,
        /// How long the call took, in milliseconds.
        duration_ms: u64,
        /// How a command ended, for a tool that runs one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<CommandOutcome>,
    },
    /// The node ran again (after an interrupt or a crash) and the call's
    /// recorded output was used: the tool did not run again.
    Replayed {
        /// The tool.
        name: String,
        /// Its command line, for a tool that runs a command.
        command: Option<String>,
        /// Whether the recorded call succeeded.
        success: bool,
    },
}

/// How a command ended: the facts a tool that runs commands reports (the
/// shell puts these in its output's details).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandOutcome {
    /// The exit code, if the command exited (rather than being killed).
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// The signal that killed it, if one did.
    #[serde(default)]
    pub signal: Option<i32>,
    /// Whether it ran out of time (and its process group was killed).
    #[serde(default)]
    pub timed_out: bool,
    /// Whether the model-facing output leaves part of the output out.
    #[serde(default)]
    pub truncated: bool,
    /// The file with the full output, saved when it was truncated.
    #[serde(default)]
    pub log_path: Option<String>,
    /// Whether it ran confined by the sandbox (`false`: it could write
    /// outside the workspace); unknown for a tool or a version that does
    /// not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandboxed: Option<bool>,
}

/// Which stream a line of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl Stream {
    /// `stdout` or `stderr`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// A line a running command printed, as it printed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputLine {
    /// stdout or stderr.
    pub stream: Stream,
    /// The line, without its newline.
    pub line: String,
}
