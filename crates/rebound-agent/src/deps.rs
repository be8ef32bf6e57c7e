//! What a workflow's nodes work with.

use std::sync::Arc;

use rebound_llm::ChatModel;
use rebound_tools::approval::ApprovalPolicy;
use rebound_tools::mcp::LazyServers;
use rebound_tools::{ToolContext, ToolRegistry};

use crate::AgentConfig;

/// The model, the tools and the settings a workflow runs with. Shared by
/// every node of a compiled graph.
#[derive(Clone)]
pub struct AgentDeps {
    /// The model every role uses.
    pub model: Arc<dyn ChatModel>,
    /// The tools the executor may call; command steps use the one named
    /// `shell`.
    pub tools: ToolRegistry,
    /// When to ask before a command runs.
    pub approval: ApprovalPolicy,
    /// The workspace, the artifact dir and the cancellation of tool calls.
    pub workspace: ToolContext,
    /// Budgets and limits.
    pub config: AgentConfig,
    /// MCP servers whose tools join [`AgentDeps::tools`] for steps the
    /// model works through with tools; started on the first such step.
    pub mcp: Option<Arc<LazyServers>>,
}

impl std::fmt::Debug for AgentDeps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentDeps")
            .field("model", &self.model.name())
            .field("tools", &self.tools)
            .field("workspace", &self.workspace)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
