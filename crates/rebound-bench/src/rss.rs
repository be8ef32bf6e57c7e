//! Peak resident set size of this process.

/// `getrusage(RUSAGE_SELF).ru_maxrss` in MB (Linux reports KiB).
#[allow(unsafe_code)] // getrusage has no safe wrapper in std; the call only writes the struct we own.
pub fn peak_rss_mb() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` is a valid, writable rusage; getrusage fills it and returns 0 on success.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    if rc != 0 {
        return f64::NAN;
    }
    // SAFETY: getrusage returned 0, so the struct is initialised.
    let usage = unsafe { usage.assume_init() };
    usage.ru_maxrss as f64 / 1024.0
}
