//! [`EffectKey`]: the idempotency key of a journaled external effect.
//!
//! A node's external calls (commands, model calls) are journaled with the
//! checkpoint; a run taken over by another worker replays them instead of
//! repeating them. The key names one call stably across workers and
//! attempts, and is what an external service may be given as its
//! idempotency key. A worker also checks its lease
//! ([`super::RunQueue::check_lease`]) before each effect.

use std::fmt;

/// The position of one external call in a thread's history.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EffectKey {
    /// The thread.
    pub thread_id: String,
    /// The checkpoint namespace (empty for the root graph).
    pub namespace: String,
    /// The superstep.
    pub step: i64,
    /// The task (node invocation) within the step.
    pub task_id: String,
    /// The call's index within the task, from 0.
    pub call_index: u32,
}

impl EffectKey {
    /// The key as one stable string,
    /// `effect:v1:<thread>/<namespace>/<step>/<task>/<call>`, each text
    /// part percent-escaped (`%` and `/`) so that no two keys collide.
    pub fn to_key(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for EffectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "effect:v1:{}/{}/{}/{}/{}",
            escape(&self.thread_id),
            escape(&self.namespace),
            self.step,
            escape(&self.task_id),
            self.call_index
        )
    }
}

/// `part` with `%` and `/` percent-escaped.
fn escape(part: &str) -> String {
    part.replace('%', "%25").replace('/', "%2F")
}

#[cfg(test)]
mod tests {
    use super::EffectKey;

    fn key(thread: &str, namespace: &str, task: &str) -> EffectKey {
        EffectKey {
            thread_id: thread.to_string(),
            namespace: namespace.to_string(),
            step: 3,
            task_id: task.to_string(),
            call_index: 1,
        }
    }

    #[test]
    fn keys_are_stable_and_do_not_collide() {
        assert_eq!(key("t", "", "a").to_key(), "effect:v1:t//3/a/1");
        assert_eq!(
            key("t/1", "sub:x", "a%b").to_key(),
            "effect:v1:t%2F1/sub:x/3/a%25b/1"
        );
        assert_ne!(key("a/b", "", "c").to_key(), key("a", "b", "c").to_key());
    }
}
