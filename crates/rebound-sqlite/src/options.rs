//! [`SqliteOptions`]: how a [`crate::SqliteSaver`] sets up its connection.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// SQLite's `synchronous` setting, i.e. when a commit waits for the disk.
///
/// The journal is always WAL. With [`Synchronous::Normal`] a commit is
/// durable against a crash of the process but the last commits may be lost
/// on power failure or an OS crash (the database stays consistent either
/// way); with [`Synchronous::Full`] every commit waits for an fsync of the WAL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Synchronous {
    /// `PRAGMA synchronous = NORMAL`: fsync at WAL checkpoints only.
    #[default]
    Normal,
    /// `PRAGMA synchronous = FULL`: fsync at every commit.
    Full,
}

impl Synchronous {
    /// The lowercase name, as shown in reports ("normal", "full").
    pub fn as_str(self) -> &'static str {
        match self {
            Synchronous::Normal => "normal",
            Synchronous::Full => "full",
        }
    }

    /// The value `PRAGMA synchronous` reports for this setting.
    pub fn pragma_value(self) -> i64 {
        match self {
            Synchronous::Normal => 1,
            Synchronous::Full => 2,
        }
    }
}

impl fmt::Display for Synchronous {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a [`Synchronous`] setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a synchronous setting (expected \"normal\" or \"full\")")]
pub struct ParseSynchronousError(String);

impl FromStr for Synchronous {
    type Err = ParseSynchronousError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "normal" => Ok(Synchronous::Normal),
            "full" => Ok(Synchronous::Full),
            _ => Err(ParseSynchronousError(s.to_string())),
        }
    }
}

/// [`SqliteOptions::cache_bytes`]'s default.
const DEFAULT_CACHE_BYTES: usize = 4 << 20;

/// Connection settings of a [`crate::SqliteSaver`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqliteOptions {
    /// When a commit waits for the disk. Default [`Synchronous::Normal`].
    pub synchronous: Synchronous,
    /// How long a call waits for another connection's (or process's) write
    /// lock before failing. Default 5 seconds.
    pub busy_timeout: Duration,
    /// Bytes of the file read through a memory map instead of `pread`
    /// (SQLite's `mmap_size`). Default 0 (off). Worth it when several
    /// connections write the same file (a server's store beside the
    /// checkpointer): each commit of one drops the others' page caches,
    /// and with a map their re-reads cost no system call.
    pub mmap_size: u64,
    /// Bytes of checkpoints written or read lately kept in memory, so that
    /// a thread's next run reads its latest state without SQLite. Default
    /// 4 MiB; 0 keeps none. Another process's commit to the file empties
    /// it (SQLite's `data_version`), so it is never stale.
    pub cache_bytes: usize,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            synchronous: Synchronous::Normal,
            busy_timeout: Duration::from_secs(5),
            mmap_size: 0,
            cache_bytes: DEFAULT_CACHE_BYTES,
        }
    }
}

impl SqliteOptions {
    /// These options with `synchronous` replaced.
    pub fn with_synchronous(mut self, synchronous: Synchronous) -> Self {
        self.synchronous = synchronous;
        self
    }

    /// These options with `mmap_size` replaced.
    pub fn with_mmap_size(mut self, bytes: u64) -> Self {
        self.mmap_size = bytes;
        self
    }

    /// These options with `cache_bytes` replaced.
    pub fn with_cache_bytes(mut self, bytes: usize) -> Self {
        self.cache_bytes = bytes;
        self
    }

    /// These options with `busy_timeout` replaced.
    pub fn with_busy_timeout(mut self, busy_timeout: Duration) -> Self {
        self.busy_timeout = busy_timeout;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synchronous_names_round_trip() {
        for value in [Synchronous::Normal, Synchronous::Full] {
            assert_eq!(value.to_string().parse::<Synchronous>(), Ok(value));
        }
        assert_eq!("FULL".parse::<Synchronous>(), Ok(Synchronous::Full));
        assert!("off".parse::<Synchronous>().is_err());
        assert_eq!(SqliteOptions::default().synchronous, Synchronous::Normal);
    }
}
