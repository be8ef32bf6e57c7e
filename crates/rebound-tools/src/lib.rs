#![doc = include_str!("../README.md")]

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
