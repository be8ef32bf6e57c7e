//! rebound's graph engine: durable agent workflows are graphs of async nodes
//! over a typed state.
//!
//! * **State** is your own struct with `#[derive(State)]`; each field has a
//!   merge rule (replace, append, or a function) and nodes return partial
//!   updates naming only the fields they write.
//! * **Nodes** are async closures (or sync ones) receiving the state and a
//!   [`NodeContext`] (run id, thread id, step, events, cancellation).
//! * **Edges** are static ([`StateGraph::add_edge`]), conditional with declared
//!   targets ([`StateGraph::add_conditional_edges`] and a [`PathMap`]), joins
//!   ([`StateGraph::add_join`]), or a node's own [`Command`] `goto`.
//! * **Supersteps**: nodes scheduled together run concurrently; their updates
//!   merge at the barrier in node-name order; a replace-field written by two of
//!   them is a [`GraphError::Conflict`].
//! * **Map-reduce**: a router or a `goto` may return [`Send`]s ([`Route::sends`]):
//!   each runs its node as a task of its own in the next superstep, with its
//!   own payload ([`NodeContext::send_arg`]); their updates merge after the
//!   scheduled nodes', in the order the sends were emitted.
//! * **Subgraphs**: a compiled graph runs as a node of another
//!   ([`StateGraph::add_subgraph`], [`StateGraph::add_subgraph_mapped`]),
//!   its checkpoints on a thread of its own under the parent's, its
//!   interrupts surfacing in the parent (see [`subgraph`]).
//! * **Events** of a run are one typed stream ([`Event`]); the engine never prints.
//!
//! ```
//! use rebound_graph::{NodeError, RunConfig, Route, State, StateGraph, END, START};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
//! struct Essay {
//!     draft: String,
//!     #[state(append)]
//!     notes: Vec<String>,
//!     revisions: u32,
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut graph = StateGraph::<Essay>::new();
//! graph
//!     .add_node("write", |s, _ctx| async move {
//!         Ok::<_, NodeError>(EssayUpdate::default()
//!             .draft(format!("draft {}", s.revisions + 1))
//!             .revisions(s.revisions + 1))
//!     })
//!     .add_sync_node("critique", |s, _ctx| {
//!         Ok(EssayUpdate::default().notes(vec![format!("{} needs work", s.draft)]))
//!     })
//!     .add_edge(START, "write")
//!     .add_edge("write", "critique")
//!     .add_conditional_edges(
//!         "critique",
//!         |s: &Essay| {
//!             if s.revisions >= 2 {
//!                 Route::end().because("good enough")
//!             } else {
//!                 Route::to("write").because("revise")
//!             }
//!         },
//!         ["write", END],
//!     );
//! let graph = graph.compile()?;
//! let essay = graph.invoke(Essay::default(), RunConfig::new()).await?;
//! assert_eq!(essay.draft, "draft 2");
//! assert_eq!(essay.notes.len(), 2);
//! # Ok(())
//! # }
//! ```

mod branch;
mod builder;
mod changes;
pub mod checkpoint;
mod compile;
mod config;
mod driver;
mod effect;
mod error;
mod event;
mod execute;
mod history;
mod interrupt;
mod journal;
mod mermaid;
mod node;
mod persist;
mod retry;
mod route;
mod routing;
mod run;
mod send;
mod state;
mod stream;
pub mod subgraph;

pub use builder::{StateGraph, ALL_NODES, END, START};
pub use config::{RunConfig, RunId, StreamModes, DEFAULT_RECURSION_LIMIT};
pub use effect::{EffectGate, GateFuture};
pub use error::{BoxError, CompileError, GraphError, NodeError, NodeErrorKind};
pub use event::{ChangedFields, Event, EventSink, RunStatus, SubgraphTask};
pub use history::{CheckpointInfo, StateSnapshot, COPY};
pub use interrupt::{Input, Interrupt, InterruptKind, ResumeCommand, RunOutcome};
pub use mermaid::GraphEdge;
pub use node::{Command, NodeContext, NodeOptions, NodeResult};
pub use persist::Durability;
pub use rebound_graph_derive::State;
pub use retry::{RetryPolicy, RetryPredicate};
pub use route::{PathMap, Route};
pub use run::CompiledGraph;
pub use send::Send;
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
