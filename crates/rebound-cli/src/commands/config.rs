//! `rebound config show`: the effective configuration, secrets masked.

use rebound_workspace::config::{show as render, show_providers, show_table};
use rebound_workspace::{process_env, WorkspaceTrust};
use serde_json::json;

use super::{flags, settings};
use crate::cli::GlobalArgs;
use crate::exit::Exit;
use crate::render::out;

/// Prints the effective configuration.
pub fn show(global: &GlobalArgs) -> anyhow::Result<Exit> {
    let settings = settings(&flags(global, None))?;
    if global.json {
        let table = show_table(&settings)?;
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
        let providers: serde_json::Map<String, serde_json::Value> = show_providers(&process_env)
            .into_iter()
            .map(|(name, value)| (name.to_string(), json!(value)))
            .collect();
        let ignored: Vec<serde_json::Value> = settings
            .trust
            .ignored()
            .iter()
            .map(|i| json!({"key": i.key, "value": i.value, "why": i.why}))
            .collect();
        let trusted = match &settings.trust {
            WorkspaceTrust::NoFile => serde_json::Value::Null,
            WorkspaceTrust::Trusted => json!(true),
            WorkspaceTrust::Untrusted { .. } => json!(false),
        };
        out(json!({
            "config": table,
            "sources": sources,
            "files": files,
            "environment": providers,
            "workspace_trusted": trusted,
            "ignored": ignored,
        }));
        return Ok(Exit::Success);
    }
    let text = render(&settings, &process_env)?;
    crate::render::out_text(text.trim_end());
    Ok(Exit::Success)
}
