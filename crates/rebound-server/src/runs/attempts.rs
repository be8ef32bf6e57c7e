//! The attempts of runs in flight in this process. A shared queue can give
//! a run back to the worker process whose earlier attempt lost the run's
//! lease (its database restarted, it was paused past the lease) before that
//! attempt has stopped: the new attempt stops the old one and waits for it,
//! rather than failing on the thread the old one still holds (which spends
//! one of the run's attempts for nothing).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use tokio_util::sync::CancellationToken;

/// The attempt of each run in flight here: its epoch and a token cancelled
/// when it has stopped.
#[derive(Default)]
pub(crate) struct Attempts {
    flights: Mutex<HashMap<String, (u64, CancellationToken)>>,
}

/// An attempt in flight, registered by [`Attempts::begin`]; dropped when
/// the attempt has stopped.
pub(crate) struct Flight<'a> {
    attempts: &'a Attempts,
    run_id: String,
    epoch: u64,
    done: CancellationToken,
}

impl Attempts {
    /// Registers attempt `epoch` of `run_id`, and returns the token of the
    /// run's earlier attempt still in flight here (cancelled once it has
    /// stopped), if there is one.
    pub(crate) fn begin(
        &self,
        run_id: &str,
        epoch: u64,
    ) -> (Flight<'_>, Option<CancellationToken>) {
        let done = CancellationToken::new();
        let earlier = self
            .flights
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(run_id.to_string(), (epoch, done.clone()))
            .map(|(_, earlier)| earlier);
        let flight = Flight {
            attempts: self,
            run_id: run_id.to_string(),
            epoch,
            done,
        };
        (flight, earlier)
    }
}

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        let mut flights = self
            .attempts
            .flights
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // A later attempt that registered since keeps its entry.
        if flights
            .get(&self.run_id)
            .is_some_and(|(epoch, _)| *epoch == self.epoch)
        {
            flights.remove(&self.run_id);
        }
        self.done.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_attempt_finds_the_earlier_one_until_it_has_stopped() {
        let attempts = Attempts::default();
        let (first, none) = attempts.begin("run", 1);
        assert!(none.is_none());
        let (second, earlier) = attempts.begin("run", 2);
        let earlier = earlier.unwrap();
        assert!(!earlier.is_cancelled());
        drop(first);
        assert!(earlier.is_cancelled(), "the first attempt stopped");
        // The first attempt's end left the second registered.
        let (third, still) = attempts.begin("run", 3);
        assert!(!still.unwrap().is_cancelled(), "the second is in flight");
        drop(third);
        drop(second);
        let (_, none) = attempts.begin("run", 4);
        assert!(none.is_none(), "none in flight");
    }
}
