//! The workflows the CLI runs, behind one trait so that running, resuming
//! and inspecting a thread are written once.

use std::fmt;
use std::sync::Arc;

use rebound_agent::checks::Check;
use rebound_agent::pev::PevState;
use rebound_agent::reflect::ReflectState;
use rebound_agent::{pev, reflect, AgentDeps, Budget, RunSummary};
use rebound_graph::{CompileError, CompiledGraph, State};
use serde::{Deserialize, Serialize};

/// Which workflow a thread runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum WorkflowKind {
    /// Plan → execute → review → advance, with repair mode.
    #[default]
    Pev,
    /// Plan → execute → reflect → commit, one git commit per accepted step.
    Reflect,
}

impl fmt::Display for WorkflowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WorkflowKind::Pev => "pev",
            WorkflowKind::Reflect => "reflect",
        })
    }
}

/// What the CLI needs of a workflow's state type.
pub trait Workflow: State {
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
