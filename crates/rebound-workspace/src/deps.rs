//! What a workflow runs with: the model, the tools (shell, files, MCP
//! servers), the approval policy and the workspace, from the settings.

use std::path::Path;
use std::sync::Arc;

use rebound_agent::{AgentConfig, AgentDeps};
use rebound_llm::{ChatModel, ScriptedModel};
use rebound_tools::approval::ApprovalPolicy;
use rebound_tools::mcp::LazyServers;
use rebound_tools::shell::ShellTool;
use rebound_tools::{ToolContext, ToolRegistry};

use crate::config::{Env, Settings};
use crate::error::WorkspaceError;
use crate::state::StateDir;
use rebound_sqlite::SqliteSaver;

/// The agent's dependencies, and the MCP servers to stop afterwards.
pub struct Tools {
    /// What the workflow's nodes use.
    pub deps: Arc<AgentDeps>,
    /// The MCP servers of the run, started when a step first needs them.
    pub mcp: Arc<LazyServers>,
}

impl Tools {
    /// Stops the MCP servers that were started.
    pub async fn shutdown(self) {
        self.mcp.shutdown().await;
    }
}

/// What a run starts from besides its settings: the state directory
/// (created, its database migrated), its checkpoint store, and the model
/// and tools the settings name.
pub struct RunParts {
    /// The state directory.
    pub state: StateDir,
    /// Its checkpoint store (and thread records).
    pub store: Arc<SqliteSaver>,
    /// The model and tools.
    pub tools: Tools,
}

impl RunParts {
    /// Opens the parts of a run in the settings' workspace with the
    /// settings' model: what `rebound run`, `serve` and `worker` each do
    /// before their first step.
    pub fn open(settings: &Settings, env: Env<'_>) -> Result<RunParts, WorkspaceError> {
        let state = StateDir::new(&settings.state_dir);
        let store = state.open()?;
        let tools = open(settings, &settings.model, &settings.workspace, &state, env)?;
        Ok(RunParts {
            state,
            store,
            tools,
        })
    }
}

/// Opens the model `model` names (see [`crate::models::open`]) and builds
/// the dependencies of a run in `workspace` with it: what `rebound run`,
/// `resume`, `serve` and `worker` each do before their first step.
pub fn open(
    settings: &Settings,
    model: &str,
    workspace: &Path,
    state: &StateDir,
    env: Env<'_>,
) -> Result<Tools, WorkspaceError> {
    let model = crate::models::open(model, env)?;
    build(settings, workspace, model, state)
}

/// Builds the dependencies of a run in `workspace`.
pub fn build(
    settings: &Settings,
    workspace: &Path,
    model: Arc<dyn ChatModel>,
    state: &StateDir,
) -> Result<Tools, WorkspaceError> {
    let mut tools = ToolRegistry::new();
    tools.register(ShellTool::new(settings.shell.clone()));
    rebound_tools::fs::register_file_tools(&mut tools);
    // Each server runs in the shell's Landlock sandbox, writing only in the
    // workspace, the temp dir and its own `writable` paths; none starts
    // until a step needs the tools.
    let sandboxed: Vec<_> = settings
        .mcp
        .iter()
        .map(|server| {
            server
                .clone()
                .in_sandbox(settings.shell.sandbox.clone(), workspace)
        })
        .collect();
    let mcp = Arc::new(LazyServers::new(sandboxed));
    let context = ToolContext::new(workspace)
        .map_err(WorkspaceError::io("use the workspace", workspace))?
        .with_artifacts(state.artifacts());
    let deps = AgentDeps {
        model,
        tools,
        approval: ApprovalPolicy::new(settings.approval)
            .with_rules(settings.rules.clone())
            .with_workspace(workspace),
        workspace: context,
        config: settings.agent.clone(),
        mcp: Some(mcp.clone()),
    };
    Ok(Tools {
        deps: Arc::new(deps),
        mcp,
    })
}

/// Dependencies that run nothing: for drawing a graph and reading or
/// forking a thread's checkpoints, which call no node.
/// A workspace that no longer exists is replaced by the temp dir.
pub fn inert(workspace: &Path) -> Result<Arc<AgentDeps>, WorkspaceError> {
    let context = ToolContext::new(workspace)
        .or_else(|_| ToolContext::new(std::env::temp_dir()))
        .map_err(WorkspaceError::io(
            "use the temp dir for an inert tool context",
            std::env::temp_dir(),
        ))?;
    Ok(Arc::new(AgentDeps {
        model: Arc::new(ScriptedModel::new([])),
        tools: ToolRegistry::new(),
        approval: ApprovalPolicy::default(),
        workspace: context,
        config: AgentConfig::default(),
        mcp: None,
    }))
}
