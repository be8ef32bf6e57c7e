//! The server's child process: spawned in its own process group with a
//! minimal environment, its stderr kept (the tail, for error messages), its
//! exit observed, and the whole group killed when the client goes away.

use std::collections::VecDeque;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::McpServerConfig;

/// The variables of rebound's own environment a server inherits; everything
/// else (API keys above all) is withheld unless the config's `env` sets it.
const INHERITED_ENV: &[&str] = &[
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LOGNAME",
    "PATH",
    "SHELL",
    "TERM",
    "TMPDIR",
    "TZ",
    "USER",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
];

/// How many stderr lines are kept, and how long each may be.
const STDERR_TAIL_LINES: usize = 20;
const STDERR_LINE_CHARS: usize = 300;
/// How many of the kept lines an error message quotes.
const STDERR_QUOTED_LINES: usize = 10;

/// How long [`ServerProcess::stop`] waits after each step (closing stdin,
/// SIGTERM, SIGKILL) for the server to exit.
const STOP_STEP: Duration = Duration::from_secs(2);

/// A running (or exited) server process.
pub(super) struct ServerProcess {
    pid: Option<u32>,
    exit: watch::Receiver<Option<String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    stderr_done: CancellationToken,
    kill: CancellationToken,
    stopped: bool,
}

/// What a tool needs to explain a dead server: its exit and its stderr.
#[derive(Clone)]
pub(super) struct ProcessObserver {
    exit: watch::Receiver<Option<String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    stderr_done: CancellationToken,
}

impl ServerProcess {
    /// Spawns the server of `config`, with piped stdio, in its sandbox when
    /// it has one.
    pub(super) async fn spawn(
        config: &McpServerConfig,
    ) -> Result<(ServerProcess, ChildStdout, ChildStdin), crate::ToolError> {
        let mut command = Command::new(&config.command);
        command
            .args(&config.args)
            .env_clear()
            .envs(
                INHERITED_ENV
                    .iter()
                    .filter_map(|name| std::env::var_os(name).map(|value| (*name, value))),
            )
            .envs(&config.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(cwd) = &config.cwd {
            command.current_dir(cwd);
        }
        let mut child = match &config.sandbox {
            Some(sandbox) => {
                let mut policy = sandbox.policy.clone();
                policy.writable.extend(config.writable.iter().cloned());
                crate::sandbox::spawn(command, &policy, &sandbox.workspace)
                    .await?
                    .child
            }
            None => command
                .spawn()
                .map_err(|e| crate::ToolError::io("spawning", e))?,
        };
        let (Some(stdout), Some(stdin), Some(stderr)) =
            (child.stdout.take(), child.stdin.take(), child.stderr.take())
        else {
            return Err(crate::ToolError::failed("the child's stdio was not piped"));
        };
        let pid = child.id();
        let (exit_tx, exit) = watch::channel(None);
        let kill = CancellationToken::new();
        tokio::spawn(supervise(child, pid, kill.clone(), exit_tx));
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_done = CancellationToken::new();
        tokio::spawn(read_stderr(
            config.name.clone(),
            stderr,
            stderr_tail.clone(),
            stderr_done.clone(),
        ));
        let process = ServerProcess {
            pid,
            exit,
            stderr: stderr_tail,
            stderr_done,
            kill,
            stopped: false,
        };
        Ok((process, stdout, stdin))
    }

    /// The process id (also its process group id).
    pub(super) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// A handle that explains the process's fate to tools.
    pub(super) fn observer(&self) -> ProcessObserver {
        ProcessObserver {
            exit: self.exit.clone(),
            stderr: self.stderr.clone(),
            stderr_done: self.stderr_done.clone(),
        }
    }

    /// Stops the server the way the MCP stdio transport asks: the caller has
    /// closed its stdin; wait for it to exit, then SIGTERM, then SIGKILL its
    /// process group. Whatever else is left in the group is killed too.
    pub(super) async fn stop(&mut self) {
        let observer = self.observer();
        if observer.wait_exit(STOP_STEP).await.is_none() {
            self.signal_group(Signal::SIGTERM);
            if observer.wait_exit(STOP_STEP).await.is_none() {
                self.kill.cancel();
                let _ = observer.wait_exit(STOP_STEP).await;
            }
        }
        self.signal_group(Signal::SIGKILL);
        self.stopped = true;
    }

    /// Kills the server's process group now and waits (briefly) until it is
    /// reaped.
    pub(super) async fn kill(&mut self) {
        self.signal_group(Signal::SIGKILL);
        self.kill.cancel();
        let _ = self.observer().wait_exit(STOP_STEP).await;
        self.stopped = true;
    }

    fn signal_group(&self, signal: Signal) {
        if let Some(pgid) = self.pid.and_then(|pid| i32::try_from(pid).ok()) {
            // ESRCH (the group is gone already) is the common, harmless case.
            let _ = killpg(Pid::from_raw(pgid), signal);
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if !self.stopped {
            // Synchronous, so that it works even while the runtime shuts
            // down; the supervisor task then reaps the leader.
            self.signal_group(Signal::SIGKILL);
            self.kill.cancel();
        }
    }
}

impl ProcessObserver {
    /// How the process exited (e.g. `exit status: 3`), if it has.
    pub(super) fn exit_status(&self) -> Option<String> {
        self.exit.borrow().clone()
    }

    /// Waits until the process has exited.
    pub(super) async fn exited(&self) {
        let mut exit = self.exit.clone();
        // An error means the supervisor is gone, which only happens once the
        // exit is recorded (or the runtime is going away).
        let _ = exit.wait_for(Option::is_some).await;
    }

    /// Waits up to `timeout` for the process to exit, then (briefly) for the
    /// last of its stderr. Returns how it exited, if it did.
    pub(super) async fn wait_exit(&self, timeout: Duration) -> Option<String> {
        let _ = tokio::time::timeout(timeout, self.exited()).await;
        let status = self.exit_status();
        if status.is_some() {
            let _ = tokio::time::timeout(Duration::from_millis(300), self.stderr_done.cancelled())
                .await;
        }
        status
    }

    /// The last lines the server wrote to stderr, indented, or `None` when it
    /// wrote nothing.
    pub(super) fn stderr_tail(&self) -> Option<String> {
        let lines = self.stderr.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.is_empty() {
            return None;
        }
        let skip = lines.len().saturating_sub(STDERR_QUOTED_LINES);
        let quoted: Vec<String> = lines
            .iter()
            .skip(skip)
            .map(|line| format!("  {line}"))
            .collect();
        Some(quoted.join("\n"))
    }

    /// `message`, followed by how the server exited and its stderr tail.
    pub(super) fn explain(&self, message: &str) -> String {
        self.explain_exit(message, self.exit_status())
    }

    /// `message`, followed by `exit` (how the server exited, if it did of its
    /// own accord) and its stderr tail.
    pub(super) fn explain_exit(&self, message: &str, exit: Option<String>) -> String {
        let mut text = message.to_string();
        if let Some(status) = exit {
            text.push_str(&format!(" ({status})"));
        }
        match self.stderr_tail() {
            Some(tail) => text.push_str(&format!("; its stderr ended with:\n{tail}")),
            None => text.push_str("; it wrote nothing to stderr"),
        }
        text
    }
}

/// Owns the child: reaps it when it exits on its own, or kills its group
/// and reaps it when asked to. Records how it exited.
async fn supervise(
    mut child: Child,
    pid: Option<u32>,
    kill: CancellationToken,
    exit_tx: watch::Sender<Option<String>>,
) {
    let status = tokio::select! {
        status = child.wait() => status,
        _ = kill.cancelled() => {
            if let Some(pgid) = pid.and_then(|pid| i32::try_from(pid).ok()) {
                let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
            }
            let _ = child.start_kill();
            child.wait().await
        }
    };
    let description = match status {
        Ok(status) => describe_exit(status),
        Err(e) => format!("its exit status could not be read: {e}"),
    };
    tracing::debug!(pid, exit = %description, "MCP server process exited");
    exit_tx.send_replace(Some(description));
}

fn describe_exit(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => match Signal::try_from(signal) {
            Ok(signal) => format!("killed by signal {}", signal.as_str()),
            Err(_) => format!("killed by signal {signal}"),
        },
        (None, None) => status.to_string(),
    }
}

/// Logs the server's stderr and keeps its last lines. Reads in chunks, so
/// that a server writing an endless line cannot grow memory without bound.
async fn read_stderr(
    server: String,
    mut stderr: ChildStderr,
    tail: Arc<Mutex<VecDeque<String>>>,
    done: CancellationToken,
) {
    let max_line_bytes = STDERR_LINE_CHARS * 4;
    let mut chunk = [0u8; 4096];
    let mut line: Vec<u8> = Vec::new();
    let mut truncated = false;
    loop {
        let read = match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        for &byte in &chunk[..read] {
            if byte == b'\n' {
                keep_stderr_line(&server, &tail, &line, truncated);
                line.clear();
                truncated = false;
            } else if line.len() < max_line_bytes {
                line.push(byte);
            } else {
                truncated = true;
            }
        }
    }
    if !line.is_empty() {
        keep_stderr_line(&server, &tail, &line, truncated);
    }
    done.cancel();
}

fn keep_stderr_line(
    server: &str,
    tail: &Mutex<VecDeque<String>>,
    line: &[u8],
    mut truncated: bool,
) {
    let line = String::from_utf8_lossy(line);
    let line = line.trim_end();
    tracing::debug!(server = %server, "MCP server stderr: {line}");
    let mut kept: String = line.chars().take(STDERR_LINE_CHARS).collect();
    truncated |= kept.len() < line.len();
    if truncated {
        kept.push('…');
    }
    let mut lines = tail.lock().unwrap_or_else(PoisonError::into_inner);
    if lines.len() == STDERR_TAIL_LINES {
        lines.pop_front();
    }
    lines.push_back(kept);
}
