//! Whether a scan of every suffix of a command's words for a forbidden
//! command ([`super::ApprovalPolicy::forbidden_anywhere`]) is under way on
//! this thread. Such a scan judges each suffix as a command, and that
//! judgement may ask for a scan of its own suffixes, which are suffixes
//! of the first: the first scan covers them. Without this, words that
//! each start a scan (`a$ b$ c$ ...`: each is a command only known when it
//! runs) made the judge exponential in their number (found by the
//! approval fuzz target: 140 bytes took 52 s). A line a shell runs (`bash
//! -c LINE`) is new text, and is scanned afresh.

use std::cell::Cell;

thread_local! {
    static SCANNING: Cell<bool> = const { Cell::new(false) };
}

/// Marks a scan (or, with [`ScanState::fresh`], a new line) for as long as
/// it lives, and puts back what was before when dropped.
pub(super) struct ScanState {
    before: bool,
}

impl ScanState {
    /// A scan starts, unless one is under way (`None`: it covers this
    /// one).
    pub(super) fn start() -> Option<ScanState> {
        let before = SCANNING.with(|s| s.replace(true));
        if before {
            None
        } else {
            Some(ScanState { before })
        }
    }

    /// A new line is judged: no scan is under way in it.
    pub(super) fn fresh() -> ScanState {
        ScanState {
            before: SCANNING.with(|s| s.replace(false)),
        }
    }
}

impl Drop for ScanState {
    fn drop(&mut self) {
        let before = self.before;
        SCANNING.with(|s| s.set(before));
    }
}
