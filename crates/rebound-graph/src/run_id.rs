//! [`RunId`]: a run's unique, time-sortable id. A leaf of the engine.

use std::fmt;

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

impl From<uuid::Uuid> for RunId {
    /// The run id an application chose (e.g. the id its API gave the run),
    /// for [`RunConfig::with_run_id`].
    fn from(id: uuid::Uuid) -> Self {
        RunId(id)
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
