//! rebound's wire types: the typed events of every layer — the engine's
//! run events, model calls, tool calls and their output, approvals, the
//! agent's progress — in one serde family with a stable JSON form, and the
//! node names of the built-in workflows.
//!
//! Every producer emits these types (a node puts a [`Payload`] into its
//! run's event stream) and every consumer — the terminal display, the
//! JSONL log, the HTTP server's SSE stream, `rebound eval` — decodes them
//! with [`Event::decode`] / [`Payload::decode`], which never fail: what a
//! newer version added arrives as [`Event::Unknown`] or [`Payload::Other`],
//! never as an error or a panic.
//!
//! The crate depends on nothing of rebound's, so the model layer and the
//! tools can share it without the engine.
//!
//! # The JSON form
//!
//! A run's event is an object tagged by `"event"`; a custom event's
//! payload is an object with one key naming what it is:
//!
//! ```
//! use rebound_protocol::{Event, Payload, ToolCall, ToolEvent};
//!
//! let line = r#"{"event":"custom","node":"executor","step":3,
//!     "payload":{"tool_call":{"phase":"started","name":"shell","command":"cargo test"}}}"#;
//! let Event::Custom { payload, .. } = Event::decode_str(line) else { panic!() };
//! let Payload::Tool(ToolEvent::ToolCall(ToolCall::Started { command, .. })) = payload else {
//!     panic!()
//! };
//! assert_eq!(command.as_deref(), Some("cargo test"));
//!
//! // An event of a newer version is kept, never an error.
//! let newer = Event::decode_str(r#"{"event":"budget_warning","left":3}"#);
//! assert!(matches!(newer, Event::Unknown { name: Some(ref n), .. } if n == "budget_warning"));
//! ```
//!
//! The form is versioned by [`PROTOCOL_VERSION`]: a change that an older
//! reader would misread (a renamed or retyped field) bumps it; a new event,
//! payload or optional field does not.

pub mod agent;
pub mod approval;
mod display;
pub mod model;
pub mod nodes;
mod payload;
mod run;
pub mod tool;

pub use agent::AgentEvent;
pub use approval::{Approval, ApprovalAnswer, ApprovalEvent, ApprovalRequest, Decision};
pub use model::{ModelCall, ModelEvent};
pub use payload::Payload;
pub use run::{Event, InterruptKind, NodeErrorKind, RunStatus, SubgraphTask};
pub use tool::{CommandOutcome, OutputLine, Stream, ToolCall, ToolDefinition, ToolEvent};

/// The version of the JSON form of [`Event`] and [`Payload`].
pub const PROTOCOL_VERSION: u32 = 1;

/// The README's example, compiled and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
