//! How much judging one command line may take. Wrappers judge the
//! commands they run, and `find -exec` judges its command once more for
//! each starting point put in the place of `{}`: nested, that work grows
//! exponentially with the depth (found by the approval fuzz target: 527
//! bytes of nested `find . -exec find . ...` took over 20 s). Each
//! [`ApprovalPolicy::assess`](super::ApprovalPolicy::assess) gets a fixed
//! number of command judgements; a line that needs more is refused, since
//! what it would run was not seen in full (and asking would let it run in
//! the `auto` mode, where only forbidden commands are stopped).

use std::cell::Cell;

/// The most commands judged for one line: far above what an everyday
/// line needs (a pipeline of a few commands, each scanned word by word),
/// and a few milliseconds of work.
const MAX_JUDGED_COMMANDS: usize = 20_000;

thread_local! {
    static LEFT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The budget of one line's judgement, for as long as it lives; puts back
/// what was before when dropped (a judgement inside another keeps the
/// outer budget).
pub(super) struct Budget {
    before: Option<usize>,
}

impl Budget {
    /// Starts a line's budget, unless one is already running (then this
    /// one shares it).
    pub(super) fn start() -> Budget {
        let before = LEFT.with(|left| {
            let before = left.get();
            if before.is_none() {
                left.set(Some(MAX_JUDGED_COMMANDS));
            }
            before
        });
        Budget { before }
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        let before = self.before;
        LEFT.with(|left| left.set(before));
    }
}

/// Spends one command judgement; `false` when the budget is used up.
/// Outside a budget (a judgement not started by `assess`), always `true`.
pub(super) fn spend() -> bool {
    LEFT.with(|left| match left.get() {
        None => true,
        Some(0) => false,
        Some(n) => {
            left.set(Some(n - 1));
            true
        }
    })
}
