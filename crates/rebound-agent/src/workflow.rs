//! The workflows behind one trait, so that starting, resuming and inspecting
//! a thread are written once for all of them, and [`WorkflowKind`]: which
//! workflow a thread runs, by name.
//!
//! ```
//! use std::str::FromStr;
//! use std::sync::Arc;
//!
//! use rebound_agent::pev::PevState;
//! use rebound_agent::workflow::{Workflow, WorkflowKind};
//! use rebound_agent::{AgentConfig, AgentDeps, Budget};
//! use rebound_llm::{ScriptedModel, Step};
//! use rebound_tools::approval::{ApprovalMode, ApprovalPolicy};
//! use rebound_tools::{ToolContext, ToolRegistry};
//!
//! // A model that answers from a script: here, the planner's first plan.
//! let model = ScriptedModel::new([Step::json(serde_json::json!({
//!     "steps": [{"description": "Say hello", "command": "echo hello"}]
//! }))]);
//! let workspace = std::env::temp_dir();
//! let deps = Arc::new(AgentDeps {
//!     model: Arc::new(model),
//!     tools: ToolRegistry::new(),
//!     approval: ApprovalPolicy::new(ApprovalMode::Auto),
//!     workspace: ToolContext::new(&workspace)?,
//!     config: AgentConfig::default(),
//!     mcp: None,
//! });
//!
//! // The kind comes from a name (a flag, a config file, a stored thread)...
//! let kind = WorkflowKind::from_str("pev")?;
//! assert_eq!(kind, WorkflowKind::Pev);
//! assert!("plan-execute".parse::<WorkflowKind>().is_err());
//!
//! // ...and its state type builds the graph and the starting state.
//! let graph = PevState::build(deps)?;
//! let names: Vec<&str> = graph.node_names().collect();
//! assert!(names.contains(&"planner") && names.contains(&"reviewer"), "{names:?}");
//! let start = PevState::start("say hello", &Budget::default(), Vec::new());
//! assert_eq!(start.plan_len(), 0);
//! assert_eq!(start.summarize().iters, 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use rebound_graph::{CompileError, CompiledGraph, State};
use serde::{Deserialize, Serialize};

use crate::checks::Check;
use crate::pev::{self, PevState};
use crate::reflect::{self, ReflectState};
use crate::{AgentDeps, Budget, RunSummary};

/// Which workflow a thread runs. Its name (`pev`, `reflect`) is what
/// [`Display`](fmt::Display), [`FromStr`] and serde use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum WorkflowKind {
    /// Plan → execute → review → advance, with repair mode.
    #[default]
    Pev,
    /// Plan → execute → reflect → commit, one git commit per accepted step.
    Reflect,
}

impl WorkflowKind {
    /// Every workflow, in the order they are listed to users.
    pub const ALL: [WorkflowKind; 2] = [WorkflowKind::Pev, WorkflowKind::Reflect];

    /// Its name: `pev` or `reflect`.
    pub fn name(self) -> &'static str {
        match self {
            WorkflowKind::Pev => "pev",
            WorkflowKind::Reflect => "reflect",
        }
    }

    /// What it does, in one line (for help texts).
    pub fn description(self) -> &'static str {
        match self {
            WorkflowKind::Pev => "Plan → execute → review → advance, with repair mode",
            WorkflowKind::Reflect => {
                "Plan → execute → reflect → commit, one git commit per accepted step"
            }
        }
    }
}

impl fmt::Display for WorkflowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a workflow's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown workflow {name:?}: expected one of {}", allowed_names())]
pub struct ParseWorkflowKindError {
    /// The name that was given.
    pub name: String,
}

fn allowed_names() -> String {
    WorkflowKind::ALL
        .iter()
        .map(|kind| kind.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl FromStr for WorkflowKind {
    type Err = ParseWorkflowKindError;

    /// Parses a workflow's name, exactly as [`WorkflowKind::name`] spells it.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        WorkflowKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| ParseWorkflowKindError {
                name: name.to_string(),
            })
    }
}

/// What a caller (the CLI, a server) needs of a workflow's state type to
/// start, resume and inspect its threads without knowing which workflow it
/// is.
pub trait Workflow: State {
    /// Which workflow this is.
    const KIND: WorkflowKind;
    /// The workflow's graph, without a checkpointer.
    fn build(deps: Arc<AgentDeps>) -> Result<CompiledGraph<Self>, CompileError>;
    /// The starting state for `goal` within `budget`, with `checks` as its
    /// evidence.
    fn start(goal: &str, budget: &Budget, checks: Vec<Check>) -> Self;
    /// Why the run stopped and what it did.
    fn summarize(&self) -> RunSummary;
    /// The current plan's length (0 when there is none).
    fn plan_len(&self) -> usize;
}

impl Workflow for PevState {
    const KIND: WorkflowKind = WorkflowKind::Pev;

    fn build(deps: Arc<AgentDeps>) -> Result<CompiledGraph<Self>, CompileError> {
        pev::build(deps)
    }

    fn start(goal: &str, budget: &Budget, checks: Vec<Check>) -> Self {
        PevState::new(goal, budget.max_iters).with_checks(checks)
    }

    fn summarize(&self) -> RunSummary {
        pev::summarize(self)
    }

    fn plan_len(&self) -> usize {
        self.plan.len()
    }
}

impl Workflow for ReflectState {
    const KIND: WorkflowKind = WorkflowKind::Reflect;

    fn build(deps: Arc<AgentDeps>) -> Result<CompiledGraph<Self>, CompileError> {
        reflect::build(deps)
    }

    fn start(goal: &str, budget: &Budget, checks: Vec<Check>) -> Self {
        ReflectState::new(goal, budget.max_attempts, budget.max_iters).with_checks(checks)
    }

    fn summarize(&self) -> RunSummary {
        reflect::summarize(self)
    }

    fn plan_len(&self) -> usize {
        self.plan.len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn names_round_trip_through_display_from_str_and_serde() {
        for kind in WorkflowKind::ALL {
            assert_eq!(kind.to_string().parse::<WorkflowKind>(), Ok(kind));
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{kind}\""));
            assert_eq!(serde_json::from_str::<WorkflowKind>(&json).unwrap(), kind);
        }
        assert!("Reflect".parse::<WorkflowKind>().is_err());
        assert_eq!(WorkflowKind::default(), WorkflowKind::Pev);
    }

    #[test]
    fn an_unknown_name_lists_the_allowed_ones() {
        let error = "supervisor".parse::<WorkflowKind>().unwrap_err();
        assert_eq!(
            error,
            ParseWorkflowKindError {
                name: "supervisor".to_string()
            }
        );
        assert_eq!(
            error.to_string(),
            "unknown workflow \"supervisor\": expected one of pev, reflect"
        );
    }
}
