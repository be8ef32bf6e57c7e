//! How the embedded model runs on this machine (`rebound model info`):
//! what llama.cpp was built for, what this CPU lacks of it, the threads,
//! and the prompt states on disk. Compiled in every build: without the
//! `local` feature there is nothing to report.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// How the embedded model runs here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LocalRuntime {
    /// The CPU options llama.cpp was built for (`AVX2`, `FMA`...; empty:
    /// the architecture's defaults).
    pub built_for: Vec<&'static str>,
    /// Of those, the ones this CPU lacks: the model cannot run here when
    /// there is any.
    pub cpu_lacks: Vec<&'static str>,
    /// The threads a model computes with (`REBOUND_THREADS`, else the
    /// physical cores).
    pub threads: usize,
    /// Where the model's prompt states are kept on disk (`None`:
    /// `REBOUND_PROMPT_STATES=off`).
    pub prompt_states: Option<PathBuf>,
    /// Their size on disk, in bytes.
    pub prompt_state_bytes: u64,
}

/// How the model file `model` runs here; `None` in a build without the
/// embedded model.
#[cfg(feature = "local")]
pub fn local_runtime(model: &Path) -> Option<LocalRuntime> {
    use crate::local;
    let prompt_states = local::prompt_state_dir(model);
    let prompt_state_bytes = prompt_states
        .as_ref()
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|entry| entry.metadata().ok())
                .filter(std::fs::Metadata::is_file)
                .map(|meta| meta.len())
                .sum()
        })
        .unwrap_or(0);
    Some(LocalRuntime {
        built_for: local::cpu::built_for(),
        cpu_lacks: local::cpu::missing(),
        threads: local::compute_threads(),
        prompt_states,
        prompt_state_bytes,
    })
}

/// How the model file `model` runs here; `None` in a build without the
/// embedded model.
#[cfg(not(feature = "local"))]
pub fn local_runtime(_model: &Path) -> Option<LocalRuntime> {
    None
}
