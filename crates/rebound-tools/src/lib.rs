//! rebound's tools: what the executor acts with.
//!
//! A model calls tools with arbitrary arguments; every tool here holds:
//! bad arguments become a [`ToolOutput`] the model can read, never a panic.
//!
//! - [`Tool`] (dynamic JSON arguments) and [`TypedTool`] (arguments derived
//!   from a Rust type, with a JSON schema from `schemars`);
//! - [`ToolRegistry`]: tools by name, and their [`rebound_protocol::ToolDefinition`]s;
//! - [`shell`]: `bash -c` in its own process group, with a timeout, output
//!   caps, a scrubbed environment and the Landlock [`sandbox`];
//! - [`fs`]: read, write, edit and list, confined to the workspace;
//! - [`approval`]: the approval mode and command rules, which judge a
//!   command before it runs (`rebound_agent::tool_call` asks the user
//!   through a graph interrupt and journals every call);
//! - [`mcp`]: tools of MCP servers over stdio.

pub mod approval;
mod context;
mod error;
pub mod fs;
pub mod mcp;
mod registry;
pub mod sandbox;
pub mod shell;
mod tool;

pub use context::{OutputSink, ToolContext};
pub use error::ToolError;
pub use registry::ToolRegistry;
pub use tool::{Tool, ToolOutput, TypedTool};

/// The README's example, compiled and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
