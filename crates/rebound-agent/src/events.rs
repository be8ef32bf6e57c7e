//! Emitting the agent's events: the typed payloads of
//! [`rebound_protocol`] (agent progress, model and tool calls, approvals)
//! put into the run's event stream as custom events, which a front end
//! decodes with [`Payload::decode`] and shows as progress.

use rebound_graph::NodeContext;
pub use rebound_protocol::agent::{AgentEvent, StepPhase};
use rebound_protocol::Payload;

/// Puts a typed payload into a node's event stream.
pub trait Emit {
    /// Emits the event from the node of `ctx` (built only when someone
    /// listens).
    fn emit(self, ctx: &NodeContext);
}

impl<T: Into<Payload>> Emit for T {
    fn emit(self, ctx: &NodeContext) {
        ctx.emit(|| self.into().to_value());
    }
}
