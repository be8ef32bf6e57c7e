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
        let ignored: Vec<serde_json::Value> = settings
            .trust
            .ignored()
            .iter()
            .map(|i| json!({"key": i.key, "value": i.value, "why": i.why}))
            .collect();
        let trusted = match &settings.trust {
            crate::config::WorkspaceTrust::NoFile => serde_json::Value::Null,
            crate::config::WorkspaceTrust::Trusted => json!(true),
            crate::config::WorkspaceTrust::Untrusted { .. } => json!(false),
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
