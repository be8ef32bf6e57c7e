//! Per-run settings: [`RunConfig`].

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::checkpoint::CheckpointId;
use crate::{Durability, Event, RunId, SubgraphTask};

/// The default recursion limit: node supersteps per run.
///
/// Ten thousand supersteps lets long agent loops (hundreds of iterations)
/// finish while an accidental infinite loop of fast nodes still stops within
/// milliseconds. A run of `S` supersteps needs a limit of at least `S`.
pub const DEFAULT_RECURSION_LIMIT: u64 = 10_000;

/// Settings of one run.
///
/// ```
/// use rebound_graph::RunConfig;
/// let config = RunConfig::new().with_thread_id("t1").with_recursion_limit(200);
/// assert_eq!(config.recursion_limit(), 200);
/// ```
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub(crate) thread_id: Option<Arc<str>>,
    pub(crate) recursion_limit: u64,
    pub(crate) cancellation: Option<CancellationToken>,
    pub(crate) events: Option<UnboundedSender<Event>>,
    pub(crate) checkpoint_id: Option<CheckpointId>,
    pub(crate) durability: Durability,
    pub(crate) run_id: Option<RunId>,
    pub(crate) interrupt_before: Vec<String>,
    pub(crate) interrupt_after: Vec<String>,
    pub(crate) modes: StreamModes,
    /// The subgraph tasks a child run is nested in (`None` for a run the
    /// user started): its events reach the stream as
    /// [`crate::Event::Subgraph`].
    pub(crate) namespace: Option<Arc<[SubgraphTask]>>,
    /// Checked before each journaled call executes (a subgraph's child run
    /// inherits it).
    pub(crate) effect_gate: Option<crate::EffectGate>,
}

/// What a run's event stream carries besides its events, like LangGraph's
/// stream modes: the whole state after each superstep, and each node's
/// update as it finishes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamModes {
    /// [`crate::Event::Values`]: the state after the input and after each
    /// superstep.
    pub values: bool,
    /// [`crate::Event::Updates`]: each node's update, when it finishes.
    pub updates: bool,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            thread_id: None,
            recursion_limit: DEFAULT_RECURSION_LIMIT,
            cancellation: None,
            events: None,
            checkpoint_id: None,
            durability: Durability::Sync,
            run_id: None,
            interrupt_before: Vec::new(),
            interrupt_after: Vec::new(),
            modes: StreamModes::default(),
            namespace: None,
            effect_gate: None,
        }
    }
}

impl RunConfig {
    /// The defaults: no thread, [`DEFAULT_RECURSION_LIMIT`], no cancellation.
    pub fn new() -> Self {
        RunConfig::default()
    }

    /// What the event stream carries besides the events (nothing extra by
    /// default): values, updates, or both.
    #[must_use]
    pub fn with_stream_modes(mut self, modes: StreamModes) -> Self {
        self.modes = modes;
        self
    }

    /// The thread this run belongs to.
    #[must_use]
    pub fn with_thread_id(mut self, thread_id: impl Into<Arc<str>>) -> Self {
        self.thread_id = Some(thread_id.into());
        self
    }

    /// The most node supersteps this run may execute.
    #[must_use]
    pub fn with_recursion_limit(mut self, limit: u64) -> Self {
        self.recursion_limit = limit;
        self
    }

    /// A token that cancels the run: running nodes are dropped at their next
    /// await point and the run returns [`crate::GraphError::Cancelled`].
    #[must_use]
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// Sends the run's events into `sender` (what [`crate::CompiledGraph::stream`] does for you).
    #[must_use]
    pub fn with_events(mut self, sender: UnboundedSender<Event>) -> Self {
        self.events = Some(sender);
        self
    }

    /// A checkpoint of the thread to work from: resuming from it replays the
    /// run from there (new checkpoints fork from it); `get_state` and
    /// `update_state` read it instead of the latest.
    #[must_use]
    pub fn with_checkpoint_id(mut self, id: CheckpointId) -> Self {
        self.checkpoint_id = Some(id);
        self
    }

    /// Checks `gate` before each journaled call of the run executes (a
    /// replayed call is not checked: it does nothing). A refusal fails the
    /// node permanently with the gate's reason, without running the call.
    /// A server's worker uses it to confirm it still holds the run's lease
    /// before an external effect.
    #[must_use]
    pub fn with_effect_gate(mut self, gate: crate::EffectGate) -> Self {
        self.effect_gate = Some(gate);
        self
    }

    /// When checkpoints are committed (default [`Durability::Sync`]).
    #[must_use]
    pub fn with_durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// Also stops this run before these nodes (on top of the graph's own).
    #[must_use]
    pub fn with_interrupt_before<I, T>(mut self, nodes: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.interrupt_before
            .extend(nodes.into_iter().map(Into::into));
        self
    }

    /// Also stops this run after these nodes (on top of the graph's own).
    #[must_use]
    pub fn with_interrupt_after<I, T>(mut self, nodes: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.interrupt_after
            .extend(nodes.into_iter().map(Into::into));
        self
    }

    /// The checkpoint id, if set.
    pub fn checkpoint_id(&self) -> Option<CheckpointId> {
        self.checkpoint_id
    }

    /// The recursion limit in force.
    pub fn recursion_limit(&self) -> u64 {
        self.recursion_limit
    }

    /// This config with the run's id chosen by the caller (by default each
    /// run gets a new one): the id its events carry.
    pub fn with_run_id(mut self, run_id: RunId) -> Self {
        self.run_id = Some(run_id);
        self
    }

    /// The thread id, if set.
    pub fn thread_id(&self) -> Option<&str> {
        self.thread_id.as_deref()
    }
}
