//! Running the eval's own commands (a task's setup, its check, its
//! reference fix, git): `bash -c` in its own process group, a timeout that
//! kills the group, output to a log file of which only the tail is read
//! (a command that prints gigabytes costs disk, bounded by the timeout,
//! never memory).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How much of a command's output the report keeps: its last bytes.
const TAIL_BYTES: u64 = 2_000;

/// What a command did.
#[derive(Debug, Clone)]
pub struct Ran {
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// Whether it was killed at the timeout.
    pub timed_out: bool,
    /// The last [`TAIL_BYTES`] of its output (stdout and stderr).
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

/// Runs `command` with `bash -c` in `cwd`, with `env` added, its output
/// appended to `log`. Stdin is closed.
pub async fn bash(
    command: &str,
    cwd: &Path,
    env: &[(&str, &str)],
    timeout: Duration,
    log: &Path,
) -> std::io::Result<Ran> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?;
    let start_len = file.metadata()?.len();
    let mut child = tokio::process::Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .envs(env.iter().copied())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(file.try_clone()?)
        .stderr(file)
        .process_group(0)
        .kill_on_drop(true)
        .spawn()?;
    let started = Instant::now();
    let (exit_code, timed_out) = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => (status?.code(), false),
        Err(_) => {
            kill_group(child.id());
            let _ = child.wait().await;
            (None, true)
        }
    };
    let duration = started.elapsed();
    kill_group(child.id());
    Ok(Ran {
        exit_code,
        timed_out,
        tail: tail(log, start_len).unwrap_or_default(),
        duration,
    })
}

/// Kills what is left of the process group led by `pid`.
fn kill_group(pid: Option<u32>) {
    let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) else {
        return;
    };
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    );
}

/// The last [`TAIL_BYTES`] of `log` written after `from`.
fn tail(log: &Path, from: u64) -> std::io::Result<String> {
    let mut file = std::fs::File::open(log)?;
    let len = file.metadata()?.len();
    let start = len.saturating_sub(TAIL_BYTES).max(from);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(TAIL_BYTES).read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).to_string())
}
