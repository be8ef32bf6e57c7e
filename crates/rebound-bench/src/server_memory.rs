//! A server's resident memory and open files while `server-load` runs:
//! its peak (`/proc/PID/status`'s `VmRSS`, every 50 ms) and, with
//! `--sample-every S`, a curve of both every S seconds, for a soak that
//! shows whether they stay flat once the server is warm.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde_json::{json, Value};

use crate::workloads::round;

/// How often the peak is sampled.
const PEAK_EVERY: Duration = Duration::from_millis(50);

/// One point of the curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Seconds since sampling started.
    pub at_s: f64,
    /// Resident memory, KiB.
    pub rss_kib: u64,
    /// The anonymous part of it (the heap; not the pages of mapped files,
    /// such as SQLite's memory-mapped database), KiB.
    pub anon_kib: u64,
    /// Open file descriptors.
    pub fds: u64,
}

/// What the sampler saw.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    /// The peak resident memory, KiB.
    pub peak_kib: u64,
    /// The curve (empty without `--sample-every`): the first sample at
    /// the start, then one every interval, and the last at the end.
    pub curve: Vec<Sample>,
}

impl Observed {
    /// The report's fields: the peak, and with a curve the curve itself
    /// (`[seconds, resident MB, anonymous MB, open files]`) and the growth
    /// of memory (resident and anonymous) and open files from the first
    /// sample at or after `warmup` to the last.
    pub fn report(&self, warmup: Duration) -> Vec<(String, Value)> {
        let mb = |kib: u64| round(kib as f64 / 1024.0, 1);
        let mut fields = vec![("server_peak_rss_mb".to_owned(), json!(mb(self.peak_kib)))];
        if self.curve.is_empty() {
            return fields;
        }
        let points: Vec<Value> = self
            .curve
            .iter()
            .map(|s| json!([round(s.at_s, 1), mb(s.rss_kib), mb(s.anon_kib), s.fds]))
            .collect();
        fields.push(("server_curve".to_owned(), Value::Array(points)));
        let warm = self
            .curve
            .iter()
            .find(|s| s.at_s >= warmup.as_secs_f64())
            .copied();
        if let (Some(warm), Some(last)) = (warm, self.curve.last().copied()) {
            fields.extend([
                ("server_warm_at_s".to_owned(), json!(round(warm.at_s, 1))),
                (
                    "server_rss_growth_after_warmup_pct".to_owned(),
                    json!(round(growth_pct(warm.rss_kib, last.rss_kib), 2)),
                ),
                (
                    "server_anon_growth_after_warmup_pct".to_owned(),
                    json!(round(growth_pct(warm.anon_kib, last.anon_kib), 2)),
                ),
                (
                    "server_fds_after_warmup".to_owned(),
                    json!([warm.fds, last.fds]),
                ),
            ]);
        }
        fields
    }
}

/// `to` against `from`, in percent (0 when `from` is 0).
fn growth_pct(from: u64, to: u64) -> f64 {
    if from == 0 {
        return 0.0;
    }
    (to as f64 - from as f64) / from as f64 * 100.0
}

/// Samples a process until told to stop.
pub struct Sampler {
    stop: Arc<tokio::sync::Notify>,
    task: tokio::task::JoinHandle<Result<Observed>>,
}

impl Sampler {
    /// Starts sampling `pid`: its peak memory, and with `every` a curve.
    pub fn start(pid: u32, every: Option<Duration>) -> Self {
        let stop = Arc::new(tokio::sync::Notify::new());
        let notified = Arc::clone(&stop);
        let task = tokio::spawn(async move {
            let started = Instant::now();
            let sample = || -> Result<Sample> {
                // One read of the status file for both figures, so they
                // describe the same moment.
                let (path, text) = status(pid)?;
                Ok(Sample {
                    at_s: started.elapsed().as_secs_f64(),
                    rss_kib: status_kib(&path, &text, "VmRSS:")?,
                    anon_kib: status_kib(&path, &text, "RssAnon:")?,
                    fds: open_files(pid)?,
                })
            };
            let mut observed = Observed {
                peak_kib: resident_kib(pid)?,
                curve: Vec::new(),
            };
            if every.is_some() {
                observed.curve.push(sample()?);
            }
            let mut peak = tokio::time::interval(PEAK_EVERY);
            // Without a curve, a tick that never comes.
            let mut curve = tokio::time::interval(every.unwrap_or(Duration::from_secs(86_400)));
            curve.tick().await;
            loop {
                tokio::select! {
                    _ = notified.notified() => break,
                    _ = peak.tick() => {
                        observed.peak_kib = observed.peak_kib.max(resident_kib(pid)?);
                    }
                    _ = curve.tick() => {
                        if every.is_some() {
                            observed.curve.push(sample()?);
                        }
                    }
                }
            }
            observed.peak_kib = observed.peak_kib.max(resident_kib(pid)?);
            if every.is_some() {
                observed.curve.push(sample()?);
            }
            Ok(observed)
        });
        Self { stop, task }
    }

    /// Stops sampling and returns what was seen.
    pub async fn finish(self) -> Result<Observed> {
        self.stop.notify_one();
        self.task.await.context("the memory sampler panicked")?
    }
}

/// `/proc/PID/status`: its path and its text.
fn status(pid: u32) -> Result<(String, String)> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("reading {path} (is --server-pid right?)"))?;
    Ok((path, text))
}

/// `VmRSS` of `/proc/PID/status`, in KiB.
fn resident_kib(pid: u32) -> Result<u64> {
    let (path, text) = status(pid)?;
    status_kib(&path, &text, "VmRSS:")
}

/// The line `field` (e.g. `VmRSS:`) of the status file at `path` (its
/// `text`), in KiB.
fn status_kib(path: &str, text: &str, field: &str) -> Result<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .with_context(|| format!("{path} has no {field} line"))
}

/// The open file descriptors of `pid` (`/proc/PID/fd`'s entries).
fn open_files(pid: u32) -> Result<u64> {
    let path = format!("/proc/{pid}/fd");
    let entries = std::fs::read_dir(&path)
        .with_context(|| format!("listing {path} (is --server-pid right?)"))?;
    Ok(entries.count() as u64)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[tokio::test]
    async fn the_curve_has_a_sample_per_interval_and_the_growth_after_warmup() {
        let sampler = Sampler::start(std::process::id(), Some(Duration::from_millis(100)));
        tokio::time::sleep(Duration::from_millis(450)).await;
        let observed = sampler.finish().await.unwrap();
        assert!(observed.peak_kib > 0);
        let n = observed.curve.len();
        assert!((5..=7).contains(&n), "{:?}", observed.curve);
        assert!(observed.curve.windows(2).all(|w| w[0].at_s <= w[1].at_s));
        assert!(observed
            .curve
            .iter()
            .all(|s| s.rss_kib > 0 && s.anon_kib > 0 && s.anon_kib <= s.rss_kib && s.fds > 0));
        let report: serde_json::Map<String, Value> = observed
            .report(Duration::from_millis(200))
            .into_iter()
            .collect();
        assert_eq!(report["server_curve"].as_array().unwrap().len(), n);
        assert!(report["server_warm_at_s"].as_f64().unwrap() >= 0.2);
        assert!(report.contains_key("server_rss_growth_after_warmup_pct"));
    }

    #[test]
    fn growth_is_against_the_warm_sample() {
        let observed = Observed {
            peak_kib: 2_200,
            curve: vec![
                Sample {
                    at_s: 0.0,
                    rss_kib: 1_000,
                    anon_kib: 500,
                    fds: 10,
                },
                Sample {
                    at_s: 300.0,
                    rss_kib: 2_000,
                    anon_kib: 1_000,
                    fds: 80,
                },
                Sample {
                    at_s: 1_800.0,
                    rss_kib: 2_100,
                    anon_kib: 1_000,
                    fds: 80,
                },
            ],
        };
        let report: serde_json::Map<String, Value> = observed
            .report(Duration::from_secs(300))
            .into_iter()
            .collect();
        assert_eq!(report["server_rss_growth_after_warmup_pct"], json!(5.0));
        assert_eq!(report["server_anon_growth_after_warmup_pct"], json!(0.0));
        assert_eq!(report["server_fds_after_warmup"], json!([80, 80]));
        assert_eq!(report["server_peak_rss_mb"], json!(2.1));
        let without_curve = Observed {
            peak_kib: 1_024,
            curve: Vec::new(),
        }
        .report(Duration::ZERO);
        assert_eq!(without_curve.len(), 1);
    }
}
