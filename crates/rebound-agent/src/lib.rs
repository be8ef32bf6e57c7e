//! rebound's agent workflows, built on the graph engine, the models and the
//! tools: the systems of the design notes.
//!
//! - [`pev`]: plan → execute → review → advance, with repair mode: a failed
//!   step goes back to the planner with its error (notes 1 and 2);
//! - [`reflect`]: plan → execute → reflect → commit, with git commits per
//!   accepted step and rollback (note 3);
//! - [`supervisor`]: a coordinator routing between agents, with a human in
//!   the loop (note 4).
//!
//! The workflows share [`AgentDeps`] (the model, the tools, the approval
//! policy, the workspace and the [`AgentConfig`] with its budgets), the step
//! executor, the prompts and the typed [`StopReason`].
//!
//! A finish carries evidence: a run's [`checks`] (commands whose success
//! means the goal is reached) run before the first plan, after a step that
//! changed files, and whenever a node says `finish`; a finish that a check
//! contradicts is overruled, and with no check at all it is reported as
//! [`StopReason::FinishedUnverified`].

mod artifact_plan;
pub mod checks;
mod commit_plan;
mod config;
mod convert;
mod deps;
pub mod edit;
pub mod events;
mod executor;
mod git;
pub mod install;
mod llm;
pub mod localize;
pub mod model_call;
pub mod module_name;
mod package_init;
pub mod pev;
mod plan;
pub mod plan_schema;
pub mod planning;
pub mod progress;
pub mod prompts;
mod protect;
pub mod reflect;
mod revert_plan;
pub mod scratch;
mod script;
pub mod step_check;
mod stop;
pub mod supervisor;
mod tag_plan;
pub mod tool_call;
pub mod unchanged;
pub mod workflow;
mod workspace;

pub use config::{AgentConfig, Budget};
pub use deps::AgentDeps;
pub use executor::{execute_step, StepOutcome};
pub use plan::{
    ExecReport, PlanStatus, PlanStep, PlanWithCheck, Review, StepFailure, StepKind, StepRecord,
    Verdict,
};
pub use stop::{BudgetKind, CheckReport, RunSummary, StopReason};
