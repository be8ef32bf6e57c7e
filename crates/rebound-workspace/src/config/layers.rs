//! Merging the config files, and remembering where each setting came from.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;

use super::file::ParsedFile;
use super::{ConfigError, FileConfig};

/// Where a setting came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The workspace's `rebound.toml`.
    WorkspaceFile,
    /// The user config file.
    UserFile,
    /// An environment variable.
    Env(&'static str),
    /// A flag.
    Flag(&'static str),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::WorkspaceFile => f.write_str("workspace rebound.toml"),
            Origin::UserFile => f.write_str("user config"),
            Origin::Env(name) => write!(f, "env {name}"),
            Origin::Flag(flag) => write!(f, "flag {flag}"),
        }
    }
}

/// The files looked at and the origin of every setting that is not a
/// built-in default.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Each config file looked at, and whether it exists.
    pub files: Vec<(PathBuf, bool)>,
    /// Dotted keys (`budget.max_iters`, `rules`) and where they came from
    /// (lists may come from several places).
    pub settings: BTreeMap<String, Vec<Origin>>,
}

impl Sources {
    /// Records that `key` was set by `origin`, replacing earlier origins.
    pub fn set(&mut self, key: &str, origin: Origin) {
        self.settings.insert(key.to_string(), vec![origin]);
    }

    fn add(&mut self, key: &str, origin: Origin) {
        let origins = self.settings.entry(key.to_string()).or_default();
        if !origins.contains(&origin) {
            origins.push(origin);
        }
    }
}

/// The top-level lists, concatenated across files rather than replaced.
const LISTS: [&str; 2] = ["rules", "mcp"];

/// Merges `files`, given lowest precedence first, into one configuration.
pub fn merge(
    files: &[(ParsedFile, Origin)],
    sources: &mut Sources,
) -> Result<FileConfig, ConfigError> {
    let mut merged = toml::Table::new();
    for (file, origin) in files {
        record(&file.table, "", *origin, sources);
        for (key, value) in &file.table {
            match (key.as_str(), merged.get_mut(key), value) {
                ("rules", Some(toml::Value::Array(old)), toml::Value::Array(new)) => {
                    // Order does not matter to the policy (the strictest
                    // matching rule wins); later files' rules are listed first.
                    let mut rules = new.clone();
                    rules.append(old);
                    *old = rules;
                }
                ("mcp", Some(toml::Value::Array(old)), toml::Value::Array(new)) => {
                    let name = |server: &toml::Value| {
                        server
                            .get("name")
                            .and_then(|n| n.as_str())
                            .map(str::to_string)
                    };
                    let redefined: Vec<String> = new.iter().filter_map(name).collect();
                    old.retain(|server| name(server).is_none_or(|n| !redefined.contains(&n)));
                    old.extend(new.iter().cloned());
                }
                (_, Some(toml::Value::Table(old)), toml::Value::Table(new)) => deep_merge(old, new),
                _ => {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
    }
    FileConfig::deserialize(toml::Value::Table(merged)).map_err(|e| ConfigError::Invalid {
        path: files
            .last()
            .map(|(file, _)| file.path.clone())
            .unwrap_or_default(),
        line: None,
        message: format!("the merged configuration is invalid: {e}"),
    })
}

fn deep_merge(old: &mut toml::Table, new: &toml::Table) {
    for (key, value) in new {
        match (old.get_mut(key), value) {
            (Some(toml::Value::Table(old)), toml::Value::Table(new)) => deep_merge(old, new),
            _ => {
                old.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Records the origin of every leaf of `table` (lists as a whole).
fn record(table: &toml::Table, prefix: &str, origin: Origin, sources: &mut Sources) {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            toml::Value::Table(inner) => record(inner, &path, origin, sources),
            _ if prefix.is_empty() && LISTS.contains(&key.as_str()) => sources.add(&path, origin),
            _ => sources.set(&path, origin),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::path::Path;

    use super::*;
    use crate::config::file::parse;

    fn file(text: &str, origin: Origin) -> (ParsedFile, Origin) {
        (parse(Path::new("x.toml"), text).unwrap(), origin)
    }

    #[test]
    fn later_files_win_key_by_key_and_lists_concatenate() {
        let mut sources = Sources::default();
        let merged = merge(
            &[
                file(
                    "model = \"openai:a\"\nworkflow = \"reflect\"\n[budget]\nmax_iters = 3\nmax_attempts = 2\n[[rules]]\npattern = \"ws\"\naction = \"allow\"\n[[mcp]]\nname = \"a\"\ncommand = \"x\"\n",
                    Origin::WorkspaceFile,
                ),
                file(
                    "model = \"openai:b\"\n[budget]\nmax_iters = 5\n[[rules]]\npattern = \"user\"\naction = \"ask\"\n[[mcp]]\nname = \"a\"\ncommand = \"y\"\n",
                    Origin::UserFile,
                ),
            ],
            &mut sources,
        )
        .unwrap();
        assert_eq!(merged.model.as_deref(), Some("openai:b"));
        assert_eq!(
            merged.workflow,
            Some(rebound_agent::workflow::WorkflowKind::Reflect)
        );
        assert_eq!(merged.budget.max_iters, 5);
        assert_eq!(merged.budget.max_attempts, 2);
        let rules = serde_json::to_value(&merged.rules).unwrap();
        assert_eq!(rules[0]["pattern"], "user");
        assert_eq!(rules[1]["pattern"], "ws");
        assert_eq!(merged.mcp.len(), 1);
        assert_eq!(merged.mcp[0].command, "y");
        assert_eq!(sources.settings["model"], vec![Origin::UserFile]);
        assert_eq!(
            sources.settings["budget.max_attempts"],
            vec![Origin::WorkspaceFile]
        );
        assert_eq!(
            sources.settings["rules"],
            vec![Origin::WorkspaceFile, Origin::UserFile]
        );
    }
}
