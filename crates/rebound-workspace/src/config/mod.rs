//! The effective configuration and where each setting comes from.
//!
//! Sources, lowest to highest precedence:
//!
//! 1. built-in defaults;
//! 2. the workspace's `rebound.toml`;
//! 3. the user config: `$REBOUND_CONFIG`, else
//!    `$XDG_CONFIG_HOME/rebound/config.toml`, else
//!    `~/.config/rebound/config.toml`;
//! 4. the environment: `REBOUND_MODEL`, `REBOUND_APPROVAL`,
//!    `REBOUND_STATE_DIR` (and the provider keys the model reads);
//! 5. flags.
//!
//! The user's own settings come after the workspace's on purpose: a
//! workspace you cloned cannot override them (it can still set what you
//! left unset). Tables merge key by key; `[[rules]]` and `[[mcp]]` lists
//! are concatenated (when rules disagree the strictest wins, so a
//! workspace cannot loosen a rule of yours; an MCP server defined twice
//! keeps the later definition).

mod file;
mod layers;
mod show;
pub mod trust;
pub mod untrusted;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use rebound_agent::workflow::WorkflowKind;
use rebound_agent::AgentConfig;
use rebound_tools::approval::{ApprovalMode, CommandRule};
use rebound_tools::mcp::McpServerConfig;
use rebound_tools::shell::ShellConfig;

pub use file::{parse as parse_file, FileConfig, ParsedFile};
pub use layers::{Origin, Sources};
pub use show::{providers as show_providers, render as show, table as show_table};
pub use trust::TrustStore;
pub use untrusted::Ignored;

/// The model used when none is configured.
pub const DEFAULT_MODEL: &str = "local:qwen2.5-coder-1.5b";

/// The workspace's config file name.
pub const WORKSPACE_FILE: &str = "rebound.toml";

/// A configuration that cannot be used: exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A file exists but cannot be read.
    #[error("{}: cannot read: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file is not valid TOML or not a valid configuration.
    #[error("{}{}: {message}", .path.display(), .line.map(|l| format!(":{l}")).unwrap_or_default())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The line of the offending key or value.
        line: Option<usize>,
        /// What is wrong, naming the key.
        message: String,
    },
    /// An environment variable has a bad value.
    #[error("environment variable {name}: {message}")]
    Env {
        /// The variable.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A flag has a bad value.
    #[error("{flag}: {message}")]
    Flag {
        /// The flag.
        flag: String,
        /// What is wrong.
        message: String,
    },
    /// `$REBOUND_CONFIG` names a file that does not exist.
    #[error("REBOUND_CONFIG names {}, which does not exist", .0.display())]
    MissingUserConfig(PathBuf),
    /// The workspace is not a directory.
    #[error("workspace {}: {message}", .path.display())]
    Workspace {
        /// The directory asked for.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// What the command line says, on top of the files and the environment.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--workspace`.
    pub workspace: Option<PathBuf>,
    /// `--state-dir`.
    pub state_dir: Option<PathBuf>,
    /// `--model`.
    pub model: Option<String>,
    /// `--workflow`.
    pub workflow: Option<WorkflowKind>,
    /// `--approval`.
    pub approval: Option<String>,
    /// `--max-iters`.
    pub max_iters: Option<u32>,
}

/// The effective configuration of one command.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The workspace (canonical).
    pub workspace: PathBuf,
    /// Where runs are stored.
    pub state_dir: PathBuf,
    /// The model string.
    pub model: String,
    /// The workflow of new runs.
    pub workflow: WorkflowKind,
    /// When to ask before commands.
    pub approval: ApprovalMode,
    /// The agent's settings, with its budget.
    pub agent: AgentConfig,
    /// The shell tool's settings, with its sandbox.
    pub shell: ShellConfig,
    /// Command rules.
    pub rules: Vec<CommandRule>,
    /// MCP servers.
    pub mcp: Vec<McpServerConfig>,
    /// The configuration's checks, each with where it was set.
    pub checks: Vec<(String, String)>,
    /// The merged file configuration, with environment and flags applied
    /// (what `config show` prints).
    pub merged: FileConfig,
    /// Where each setting came from.
    pub sources: Sources,
    /// Whether the workspace's `rebound.toml` counted in full.
    pub trust: WorkspaceTrust,
}

/// Whether the workspace's `rebound.toml` is trusted (see [`untrusted`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkspaceTrust {
    /// There is no workspace file.
    NoFile,
    /// The user trusts this file (`rebound trust`): all of it counts.
    Trusted,
    /// The file is not trusted: only what tightens counts.
    Untrusted {
        /// The file's SHA-256, to trust it as it is.
        sha256: String,
        /// What it asked for and did not get.
        ignored: Vec<Ignored>,
        /// Why the trust store could not be read, if it could not.
        store_warning: Option<String>,
    },
}

impl WorkspaceTrust {
    /// The settings an untrusted file asked for and did not get.
    pub fn ignored(&self) -> &[Ignored] {
        match self {
            WorkspaceTrust::Untrusted { ignored, .. } => ignored,
            _ => &[],
        }
    }
}

/// The environment, read through a function (tests pass their own).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process environment, empty values counting as unset.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// Loads the effective configuration for `flags`.
pub fn load(flags: &Flags, env: Env<'_>) -> Result<Settings, ConfigError> {
    let workspace = workspace_dir(flags.workspace.as_deref())?;
    let mut sources = Sources::default();
    let mut files = Vec::new();
    let workspace_file = workspace.join(WORKSPACE_FILE);
    let exists = workspace_file.is_file();
    let user_file = match &user_config_path(env) {
        Some((path, _)) if path.is_file() => Some((file::read(path)?, path.clone())),
        Some((path, true)) => return Err(ConfigError::MissingUserConfig(path.clone())),
        _ => None,
    };
    let mut trust = WorkspaceTrust::NoFile;
    if exists {
        let parsed = file::read(&workspace_file)?;
        let bytes = std::fs::read(&workspace_file).map_err(|source| ConfigError::Read {
            path: workspace_file.clone(),
            source,
        })?;
        let sha256 = trust::sha256_hex(&bytes);
        let store = TrustStore::load(env);
        if store.trusts(&workspace, &sha256) {
            trust = WorkspaceTrust::Trusted;
            files.push((parsed, Origin::WorkspaceFile));
        } else {
            let user_only: Vec<(file::ParsedFile, Origin)> = user_file
                .iter()
                .map(|(parsed, _)| (parsed.clone(), Origin::UserFile))
                .collect();
            let baseline = layers::merge(&user_only, &mut Sources::default())?;
            let (table, ignored) = untrusted::tighten_only(&parsed.table, &baseline);
            files.push((
                file::ParsedFile {
                    path: parsed.path.clone(),
                    table,
                },
                Origin::WorkspaceFile,
            ));
            trust = WorkspaceTrust::Untrusted {
                sha256,
                ignored,
                store_warning: store.warning,
            };
        }
    }
    sources.files.push((workspace_file, exists));
    match (&user_file, user_config_path(env)) {
        (Some((parsed, path)), _) => {
            files.push((parsed.clone(), Origin::UserFile));
            sources.files.push((path.clone(), true));
        }
        (None, Some((path, _))) => sources.files.push((path, false)),
        (None, None) => {}
    }
    let mut merged = layers::merge(&files, &mut sources)?;
    let mut state_dir = merged
        .state_dir
        .as_ref()
        .map(|dir| resolve(&workspace, &expand_home(dir, env)));
    apply_env(&mut merged, &mut state_dir, &mut sources, env)?;
    apply_flags(&mut merged, &mut state_dir, &mut sources, flags)?;
    let state_dir = state_dir.unwrap_or_else(|| workspace.join(".rebound"));
    merged.state_dir = Some(state_dir.clone());
    let approval_text = merged
        .approval
        .clone()
        .unwrap_or_else(|| "on-risk".to_string());
    let approval = ApprovalMode::from_str(&approval_text).map_err(|_| ConfigError::Flag {
        flag: "approval".to_string(),
        message: format!("unknown approval mode {approval_text:?}"),
    })?;
    let mut agent = merged.agent.clone();
    agent.budget = merged.budget.clone();
    let mut shell = merged.shell.clone();
    shell.sandbox = merged.sandbox.clone();
    let check_origin = sources
        .settings
        .get("check")
        .and_then(|origins| origins.last())
        .map_or_else(|| "config".to_string(), ToString::to_string);
    let checks = merged
        .check
        .iter()
        .map(|command| (command.clone(), check_origin.clone()))
        .collect();
    Ok(Settings {
        workspace,
        state_dir,
        model: merged
            .model
            .clone()
            .unwrap_or_else(|| DEFAULT_MODEL.to_string()),
        workflow: merged.workflow.unwrap_or_default(),
        approval,
        agent,
        shell,
        rules: merged.rules.clone(),
        mcp: merged.mcp.clone(),
        checks,
        merged,
        sources,
        trust,
    })
}

/// The workspace: `--workspace` or the current directory, canonical.
fn workspace_dir(flag: Option<&Path>) -> Result<PathBuf, ConfigError> {
    let path = match flag {
        Some(path) => path.to_path_buf(),
        None => std::env::current_dir().map_err(|e| ConfigError::Workspace {
            path: PathBuf::from("."),
            message: e.to_string(),
        })?,
    };
    if !path.is_dir() {
        return Err(ConfigError::Workspace {
            path,
            message: "not a directory".to_string(),
        });
    }
    std::fs::canonicalize(&path).map_err(|e| ConfigError::Workspace {
        path,
        message: e.to_string(),
    })
}

/// The user config file, and whether `$REBOUND_CONFIG` named it.
pub fn user_config_path(env: Env<'_>) -> Option<(PathBuf, bool)> {
    if let Some(path) = env("REBOUND_CONFIG") {
        return Some((PathBuf::from(path), true));
    }
    let base = match env("XDG_CONFIG_HOME").filter(|dir| Path::new(dir).is_absolute()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env("HOME")?).join(".config"),
    };
    Some((base.join("rebound").join("config.toml"), false))
}

/// `~/x` → `$HOME/x`.
fn expand_home(path: &Path, env: Env<'_>) -> PathBuf {
    match (path.strip_prefix("~"), env("HOME")) {
        (Ok(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => path.to_path_buf(),
    }
}

/// `path` relative to `base` unless absolute.
fn resolve(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

fn apply_env(
    merged: &mut FileConfig,
    state_dir: &mut Option<PathBuf>,
    sources: &mut Sources,
    env: Env<'_>,
) -> Result<(), ConfigError> {
    if let Some(model) = env("REBOUND_MODEL") {
        rebound_llm::ModelSpec::from_str(&model).map_err(|e| ConfigError::Env {
            name: "REBOUND_MODEL".to_string(),
            message: e.to_string(),
        })?;
        merged.model = Some(model);
        sources.set("model", Origin::Env("REBOUND_MODEL"));
    }
    if let Some(mode) = env("REBOUND_APPROVAL") {
        ApprovalMode::from_str(&mode).map_err(|_| ConfigError::Env {
            name: "REBOUND_APPROVAL".to_string(),
            message: format!(
                "unknown approval mode {mode:?}; expected \"auto\", \"on-risk\" or \"always\""
            ),
        })?;
        merged.approval = Some(mode);
        sources.set("approval", Origin::Env("REBOUND_APPROVAL"));
    }
    if let Some(dir) = env("REBOUND_STATE_DIR") {
        let cwd = std::env::current_dir().unwrap_or_default();
        *state_dir = Some(resolve(&cwd, &expand_home(Path::new(&dir), env)));
        sources.set("state_dir", Origin::Env("REBOUND_STATE_DIR"));
    }
    Ok(())
}

fn apply_flags(
    merged: &mut FileConfig,
    state_dir: &mut Option<PathBuf>,
    sources: &mut Sources,
    flags: &Flags,
) -> Result<(), ConfigError> {
    if let Some(model) = &flags.model {
        rebound_llm::ModelSpec::from_str(model).map_err(|e| ConfigError::Flag {
            flag: "--model".to_string(),
            message: e.to_string(),
        })?;
        merged.model = Some(model.clone());
        sources.set("model", Origin::Flag("--model"));
    }
    if let Some(workflow) = flags.workflow {
        merged.workflow = Some(workflow);
        sources.set("workflow", Origin::Flag("--workflow"));
    }
    if let Some(mode) = &flags.approval {
        merged.approval = Some(mode.clone());
        sources.set("approval", Origin::Flag("--approval"));
    }
    if let Some(max_iters) = flags.max_iters {
        if max_iters == 0 {
            return Err(ConfigError::Flag {
                flag: "--max-iters".to_string(),
                message: "must be at least 1".to_string(),
            });
        }
        merged.budget.max_iters = max_iters;
        sources.set("budget.max_iters", Origin::Flag("--max-iters"));
    }
    if let Some(dir) = &flags.state_dir {
        let cwd = std::env::current_dir().unwrap_or_default();
        *state_dir = Some(resolve(&cwd, dir));
        sources.set("state_dir", Origin::Flag("--state-dir"));
    }
    Ok(())
}
