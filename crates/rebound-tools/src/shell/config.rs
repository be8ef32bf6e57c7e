//! How the shell runs commands.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::sandbox::SandboxPolicy;

/// How the shell runs commands: timeouts, output budgets, the environment
/// and the sandbox.
///
/// In a config file, durations are seconds (`default_timeout = 120`,
/// `drain = 0.3`) and every field may be left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShellConfig {
    /// The timeout of a call that does not set one. Default 120 s.
    #[serde(with = "seconds")]
    pub default_timeout: Duration,
    /// The longest timeout a call may ask for; longer ones are cut to it.
    /// Default 600 s.
    #[serde(with = "seconds")]
    pub max_timeout: Duration,
    /// How much output is kept in memory before it is spilled to the log
    /// file. Default 1 MiB.
    pub memory_cap: usize,
    /// How many bytes from the start of the output the model sees.
    /// Default 4096.
    pub head_bytes: usize,
    /// How many bytes from the end of the output the model sees.
    /// Default 4096.
    pub tail_bytes: usize,
    /// The largest log file saved for one call; output beyond it is
    /// counted but not saved. Default 64 MiB.
    pub log_cap: u64,
    /// How long to keep reading output after the command exits, for
    /// background processes still holding its pipes; they are killed
    /// afterwards. Default 300 ms.
    #[serde(with = "seconds")]
    pub drain: Duration,
    /// How long a timed-out or cancelled command gets between SIGTERM and
    /// SIGKILL. Default 500 ms.
    #[serde(with = "seconds")]
    pub kill_grace: Duration,
    /// Environment variables passed to commands even though their names
    /// look like secrets (`*_KEY`, `*_TOKEN`, ...). Exact names,
    /// case-insensitive.
    pub env_allow: Vec<String>,
    /// The sandbox commands run in.
    pub sandbox: SandboxPolicy,
}

impl Default for ShellConfig {
    fn default() -> Self {
        ShellConfig {
            default_timeout: Duration::from_secs(120),
            max_timeout: Duration::from_secs(600),
            memory_cap: 1024 * 1024,
            head_bytes: 4096,
            tail_bytes: 4096,
            log_cap: 64 * 1024 * 1024,
            drain: Duration::from_millis(300),
            kill_grace: Duration::from_millis(500),
            env_allow: Vec::new(),
            sandbox: SandboxPolicy::default(),
        }
    }
}

/// A [`Duration`] as (fractional) seconds.
mod seconds {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(
        duration: &Duration,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(duration.as_secs_f64())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Duration, D::Error> {
        let secs = f64::deserialize(deserializer)?;
        Duration::try_from_secs_f64(secs).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_seconds_and_fields_default() {
        let config: ShellConfig = serde_json::from_value(serde_json::json!({
            "default_timeout": 30,
            "drain": 0.25,
            "sandbox": { "mode": "off" },
        }))
        .unwrap();
        assert_eq!(
            config,
            ShellConfig {
                default_timeout: Duration::from_secs(30),
                drain: Duration::from_millis(250),
                sandbox: SandboxPolicy::off(),
                ..ShellConfig::default()
            }
        );
        assert!(serde_json::from_value::<ShellConfig>(serde_json::json!({"timeout": 1})).is_err());
    }
}
