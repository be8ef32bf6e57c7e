//! MCP servers started on first use: a run whose steps never need a tool
//! beyond the shell starts no server at all.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::OnceCell;

use super::{start_all, McpClient, McpServerConfig};
use crate::{Tool, ToolError};

/// The MCP servers of a configuration, started together the first time
/// their tools are asked for, and stopped by [`LazyServers::shutdown`].
/// A failed start is remembered: later calls fail at once with the same
/// message instead of starting the servers again.
pub struct LazyServers {
    configs: Vec<McpServerConfig>,
    tools: OnceCell<Result<Vec<Arc<dyn Tool>>, String>>,
    clients: Mutex<Vec<McpClient>>,
}

impl LazyServers {
    /// The servers of `configs`, not started.
    pub fn new(configs: Vec<McpServerConfig>) -> Self {
        LazyServers {
            configs,
            tools: OnceCell::new(),
            clients: Mutex::new(Vec::new()),
        }
    }

    /// Whether there is no server to start.
    pub fn is_empty(&self) -> bool {
        self.configs.is_empty()
    }

    /// Whether the servers were started (successfully or not).
    pub fn started(&self) -> bool {
        self.tools.initialized()
    }

    /// The servers' tools, starting every server the first time
    /// ([`start_all`]: all or none).
    pub async fn tools(&self) -> Result<Vec<Arc<dyn Tool>>, ToolError> {
        let started = self
            .tools
            .get_or_init(|| async {
                match start_all(&self.configs).await {
                    Ok(clients) => {
                        let tools = clients.iter().flat_map(McpClient::tools).collect();
                        *self.clients.lock().unwrap_or_else(PoisonError::into_inner) = clients;
                        Ok(tools)
                    }
                    Err(error) => Err(error.to_string()),
                }
            })
            .await;
        started.clone().map_err(ToolError::Failed)
    }

    /// Stops the servers that were started.
    pub async fn shutdown(&self) {
        let clients =
            std::mem::take(&mut *self.clients.lock().unwrap_or_else(PoisonError::into_inner));
        for client in clients {
            client.shutdown().await;
        }
    }
}

impl std::fmt::Debug for LazyServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyServers")
            .field(
                "servers",
                &self.configs.iter().map(|c| &c.name).collect::<Vec<_>>(),
            )
            .field("started", &self.started())
            .finish()
    }
}
