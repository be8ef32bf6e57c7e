//! The shell tool: a command line run with `bash -c`, safe to hand to a
//! model.
//!
//! - It runs in the workspace, with stdin closed, in its own process group;
//!   on timeout or cancellation the whole group gets SIGTERM, then SIGKILL.
//!   When the command exits, its pipes are read a little longer (the
//!   *drain*) and then whatever is left of the group is killed: background
//!   processes never outlive their call, and never hang it.
//! - stdout and stderr are captured together, interleaved as they arrive
//!   (they are separate pipes: writes to both within the same instant may
//!   come out in either order), with bounded memory. The model sees the
//!   head and the tail, with a marker saying how much was cut and where the
//!   full log is saved (in the artifact dir, named from the call id, only
//!   when output was cut).
//!   Output is made printable: invalid UTF-8 replaced, ANSI escapes
//!   dropped, control characters replaced.
//! - Lines go to the context's output sink as they arrive.
//! - Secrets are scrubbed from the environment ([`is_secret_env`]); pagers
//!   and git prompts are turned off.
//! - Writes outside the workspace and the temp dir are denied by the
//!   Landlock [`crate::sandbox`].
//!
//! A non-zero exit is a failed [`ToolOutput`] showing the exit code and the
//! output, the raw material of self-correction; only failing to start
//! `bash` at all is a [`ToolError`].

mod capture;
mod config;
mod env;
mod process;
mod result;
pub mod secrets;
mod text;

use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

pub use config::ShellConfig;
pub use env::apply as scrub_env;
pub use result::{is_exit_line, untimed_exit_line, CommandResult, ECHO_PREFIX, SANDBOX_WRITE_NOTE};
pub use secrets::is_secret_env;
pub use secrets::Redactor;

use crate::{sandbox, ToolContext, ToolError, ToolOutput, TypedTool};

/// Runs `command` with `bash -c` in the context's workspace.
///
/// `timeout` defaults to [`ShellConfig::default_timeout`] and is cut to
/// [`ShellConfig::max_timeout`]. The command ending badly (a non-zero exit,
/// a timeout, a cancellation) is an `Ok` [`CommandResult`] saying so. Errors
/// are [`ToolError::Cancelled`] when the context is cancelled before the
/// command starts, [`ToolError::Io`] when `bash` cannot be started, and
/// [`ToolError::Failed`] when the sandbox is required but unavailable.
pub async fn run_command(
    command: &str,
    timeout: Option<Duration>,
    config: &ShellConfig,
    ctx: &ToolContext,
) -> Result<CommandResult, ToolError> {
    if ctx.cancellation().is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let timeout = timeout
        .unwrap_or(config.default_timeout)
        .min(config.max_timeout);
    // git read commands run without the programs a repository's own
    // config can name (fsmonitor, hooks, pagers, external diffs): the
    // result shows the command as written.
    let hardened = crate::approval::hardened_command(command);
    let mut bash = tokio::process::Command::new("bash");
    bash.arg("-c")
        .arg(hardened.as_deref().unwrap_or(command))
        .current_dir(ctx.workspace())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    env::apply(&mut bash, &config.env_allow);
    if config.sandbox.mode != sandbox::SandboxMode::Off {
        // The sandbox keeps the home directory read-only.
        env::tool_caches(&mut bash, ctx.caches());
    }

    let started = Instant::now();
    let spawned = sandbox::spawn(bash, &config.sandbox, ctx.workspace()).await?;
    let mut capture = capture::Capture::new(config, ctx);
    let timing = process::Timing {
        deadline: process::after(timeout),
        kill_grace: config.kill_grace,
        drain: config.drain,
    };
    let outcome =
        process::supervise(spawned.child, &mut capture, timing, ctx.cancellation()).await?;
    let duration = started.elapsed();
    let captured = capture.finish().await;

    Ok(CommandResult {
        command: command.to_string(),
        exit_code: outcome.status.and_then(|status| status.code()),
        signal: outcome.status.and_then(|status| status.signal()),
        duration,
        timed_out: outcome.timed_out,
        cancelled: outcome.cancelled,
        truncated: captured.truncated,
        bytes: captured.bytes,
        stdout_bytes: captured.stdout_bytes,
        stderr_bytes: captured.stderr_bytes,
        log_path: captured.log_path,
        log_capped: captured.log_capped,
        log_error: captured.log_error,
        output: captured.output,
        sandboxed: spawned.sandboxed,
    })
}

/// The arguments of the shell tool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellArgs {
    /// The command line, run with `bash -c` in the workspace root. Stdin is
    /// closed: the command must not wait for input.
    pub command: String,
    /// Seconds before the command and everything it started are killed.
    /// Optional; the default suits most commands.
    #[serde(default)]
    pub timeout_secs: Option<u64>,
}

/// The tool that runs shell commands (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct ShellTool {
    config: ShellConfig,
    description: String,
}

impl ShellTool {
    /// A shell tool running commands as `config` says.
    pub fn new(config: ShellConfig) -> Self {
        let sandbox = match (&config.sandbox.mode, config.sandbox.network) {
            (sandbox::SandboxMode::Off, _) => "",
            (sandbox::SandboxMode::Landlock, true) => {
                " Commands can write only inside the workspace and the temp dir."
            }
            (sandbox::SandboxMode::Landlock, false) => {
                " Commands can write only inside the workspace and the temp dir, and have no network."
            }
        };
        let description = format!(
            "Runs a shell command with `bash -c` in the workspace and returns its exit code \
             and output (stdout and stderr interleaved; long output is cut to its start and \
             end, with the full log saved). Stdin is closed, so commands must not be \
             interactive. Processes it starts in the background are killed when it ends. \
             The timeout is {} s by default, at most {} s.{sandbox}",
            config.default_timeout.as_secs(),
            config.max_timeout.as_secs(),
        );
        ShellTool {
            config,
            description,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ShellConfig {
        &self.config
    }
}

impl Default for ShellTool {
    fn default() -> Self {
        ShellTool::new(ShellConfig::default())
    }
}

#[async_trait]
impl TypedTool for ShellTool {
    type Args = ShellArgs;
    const NAME: &'static str = "shell";

    fn description(&self) -> &str {
        &self.description
    }

    fn command_line(&self, args: &ShellArgs) -> Option<String> {
        Some(args.command.clone())
    }

    async fn run(&self, args: ShellArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        if args.command.trim().is_empty() {
            return Err(ToolError::BadArguments {
                tool: Self::NAME.to_string(),
                message: "at `command`: the command is empty".to_string(),
            });
        }
        let timeout = args
            .timeout_secs
            .map(|secs| Duration::from_secs(secs.max(1)));
        let result = run_command(&args.command, timeout, &self.config, ctx).await?;
        Ok(result.into_output())
    }
}
