//! Running the eval's own commands (a task's setup, its check, its
//! reference fix) through `rebound-tools`' shell: `bash -c` in its own
//! process group, a timeout that kills the group, output capped in memory
//! with the full log saved beside the copy. Not sandboxed: these are the
//! suite's commands, not the agent's (a Rust check's cargo writes its own
//! caches).

use std::path::Path;
use std::time::Duration;

use rebound_tools::sandbox::SandboxPolicy;
use rebound_tools::shell::{run_command, ShellConfig};
use rebound_tools::ToolContext;

/// How much of a command's output the report keeps: its last characters.
const TAIL_CHARS: usize = 2_000;

/// What a command did.
#[derive(Debug, Clone)]
pub struct Ran {
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// Whether it was killed at the timeout.
    pub timed_out: bool,
    /// The end of its output (stdout and stderr).
    pub tail: String,
    /// How long it ran.
    pub duration: Duration,
}

impl Ran {
    /// Whether it exited 0 in time.
    pub fn success(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out
    }

    /// How it ended, in a few words.
    pub fn status(&self) -> String {
        match (self.timed_out, self.exit_code) {
            (true, _) => format!("timed out after {:.0} s", self.duration.as_secs_f64()),
            (false, Some(code)) => format!("exit {code}"),
            (false, None) => "killed by a signal".to_string(),
        }
    }
}

/// `word` quoted for bash (`shlex`); a word with a NUL byte, which no
/// command line can carry, is an error.
pub fn quote(word: &str) -> Result<String, String> {
    shlex::try_quote(word)
        .map(std::borrow::Cow::into_owned)
        .map_err(|e| format!("cannot quote {word:?} for the shell: {e}"))
}

/// Runs `command` with `bash -c` in `cwd`, with `env` exported first, for
/// at most `timeout`; a long output's full log goes into `logs`.
pub async fn bash(
    command: &str,
    cwd: &Path,
    env: &[(&str, &str)],
    timeout: Duration,
    logs: &Path,
) -> Result<Ran, String> {
    let exports: String = env
        .iter()
        .map(|(name, value)| Ok(format!("export {name}={}; ", quote(value)?)))
        .collect::<Result<_, String>>()?;
    let config = ShellConfig {
        max_timeout: timeout,
        sandbox: SandboxPolicy::off(),
        ..ShellConfig::default()
    };
    let context = ToolContext::new(cwd)
        .map_err(|e| format!("{}: {e}", cwd.display()))?
        .with_artifacts(logs);
    let result = run_command(
        &format!("{exports}{command}"),
        Some(timeout),
        &config,
        &context,
    )
    .await
    .map_err(|e| e.to_string())?;
    let skip = result.output.chars().count().saturating_sub(TAIL_CHARS);
    Ok(Ran {
        exit_code: result.exit_code,
        timed_out: result.timed_out,
        tail: result.output.chars().skip(skip).collect(),
        duration: result.duration,
    })
}
