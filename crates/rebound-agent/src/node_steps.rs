//! What the nodes of pev and reflect share: recording a run of the checks,
//! the checks run before the first plan (a check that cannot run stops
//! the run), and the plan made with its tokens, time and any check adopted
//! on the way. Each workflow's update type takes part through
//! [`RunUpdate`].

use std::time::Instant;

use rebound_graph::{NodeContext, NodeError};

use crate::checks::{verify, CheckRun, Evidence};
use crate::planning::{make_plan, PlanContext};
use crate::{AgentDeps, PlanStep, StopReason};

/// The builder methods, for the fields every workflow's state has, of
/// its update type (implemented with [`run_update`]).
pub(crate) trait RunUpdate: Sized {
    /// Sets the evidence.
    fn evidence(self, value: Evidence) -> Self;
    /// Sets whether every command is approved.
    fn approved_all(self, value: bool) -> Self;
    /// Sets the tokens used.
    fn tokens(self, value: u64) -> Self;
    /// Sets the working time.
    fn work_ms(self, value: u64) -> Self;
    /// Sets why the run must stop.
    fn stop(self, value: Option<StopReason>) -> Self;
}

/// Implements [`RunUpdate`] for a derived update type with its own builder
/// methods.
macro_rules! run_update {
    ($update:ty) => {
        impl $crate::node_steps::RunUpdate for $update {
            fn evidence(self, value: $crate::checks::Evidence) -> Self {
                <$update>::evidence(self, value)
            }
            fn approved_all(self, value: bool) -> Self {
                <$update>::approved_all(self, value)
            }
            fn tokens(self, value: u64) -> Self {
                <$update>::tokens(self, value)
            }
            fn work_ms(self, value: u64) -> Self {
                <$update>::work_ms(self, value)
            }
            fn stop(self, value: Option<$crate::StopReason>) -> Self {
                <$update>::stop(self, value)
            }
        }
    };
}
pub(crate) use run_update;

/// Milliseconds since `started`.
pub(crate) fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// `update` with what a run of the checks gave, for a state with
/// `evidence` and `approved_all`.
pub(crate) fn record_checks<U: RunUpdate>(
    update: U,
    run: &CheckRun,
    evidence: &Evidence,
    approved_all: bool,
) -> U {
    update
        .evidence(evidence.after(run))
        .approved_all(approved_all || run.approved_all)
}

/// What the planner steps read of a workflow's state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlannerState<'a> {
    /// The goal.
    pub goal: &'a str,
    /// The evidence.
    pub evidence: &'a Evidence,
    /// Whether every command is approved.
    pub approved_all: bool,
    /// Tokens used before this node.
    pub tokens: u64,
    /// Working time before this node.
    pub work_ms: u64,
    /// When the node started.
    pub started: Instant,
}

impl PlannerState<'_> {
    /// The working time with this node's so far.
    pub fn work_ms_now(&self) -> u64 {
        self.work_ms + elapsed_ms(self.started)
    }
}

/// What the planner knows before it plans: the checks due before the first
/// plan run ([`verify::at_start`], when any was due), and the workspace
/// as the run found it recorded ([`Evidence::found`]).
pub(crate) struct Started<U> {
    /// The update so far, with `evidence` when it changed.
    pub update: U,
    /// The evidence to plan with.
    pub evidence: Evidence,
}

/// Runs the checks due before the first plan ([`verify::at_start`]) and
/// records the workspace as the run found it, once: what the planner
/// plans with ([`Started`]); or (`Err`) the update that stops the run
/// because a check cannot run.
pub(crate) async fn checks_at_start<U: RunUpdate>(
    ctx: &NodeContext,
    deps: &AgentDeps,
    state: &PlannerState<'_>,
    mut update: U,
) -> Result<Result<Started<U>, U>, NodeError> {
    let run = verify::at_start(ctx, deps, state.evidence, state.approved_all).await?;
    let mut evidence = match &run {
        Some(run) => {
            update = update.approved_all(state.approved_all || run.approved_all);
            state.evidence.after(run)
        }
        None => state.evidence.clone(),
    };
    if let Some(message) = run
        .as_ref()
        .and_then(|run| verify::unrunnable(&run.results))
    {
        return Ok(Err(update
            .evidence(evidence)
            .work_ms(state.work_ms_now())
            .stop(Some(StopReason::Error { message }))));
    }
    if evidence.found.is_none() {
        // After the checks: what they build (`make`) is part of the
        // workspace every later check sees.
        evidence.found = Some(crate::unchanged::mark(deps.workspace.workspace()).await);
    }
    if run.is_some() || evidence.found != state.evidence.found {
        update = update.evidence(evidence.clone());
    }
    Ok(Ok(Started { update, evidence }))
}

/// A plan [`plan`] made, with the update that carries its tokens, time
/// and any check adopted.
pub(crate) struct Plan<U> {
    /// The steps.
    pub steps: Vec<PlanStep>,
    /// The update so far.
    pub update: U,
    /// Tokens used, this plan's included.
    pub tokens: u64,
    /// Working time, this node's so far included.
    pub work_ms: u64,
    /// The harness made the plan, not the model (a recipe of needed steps).
    pub by_harness: bool,
}

/// Makes the plan ([`make_plan`]); or (`Err`) the update that stops the
/// run, when no usable plan came.
pub(crate) async fn plan<U: RunUpdate>(
    ctx: &NodeContext,
    deps: &AgentDeps,
    state: &PlannerState<'_>,
    context: &PlanContext<'_>,
    mut update: U,
) -> Result<Result<Plan<U>, U>, NodeError> {
    let planned = make_plan(
        ctx,
        deps,
        state.goal,
        context,
        state.evidence,
        state.approved_all,
    )
    .await?;
    let tokens = state.tokens + planned.tokens;
    let steps = match planned.steps {
        Ok(steps) => steps,
        Err(message) => {
            return Ok(Err(update
                .tokens(tokens)
                .work_ms(state.work_ms_now())
                .stop(Some(StopReason::Error { message }))))
        }
    };
    if let Some(c) = planned.considered {
        update = update.evidence(c.evidence).approved_all(c.approved_all);
    }
    let work_ms = state.work_ms_now();
    Ok(Ok(Plan {
        steps,
        update: update.tokens(tokens).work_ms(work_ms),
        tokens,
        work_ms,
        by_harness: planned.by_harness,
    }))
}
