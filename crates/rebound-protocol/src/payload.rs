//! The custom payloads of a run's events ([`crate::Event::Custom`]): one
//! JSON object with one key naming what it is — `{"plan": ...}`,
//! `{"tool_call": ...}`, `{"model_call": ...}` — or the library user's own.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{AgentEvent, ApprovalEvent, ModelEvent, ToolEvent};

/// What a node put into a custom event. Serialized flat: the inner event's
/// own JSON (`{"tool_call": {...}}`), so each layer's events keep one form
/// whoever wraps them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Payload {
    /// The agent's progress: plans, steps, reviews, checks.
    Agent(AgentEvent),
    /// A tool call or a line of its output.
    Tool(ToolEvent),
    /// An approval asked, answered, refused.
    Approval(ApprovalEvent),
    /// A model call.
    Model(ModelEvent),
    /// Anything else: a library user's own payload, or one of a newer
    /// version's that this one does not know.
    Other(Value),
}

impl Payload {
    /// Reads a payload from its JSON: one of rebound's own when it is one,
    /// else [`Payload::Other`] (so reading never fails).
    pub fn decode(value: &Value) -> Payload {
        Payload::deserialize(value).unwrap_or_else(|_| Payload::Other(value.clone()))
    }

    /// The payload's JSON, as a node emits it into the engine's event
    /// stream.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl From<AgentEvent> for Payload {
    fn from(event: AgentEvent) -> Self {
        Payload::Agent(event)
    }
}

impl From<ToolEvent> for Payload {
    fn from(event: ToolEvent) -> Self {
        Payload::Tool(event)
    }
}

impl From<ApprovalEvent> for Payload {
    fn from(event: ApprovalEvent) -> Self {
        Payload::Approval(event)
    }
}

impl From<ModelEvent> for Payload {
    fn from(event: ModelEvent) -> Self {
        Payload::Model(event)
    }
}
