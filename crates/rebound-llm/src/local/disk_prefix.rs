//! The KV states of fixed prompt prefixes (a call's system text) on disk,
//! so a new process — every `rebound run`, every eval task — restores the
//! instructions it shares with earlier runs instead of decoding them again.
//!
//! A state is llama.cpp's own sequence file (`<key>.state`) beside a small
//! JSON record (`<key>.json`) of what it was made by and for: the identity
//! of the model file, of this binary and of the context's shape, the token
//! count, the byte length and the SHA-256 of the state file. A state is
//! handed to llama.cpp only when every one of those matches, so a
//! truncated or corrupt file, or one another model or another build
//! wrote, is never loaded: it is reported, removed and written again.
//! Files are written under temporary names and renamed into place, so
//! concurrent processes see a whole file or none. The directory is kept
//! under a byte budget, least recently used out first.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The most bytes of states kept in the directory (a 300-token system
/// prompt of the 1.5B model is about 9 MB).
pub(crate) const MAX_DIR_BYTES: u64 = 512 << 20;

/// The record's format version.
const RECORD_VERSION: u32 = 1;

/// Extension of a state file.
const STATE_EXT: &str = "state";

/// Extension of its record.
const RECORD_EXT: &str = "json";

/// What a state file was made by and for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Record {
    version: u32,
    identity: String,
    tokens: usize,
    bytes: u64,
    sha256: String,
}

/// Prompt-prefix states in one directory, for one model, binary and
/// context shape (`identity`).
#[derive(Debug)]
pub(crate) struct DiskPrefixes {
    dir: PathBuf,
    identity: String,
    max_bytes: u64,
}

/// Why a stored state was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unusable(pub(crate) String);

impl DiskPrefixes {
    /// States in `dir` (created when missing) made by `identity`;
    /// `None` when the directory cannot be made.
    pub(crate) fn open(dir: PathBuf, identity: String, max_bytes: u64) -> Option<Self> {
        match std::fs::create_dir_all(&dir) {
            Ok(()) => Some(DiskPrefixes {
                dir,
                identity,
                max_bytes,
            }),
            Err(error) => {
                tracing::debug!("no prompt-state cache in {}: {error}", dir.display());
                None
            }
        }
    }

    /// The identity of states made with the model at `model`, by this
    /// binary, in a context of `n_ctx` tokens decoded in batches of
    /// `batch`: the model file's name, size and modification time, this
    /// executable's size and modification time (a rebuild, so any other
    /// llama.cpp, makes new states), and the context's shape.
    pub(crate) fn identity(model: &Path, n_ctx: usize, batch: usize) -> String {
        let stamp = |path: &Path| -> String {
            match std::fs::metadata(path) {
                Ok(meta) => {
                    let modified = meta
                        .modified()
                        .ok()
                        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                        .map_or(0, |d| d.as_nanos());
                    format!("{}:{}:{modified}", path.display(), meta.len())
                }
                Err(_) => format!("{}:?", path.display()),
            }
        };
        let exe = std::env::current_exe()
            .map(|exe| stamp(&exe))
            .unwrap_or_else(|_| "exe:?".to_string());
        let text = format!(
            "rebound-llm {} | model {} | exe {exe} | n_ctx {n_ctx} | batch {batch}",
            env!("CARGO_PKG_VERSION"),
            stamp(model)
        );
        hex(&Sha256::digest(text.as_bytes()))
    }

    /// The file name stem of the state of `tokens`.
    fn key(&self, tokens: &[i32]) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.identity.as_bytes());
        for token in tokens {
            hasher.update(token.to_le_bytes());
        }
        hex(&hasher.finalize())[..32].to_string()
    }

    fn paths(&self, tokens: &[i32]) -> (PathBuf, PathBuf) {
        let key = self.key(tokens);
        (
            self.dir.join(format!("{key}.{STATE_EXT}")),
            self.dir.join(format!("{key}.{RECORD_EXT}")),
        )
    }

    /// The state file of `tokens`, when one is stored and intact (its
    /// record matches this identity and the tokens, and the file its
    /// length and checksum); `Ok(None)` when none is stored; `Err` when
    /// one is stored but unusable (its files are removed).
    pub(crate) fn find(&self, tokens: &[i32]) -> Result<Option<PathBuf>, Unusable> {
        let (state, record) = self.paths(tokens);
        if !state.exists() && !record.exists() {
            return Ok(None);
        }
        match self.check(&state, &record, tokens.len()) {
            Ok(()) => {
                touch(&state);
                Ok(Some(state))
            }
            Err(reason) => {
                self.remove(tokens);
                Err(Unusable(reason))
            }
        }
    }

    fn check(&self, state: &Path, record: &Path, tokens: usize) -> Result<(), String> {
        let text = std::fs::read_to_string(record)
            .map_err(|e| format!("its record {} cannot be read: {e}", record.display()))?;
        let record: Record = serde_json::from_str(&text)
            .map_err(|e| format!("its record is not a prompt-state record: {e}"))?;
        if record.version != RECORD_VERSION {
            return Err(format!("its record has version {}", record.version));
        }
        if record.identity != self.identity {
            return Err("it was made by another model, binary or context size".to_string());
        }
        if record.tokens != tokens {
            return Err(format!("it holds {} tokens, not {tokens}", record.tokens));
        }
        let (bytes, sha256) = digest(state)?;
        if bytes != record.bytes {
            return Err(format!(
                "it is {bytes} bytes long, not {} (truncated?)",
                record.bytes
            ));
        }
        if sha256 != record.sha256 {
            return Err("its checksum does not match (corrupt?)".to_string());
        }
        Ok(())
    }

    /// A temporary path in the directory for a new state of `tokens`,
    /// to be written by llama.cpp and then [`DiskPrefixes::commit`]ted.
    pub(crate) fn temp_path(&self, tokens: &[i32]) -> PathBuf {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        self.dir.join(format!(
            ".{}.{}.{nanos}.tmp",
            self.key(tokens),
            std::process::id()
        ))
    }

    /// Puts the state written at `temp` in place as the state of
    /// `tokens`, with its record, then trims the directory to its budget.
    pub(crate) fn commit(&self, temp: &Path, tokens: &[i32]) -> Result<(), String> {
        let result = self.commit_inner(temp, tokens);
        if result.is_err() {
            let _ = std::fs::remove_file(temp);
        }
        self.trim();
        result
    }

    fn commit_inner(&self, temp: &Path, tokens: &[i32]) -> Result<(), String> {
        let (bytes, sha256) = digest(temp)?;
        let record = Record {
            version: RECORD_VERSION,
            identity: self.identity.clone(),
            tokens: tokens.len(),
            bytes,
            sha256,
        };
        let (state, record_path) = self.paths(tokens);
        let text = serde_json::to_string(&record).map_err(|e| e.to_string())?;
        let temp_record = temp.with_extension("json.tmp");
        std::fs::write(&temp_record, text)
            .map_err(|e| format!("cannot write {}: {e}", temp_record.display()))?;
        std::fs::rename(temp, &state)
            .map_err(|e| format!("cannot put {} in place: {e}", state.display()))?;
        std::fs::rename(&temp_record, &record_path)
            .map_err(|e| format!("cannot put {} in place: {e}", record_path.display()))?;
        Ok(())
    }

    /// Removes the stored state of `tokens`, if any.
    pub(crate) fn remove(&self, tokens: &[i32]) {
        let (state, record) = self.paths(tokens);
        let _ = std::fs::remove_file(state);
        let _ = std::fs::remove_file(record);
    }

    /// Removes the least recently used states until the directory holds
    /// at most its budget, and temporary files older than an hour (left
    /// by a process that died while writing).
    fn trim(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut states: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            let modified = meta.modified().unwrap_or(UNIX_EPOCH);
            let name = entry.file_name().to_string_lossy().to_string();
            if name.ends_with(".tmp") {
                let stale = modified.elapsed().is_ok_and(|age| age.as_secs() > 3600);
                if stale {
                    let _ = std::fs::remove_file(&path);
                }
            } else if path.extension().is_some_and(|e| e == STATE_EXT) {
                states.push((modified, meta.len(), path));
            }
        }
        let mut total: u64 = states.iter().map(|(_, len, _)| len).sum();
        states.sort_by_key(|(modified, _, _)| *modified);
        for (_, len, path) in states {
            if total <= self.max_bytes {
                break;
            }
            let _ = std::fs::remove_file(path.with_extension(RECORD_EXT));
            let _ = std::fs::remove_file(&path);
            total = total.saturating_sub(len);
        }
    }
}

/// The length and SHA-256 (hex) of the file at `path`.
fn digest(path: &Path) -> Result<(u64, String), String> {
    let mut file =
        std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        bytes += n as u64;
    }
    Ok((bytes, hex(&hasher.finalize())))
}

/// Marks `path` as used now (for least-recently-used trimming).
fn touch(path: &Path) {
    if let Ok(file) = std::fs::File::options().append(true).open(path) {
        let _ = file.set_modified(SystemTime::now());
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn store(dir: &Path, identity: &str, max_bytes: u64) -> DiskPrefixes {
        DiskPrefixes::open(dir.join("states"), identity.to_string(), max_bytes).unwrap()
    }

    /// Writes `content` as the state of `tokens`, as the engine does.
    fn put(store: &DiskPrefixes, tokens: &[i32], content: &[u8]) {
        let temp = store.temp_path(tokens);
        std::fs::write(&temp, content).unwrap();
        store.commit(&temp, tokens).unwrap();
    }

    #[test]
    fn a_committed_state_is_found_for_its_tokens_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path(), "a", 1 << 20);
        assert_eq!(store.find(&[1, 2, 3]), Ok(None));
        put(&store, &[1, 2, 3], b"state bytes");
        let found = store.find(&[1, 2, 3]).unwrap().unwrap();
        assert_eq!(std::fs::read(found).unwrap(), b"state bytes");
        assert_eq!(store.find(&[1, 2, 4]), Ok(None));
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("states"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn a_truncated_corrupt_or_foreign_state_is_refused_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path(), "a", 1 << 20);
        let (state, record) = store.paths(&[7, 8]);

        put(&store, &[7, 8], b"0123456789");
        std::fs::write(&state, b"01234").unwrap();
        let Err(Unusable(reason)) = store.find(&[7, 8]) else {
            panic!("a truncated state was accepted");
        };
        assert!(reason.contains("truncated"), "{reason}");
        assert!(!state.exists() && !record.exists());

        put(&store, &[7, 8], b"0123456789");
        std::fs::write(&state, b"0123456780").unwrap();
        let Err(Unusable(reason)) = store.find(&[7, 8]) else {
            panic!("a corrupt state was accepted");
        };
        assert!(reason.contains("checksum"), "{reason}");

        put(&store, &[7, 8], b"0123456789");
        std::fs::write(&record, b"{not json").unwrap();
        assert!(store.find(&[7, 8]).is_err());

        // Another model or build writes its states under other keys; its
        // record, copied over ours, is refused.
        let other =
            DiskPrefixes::open(dir.path().join("states"), "b".to_string(), 1 << 20).unwrap();
        put(&other, &[7, 8], b"0123456789");
        assert_eq!(store.find(&[7, 8]), Ok(None));
        put(&store, &[7, 8], b"0123456789");
        std::fs::copy(other.paths(&[7, 8]).1, &record).unwrap();
        let Err(Unusable(reason)) = store.find(&[7, 8]) else {
            panic!("a foreign record was accepted");
        };
        assert!(reason.contains("another model"), "{reason}");

        // A state whose record is gone is not loaded either.
        put(&store, &[7, 8], b"0123456789");
        std::fs::remove_file(&record).unwrap();
        assert!(store.find(&[7, 8]).is_err());
    }

    #[test]
    fn the_directory_keeps_to_its_budget_least_recently_used_out() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path(), "a", 25);
        put(&store, &[1], &[0u8; 10]);
        std::thread::sleep(std::time::Duration::from_millis(20));
        put(&store, &[2], &[0u8; 10]);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(store.find(&[1]).unwrap().is_some()); // now newer than [2]
        std::thread::sleep(std::time::Duration::from_millis(20));
        put(&store, &[3], &[0u8; 10]);
        assert!(store.find(&[1]).unwrap().is_some());
        assert_eq!(store.find(&[2]), Ok(None), "the least recently used went");
        assert!(store.find(&[3]).unwrap().is_some());
    }
}
