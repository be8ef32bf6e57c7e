//! Per-node retry policy: attempts, exponential backoff with jitter, and which
//! errors are retried.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::NodeError;

/// A predicate choosing which node errors are retried.
pub type RetryPredicate = Arc<dyn Fn(&NodeError) -> bool + Send + Sync>;

/// How a failing node is retried.
///
/// ```
/// use rebound_graph::RetryPolicy;
/// use std::time::Duration;
/// let policy = RetryPolicy::new(5)
///     .initial_backoff(Duration::from_millis(100))
///     .max_backoff(Duration::from_secs(2));
/// assert!(policy.backoff(3) <= Duration::from_millis(400));
/// ```
#[derive(Clone)]
pub struct RetryPolicy {
    max_attempts: u32,
    initial_backoff: Duration,
    max_backoff: Duration,
    multiplier: f64,
    jitter: bool,
    retry_on: RetryPredicate,
}

impl Default for RetryPolicy {
    /// Three attempts, 200 ms doubling up to 10 s, with jitter, retrying every
    /// error not marked [`NodeError::permanent`] (timeouts included, panics not).
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(10),
            multiplier: 2.0,
            jitter: true,
            retry_on: Arc::new(NodeError::is_retryable),
        }
    }
}

impl RetryPolicy {
    /// The default policy with `max_attempts` attempts in all (1 = no retry).
    pub fn new(max_attempts: u32) -> Self {
        RetryPolicy {
            max_attempts: max_attempts.max(1),
            ..RetryPolicy::default()
        }
    }

    /// The delay before the first retry.
    #[must_use]
    pub fn initial_backoff(mut self, delay: Duration) -> Self {
        self.initial_backoff = delay;
        self
    }

    /// The longest delay between attempts.
    #[must_use]
    pub fn max_backoff(mut self, delay: Duration) -> Self {
        self.max_backoff = delay;
        self
    }

    /// The factor the delay grows by after each retry.
    #[must_use]
    pub fn multiplier(mut self, factor: f64) -> Self {
        self.multiplier = factor.max(1.0);
        self
    }

    /// Whether delays are randomised (uniformly between half and all of the
    /// computed delay), so that many failing runs do not retry in lockstep.
    #[must_use]
    pub fn jitter(mut self, on: bool) -> Self {
        self.jitter = on;
        self
    }

    /// Which errors are retried (among those not marked
    /// [`NodeError::permanent`], which are never retried).
    #[must_use]
    pub fn retry_on(
        mut self,
        predicate: impl Fn(&NodeError) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.retry_on = Arc::new(predicate);
        self
    }

    /// The number of attempts in all.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// Whether `error`, raised by attempt number `attempt` (1-based), is retried.
    pub fn should_retry(&self, attempt: u32, error: &NodeError) -> bool {
        attempt < self.max_attempts && self.matches(error)
    }

    /// Whether this policy is the one for `error`: it can be retried at all
    /// (not [`NodeError::permanent`]) and the predicate takes it. Of a
    /// node's several policies, the first that matches decides.
    pub fn matches(&self, error: &NodeError) -> bool {
        error.is_retryable() && (self.retry_on)(error)
    }

    /// The delay after the failure of attempt number `attempt` (1-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let exponent = attempt.saturating_sub(1).min(64) as i32;
        let base = self.initial_backoff.as_secs_f64() * self.multiplier.powi(exponent);
        let cap = self.max_backoff.as_secs_f64();
        let capped = if base.is_nan() { 0.0 } else { base.min(cap) };
        let secs = if self.jitter {
            capped * (0.5 + 0.5 * fastrand::f64())
        } else {
            capped
        };
        Duration::try_from_secs_f64(secs).unwrap_or(self.max_backoff)
    }
}

impl fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("max_attempts", &self.max_attempts)
            .field("initial_backoff", &self.initial_backoff)
            .field("max_backoff", &self.max_backoff)
            .field("multiplier", &self.multiplier)
            .field("jitter", &self.jitter)
            .finish_non_exhaustive()
    }
}
