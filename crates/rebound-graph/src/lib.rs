#![doc = include_str!("../README.md")]

mod ascii;
mod branch;
mod builder;
mod changes;
pub mod checkpoint;
mod compile;
mod config;
mod driver;
mod durability;
mod effect;
mod error;
mod event;
mod execute;
mod history;
mod interrupt;
mod journal;
mod mermaid;
mod names;
mod node;
mod persist;
mod retry;
mod route;
mod routing;
mod run;
mod run_id;
mod scratch;
mod send;
mod snapshot;
mod state;
mod stream;
pub mod subgraph;

pub use builder::StateGraph;
pub use config::{RunConfig, StreamModes, DEFAULT_RECURSION_LIMIT};
pub use durability::Durability;
pub use effect::{EffectGate, GateFuture};
pub use error::{BoxError, CompileError, GraphError, NodeError, NodeErrorKind};
pub use event::{ChangedFields, Event, EventSink, RunStatus, SubgraphTask};
pub use history::COPY;
pub use interrupt::{Input, Interrupt, InterruptKind, ResumeCommand, RunOutcome};
pub use mermaid::GraphEdge;
pub use names::{ALL_NODES, END, START};
pub use node::{Command, NodeContext, NodeOptions, NodeResult};
pub use rebound_graph_derive::State;
pub use retry::{RetryPolicy, RetryPredicate};
pub use route::{PathMap, Route};
pub use run::CompiledGraph;
pub use run_id::RunId;
pub use send::Send;
pub use snapshot::{CheckpointInfo, StateSnapshot};
pub use state::{FieldSet, MergeRule, State};
pub use stream::RunStream;
pub use subgraph::{SubgraphError, SubgraphState};
pub use tokio_util::sync::CancellationToken;

/// Re-exports used by `#[derive(State)]`; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use serde;

    /// Deserializes a present update field as a write (`Some`), so that
    /// writing `None` into an `Option` field survives a round trip.
    pub fn deserialize_some<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
    where
        D: serde::Deserializer<'de>,
        T: serde::Deserialize<'de>,
    {
        T::deserialize(deserializer).map(Some)
    }
}

// Lets `#[derive(State)]` refer to `::rebound_graph` inside this crate's tests.
extern crate self as rebound_graph;
