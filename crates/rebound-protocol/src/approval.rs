//! The wire types of an approval: the question a graph interrupt carries,
//! and the answer it is resumed with, and what the approval policy tells
//! of each command it judges ([`ApprovalEvent`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The question put to the user before a command runs: the payload of the
/// graph interrupt. Its JSON carries `"kind": "approval"` so that a front
/// end can tell it from other interrupts:
///
/// ```json
/// {"kind": "approval", "tool": "shell", "command": "git push",
///  "cwd": "/work/repo", "reason": "`git push` publishes commits to a remote (rule `git push`)"}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "Tagged", from = "Tagged")]
pub struct ApprovalRequest {
    /// The tool that would run the command.
    pub tool: String,
    /// The command line.
    pub command: String,
    /// The directory it would run in.
    pub cwd: PathBuf,
    /// Why the policy asks.
    pub reason: String,
}

impl ApprovalRequest {
    /// The value of the `kind` field of an approval request's JSON.
    pub const KIND: &'static str = "approval";

    /// The approval request an interrupt payload holds, if it holds one.
    pub fn from_payload(payload: &serde_json::Value) -> Option<ApprovalRequest> {
        ApprovalRequest::deserialize(payload).ok()
    }
}

/// [`ApprovalRequest`] on the wire: internally tagged with `kind`.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Tagged {
    Approval {
        tool: String,
        command: String,
        cwd: PathBuf,
        reason: String,
    },
}

impl From<ApprovalRequest> for Tagged {
    fn from(r: ApprovalRequest) -> Self {
        Tagged::Approval {
            tool: r.tool,
            command: r.command,
            cwd: r.cwd,
            reason: r.reason,
        }
    }
}

impl From<Tagged> for ApprovalRequest {
    fn from(t: Tagged) -> Self {
        let Tagged::Approval {
            tool,
            command,
            cwd,
            reason,
        } = t;
        ApprovalRequest {
            tool,
            command,
            cwd,
            reason,
        }
    }
}

/// The user's answer to an [`ApprovalRequest`]: the value a run is resumed
/// with. On the wire: `{"decision": "approve"}`, `{"decision":
/// "approve_all"}`, `{"decision": "deny", "message": "use the staging
/// remote"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum ApprovalAnswer {
    /// Run this command.
    Approve,
    /// Run this command and do not ask again for the rest of the run (the
    /// caller keeps that state and passes `approved_all`).
    ApproveAll,
    /// Do not run it; the message goes back to the model.
    Deny {
        /// What the user said, for the model (may be empty).
        #[serde(default)]
        message: String,
    },
}

impl ApprovalAnswer {
    /// A denial with `message`.
    pub fn deny(message: impl Into<String>) -> Self {
        ApprovalAnswer::Deny {
            message: message.into(),
        }
    }

    /// Whether the command may run.
    pub fn is_approved(&self) -> bool {
        !matches!(self, ApprovalAnswer::Deny { .. })
    }
}

/// An event of the approval policy: `{"approval": {"phase": "asked", ...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ApprovalEvent {
    /// What the policy did with one command.
    Approval(Approval),
}

/// What the approval policy did with a command, tagged by `"phase"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Approval {
    /// The command is forbidden: it did not run.
    Forbidden {
        /// The tool.
        tool: String,
        /// The command line.
        command: String,
        /// The policy's reason.
        reason: String,
    },
    /// The policy asks the user: the run stops at an interrupt.
    Asked {
        /// The tool.
        tool: String,
        /// The command line.
        command: String,
        /// Where it would run.
        cwd: PathBuf,
        /// Why the policy asks.
        reason: String,
    },
    /// The user answered (told again each time the node re-runs past the
    /// question: the answer is replayed).
    Answered {
        /// The tool.
        tool: String,
        /// The command line.
        command: String,
        /// `approve`, `approve_all` or `deny`.
        decision: Decision,
    },
    /// The policy would ask, but the user approved everything for this run.
    Preapproved {
        /// The tool.
        tool: String,
        /// The command line.
        command: String,
        /// Why the policy would have asked.
        reason: String,
    },
}

/// The user's decision, without a denial's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Run this command.
    Approve,
    /// Run it and everything else in this run.
    ApproveAll,
    /// Do not run it.
    Deny,
}

impl From<&ApprovalAnswer> for Decision {
    fn from(answer: &ApprovalAnswer) -> Self {
        match answer {
            ApprovalAnswer::Approve => Decision::Approve,
            ApprovalAnswer::ApproveAll => Decision::ApproveAll,
            ApprovalAnswer::Deny { .. } => Decision::Deny,
        }
    }
}

impl std::fmt::Display for Decision {
    /// `approve`, `approve_all` or `deny`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Decision::Approve => "approve",
            Decision::ApproveAll => "approve_all",
            Decision::Deny => "deny",
        })
    }
}
