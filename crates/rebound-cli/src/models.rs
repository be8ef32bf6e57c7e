//! Opening the configured model, and the embedded local models the
//! `model` commands manage.
//!
//! The list of local models and their directory are those of
//! `rebound_llm::local` (checked by a test with the `local` feature); they
//! are repeated here so that `rebound model list|path|fetch` work in a build
//! without the embedded model.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use rebound_llm::{ChatModel, LocalModel, ModelSpec};

use crate::config::Env;
use crate::exit::usage;

/// A local model `scripts/fetch-model` installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownModel {
    /// The name in `local:<name>`.
    pub name: &'static str,
    /// The file in the model directory.
    pub file: &'static str,
    /// Its size in bytes.
    pub bytes: u64,
    /// The `scripts/fetch-model` flags that install it.
    pub fetch_args: &'static [&'static str],
}

/// The known local models; the first is the default.
pub const KNOWN_MODELS: [KnownModel; 2] = [
    KnownModel {
        name: "qwen2.5-coder-1.5b",
        file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        bytes: 1_117_320_768,
        fetch_args: &[],
    },
    KnownModel {
        name: "qwen2.5-coder-0.5b",
        file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        bytes: 491_400_064,
        fetch_args: &["--small"],
    },
];

/// The known model called `name` (default: the first).
pub fn known(name: Option<&str>) -> anyhow::Result<KnownModel> {
    let name = name.unwrap_or(KNOWN_MODELS[0].name);
    let name = name.strip_prefix("local:").unwrap_or(name);
    KNOWN_MODELS
        .iter()
        .find(|model| model.name == name)
        .copied()
        .ok_or_else(|| {
            let names: Vec<&str> = KNOWN_MODELS.iter().map(|m| m.name).collect();
            usage(format!(
                "unknown local model {name:?}; known: {}",
                names.join(", ")
            ))
        })
}

/// Where `scripts/fetch-model` installs models: `$REBOUND_MODEL_DIR`, else
/// `$XDG_CACHE_HOME/rebound/models`, else `~/.cache/rebound/models`.
pub fn model_dir(env: Env<'_>) -> PathBuf {
    if let Some(dir) = env("REBOUND_MODEL_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(cache) = env("XDG_CACHE_HOME").filter(|dir| std::path::Path::new(dir).is_absolute())
    {
        return PathBuf::from(cache).join("rebound").join("models");
    }
    PathBuf::from(env("HOME").unwrap_or_default())
        .join(".cache")
        .join("rebound")
        .join("models")
}

impl KnownModel {
    /// Where it is (or would be) installed.
    pub fn path(&self, env: Env<'_>) -> PathBuf {
        model_dir(env).join(self.file)
    }

    /// The `rebound` command that installs it.
    pub fn fetch_command(&self) -> String {
        format!("rebound model fetch {}", self.name)
    }

    /// The script command that installs it.
    pub fn script_command(&self) -> String {
        std::iter::once("scripts/fetch-model")
            .chain(self.fetch_args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Opens the model `spec_text` names. A local model that is not installed,
/// a build without the embedded model, or a missing key is a usage error
/// that says what to do.
pub fn open(spec_text: &str, env: Env<'_>) -> anyhow::Result<Arc<dyn ChatModel>> {
    let spec = ModelSpec::from_str(spec_text).map_err(|e| usage(e.to_string()))?;
    if let ModelSpec::Local { model } = &spec {
        check_local(spec_text, model, env)?;
    }
    rebound_llm::from_spec(&spec).map_err(|e| usage(e.to_string()))
}

/// Explains a local model that this build cannot run or that is missing.
fn check_local(spec_text: &str, model: &LocalModel, env: Env<'_>) -> anyhow::Result<()> {
    let missing = match model {
        LocalModel::Known(name) => {
            let known = known(Some(name))?;
            let path = known.path(env);
            (!path.is_file()).then(|| {
                format!(
                    "the model file {} is not installed; fetch it with `{}` (or `{}`)",
                    path.display(),
                    known.fetch_command(),
                    known.script_command()
                )
            })
        }
        LocalModel::Path(path) => {
            (!path.is_file()).then(|| format!("the model file {} does not exist", path.display()))
        }
    };
    if !cfg!(feature = "local") {
        let mut message = format!(
            "{spec_text}: this rebound was built without the embedded local model; \
             rebuild with `cargo build --release -p rebound-cli --features local` \
             (needs cmake and libclang: scripts/install-build-deps), \
             or pass --model openai:<model> (with OPENAI_API_KEY), anthropic:<model> or ollama:<model>"
        );
        if let Some(missing) = missing {
            message.push_str(&format!(". Also, {missing}"));
        }
        return Err(usage(message));
    }
    match missing {
        Some(missing) => Err(usage(format!("{spec_text}: {missing}"))),
        None => Ok(()),
    }
}

#[cfg(all(test, feature = "local"))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn the_list_matches_the_local_provider() {
        let ours: Vec<(&str, &str)> = KNOWN_MODELS.iter().map(|m| (m.name, m.file)).collect();
        assert_eq!(ours, rebound_llm::local::KNOWN_MODELS.to_vec());
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        assert_eq!(model_dir(&env), rebound_llm::local::model_dir());
    }
}
