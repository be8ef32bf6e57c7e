//! Supervising a spawned command: reading its pipes, waiting for it, and
//! killing its process group on timeout, cancellation or when it is done.

use std::process::ExitStatus;
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;
use tokio::time::{sleep_until, Instant};
use tokio_util::sync::CancellationToken;

use super::capture::{Capture, Stream};
use crate::ToolError;

/// The size of one read from a pipe.
const READ_CHUNK: usize = 64 * 1024;

/// How long to wait for a SIGKILLed command to be reaped before giving up
/// on its exit status (a process stuck in the kernel).
const REAP_PATIENCE: Duration = Duration::from_secs(5);

/// The process group of a spawned command (its id is the command's pid).
/// Dropping it kills the whole group, so that no process outlives its
/// call, even when the call's future is dropped.
#[derive(Debug)]
pub(crate) struct ProcessGroup(Option<Pid>);

impl ProcessGroup {
    /// The group led by `child`, spawned with `process_group(0)`.
    pub(crate) fn of(child: &Child) -> Self {
        ProcessGroup(
            child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .map(Pid::from_raw),
        )
    }

    /// Sends `signal` to every process of the group still alive.
    pub(crate) fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.0 {
            match killpg(pgid, signal) {
                Ok(()) | Err(nix::errno::Errno::ESRCH) => {}
                Err(e) => tracing::warn!("shell: sending {signal} to process group {pgid}: {e}"),
            }
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
    }
}

/// How supervision ended.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The command's exit status; `None` if it could not be reaped.
    pub status: Option<ExitStatus>,
    pub timed_out: bool,
    pub cancelled: bool,
}

/// The timings of [`supervise`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    pub deadline: Instant,
    pub kill_grace: Duration,
    pub drain: Duration,
}

/// Where supervision stands; each phase waits for one timer.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// Until the deadline.
    Running,
    /// SIGTERM sent; SIGKILL at the instant.
    Terminating(Instant),
    /// SIGKILL sent; give up waiting at the instant.
    Killed(Instant),
    /// The command exited; keep reading its pipes until the instant.
    Draining(Instant),
}

/// Runs `child` to its end: feeds its output to `capture`, stops it at the
/// deadline or on cancellation (SIGTERM to the group, SIGKILL after the
/// grace), reads the pipes a little longer after it exits, and finally
/// kills its group.
pub(crate) async fn supervise(
    mut child: Child,
    capture: &mut Capture,
    timing: Timing,
    cancel: &CancellationToken,
) -> Result<Outcome, ToolError> {
    let group = ProcessGroup::of(&child);
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let mut out_buf = vec![0u8; READ_CHUNK];
    let mut err_buf = vec![0u8; READ_CHUNK];
    let mut status = None;
    let mut timed_out = false;
    let mut cancelled = false;
    let mut phase = Phase::Running;

    loop {
        if status.is_some() && stdout.is_none() && stderr.is_none() {
            break;
        }
        let timer = match phase {
            Phase::Running => timing.deadline,
            Phase::Terminating(at) | Phase::Killed(at) | Phase::Draining(at) => at,
        };
        let running = matches!(phase, Phase::Running);
        tokio::select! {
            biased;
            () = cancel.cancelled(), if running => {
                cancelled = true;
                group.signal(Signal::SIGTERM);
                phase = Phase::Terminating(after(timing.kill_grace));
            }
            () = sleep_until(timer) => match phase {
                Phase::Running => {
                    timed_out = true;
                    group.signal(Signal::SIGTERM);
                    phase = Phase::Terminating(after(timing.kill_grace));
                }
                Phase::Terminating(_) => {
                    group.signal(Signal::SIGKILL);
                    phase = Phase::Killed(after(REAP_PATIENCE));
                }
                Phase::Killed(_) | Phase::Draining(_) => break,
            },
            exit = child.wait(), if status.is_none() => {
                let exit = exit.map_err(|e| ToolError::io("waiting for the command", e))?;
                status = Some(exit);
                phase = Phase::Draining(after(timing.drain));
            }
            read = read_some(&mut stdout, &mut out_buf) => match read {
                Ok(n) if n > 0 => capture.push(Stream::Stdout, &out_buf[..n]).await,
                _ => stdout = None,
            },
            read = read_some(&mut stderr, &mut err_buf) => match read {
                Ok(n) if n > 0 => capture.push(Stream::Stderr, &err_buf[..n]).await,
                _ => stderr = None,
            },
        }
    }
    // Background processes die with the call; the pipes close with them.
    drop(group);
    Ok(Outcome {
        status,
        timed_out,
        cancelled,
    })
}

/// Reads from `pipe`, or waits forever once it is closed.
async fn read_some<R: AsyncRead + Unpin>(
    pipe: &mut Option<R>,
    buf: &mut [u8],
) -> std::io::Result<usize> {
    match pipe {
        Some(pipe) => pipe.read(buf).await,
        None => std::future::pending().await,
    }
}

/// The instant `duration` from now, saturating far in the future.
pub(crate) fn after(duration: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(duration)
        .unwrap_or_else(|| now + Duration::from_secs(u64::from(u32::MAX)))
}
