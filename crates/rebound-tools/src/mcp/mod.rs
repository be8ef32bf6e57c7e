//! Tools of MCP servers over stdio.
//!
//! [`McpClient::start`] spawns the server of an [`McpServerConfig`], runs the
//! MCP `initialize` handshake and lists its tools, all within the startup
//! timeout; [`McpClient::tools`] then exposes each of them as a [`Tool`]
//! named `<server>__<tool>`. Calls have a timeout, honour the context's
//! cancellation, and a server that dies is an error that says so (with the
//! end of its stderr), never a hang.
//!
//! The server runs in its own process group, with a minimal environment
//! (`PATH`, `HOME`, locale and the like, plus the config's `env`): rebound's
//! own secrets are not handed to third-party servers. Shutting the client
//! down — or dropping it — stops the whole group.
//!
//! ```no_run
//! # async fn run() -> Result<(), rebound_tools::ToolError> {
//! use rebound_tools::mcp::{McpClient, McpServerConfig};
//! use rebound_tools::ToolRegistry;
//!
//! let config = McpServerConfig::new("files", "npx")
//!     .with_args(["-y", "@modelcontextprotocol/server-filesystem", "."]);
//! let client = McpClient::start(config).await?;
//! let mut registry = ToolRegistry::new();
//! for tool in client.tools() {
//!     registry.register_arc(tool);
//! }
//! // ... run the agent ...
//! client.shutdown().await;
//! # Ok(())
//! # }
//! ```

mod lazy;
mod process;
mod tool;

pub use lazy::LazyServers;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{ClientInitializeError, RoleClient, RunningService};
use rmcp::{ServiceError, ServiceExt};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::sandbox::SandboxPolicy;
use crate::{Tool, ToolError};
use process::ServerProcess;
use tool::{McpTool, Session};

/// How long [`McpClient::shutdown`] lets the protocol session wind down
/// before it stops the process.
const SESSION_CLOSE_TIMEOUT: Duration = Duration::from_secs(3);

/// One MCP server to start: how to run it and how long to wait for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerConfig {
    /// The server's name: the prefix of its tools' names (`<name>__<tool>`)
    /// and how errors refer to it.
    pub name: String,
    /// The program to run, looked up on `PATH`.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables to set, on top of the few the server inherits
    /// (`PATH`, `HOME`, `USER`, `SHELL`, `TERM`, `TMPDIR`, `TZ`, locale and
    /// XDG directories); nothing else of rebound's environment is passed on.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The directory to run it in; rebound's own when `None`.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// How long starting may take: spawning, `initialize` and listing the
    /// tools. Default 10.
    #[serde(default = "default_startup_timeout_secs")]
    pub startup_timeout_secs: u64,
    /// How long one tool call may take. Default 60.
    #[serde(default = "default_call_timeout_secs")]
    pub call_timeout_secs: u64,
    /// Paths the server may write to besides the workspace and the temp dir,
    /// when it runs in the sandbox ([`McpServerConfig::in_sandbox`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writable: Vec<PathBuf>,
    /// The sandbox to start the server in (not part of the config file: the
    /// caller sets it); `None` runs it unsandboxed.
    #[serde(skip)]
    pub sandbox: Option<McpSandbox>,
}

/// The Landlock sandbox an MCP server runs in: the shell's policy, the
/// workspace it may write in, plus the server's own
/// [`McpServerConfig::writable`] paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpSandbox {
    /// The policy (the shell's).
    pub policy: SandboxPolicy,
    /// The workspace.
    pub workspace: PathBuf,
}

fn default_startup_timeout_secs() -> u64 {
    10
}

fn default_call_timeout_secs() -> u64 {
    60
}

impl McpServerConfig {
    /// A server called `name` run as `command`, with no arguments and the
    /// default timeouts.
    pub fn new(name: impl Into<String>, command: impl Into<String>) -> Self {
        McpServerConfig {
            name: name.into(),
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
            startup_timeout_secs: default_startup_timeout_secs(),
            call_timeout_secs: default_call_timeout_secs(),
            writable: Vec::new(),
            sandbox: None,
        }
    }

    /// The same config, started in the Landlock sandbox of `policy` with
    /// `workspace` writable (and [`McpServerConfig::writable`]), like the
    /// shell's commands.
    pub fn in_sandbox(mut self, policy: SandboxPolicy, workspace: impl Into<PathBuf>) -> Self {
        self.sandbox = Some(McpSandbox {
            policy,
            workspace: workspace.into(),
        });
        self
    }

    /// The same config, with `args`.
    pub fn with_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args = args.into_iter().map(Into::into).collect();
        self
    }

    /// The same config, setting the environment variable `name`.
    pub fn with_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(name.into(), value.into());
        self
    }

    /// The same config, running the server in `dir`.
    pub fn with_cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// The same config, with the startup timeout `secs`.
    pub fn with_startup_timeout_secs(mut self, secs: u64) -> Self {
        self.startup_timeout_secs = secs;
        self
    }

    /// The same config, with the call timeout `secs`.
    pub fn with_call_timeout_secs(mut self, secs: u64) -> Self {
        self.call_timeout_secs = secs;
        self
    }

    /// The command line, for messages (quoted as a shell would need it).
    fn command_line(&self) -> String {
        let words =
            std::iter::once(self.command.as_str()).chain(self.args.iter().map(String::as_str));
        shlex::try_join(words.clone()).unwrap_or_else(|_| words.collect::<Vec<_>>().join(" "))
    }

    fn error(&self, message: impl Into<String>) -> ToolError {
        ToolError::Mcp {
            server: self.name.clone(),
            message: message.into(),
        }
    }
}

/// A running MCP server and its tools.
///
/// Dropping it kills the server's process group; [`McpClient::shutdown`]
/// stops it gracefully first (closes its stdin, then SIGTERM, then SIGKILL).
/// Its tools outlive it only as tools that answer "shut down".
pub struct McpClient {
    session: Arc<Session>,
    tools: Vec<Arc<dyn Tool>>,
    service: Option<RunningService<RoleClient, ClientConfig>>,
    process: ServerProcess,
}

impl McpClient {
    /// Starts the server of `config`: spawns it, runs `initialize` and lists
    /// its tools, all within `startup_timeout_secs`.
    ///
    /// A program that cannot be started, a server that exits or closes its
    /// output, one that answers badly and one that does not answer in time
    /// are all [`ToolError::Mcp`], naming the server and the command, with
    /// the end of the server's stderr; the process is killed.
    pub async fn start(config: McpServerConfig) -> Result<McpClient, ToolError> {
        if config.name.trim().is_empty() {
            return Err(config.error("the server's name is empty"));
        }
        if config.command.trim().is_empty() {
            return Err(config.error("the server's command is empty"));
        }
        if let Some(cwd) = &config.cwd {
            if !cwd.is_dir() {
                return Err(config.error(format!(
                    "cannot start `{}`: its working directory {cwd:?} is not a directory",
                    config.command_line()
                )));
            }
        }
        let (mut process, stdout, stdin) = ServerProcess::spawn(&config).await.map_err(|e| {
            let (text, hint) = match &e {
                ToolError::Io { source, .. } => (
                    source.to_string(),
                    if source.kind() == std::io::ErrorKind::NotFound {
                        " (is it installed and on PATH?)"
                    } else {
                        ""
                    },
                ),
                other => (other.to_string(), ""),
            };
            config.error(format!(
                "cannot start `{}`: {text}{hint}",
                config.command_line()
            ))
        })?;
        tracing::debug!(server = %config.name, pid = process.pid(), "MCP server spawned");

        let startup_timeout = Duration::from_secs(config.startup_timeout_secs);
        let mut phase = "answer `initialize`";
        let startup = async {
            let service = client_config()
                .serve((stdout, stdin))
                .await
                .map_err(StartupFailure::from_initialize)?;
            phase = "list its tools (`tools/list`)";
            // A server that does not advertise tools may still list them;
            // if it cannot, it simply has none.
            let advertises_tools = service
                .peer_info()
                .is_none_or(|info| info.capabilities.tools.is_some());
            let tools = match service.peer().list_all_tools().await {
                Ok(tools) => tools,
                Err(error) if !advertises_tools => {
                    tracing::debug!(%error, "MCP server without tools");
                    Vec::new()
                }
                Err(error) => return Err(StartupFailure::from_service(error)),
            };
            Ok((service, tools))
        };
        let outcome = tokio::time::timeout(startup_timeout, startup).await;
        let (service, listed) = match outcome {
            Ok(Ok(started)) => started,
            Ok(Err(StartupFailure::Closed)) => {
                let observer = process.observer();
                let exited = observer.wait_exit(Duration::from_secs(1)).await;
                process.kill().await;
                let what = match exited {
                    Some(_) => format!("the server stopped before it could {phase}"),
                    None => format!("the server closed its output before it could {phase}"),
                };
                let message = format!("cannot start `{}`: {what}", config.command_line());
                return Err(config.error(observer.explain_exit(&message, exited)));
            }
            Ok(Err(StartupFailure::Failed(reason))) => {
                let observer = process.observer();
                process.kill().await;
                let message = format!(
                    "cannot start `{}`: the server failed to {phase}: {reason}",
                    config.command_line()
                );
                return Err(config.error(observer.explain_exit(&message, None)));
            }
            Err(_) => {
                let observer = process.observer();
                let exited = observer.exit_status();
                process.kill().await;
                let message = format!(
                    "cannot start `{}`: the server did not {phase} within {} s \
                     (startup_timeout_secs)",
                    config.command_line(),
                    config.startup_timeout_secs
                );
                return Err(config.error(observer.explain_exit(&message, exited)));
            }
        };

        let session = Arc::new(Session {
            server: config.name.clone(),
            peer: service.peer().clone(),
            call_timeout: Duration::from_secs(config.call_timeout_secs),
            process: process.observer(),
            closed: CancellationToken::new(),
        });
        let tools = McpTool::from_listing(&session, listed)
            .into_iter()
            .map(|tool| Arc::new(tool) as Arc<dyn Tool>)
            .collect::<Vec<_>>();
        tracing::info!(
            server = %config.name,
            tools = tools.len(),
            "MCP server started"
        );
        Ok(McpClient {
            session,
            tools,
            service: Some(service),
            process,
        })
    }

    /// The server's name, from its config.
    pub fn name(&self) -> &str {
        &self.session.server
    }

    /// The server's process id (also its process group's id).
    pub fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    /// The server's tools, named `<server>__<tool>` (characters outside
    /// `[a-zA-Z0-9_-]` replaced by `_`, at most 64 characters), with the
    /// server's descriptions and argument schemas.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.clone()
    }

    /// Stops the server: ends the session (closing its stdin), waits for it
    /// to exit, then sends SIGTERM and finally SIGKILL to its process group.
    /// Bounded: a few seconds at most.
    pub async fn shutdown(mut self) {
        self.session.closed.cancel();
        if let Some(mut service) = self.service.take() {
            let _ = service.close_with_timeout(SESSION_CLOSE_TIMEOUT).await;
        }
        self.process.stop().await;
        tracing::debug!(server = %self.session.server, "MCP server stopped");
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        // The running service cancels its session when dropped, and the
        // process kills its group.
        self.session.closed.cancel();
    }
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("name", &self.session.server)
            .field("pid", &self.process.pid())
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|tool| tool.name())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Why the handshake or the listing failed.
enum StartupFailure {
    /// The connection closed: the server exited or closed its stdout.
    Closed,
    /// The server answered, but not as it should.
    Failed(String),
}

impl StartupFailure {
    fn from_initialize(error: ClientInitializeError) -> Self {
        match error {
            ClientInitializeError::ConnectionClosed(_)
            | ClientInitializeError::TransportError { .. } => StartupFailure::Closed,
            error => StartupFailure::Failed(error.to_string()),
        }
    }

    fn from_service(error: ServiceError) -> Self {
        match error {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                StartupFailure::Closed
            }
            error => StartupFailure::Failed(error.to_string()),
        }
    }
}

/// What rebound tells servers about itself: the newest protocol version
/// that still has the `initialize` handshake, and no client capabilities.
fn client_config() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("rebound", env!("CARGO_PKG_VERSION")),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// Starts every server of `configs`, concurrently; all or nothing.
///
/// Two servers whose names would give their tools the same prefix are an
/// error before anything starts. When a server fails, the ones that started
/// are shut down and the error is the first failure in `configs` order (its
/// message says how many others failed). To keep the servers that did
/// start, use [`start_each`].
pub async fn start_all(configs: &[McpServerConfig]) -> Result<Vec<McpClient>, ToolError> {
    let mut prefixes: HashMap<String, &str> = HashMap::new();
    for config in configs {
        if let Some(other) = prefixes.insert(tool::sanitize(&config.name), &config.name) {
            return Err(config.error(if other == config.name {
                "two servers are configured with this name".to_string()
            } else {
                format!(
                    "the servers {other:?} and {:?} would give their tools the same name prefix",
                    config.name
                )
            }));
        }
    }
    let results = start_each(configs).await;
    let failures = results.iter().filter(|result| result.is_err()).count();
    if failures == 0 {
        return Ok(results.into_iter().flatten().collect());
    }
    let mut first_error = None;
    let mut started = Vec::new();
    for result in results {
        match result {
            Ok(client) => started.push(client),
            Err(error) if first_error.is_none() => first_error = Some(error),
            Err(error) => tracing::warn!(%error, "MCP server failed to start"),
        }
    }
    for client in started {
        client.shutdown().await;
    }
    Err(match first_error {
        Some(ToolError::Mcp {
            server,
            mut message,
        }) if failures > 1 => {
            message.push_str(&format!(
                "\n({} other MCP server(s) failed to start too)",
                failures - 1
            ));
            ToolError::Mcp { server, message }
        }
        Some(error) => error,
        None => ToolError::failed("an MCP server failed to start"),
    })
}

/// Starts every server of `configs`, concurrently, and reports each: the
/// results are in `configs` order.
pub async fn start_each(configs: &[McpServerConfig]) -> Vec<Result<McpClient, ToolError>> {
    let mut tasks = tokio::task::JoinSet::new();
    for (index, config) in configs.iter().enumerate() {
        let config = config.clone();
        tasks.spawn(async move { (index, McpClient::start(config).await) });
    }
    let mut results: Vec<Option<Result<McpClient, ToolError>>> = std::iter::repeat_with(|| None)
        .take(configs.len())
        .collect();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok((index, result)) => {
                if let Some(slot) = results.get_mut(index) {
                    *slot = Some(result);
                }
            }
            Err(error) => tracing::error!(%error, "an MCP server's start task failed"),
        }
    }
    results
        .into_iter()
        .zip(configs)
        .map(|(result, config)| {
            result.unwrap_or_else(|| Err(config.error("starting the server panicked")))
        })
        .collect()
}
