//! Exit codes, and the errors that choose them.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | the run finished and its checks verified it (or the command succeeded) |
//! | 1 | the run stopped without finishing (budget, max iterations, error), or a command failed |
//! | 2 | usage or configuration error |
//! | 3 | interrupted: a command awaits approval (`rebound resume <thread> --approve`) |
//! | 4 | the run finished, but nothing verified it: no check could prove the goal |
//! | 130 | cancelled with Ctrl-C: the run is checkpointed and resumable |

use std::process::ExitCode;

/// How a command ended, as the process's exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: the run finished and its checks verified it, or the command
    /// did what it was asked.
    Success,
    /// 1: the run stopped without finishing, or a command failed.
    Stopped,
    /// 2: the command line or the configuration is wrong.
    Usage,
    /// 3: the run waits for an approval.
    Interrupted,
    /// 4: the run finished, but nothing verified it (no check, checks
    /// that cannot tell done from not done, or checks whose files the run
    /// changed): exit 0 is kept for a finish with evidence, so that a
    /// script can trust it.
    Unverified,
    /// 130: the run was cancelled with Ctrl-C.
    Cancelled,
}

impl Exit {
    /// The numeric code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Stopped => 1,
            Exit::Usage => 2,
            Exit::Interrupted => 3,
            Exit::Unverified => 4,
            Exit::Cancelled => 130,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit.code())
    }
}

/// A mistake in how rebound was called (a bad argument, an unknown thread
/// or checkpoint, nothing to resume): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A [`UsageError`] as an `anyhow::Error`.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    UsageError(message.into()).into()
}

/// The exit code of a command that failed with `error`: 2 for usage and
/// configuration errors anywhere in its chain, else 1.
pub fn code_of(error: &anyhow::Error) -> Exit {
    let is_usage = error.chain().any(|cause| {
        cause.is::<UsageError>()
            || cause.is::<rebound_workspace::config::ConfigError>()
            || cause
                .downcast_ref::<rebound_workspace::WorkspaceError>()
                .is_some_and(rebound_workspace::WorkspaceError::is_usage)
    });
    if is_usage {
        Exit::Usage
    } else {
        Exit::Stopped
    }
}
