//! Opening the configured model, and the embedded local models the
//! `model` commands manage (`rebound_llm`'s catalog, which a build without
//! the embedded model has too).

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use rebound_llm::{ChatModel, KnownModel, LocalModel, ModelSpec, KNOWN_MODELS};

use crate::config::Env;
use crate::error::WorkspaceError;

/// The known model called `name` (with or without `local:`; default: the
/// first).
pub fn known(name: Option<&str>) -> Result<&'static KnownModel, WorkspaceError> {
    let name = name.unwrap_or(KNOWN_MODELS[0].name);
    let name = name.strip_prefix("local:").unwrap_or(name);
    rebound_llm::known_model(name).map_err(|e| WorkspaceError::Model(e.to_string()))
}

/// Where `model` is (or would be) installed, with the environment `env`.
pub fn model_path(model: &KnownModel, env: Env<'_>) -> PathBuf {
    rebound_llm::model_dir_with(env).join(model.file)
}

/// The `rebound` command that installs `model`.
pub fn fetch_command(model: &KnownModel) -> String {
    fetch_command_for(model.name)
}

/// The `rebound` command that installs the known model called `name`.
fn fetch_command_for(name: &str) -> String {
    format!("rebound model fetch {name}")
}

/// Opens the model `spec_text` names. A local model that is not installed,
/// a build without the embedded model, or a missing key is a usage error
/// ([`WorkspaceError::Model`]) that says what to do.
pub fn open(spec_text: &str, env: Env<'_>) -> Result<Arc<dyn ChatModel>, WorkspaceError> {
    let spec = ModelSpec::from_str(spec_text).map_err(|e| WorkspaceError::Model(e.to_string()))?;
    if let ModelSpec::Local { model } = &spec {
        check_local(spec_text, model, env)?;
    }
    rebound_llm::from_spec(&spec).map_err(|e| WorkspaceError::Model(e.to_string()))
}

/// Explains a local model that this build cannot run or that is missing.
fn check_local(spec_text: &str, model: &LocalModel, env: Env<'_>) -> Result<(), WorkspaceError> {
    let missing = match model {
        LocalModel::Known(name) => {
            let known = known(Some(name))?;
            let path = model_path(known, env);
            (!path.is_file()).then(|| {
                format!(
                    "the model file {} is not installed; fetch it with `{}` (or `{}`)",
                    path.display(),
                    fetch_command(known),
                    known.script_command()
                )
            })
        }
        LocalModel::Path(path) => {
            (!path.is_file()).then(|| format!("the model file {} does not exist", path.display()))
        }
    };
    if !rebound_llm::EMBEDDED {
        let mut message = format!(
            "{spec_text}: this rebound was built without the embedded local model; \
             rebuild with `cargo build --release -p rebound-cli --features local` \
             (needs cmake and libclang: scripts/install-build-deps), \
             or pass --model openai:<model> (with OPENAI_API_KEY), anthropic:<model> or ollama:<model>"
        );
        if let Some(missing) = missing {
            message.push_str(&format!(". Also, {missing}"));
        }
        return Err(WorkspaceError::Model(message));
    }
    match missing {
        Some(missing) => Err(WorkspaceError::Model(format!("{spec_text}: {missing}"))),
        None => Ok(()),
    }
}

/// One embedded model as `rebound model list` and `info` report it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Installed {
    /// Its short name (`qwen2.5-coder-1.5b`).
    pub name: &'static str,
    /// The model string that selects it (`local:<name>`).
    pub model: String,
    /// Whether it is the default model.
    pub default: bool,
    /// The size of its file.
    pub bytes: u64,
    /// Where its file is (or would be).
    pub path: PathBuf,
    /// Whether the file is there.
    pub installed: bool,
}

impl Installed {
    /// `model`'s report, with the environment `env`.
    pub fn of(model: &'static KnownModel, env: Env<'_>) -> Installed {
        let path = model_path(model, env);
        Installed {
            name: model.name,
            model: format!("local:{}", model.name),
            default: model.name == KNOWN_MODELS[0].name,
            bytes: model.bytes,
            installed: path.is_file(),
            path,
        }
    }

    /// The `rebound` command that installs it.
    pub fn fetch_command(&self) -> String {
        fetch_command_for(self.name)
    }

    /// Every known model's report, the default first.
    pub fn all(env: Env<'_>) -> Vec<Installed> {
        KNOWN_MODELS
            .iter()
            .map(|model| Installed::of(model, env))
            .collect()
    }
}
