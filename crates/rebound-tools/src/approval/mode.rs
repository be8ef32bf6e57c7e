//! The approval mode: when to ask at all.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// When a command needs the user's approval before it runs. Forbidden
/// commands are refused in every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum ApprovalMode {
    /// Never ask: run everything that is not forbidden.
    #[serde(rename = "auto")]
    Auto,
    /// Ask for commands that are not on the allow list (the built-in one
    /// and the config's allow rules), and for those an ask rule names.
    #[default]
    #[serde(rename = "on-risk", alias = "on_risk")]
    OnRisk,
    /// Ask for every command.
    #[serde(rename = "always")]
    Always,
}

impl ApprovalMode {
    /// The mode's name in config: `auto`, `on-risk` or `always`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalMode::Auto => "auto",
            ApprovalMode::OnRisk => "on-risk",
            ApprovalMode::Always => "always",
        }
    }
}

impl fmt::Display for ApprovalMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that names no approval mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown approval mode {0:?}: expected `auto`, `on-risk` or `always`")]
pub struct ParseApprovalModeError(pub String);

impl FromStr for ApprovalMode {
    type Err = ParseApprovalModeError;

    /// Parses `auto`, `on-risk` (or `on_risk`) and `always`, in any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(ApprovalMode::Auto),
            "on-risk" | "on_risk" | "onrisk" => Ok(ApprovalMode::OnRisk),
            "always" => Ok(ApprovalMode::Always),
            _ => Err(ParseApprovalModeError(s.to_string())),
        }
    }
}
