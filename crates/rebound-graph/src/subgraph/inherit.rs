//! What a subgraph's child run takes from its parent's run: the settings
//! of [`crate::RunConfig`] that make sense for a run nested in another.

use crate::{NodeContext, RunConfig, SubgraphTask};

/// The config of the child run a subgraph node's task starts or resumes
/// (its thread, if any, is set by the caller):
///
/// * the parent's recursion limit, counted over the child's own
///   supersteps (a child that loops forever stops under the limit the
///   parent was given, with the child's nodes named in the error);
/// * the parent's durability;
/// * the parent's cancellation token (cancelling the parent cancels the
///   child);
/// * the parent's event channel and stream modes, the child's events
///   wrapped in [`crate::Event::Subgraph`] with one more level of
///   namespace: this task.
///
/// Not taken: the run-time `interrupt_before` / `interrupt_after` (they name
/// the parent's nodes; the child keeps its own compiled ones) and the
/// checkpoint id (the child has a thread of its own).
pub(crate) fn child_config(ctx: &NodeContext) -> RunConfig {
    let shared = &ctx.shared;
    let mut config = RunConfig::new()
        .with_recursion_limit(shared.recursion_limit)
        .with_durability(shared.durability)
        .with_cancellation(shared.cancellation.clone());
    config.effect_gate = shared.effect_gate.clone();
    if let Some(sender) = shared.events.sender() {
        config = config
            .with_events(sender.clone())
            .with_stream_modes(shared.modes);
        config.namespace = Some(shared.events.child_namespace(SubgraphTask::new(
            ctx.node_name(),
            ctx.task_key().as_ref(),
            ctx.step(),
        )));
    }
    config
}
