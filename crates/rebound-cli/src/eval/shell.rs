//! Running the eval's own commands (a task's setup, its check, its
//! reference fix, git): `bash -c` in its own process group, a timeout that
//! kills the group, output through a pipe to a log file, of which only
//! the tail is kept in memory (a command that prints gigabytes costs disk,
//! bounded by the timeout, never memory).

use std::io::Read;
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
/// (stdout and stderr through one pipe, as a terminal would interleave
/// them) appended to `log`. Stdin is closed.
pub async fn bash(
    command: &str,
    cwd: &Path,
    env: &[(&str, &str)],
    timeout: Duration,
    log: &Path,
) -> std::io::Result<Ran> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?;
    let (reader, writer) = std::io::pipe()?;
    let mut child = tokio::process::Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .envs(env.iter().copied())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .process_group(0)
        .kill_on_drop(true)
        .spawn()?;
    // The pipe is read on its own thread: to the log, keeping the tail.
    let (done, finished) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = done.send(copy_keeping_tail(reader, &mut file));
    });
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
    // Whatever the command left running holds the pipe open: it goes too.
    kill_group(child.id());
    let tail = match tokio::time::timeout(DRAIN, finished).await {
        Ok(Ok(tail)) => tail,
        _ => String::from("(the output could not be read to its end)"),
    };
    Ok(Ran {
        exit_code,
        timed_out,
        tail,
        duration,
    })
}

/// How long the output may take to drain once the command ended.
const DRAIN: Duration = Duration::from_secs(2);

/// Copies `reader` to `log` to its end, and gives the last [`TAIL_BYTES`].
fn copy_keeping_tail(mut reader: impl Read, log: &mut std::fs::File) -> String {
    use std::io::Write;
    let keep = usize::try_from(TAIL_BYTES).unwrap_or(usize::MAX);
    let mut tail: Vec<u8> = Vec::with_capacity(keep * 2);
    let mut buffer = [0u8; 8192];
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let _ = log.write_all(&buffer[..n]);
        tail.extend_from_slice(&buffer[..n]);
        if tail.len() > keep * 2 {
            tail.drain(..tail.len() - keep);
        }
    }
    let start = tail.len().saturating_sub(keep);
    String::from_utf8_lossy(&tail[start..]).to_string()
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
