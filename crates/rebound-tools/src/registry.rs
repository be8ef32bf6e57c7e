//! Tools by name.

use std::collections::BTreeMap;
use std::sync::Arc;

use rebound_protocol::ToolDefinition;

use crate::{Tool, ToolContext, ToolError, ToolOutput};

/// The tools a model may call, by name.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        ToolRegistry::default()
    }

    /// Adds `tool`, replacing one of the same name.
    pub fn register(&mut self, tool: impl Tool + 'static) -> &mut Self {
        self.register_arc(Arc::new(tool))
    }

    /// Adds a shared `tool`, replacing one of the same name.
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> &mut Self {
        self.tools.insert(tool.name().to_string(), tool);
        self
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    /// The tool names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The definitions to give a model, sorted by name.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools
            .values()
            .map(|tool| ToolDefinition {
                name: tool.name().to_string(),
                description: tool.description().to_string(),
                parameters: tool.parameters(),
            })
            .collect()
    }

    /// Looks up `name`: an unknown name is [`ToolError::UnknownTool`],
    /// listing the tools there are.
    pub fn lookup(&self, name: &str) -> Result<&Arc<dyn Tool>, ToolError> {
        self.tools.get(name).ok_or_else(|| ToolError::UnknownTool {
            name: name.to_string(),
            available: self.names().collect::<Vec<_>>().join(", "),
        })
    }

    /// Calls `name` with `arguments`. Every failure, an unknown tool or
    /// bad arguments included, comes back as a failed [`ToolOutput`] the
    /// model can read.
    pub async fn call(
        &self,
        name: &str,
        arguments: serde_json::Value,
        ctx: &ToolContext,
    ) -> ToolOutput {
        let tool = match self.lookup(name) {
            Ok(tool) => tool,
            Err(e) => return e.into_output(),
        };
        match tool.call(arguments, ctx).await {
            Ok(output) => output,
            Err(e) => e.into_output(),
        }
    }
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.tools.keys()).finish()
    }
}
