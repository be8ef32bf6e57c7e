//! The gate in front of a run's external effects: an application's check,
//! run before each journaled call that is about to execute (not one that is
//! replayed), such as a worker confirming it still holds its run's lease.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// The future of an [`EffectGate`] check: `Err(reason)` refuses the effect.
pub type GateFuture = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;

/// A check run before each journaled call executes
/// ([`crate::RunConfig::with_effect_gate`]). When it refuses, the call does
/// not run and the node fails permanently with the reason: a worker that
/// lost its run's lease must not act on the world for it.
#[derive(Clone)]
pub struct EffectGate(Arc<dyn Fn() -> GateFuture + Send + Sync>);

impl EffectGate {
    /// A gate that runs `check` before each effect.
    pub fn new<F, Fut>(check: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), String>> + Send + 'static,
    {
        EffectGate(Arc::new(move || Box::pin(check())))
    }

    /// Runs the check.
    pub async fn check(&self) -> Result<(), String> {
        (self.0)().await
    }
}

impl std::fmt::Debug for EffectGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EffectGate")
    }
}
