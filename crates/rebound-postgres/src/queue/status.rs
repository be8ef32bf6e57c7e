//! The names the queue stores: run and thread statuses, cancel actions.

/// A run's status, as the Agent Server API names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunStatus {
    /// Queued, waiting for a worker (or for the run before it on its thread).
    Pending,
    /// A worker holds it through a lease.
    Running,
    /// It ran to the end.
    Success,
    /// It failed (or its lease lapsed on its last attempt).
    Error,
    /// It ran out of time.
    Timeout,
    /// It stopped at an interrupt, or was cancelled.
    Interrupted,
}

impl RunStatus {
    /// Its stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Pending => "pending",
            RunStatus::Running => "running",
            RunStatus::Success => "success",
            RunStatus::Error => "error",
            RunStatus::Timeout => "timeout",
            RunStatus::Interrupted => "interrupted",
        }
    }

    /// The status named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "pending" => RunStatus::Pending,
            "running" => RunStatus::Running,
            "success" => RunStatus::Success,
            "error" => RunStatus::Error,
            "timeout" => RunStatus::Timeout,
            "interrupted" => RunStatus::Interrupted,
            _ => return None,
        })
    }

    /// Whether the run has ended (it will not run again).
    pub fn is_final(self) -> bool {
        !matches!(self, RunStatus::Pending | RunStatus::Running)
    }
}

/// A thread's status, as the Agent Server API names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadStatus {
    /// Nothing runs on it.
    Idle,
    /// A run runs on it.
    Busy,
    /// Its last run stopped at an interrupt.
    Interrupted,
    /// Its last run failed.
    Error,
}

impl ThreadStatus {
    /// Its stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            ThreadStatus::Idle => "idle",
            ThreadStatus::Busy => "busy",
            ThreadStatus::Interrupted => "interrupted",
            ThreadStatus::Error => "error",
        }
    }

    /// The status named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "idle" => ThreadStatus::Idle,
            "busy" => ThreadStatus::Busy,
            "interrupted" => ThreadStatus::Interrupted,
            "error" => ThreadStatus::Error,
            _ => return None,
        })
    }
}

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
