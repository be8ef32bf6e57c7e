//! What a workflow runs with: the model, the tools (shell, files, MCP
//! servers), the approval policy and the workspace, from the settings.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use rebound_agent::{AgentConfig, AgentDeps};
use rebound_llm::{ChatModel, ScriptedModel};
use rebound_tools::approval::ApprovalPolicy;
use rebound_tools::mcp::LazyServers;
use rebound_tools::shell::ShellTool;
use rebound_tools::{ToolContext, ToolRegistry};

use crate::config::Settings;
use crate::store::StateDir;

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

/// Builds the dependencies of a run in `workspace`.
pub async fn build(
    settings: &Settings,
    workspace: &Path,
    model: Arc<dyn ChatModel>,
    state: &StateDir,
) -> anyhow::Result<Tools> {
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
        .with_context(|| format!("workspace {}", workspace.display()))?
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
pub fn inert(workspace: &Path) -> anyhow::Result<Arc<AgentDeps>> {
    let context = ToolContext::new(workspace)
        .or_else(|_| ToolContext::new(std::env::temp_dir()))
        .context("no directory for an inert tool context")?;
    Ok(Arc::new(AgentDeps {
        model: Arc::new(ScriptedModel::new([])),
        tools: ToolRegistry::new(),
        approval: ApprovalPolicy::default(),
        workspace: context,
        config: AgentConfig::default(),
        mcp: None,
    }))
}
