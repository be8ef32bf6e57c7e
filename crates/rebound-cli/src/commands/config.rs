//! `rebound config show`: the effective configuration, secrets masked.

use serde_json::json;

use super::{flags, settings};
use crate::cli::GlobalArgs;
use crate::config::{process_env, show as render};
use crate::exit::Exit;
use crate::render::out;

/// Prints the effective configuration.
pub fn show(global: &GlobalArgs) -> anyhow::Result<Exit> {
    let settings = settings(&flags(global, None))?;
    if global.json {
        let table = crate::config::show_table(&settings)?;
        let sources: serde_json::Map<String, serde_json::Value> = settings
            .sources
            .settings
            .iter()
            .map(|(key, origins)| {
                let origins: Vec<String> = origins.iter().map(ToString::to_string).collect();
                (key.clone(), json!(origins))
            })
            .collect();
        let files: Vec<_> = settings
            .sources
            .files
            .iter()
            .map(|(path, exists)| json!({"path": path, "exists": exists}))
            .collect();
        let providers: serde_json::Map<String, serde_json::Value> =
            crate::config::show_providers(&process_env)
                .into_iter()
                .map(|(name, value)| (name.to_string(), json!(value)))
                .collect();
        out(json!({
            "config": table,
            "sources": sources,
            "files": files,
            "environment": providers,
        }));
        return Ok(Exit::Success);
    }
    let text = render(&settings, &process_env)?;
    out(text.trim_end());
    Ok(Exit::Success)
}
