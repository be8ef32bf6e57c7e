//! Per-run settings: [`RunConfig`] and the [`RunId`].

use std::fmt;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::Event;

/// The default recursion limit: node supersteps per run.
///
/// Ten thousand supersteps lets long agent loops (hundreds of iterations)
/// finish while an accidental infinite loop of fast nodes still stops within
/// milliseconds. A run of `S` supersteps needs a limit of at least `S`.
pub const DEFAULT_RECURSION_LIMIT: u64 = 10_000;

/// A run's unique, time-sortable id (UUID v7).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct RunId(uuid::Uuid);

impl RunId {
    /// A new id for the current time.
    pub fn new() -> Self {
        RunId(uuid::Uuid::now_v7())
    }
}

impl Default for RunId {
    fn default() -> Self {
        RunId::new()
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

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
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            thread_id: None,
            recursion_limit: DEFAULT_RECURSION_LIMIT,
            cancellation: None,
            events: None,
        }
    }
}

impl RunConfig {
    /// The defaults: no thread, [`DEFAULT_RECURSION_LIMIT`], no cancellation.
    pub fn new() -> Self {
        RunConfig::default()
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

    /// The recursion limit in force.
    pub fn recursion_limit(&self) -> u64 {
        self.recursion_limit
    }

    /// The thread id, if set.
    pub fn thread_id(&self) -> Option<&str> {
        self.thread_id.as_deref()
    }
}
