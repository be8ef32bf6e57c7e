//! What a command did, for programs and for the model.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::ToolOutput;

/// The longest command echoed back in the model-facing content.
const ECHO_MAX: usize = 500;

use rebound_protocol::framing::EXIT_PREFIX;
pub use rebound_protocol::framing::{is_exit_line, untimed_exit_line, ECHO_PREFIX};

/// What running a command did: how it ended, how long it took, and its
/// output as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandResult {
    /// The command line.
    pub command: String,
    /// The exit code, if the command exited (rather than being killed).
    pub exit_code: Option<i32>,
    /// The signal that killed the command, if one did.
    pub signal: Option<i32>,
    /// From spawn to the end of the call.
    pub duration: Duration,
    /// Whether the command ran out of time (and its group was killed).
    pub timed_out: bool,
    /// Whether the call was cancelled (and the group killed).
    pub cancelled: bool,
    /// Whether [`CommandResult::output`] leaves part of the output out.
    pub truncated: bool,
    /// How many bytes the command wrote to stdout and stderr together.
    pub bytes: u64,
    /// How many of them went to stdout.
    pub stdout_bytes: u64,
    /// How many of them went to stderr.
    pub stderr_bytes: u64,
    /// The file with the full output (both streams, interleaved as they
    /// arrived), saved when the output was truncated.
    pub log_path: Option<PathBuf>,
    /// Whether the log stopped at the configured log cap.
    pub log_capped: bool,
    /// Why the log could not be saved whole, if it could not.
    pub log_error: Option<String>,
    /// The model-facing output: stdout and stderr interleaved as they
    /// arrived, made printable; when too long, its head, a marker saying
    /// how much was cut and where the full log is, and its tail.
    pub output: String,
    /// Whether the command ran in the Landlock sandbox.
    pub sandboxed: bool,
}

impl CommandResult {
    /// Whether the command exited with code 0 in time, uncancelled.
    pub fn success(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.cancelled
    }

    /// How the command ended, in a few words: `exit code 0`,
    /// `timed out after 2 s`, `killed by signal 9 (SIGKILL)`...
    pub fn status_line(&self) -> String {
        let secs = self.duration.as_secs_f64();
        if self.timed_out {
            format!("timed out after {secs:.1} s; the command and its child processes were killed")
        } else if self.cancelled {
            format!("cancelled after {secs:.1} s; the command and its child processes were killed")
        } else if let Some(code) = self.exit_code {
            let verdict = if code == 0 { "success" } else { "failure" };
            format!("{EXIT_PREFIX}{code} ({verdict}) after {secs:.1} s")
        } else if let Some(signal) = self.signal {
            format!(
                "killed by signal {signal} ({}) after {secs:.1} s",
                signal_name(signal)
            )
        } else {
            format!("ended without an exit status after {secs:.1} s")
        }
    }

    /// The [`ToolOutput`] the model sees: the status line, the command, the
    /// output and, for common failures, a hint; `details` carries every
    /// field as JSON.
    pub fn into_output(self) -> ToolOutput {
        let mut content = self.status_line();
        let _ = write!(content, "\n{ECHO_PREFIX}{}\n", echo(&self.command));
        if self.output.is_empty() {
            content.push_str("(no output)\n");
        } else {
            content.push_str(&self.output);
            if !self.output.ends_with('\n') {
                content.push('\n');
            }
        }
        if let Some(hint) = self.hint() {
            content.push_str(hint);
            content.push('\n');
        }
        let details = serde_json::json!({
            "command": self.command,
            "exit_code": self.exit_code,
            "signal": self.signal,
            "duration_ms": u64::try_from(self.duration.as_millis()).unwrap_or(u64::MAX),
            "timed_out": self.timed_out,
            "cancelled": self.cancelled,
            "truncated": self.truncated,
            "bytes": self.bytes,
            "stdout_bytes": self.stdout_bytes,
            "stderr_bytes": self.stderr_bytes,
            "log_path": self.log_path,
            "log_capped": self.log_capped,
            "log_error": self.log_error,
            "sandboxed": self.sandboxed,
        });
        ToolOutput {
            success: self.success(),
            content,
            details,
        }
    }

    /// A note on what a failure usually means.
    fn hint(&self) -> Option<&'static str> {
        if self.success() || self.timed_out || self.cancelled {
            return None;
        }
        match self.exit_code {
            Some(127) => {
                return Some("note: exit code 127 means a command was not found: is it installed and on PATH?")
            }
            Some(126) => {
                return Some("note: exit code 126 means a command was found but could not be executed (permissions?)")
            }
            _ => {}
        }
        let denied = [
            "Permission denied",
            "Operation not permitted",
            "Read-only file system",
        ];
        if self.sandboxed && denied.iter().any(|text| self.output.contains(text)) {
            return Some(SANDBOX_WRITE_NOTE);
        }
        None
    }
}

/// The note a failed command's output ends with when the sandbox refused
/// one of its writes (a path outside the workspace and the temp dir): the
/// command cannot succeed here, whatever the workspace holds.
pub const SANDBOX_WRITE_NOTE: &str =
    "note: commands run in a sandbox that can write only inside the workspace and the temp dir";

/// `command` cut to [`ECHO_MAX`] bytes.
fn echo(command: &str) -> String {
    if command.len() <= ECHO_MAX {
        return command.to_string();
    }
    let mut end = ECHO_MAX;
    while !command.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} [...]", &command[..end])
}

fn signal_name(signal: i32) -> &'static str {
    nix::sys::signal::Signal::try_from(signal)
        .map(|s| s.as_str())
        .unwrap_or("unknown signal")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(exit_code: Option<i32>) -> CommandResult {
        CommandResult {
            command: "make".to_string(),
            exit_code,
            signal: None,
            duration: Duration::from_millis(1500),
            timed_out: false,
            cancelled: false,
            truncated: false,
            bytes: 6,
            stdout_bytes: 0,
            stderr_bytes: 6,
            log_path: None,
            log_capped: false,
            log_error: None,
            output: "oops!\n".to_string(),
            sandboxed: true,
        }
    }

    #[test]
    fn the_framing_is_recognised_where_it_is_written() {
        let content = result(Some(2)).into_output().content;
        let mut lines = content.lines();
        let status = lines.next().unwrap();
        assert!(is_exit_line(status));
        assert_eq!(untimed_exit_line(status), Some("exit code 2 (failure)"));
        assert!(lines.next().unwrap().starts_with(ECHO_PREFIX));
        assert!(!is_exit_line("oops!"));
        assert!(!is_exit_line("exit code 2 means nothing here"));
        let mut timed_out = result(None);
        timed_out.timed_out = true;
        assert!(!is_exit_line(&timed_out.status_line()));
    }

    #[test]
    fn failures_show_code_command_and_output() {
        let output = result(Some(2)).into_output();
        assert!(!output.success);
        assert_eq!(
            output.content,
            "exit code 2 (failure) after 1.5 s\n$ make\noops!\n"
        );
        assert_eq!(output.details["exit_code"], 2);
        assert_eq!(output.details["duration_ms"], 1500);
    }

    #[test]
    fn signals_are_named() {
        let mut killed = result(None);
        killed.signal = Some(9);
        assert!(!killed.success());
        assert!(killed
            .status_line()
            .starts_with("killed by signal 9 (SIGKILL)"));
    }
}
