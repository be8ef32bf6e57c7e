//! The names the queue stores: run and thread statuses (the shared
//! `rebound_protocol::records` types), cancel actions.

pub use rebound_protocol::records::{RunStatus, ThreadStatus};

/// What an API server asked of a running run ([`super::RunQueue::request_cancel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CancelAction {
    /// Stop it, keeping what it did.
    Interrupt,
    /// Stop it and delete what it wrote.
    Rollback,
}

impl CancelAction {
    /// Its stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            CancelAction::Interrupt => "interrupt",
            CancelAction::Rollback => "rollback",
        }
    }

    /// The action named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "interrupt" => CancelAction::Interrupt,
            "rollback" => CancelAction::Rollback,
            _ => return None,
        })
    }
}
