//! `rebound config show`: the effective configuration as TOML, where each
//! setting came from, and the provider settings with secrets masked.

use std::fmt::Write;

use super::{Env, Settings};

/// The provider variables the models read, and whether each is a secret.
const PROVIDER_ENV: [(&str, bool); 5] = [
    ("OPENAI_API_KEY", true),
    ("OPENAI_BASE_URL", false),
    ("ANTHROPIC_API_KEY", true),
    ("ANTHROPIC_BASE_URL", false),
    ("OLLAMA_HOST", false),
];

/// A secret for display: `sk-…abcd` when long enough to keep it unguessable,
/// else `set`.
pub fn mask(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() < 16 {
        return "set".to_string();
    }
    let head: String = chars[..3].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}…{tail}")
}

/// A URL without the user and password it may carry.
fn without_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
        None => url.to_string(),
    }
}

/// The effective configuration as a TOML table, secrets masked.
pub fn table(settings: &Settings) -> Result<toml::Table, toml::ser::Error> {
    let mut merged = settings.merged.clone();
    merged.model = Some(settings.model.clone());
    merged.workflow = Some(settings.workflow);
    merged.approval = Some(
        merged
            .approval
            .clone()
            .unwrap_or_else(|| "on-risk".to_string()),
    );
    let mut table = toml::Table::try_from(&merged)?;
    if let Some(toml::Value::Table(agent)) = table.get_mut("agent") {
        agent.remove("budget");
    }
    if let Some(toml::Value::Table(shell)) = table.get_mut("shell") {
        shell.remove("sandbox");
    }
    if let Some(toml::Value::Array(servers)) = table.get_mut("mcp") {
        for server in servers {
            if let Some(toml::Value::Table(env)) = server.get_mut("env") {
                for (name, value) in env.iter_mut() {
                    if rebound_tools::shell::is_secret_env(name, &[]) {
                        *value = toml::Value::String(mask(value.as_str().unwrap_or_default()));
                    }
                }
            }
        }
    }
    Ok(table)
}

/// The provider variables: name and shown value (`None`: not set).
pub fn providers(env: Env<'_>) -> Vec<(&'static str, Option<String>)> {
    PROVIDER_ENV
        .iter()
        .map(|(name, secret)| {
            let value = env(name).map(|value| {
                if *secret {
                    mask(&value)
                } else {
                    without_credentials(&value)
                }
            });
            (*name, value)
        })
        .collect()
}

/// The text `rebound config show` prints.
pub fn render(settings: &Settings, env: Env<'_>) -> Result<String, toml::ser::Error> {
    let mut out = String::new();
    let _ = writeln!(out, "# rebound's effective configuration");
    let _ = writeln!(
        out,
        "# precedence, lowest first: defaults < workspace rebound.toml < user config < environment < flags"
    );
    let _ = writeln!(out, "# workspace: {}", settings.workspace.display());
    for (path, exists) in &settings.sources.files {
        let state = if *exists { "" } else { " (not found)" };
        let _ = writeln!(out, "# file: {}{state}", path.display());
    }
    if !settings.sources.settings.is_empty() {
        let _ = writeln!(out, "#\n# set by:");
        let width = settings
            .sources
            .settings
            .keys()
            .map(String::len)
            .max()
            .unwrap_or(0);
        for (key, origins) in &settings.sources.settings {
            let origins: Vec<String> = origins.iter().map(ToString::to_string).collect();
            let _ = writeln!(out, "#   {key:width$}  {}", origins.join(" + "));
        }
    }
    match &settings.trust {
        super::WorkspaceTrust::Trusted => {
            let _ = writeln!(
                out,
                "#\n# the workspace rebound.toml is trusted (`rebound trust`)"
            );
        }
        super::WorkspaceTrust::Untrusted { ignored, .. } if !ignored.is_empty() => {
            let _ = writeln!(
                out,
                "#\n# IGNORED: the workspace rebound.toml is not trusted, so these do not count\n# (`rebound trust` to use them):"
            );
            for setting in ignored {
                let _ = writeln!(out, "#   {setting}");
            }
        }
        _ => {}
    }
    let _ = writeln!(out);
    out.push_str(&toml::to_string(&table(settings)?)?);
    let _ = writeln!(
        out,
        "\n# provider settings from the environment (secrets masked)"
    );
    for (name, value) in providers(env) {
        let value = value.unwrap_or_else(|| "(not set)".to_string());
        let _ = writeln!(out, "# {name:18} = {value}");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_keep_only_a_hint() {
        assert_eq!(mask("sk-test-0123456789abcdef"), "sk-…cdef");
        assert_eq!(mask("short"), "set");
        assert_eq!(
            without_credentials("http://user:pw@host:1/v1"),
            "http://***@host:1/v1"
        );
        assert_eq!(without_credentials("http://host:1/v1"), "http://host:1/v1");
    }
}
