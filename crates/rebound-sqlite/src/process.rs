//! Whether the process holding a thread's lock is still running.

/// This process's id, as stored in `locks.pid`.
pub(crate) fn current_pid() -> i64 {
    i64::from(std::process::id())
}

/// Whether a process with this id exists (it may belong to another user).
#[cfg(unix)]
#[allow(unsafe_code)]
pub(crate) fn is_alive(pid: i64) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false; // 0 and negative ids address process groups, not a process
    }
    // SAFETY: `kill` with signal 0 sends no signal; it only checks that the
    // process exists and may be signalled. It reads and writes no memory of
    // ours, so any pid value is sound.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Whether a process with this id exists. Without a portable check, every
/// holder counts as alive: a stale lock then has to be cleared by hand.
#[cfg(not(unix))]
pub(crate) fn is_alive(_pid: i64) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_nonsense_pids_are_not() {
        assert!(is_alive(current_pid()));
        assert!(!is_alive(0));
        assert!(!is_alive(-1));
        assert!(!is_alive(i64::MAX));
    }
}
