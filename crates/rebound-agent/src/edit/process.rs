//! Running a syntax checker program (`python3`, `bash -n`) on source given
//! on its standard input: from `/`, with only `PATH` in its environment,
//! killed after a deadline, its output bounded.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How long a checker may run.
pub(crate) const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// The most bytes kept of each of a checker's outputs.
pub(crate) const MAX_CAPTURE_BYTES: usize = 64 * 1024;

/// How often a running checker is looked at.
const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// What a checker did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finished {
    /// Its exit code (`None` when a signal ended it).
    pub(crate) code: Option<i32>,
    /// Its standard output, at most [`MAX_CAPTURE_BYTES`].
    pub(crate) stdout: String,
    /// Its standard error, at most [`MAX_CAPTURE_BYTES`].
    pub(crate) stderr: String,
}

/// Runs `program` with `args`, `input` on its standard input; `None` when
/// it cannot be started or does not finish within `timeout` (it is then
/// killed).
pub(crate) fn run_checker(
    program: &str,
    args: &[&str],
    input: &str,
    timeout: Duration,
) -> Option<Finished> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    let mut child = Command::new(program)
        .args(args)
        .env_clear()
        .env("PATH", path)
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    // Written and read on threads: a checker that fills a pipe must not
    // block on us while we block on it.
    let input = input.as_bytes().to_vec();
    let writer = child.stdin.take().map(|mut stdin| {
        thread::spawn(move || {
            // A checker that exits early closes the pipe: not an error here.
            let _ = stdin.write_all(&input);
        })
    });
    let stdout = child
        .stdout
        .take()
        .map(|out| thread::spawn(|| read_bounded(out)));
    let stderr = child
        .stderr
        .take()
        .map(|err| thread::spawn(|| read_bounded(err)));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(POLL_INTERVAL),
            Ok(None) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    let joined = |reader: Option<thread::JoinHandle<String>>| {
        reader
            .and_then(|handle| handle.join().ok())
            .unwrap_or_default()
    };
    let (stdout, stderr) = (joined(stdout), joined(stderr));
    let status = status?;
    Some(Finished {
        code: status.code(),
        stdout,
        stderr,
    })
}

/// Everything `reader` gives, the first [`MAX_CAPTURE_BYTES`] kept (the
/// rest is read and dropped, so the writer is never blocked).
fn read_bounded(mut reader: impl Read) -> String {
    let mut kept = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => {
                let room = MAX_CAPTURE_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&buffer[..read.min(room)]);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn input_goes_in_and_output_comes_back_bounded() {
        let big = "x".repeat(200_000);
        let done = run_checker("cat", &[], &big, CHECK_TIMEOUT).unwrap();
        assert_eq!(done.code, Some(0));
        assert_eq!(done.stdout.len(), MAX_CAPTURE_BYTES);
        let env = run_checker("env", &[], "", CHECK_TIMEOUT).unwrap();
        let names: Vec<&str> = env
            .stdout
            .lines()
            .filter_map(|l| l.split('=').next())
            .collect();
        assert_eq!(names, ["PATH"]);
    }

    #[test]
    fn a_slow_checker_is_killed_and_a_missing_one_is_none() {
        let started = Instant::now();
        let slow = run_checker("sleep", &["5"], "", Duration::from_millis(200));
        assert_eq!(slow, None);
        assert!(started.elapsed() < Duration::from_secs(4));
        assert_eq!(
            run_checker("no-such-checker-here", &[], "", CHECK_TIMEOUT),
            None
        );
    }
}
