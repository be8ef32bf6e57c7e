//! The wire types of an approval: the question a graph interrupt carries,
//! and the answer it is resumed with.

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
        if payload.get("kind")?.as_str()? != Self::KIND {
            return None;
        }
        serde_json::from_value(payload.clone()).ok()
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
