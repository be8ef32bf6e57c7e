//! `rebound model fetch|list|path`: the embedded local models.
//!
//! `fetch` runs the model fetcher (this crate's `scripts/fetch-model`, which
//! the repository's `scripts/fetch-model` links to), built into the binary
//! (so it works from any directory) and run with `python3`.

use std::process::Command;

use anyhow::Context;
use serde_json::json;

use crate::cli::{GlobalArgs, ModelCommand};
use crate::config::process_env;
use crate::exit::Exit;
use crate::models::{fetch_command, known, model_path};
use crate::render::out;
use rebound_llm::KNOWN_MODELS;

/// The model fetcher. Its canonical copy is in this crate (so that the
/// packaged crate has it); the repository's `scripts/fetch-model` is a
/// symlink to it.
const FETCH_MODEL: &str = include_str!("../../scripts/fetch-model");

/// Runs a `model` subcommand.
pub fn model(global: &GlobalArgs, command: ModelCommand) -> anyhow::Result<Exit> {
    match command {
        ModelCommand::List => list(global),
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
    let rows: Vec<_> = KNOWN_MODELS
        .iter()
        .enumerate()
        .map(|(i, model)| {
            let path = model_path(model, &process_env);
            let installed = path.is_file();
            (i == 0, model, path, installed)
        })
        .collect();
    if global.json {
        let list: Vec<_> = rows
            .iter()
            .map(|(default, model, path, installed)| {
                json!({
                    "name": model.name,
                    "model": format!("local:{}", model.name),
                    "default": default,
                    "bytes": model.bytes,
                    "path": path,
                    "installed": installed,
                })
            })
            .collect();
        out(serde_json::to_string(&list)?);
        return Ok(Exit::Success);
    }
    for (default, model, path, installed) in rows {
        let state = if installed {
            "installed".to_string()
        } else {
            format!("not installed: {}", fetch_command(model))
        };
        let default = if default { " (default)" } else { "" };
        out(format!(
            "local:{}{default}  {:.2} GB  {state}\n    {}",
            model.name,
            model.bytes as f64 / 1e9,
            path.display()
        ));
    }
    if !cfg!(feature = "local") {
        out(
            "note: this rebound was built without the embedded model (build with --features local)",
        );
    }
    Ok(Exit::Success)
}
