#![doc = include_str!("../README.md")]

mod artifact_plan;
mod bare_program;
pub mod checks;
mod cherry_pick_plan;
mod commit_plan;
mod config;
mod convert;
mod copied;
mod deps;
mod discovery_plan;
pub mod edit;
pub mod events;
mod example_config;
mod exec_bit;
mod executor;
mod git;
mod git_history;
mod indentation;
pub mod install;
mod llm;
mod merge_plan;
pub mod model_call;
pub mod module_name;
mod move_plan;
mod node_install;
mod node_steps;
mod package_init;
pub mod pev;
mod plan;
pub mod plan_schema;
mod planner_prompt;
pub mod planning;
pub mod progress;
pub mod prompts;
mod protect;
pub mod reflect;
mod restore_plan;
mod revert_plan;
pub mod scratch;
mod script;
mod shebang_plan;
mod split_plan;
mod step;
pub mod step_check;
mod stop;
mod summary;
pub mod supervisor;
mod table_finish;
mod tag_plan;
mod text;
pub mod tool_call;
pub mod unchanged;
mod uncommit_plan;
mod untrack_plan;
pub mod workflow;
mod workspace;

pub use config::{AgentConfig, Budget};
pub use deps::AgentDeps;
pub use executor::execute_step;
pub use plan::{
    ExecReport, PlanStatus, PlanStep, PlanWithCheck, Review, StepFailure, StepKind, StepRecord,
    Verdict,
};
/// Failure localization (`rebound-localize`): where a check's output points
/// in the code, as the planner and the editor see it.
pub use rebound_localize as localize;
pub use step::StepOutcome;
pub use stop::{BudgetKind, CheckReport, RunSummary, StopReason};
