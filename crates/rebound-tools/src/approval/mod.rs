//! Approvals: which commands run, which wait for the user, which never run.
//!
//! Two settings, as in codex:
//!
//! - the [`ApprovalMode`]: `auto` (never ask), `on-risk` (ask for commands
//!   not on the allow list; the default) or `always` (ask for every
//!   command);
//! - [`CommandRule`]s from config, each mapping a prefix of words to
//!   [`RuleAction::Allow`], [`RuleAction::Ask`] or [`RuleAction::Forbid`],
//!   added to the defaults (see [`default_rules`] and the guards described
//!   in the [`builtin`] docs). When several rules match, the strictest wins:
//!   forbid over ask over allow.
//!
//! [`ApprovalPolicy::assess`] turns a command line into a [`Verdict`]; see
//! [`ApprovalPolicy`] for how a line is split and judged. Forbidden
//! commands are refused in every mode, `auto` included.
//!
//! An approval is an ordinary graph interrupt: [`run_tool_call`] stops the
//! run with an [`ApprovalRequest`] payload, the caller resumes it with an
//! [`ApprovalAnswer`], and the call is journaled so that it runs exactly
//! once however often its node re-runs.
//!
//! ```
//! use rebound_tools::approval::{ApprovalMode, ApprovalPolicy, CommandRule, Verdict};
//!
//! let policy = ApprovalPolicy::new(ApprovalMode::OnRisk)
//!     .with_rules([CommandRule::forbid("terraform destroy").because("not from an agent")]);
//! assert_eq!(policy.assess("cargo test && git status"), Verdict::Allow);
//! assert!(matches!(policy.assess("git push origin main"), Verdict::Ask { .. }));
//! assert!(matches!(policy.assess("ls; rm -r -f /"), Verdict::Forbid { .. }));
//! assert!(matches!(policy.assess("terraform destroy"), Verdict::Forbid { .. }));
//! ```

pub mod builtin;
mod mode;
mod policy;
mod request;
mod rules;
mod runner;
mod split;
mod wrappers;

pub use builtin::default_rules;
pub use mode::{ApprovalMode, ParseApprovalModeError};
pub use policy::{ApprovalPolicy, Verdict};
pub use request::{ApprovalAnswer, ApprovalRequest};
pub use rules::{CommandRule, RuleAction};
pub use runner::{run_tool_call, ToolCallOutcome};
