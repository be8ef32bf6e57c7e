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
//! [`ApprovalPolicy`] for how a line is read (with a real bash parser,
//! failing closed) and judged. Forbidden commands are refused in every
//! mode, `auto` included. Whoever runs an allowed line runs
//! [`hardened_command`] of it when there is one, so that the git read
//! commands on the allow list cannot be made to run programs by the
//! repository's configuration.
//!
//! An approval is an ordinary graph interrupt: `rebound_agent::run_tool_call`
//! stops the run with an [`ApprovalRequest`] payload, the caller resumes it
//! with an [`ApprovalAnswer`], and the call is journaled so that it runs
//! exactly once however often its node re-runs.
//!
//! ```
//! use rebound_tools::approval::{
//!     hardened_command, ApprovalMode, ApprovalPolicy, CommandRule, Verdict,
//! };
//!
//! let policy = ApprovalPolicy::new(ApprovalMode::OnRisk)
//!     .with_workspace("/work/repo")
//!     .with_rules([CommandRule::forbid("terraform destroy").because("not from an agent")]);
//! assert_eq!(policy.assess("cargo test && git status"), Verdict::Allow);
//! assert!(matches!(policy.assess("git push origin main"), Verdict::Ask { .. }));
//! assert!(matches!(policy.assess("sort -o out.txt in.txt"), Verdict::Ask { .. }));
//! assert!(matches!(policy.assess("echo $(whoami)"), Verdict::Ask { .. }));
//! assert!(matches!(policy.assess("ls; rm -r -f /"), Verdict::Forbid { .. }));
//! assert!(matches!(policy.assess("rm -rf ~/"), Verdict::Forbid { .. }));
//! assert!(matches!(policy.assess("terraform destroy"), Verdict::Forbid { .. }));
//!
//! // What to run for an allowed line:
//! let line = "cargo test && git status";
//! let run = hardened_command(line).unwrap_or_else(|| line.to_string());
//! assert!(run.contains("git -c core.fsmonitor=false"));
//! assert_eq!(policy.assess(&run), Verdict::Allow);
//! ```

mod budget;
pub mod builtin;
mod deletion;
mod git;
mod judgement;
mod mode;
mod names;
mod options;
mod paths;
mod policy;
mod rules;
mod scan;
mod scripts;
mod secrets;
mod syntax;
mod variables;
mod wrappers;
mod writes;

pub use builtin::default_rules;
pub use git::hardened_command;
pub use mode::{ApprovalMode, ParseApprovalModeError};
pub use names::{or_operands, program_spans};
pub use policy::{ApprovalPolicy, Verdict};
pub use rebound_protocol::{ApprovalAnswer, ApprovalRequest};
pub use rules::{CommandRule, RuleAction};
pub use writes::file_writer;
