//! One configuration file: its schema ([`FileConfig`]) and its parsing, with
//! errors that name the file, the key and the line.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use rebound_agent::workflow::WorkflowKind;
use rebound_agent::{AgentConfig, Budget};
use rebound_llm::ModelSpec;
use rebound_tools::approval::{ApprovalMode, CommandRule};
use rebound_tools::mcp::McpServerConfig;
use rebound_tools::sandbox::SandboxPolicy;
use rebound_tools::shell::ShellConfig;
use serde::{Deserialize, Deserializer, Serialize};

use super::ConfigError;

/// What a configuration file may hold. Every table rejects unknown keys.
///
/// ```toml
/// model = "local:qwen2.5-coder-1.5b"   # or openai:<model>, anthropic:<model>, ollama:<model>
/// workflow = "pev"                      # or "reflect"
/// approval = "on-risk"                  # or "auto", "always"
/// state_dir = ".rebound"                # relative to the workspace
/// check = ["python3 -m unittest"]       # commands whose success means done
///
/// [budget]        # rebound_agent::Budget
/// max_iters = 12
///
/// [agent]         # rebound_agent::AgentConfig, without its budget
/// max_tool_turns = 6
///
/// [shell]         # rebound_tools::shell::ShellConfig, without its sandbox
/// default_timeout = 120
///
/// [sandbox]       # rebound_tools::sandbox::SandboxPolicy
/// mode = "landlock"
///
/// [[rules]]       # rebound_tools::approval::CommandRule
/// pattern = "git push"
/// action = "ask"
///
/// [[mcp]]         # rebound_tools::mcp::McpServerConfig
/// name = "files"
/// command = "mcp-server-files"
/// ```
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FileConfig {
    /// The model string.
    #[serde(
        deserialize_with = "model_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub model: Option<String>,
    /// The workflow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workflow: Option<WorkflowKind>,
    /// The approval mode.
    #[serde(
        deserialize_with = "approval_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub approval: Option<String>,
    /// Where runs are stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_dir: Option<PathBuf>,
    /// Checks: commands whose success means a run's goal is reached (a
    /// finish is verified by them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub check: Vec<String>,
    /// The run's limits.
    pub budget: Budget,
    /// The agent's other settings (its `budget` is the table above).
    pub agent: AgentConfig,
    /// The shell tool (its `sandbox` is the table below).
    pub shell: ShellConfig,
    /// The sandbox commands run in.
    pub sandbox: SandboxPolicy,
    /// Command rules: allow, ask or forbid commands by pattern.
    pub rules: Vec<CommandRule>,
    /// MCP servers whose tools the agent may use.
    pub mcp: Vec<McpServerConfig>,
}

fn model_string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(deserializer)?;
    ModelSpec::from_str(&text).map_err(serde::de::Error::custom)?;
    Ok(Some(text))
}

fn approval_string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(deserializer)?;
    ApprovalMode::from_str(&text).map_err(|_| {
        serde::de::Error::custom(format!(
            "unknown approval mode {text:?}; expected \"auto\", \"on-risk\" or \"always\""
        ))
    })?;
    Ok(Some(text))
}

/// Keys that exist in the library types but are set elsewhere in the file.
#[derive(Deserialize)]
struct Misplaced {
    #[serde(default)]
    agent: Option<MisplacedAgent>,
    #[serde(default)]
    shell: Option<MisplacedShell>,
}

#[derive(Deserialize)]
struct MisplacedAgent {
    #[serde(default)]
    budget: Option<toml::Spanned<toml::Value>>,
}

#[derive(Deserialize)]
struct MisplacedShell {
    #[serde(default)]
    sandbox: Option<toml::Spanned<toml::Value>>,
}

/// A parsed, valid file: the typed config and the raw table (for merging).
#[derive(Debug, Clone)]
pub struct ParsedFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// The raw table.
    pub table: toml::Table,
}

/// Reads and validates the file at `path`.
pub fn read(path: &Path) -> Result<ParsedFile, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(path, &text)
}

/// Validates `text`, read from `path`.
pub fn parse(path: &Path, text: &str) -> Result<ParsedFile, ConfigError> {
    let at = |span: Option<std::ops::Range<usize>>, message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        line: span.map(|span| line_of(text, span.start)),
        message,
    };
    let table: toml::Table =
        toml::from_str(text).map_err(|e| at(e.span(), e.message().to_string()))?;
    let deserializer =
        toml::Deserializer::parse(text).map_err(|e| at(e.span(), e.message().to_string()))?;
    let checked: Result<FileConfig, _> = serde_path_to_error::deserialize(deserializer);
    if let Err(error) = checked {
        let message = describe(&error.path().to_string(), error.inner().message());
        return Err(at(error.inner().span(), message));
    }
    let misplaced: Misplaced =
        toml::from_str(text).map_err(|e| at(e.span(), e.message().to_string()))?;
    if let Some(budget) = misplaced.agent.and_then(|agent| agent.budget) {
        return Err(at(
            Some(budget.span()),
            "`budget` goes in its own [budget] table, not in [agent]".to_string(),
        ));
    }
    if let Some(sandbox) = misplaced.shell.and_then(|shell| shell.sandbox) {
        return Err(at(
            Some(sandbox.span()),
            "`sandbox` goes in its own [sandbox] table, not in [shell]".to_string(),
        ));
    }
    Ok(ParsedFile {
        path: path.to_path_buf(),
        table,
    })
}

/// The 1-based line of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// A serde message about the value at `path`, in the words of a config
/// file: "unknown key `foo` in \[budget\] (expected ...)", "`budget.max_iters`: ...".
fn describe(path: &str, message: &str) -> String {
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let (key, expected) = match rest.split_once(", expected ") {
            Some((key, expected)) => (key, Some(expected)),
            None => (rest, None),
        };
        let table = match path.rsplit_once('.') {
            Some((table, _)) => table_name(table),
            None => "the top level".to_string(),
        };
        let key = key.replace('`', "");
        return match expected {
            Some(expected) => format!("unknown key `{key}` in {table} (expected {expected})"),
            None => format!("unknown key `{key}` in {table}"),
        };
    }
    if path.is_empty() || path == "." {
        return message.to_string();
    }
    format!("bad value for `{path}`: {message}")
}

/// `budget` → `[budget]`; `rules[1]` → `[[rules]] #2`.
fn table_name(path: &str) -> String {
    if let Some((name, index)) = path.strip_suffix(']').and_then(|p| p.rsplit_once('[')) {
        if let Ok(index) = index.parse::<usize>() {
            return format!("[[{name}]] #{}", index + 1);
        }
    }
    format!("[{path}]")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn error(text: &str) -> String {
        parse(Path::new("rebound.toml"), text)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn unknown_keys_name_the_file_the_table_and_the_line() {
        let message = error("model = \"openai:m\"\n\n[budget]\nmax_iters = 3\nfoo = 1\n");
        assert!(
            message.starts_with("rebound.toml:5: unknown key `foo` in [budget]"),
            "{message}"
        );
        let message = error("bogus = 1\n");
        assert!(
            message.starts_with("rebound.toml:1: unknown key `bogus` in the top level"),
            "{message}"
        );
        let message = error("[[rules]]\npattern = \"x\"\nactoin = \"ask\"\n");
        assert!(
            message.starts_with("rebound.toml:3: unknown key `actoin` in [[rules]] #1"),
            "{message}"
        );
    }

    #[test]
    fn bad_values_name_the_key_and_the_line() {
        let message = error("[budget]\nmax_iters = \"ten\"\n");
        assert!(
            message.starts_with("rebound.toml:2: bad value for `budget.max_iters`"),
            "{message}"
        );
        let message = error("\napproval = \"sometimes\"\n");
        assert!(
            message.starts_with("rebound.toml:2: bad value for `approval`"),
            "{message}"
        );
        assert!(message.contains("on-risk"), "{message}");
        let message = error("model = \"gpt-4o\"\n");
        assert!(message.contains("openai:<model>"), "{message}");
        let message = error("model = \n");
        assert!(message.starts_with("rebound.toml:1:"), "{message}");
    }

    #[test]
    fn nested_budget_and_sandbox_are_sent_to_their_tables() {
        let message = error("[agent]\nmax_tool_turns = 2\n\n[agent.budget]\nmax_iters = 1\n");
        assert!(message.contains("[budget]"), "{message}");
        assert!(message.starts_with("rebound.toml:4:"), "{message}");
        let message = error("[shell]\nsandbox = { mode = \"off\" }\n");
        assert!(message.starts_with("rebound.toml:2:"), "{message}");
    }

    #[test]
    fn a_full_file_parses() {
        let text = "model = \"openai:gpt-4o-mini\"\nworkflow = \"reflect\"\napproval = \"always\"\nstate_dir = \"state\"\n\n[budget]\nmax_iters = 3\nmax_tokens = 1000\n\n[agent]\nmax_tool_turns = 2\n\n[shell]\ndefault_timeout = 30\n\n[sandbox]\nmode = \"off\"\n\n[[mcp]]\nname = \"x\"\ncommand = \"y\"\n";
        let parsed = parse(Path::new("rebound.toml"), text).unwrap();
        assert_eq!(parsed.table["model"].as_str(), Some("openai:gpt-4o-mini"));
    }
}
