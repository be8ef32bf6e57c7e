//! `rebound model fetch|list|info|path`: the embedded local models.
//!
//! `fetch` runs the model fetcher (this crate's `scripts/fetch-model`, which
//! the repository's `scripts/fetch-model` links to), built into the binary
//! (so it works from any directory) and run with `python3`.

use std::process::Command;

use anyhow::Context;
use rebound_workspace::models::{known, model_path, Installed};
use rebound_workspace::process_env;

use crate::cli::{GlobalArgs, ModelCommand};
use crate::exit::Exit;
use crate::render::{out, out_text};

/// The model fetcher. Its canonical copy is in this crate (so that the
/// packaged crate has it); the repository's `scripts/fetch-model` is a
/// symlink to it.
const FETCH_MODEL: &str = include_str!("../../scripts/fetch-model");

/// Runs a `model` subcommand.
pub fn model(global: &GlobalArgs, command: ModelCommand) -> anyhow::Result<Exit> {
    match command {
        ModelCommand::List => list(global),
        ModelCommand::Info { name } => info(global, name.as_deref()),
        ModelCommand::Path { name } => {
            let model = known(name.as_deref())?;
            out(model_path(model, &process_env).display());
            Ok(Exit::Success)
        }
        ModelCommand::Fetch {
            name,
            force,
            wheelhouse,
        } => {
            let model = known(name.as_deref())?;
            let mut fetch = Command::new("python3");
            fetch.arg("-c").arg(FETCH_MODEL).args(model.fetch_args);
            if force {
                fetch.arg("--force");
            }
            if let Some(dir) = wheelhouse {
                fetch.arg("--wheelhouse").arg(dir);
            }
            let status = fetch
                .status()
                .context("cannot run python3 for the model fetcher (scripts/fetch-model)")?;
            Ok(match status.code() {
                Some(0) => Exit::Success,
                Some(2) => Exit::Usage,
                Some(130) => Exit::Cancelled,
                _ => Exit::Stopped,
            })
        }
    }
}

fn list(global: &GlobalArgs) -> anyhow::Result<Exit> {
    let models = Installed::all(&process_env);
    if global.json {
        out(serde_json::to_string(&models)?);
        return Ok(Exit::Success);
    }
    for model in models {
        let default = if model.default { " (default)" } else { "" };
        out(format!(
            "{}{default}  {:.2} GB  {}\n    {}",
            model.model,
            model.bytes as f64 / 1e9,
            state(&model),
            model.path.display()
        ));
    }
    if !rebound_llm::EMBEDDED {
        out(
            "note: this rebound was built without the embedded model (build with --features local)",
        );
    }
    Ok(Exit::Success)
}

/// `installed`, or how to install it.
fn state(model: &Installed) -> String {
    if model.installed {
        "installed".to_string()
    } else {
        format!("not installed: {}", model.fetch_command())
    }
}

/// `rebound model info`: see [`ModelCommand::Info`].
fn info(global: &GlobalArgs, name: Option<&str>) -> anyhow::Result<Exit> {
    let model = Installed::of(known(name)?, &process_env);
    let runtime = rebound_llm::local_runtime(&model.path);
    if global.json {
        let mut value = serde_json::to_value(&model)?;
        if let (Some(serde_json::Value::Object(runtime)), Some(object)) = (
            runtime.as_ref().map(serde_json::to_value).transpose()?,
            value.as_object_mut(),
        ) {
            object.extend(runtime);
        }
        out(serde_json::to_string(&value)?);
        return Ok(Exit::Success);
    }
    out_text(&model.model);
    out_text(format!(
        "  file: {} ({:.2} GB, {})",
        model.path.display(),
        model.bytes as f64 / 1e9,
        state(&model)
    ));
    let Some(runtime) = runtime else {
        out_text(
            "  this rebound was built without the embedded model (build with --features local)",
        );
        return Ok(Exit::Success);
    };
    out_text(format!(
        "  llama.cpp built for: {}",
        if runtime.built_for.is_empty() {
            "this architecture's defaults".to_string()
        } else {
            runtime.built_for.join(" ")
        }
    ));
    out_text(if runtime.cpu_lacks.is_empty() {
        "  this CPU: has every one of them".to_string()
    } else {
        format!(
            "  this CPU: lacks {}: the model cannot run here (build with REBOUND_PORTABLE_BUILD=1)",
            runtime.cpu_lacks.join(" ")
        )
    });
    let threads = if std::env::var_os("REBOUND_THREADS").is_some() {
        "REBOUND_THREADS"
    } else {
        "the physical cores; REBOUND_THREADS to change"
    };
    out_text(format!("  threads: {} ({threads})", runtime.threads));
    out_text(match &runtime.prompt_states {
        Some(dir) => format!(
            "  prompt states on disk: {} ({:.1} MB; REBOUND_PROMPT_STATES to move, off for none)",
            dir.display(),
            runtime.prompt_state_bytes as f64 / 1e6
        ),
        None => "  prompt states on disk: off (REBOUND_PROMPT_STATES=off)".to_string(),
    });
    Ok(Exit::Success)
}
