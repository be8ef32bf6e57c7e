#![doc = include_str!("../README.md")]

pub mod agent;
pub mod approval;
mod display;
pub mod framing;
pub mod model;
pub mod nodes;
mod payload;
pub mod records;
mod run;
pub mod tool;

pub use agent::AgentEvent;
pub use approval::{Approval, ApprovalAnswer, ApprovalEvent, ApprovalRequest, Decision};
pub use display::human_duration;
pub use model::{ModelCall, ModelEvent};
pub use payload::Payload;
pub use run::{Event, InterruptKind, NodeErrorKind, RunStatus, SubgraphTask};
pub use tool::{CommandOutcome, OutputLine, Stream, ToolCall, ToolDefinition, ToolEvent};

/// The version of the JSON form of [`Event`] and [`Payload`].
pub const PROTOCOL_VERSION: u32 = 1;
