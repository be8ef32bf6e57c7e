//! One human-readable line per event, for plain (non-terminal) output and
//! logs.

use std::fmt;
use std::time::Duration;

use crate::Event;

/// A duration for people, as every display of rebound writes it: `850ms`,
/// `12.3s`, `4m05s`.
pub fn human_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        format!("{millis}ms")
    } else if millis < 60_000 {
        format!("{:.1}s", duration.as_secs_f64())
    } else {
        let secs = duration.as_secs();
        format!("{}m{:02}s", secs / 60, secs % 60)
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::RunStarted { run_id, thread_id } => match thread_id {
                Some(thread) => write!(f, "run {run_id} started on thread {thread}"),
                None => write!(f, "run {run_id} started"),
            },
            Event::NodeStarted {
                node,
                step,
                attempt,
            } => {
                write!(f, "[{step}] {node} started")?;
                if *attempt > 1 {
                    write!(f, " (attempt {attempt})")?;
                }
                Ok(())
            }
            Event::NodeFinished {
                node,
                step,
                duration_us,
                changed,
                ..
            } => {
                let duration = Duration::from_micros(*duration_us);
                write!(
                    f,
                    "[{step}] {node} finished in {duration:.1?}; wrote: {}",
                    changed.join(", ")
                )
            }
            Event::RouteChosen {
                from, to, reason, ..
            } => {
                write!(f, "route {from} -> {}", to.join(", "))?;
                if let Some(reason) = reason {
                    write!(f, " ({reason})")?;
                }
                Ok(())
            }
            Event::Retry {
                node,
                step,
                attempt,
                delay_us,
                error,
            } => {
                let delay = Duration::from_micros(*delay_us);
                write!(
                    f,
                    "[{step}] {node} attempt {attempt} failed: {error}; retrying in {delay:.1?}"
                )
            }
            Event::Error {
                node,
                step,
                message,
                ..
            } => match node {
                Some(node) => write!(f, "[{step}] error in {node}: {message}"),
                None => write!(f, "[{step}] error: {message}"),
            },
            Event::Custom {
                node,
                step,
                payload,
            } => write!(f, "[{step}] {node}: {}", payload.to_value()),
            Event::Interrupted {
                node,
                kind,
                payload,
            } => {
                write!(f, "interrupted {kind:?} {node}")?;
                if !payload.is_null() {
                    write!(f, ": {payload}")?;
                }
                Ok(())
            }
            Event::Subgraph { namespace, inner } => {
                let tasks: Vec<&str> = namespace.iter().map(|t| t.task.as_str()).collect();
                write!(f, "{}: {inner}", tasks.join("/"))
            }
            Event::Values { step, .. } => write!(f, "[{step}] state"),
            Event::Updates { node, step, .. } => write!(f, "[{step}] {node} update"),
            Event::RunFinished {
                status,
                steps,
                duration_us,
                ..
            } => {
                let duration = Duration::from_micros(*duration_us);
                let status = status.as_str();
                write!(f, "run {status} after {steps} supersteps in {duration:.1?}")
            }
            Event::Unknown { name, .. } => match name {
                Some(name) => write!(
                    f,
                    "unknown event {name:?} (from a newer version of rebound?)"
                ),
                None => f.write_str("unknown event (not an event this version can read)"),
            },
        }
    }
}

#[cfg(test)]
mod duration_tests {
    use super::*;

    #[test]
    fn durations_read_well() {
        assert_eq!(human_duration(Duration::from_millis(850)), "850ms");
        assert_eq!(human_duration(Duration::from_millis(12_340)), "12.3s");
        assert_eq!(human_duration(Duration::from_secs(245)), "4m05s");
    }
}
