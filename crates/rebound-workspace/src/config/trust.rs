//! The trust store: the workspaces whose `rebound.toml` the user trusts,
//! each keyed by its canonical path and the SHA-256 of the file as it was
//! trusted (an edited file is untrusted again). One TOML file in the user's
//! config directory, written atomically; a corrupt store trusts nothing.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::Env;

/// The store's file name, beside the user config.
const FILE_NAME: &str = "trusted.toml";

/// Why the trust store cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// There is no home or config directory to keep it in.
    #[error("no place for the trust store: set HOME or XDG_CONFIG_HOME")]
    NoPlace,
    /// Reading or writing a file failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// One trusted workspace file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustedWorkspace {
    /// The workspace's canonical path.
    pub path: PathBuf,
    /// The SHA-256 of its `rebound.toml` when it was trusted (hex).
    pub sha256: String,
}

/// What the store file holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    #[serde(default)]
    workspace: Vec<TrustedWorkspace>,
}

/// The trusted workspaces, and where they are kept.
#[derive(Debug, Clone)]
pub struct TrustStore {
    path: Option<PathBuf>,
    entries: Vec<TrustedWorkspace>,
    /// Why the file could not be read (it then trusts nothing).
    pub warning: Option<String>,
}

impl TrustStore {
    /// The store of this user: `$XDG_CONFIG_HOME/rebound/trusted.toml`,
    /// else `~/.config/rebound/trusted.toml` (`$REBOUND_TRUST_FILE`
    /// overrides both). A missing file trusts nothing; a corrupt one trusts
    /// nothing and says why in [`TrustStore::warning`].
    pub fn load(env: Env<'_>) -> TrustStore {
        let path = store_path(env);
        let mut store = TrustStore {
            path: path.clone(),
            entries: Vec::new(),
            warning: None,
        };
        let Some(path) = path else { return store };
        match std::fs::read_to_string(&path) {
            Ok(text) => match toml::from_str::<StoreFile>(&text) {
                Ok(file) => store.entries = file.workspace,
                Err(error) => {
                    store.warning = Some(format!(
                        "the trust store {} is corrupt, so no workspace is trusted ({}); `rebound trust` rewrites it",
                        path.display(),
                        error.message()
                    ));
                }
            },
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                store.warning = Some(format!(
                    "the trust store {} cannot be read, so no workspace is trusted: {error}",
                    path.display()
                ));
            }
        }
        store
    }

    /// Where the store is kept.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether `workspace` (canonical) is trusted with a file of hash
    /// `sha256`.
    pub fn trusts(&self, workspace: &Path, sha256: &str) -> bool {
        self.entries
            .iter()
            .any(|entry| entry.path == workspace && entry.sha256 == sha256)
    }

    /// Trusts `workspace` (canonical) with a file of hash `sha256`,
    /// replacing an earlier entry for it, and writes the store.
    pub fn trust(&mut self, workspace: &Path, sha256: &str) -> Result<(), TrustError> {
        self.entries.retain(|entry| entry.path != workspace);
        self.entries.push(TrustedWorkspace {
            path: workspace.to_path_buf(),
            sha256: sha256.to_string(),
        });
        self.save()
    }

    /// Forgets `workspace`; `false` when it was not trusted.
    pub fn revoke(&mut self, workspace: &Path) -> Result<bool, TrustError> {
        let before = self.entries.len();
        self.entries.retain(|entry| entry.path != workspace);
        if self.entries.len() == before {
            return Ok(false);
        }
        self.save().map(|()| true)
    }

    /// Writes the store: a temp file in the same directory, renamed over
    /// the old one, so a crash leaves the old store or the new one.
    fn save(&mut self) -> Result<(), TrustError> {
        let path = self.path.clone().ok_or(TrustError::NoPlace)?;
        let io = |source| TrustError::Io {
            path: path.clone(),
            source,
        };
        let dir = path.parent().ok_or(TrustError::NoPlace)?;
        std::fs::create_dir_all(dir).map_err(io)?;
        let text = toml::to_string(&StoreFile {
            workspace: self.entries.clone(),
        })
        .map_err(|e| io(std::io::Error::other(e)))?;
        let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        std::io::Write::write_all(&mut temp, text.as_bytes()).map_err(io)?;
        temp.persist(&path).map_err(|e| io(e.error))?;
        self.warning = None;
        Ok(())
    }
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn store_path(env: Env<'_>) -> Option<PathBuf> {
    if let Some(path) = env("REBOUND_TRUST_FILE") {
        return Some(PathBuf::from(path));
    }
    let base = match env("XDG_CONFIG_HOME").filter(|dir| Path::new(dir).is_absolute()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env("HOME")?).join(".config"),
    };
    Some(base.join("rebound").join(FILE_NAME))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn trust_is_keyed_by_path_and_hash_and_survives_a_reload() {
        let home = tempfile::tempdir().unwrap();
        let home_text = home.path().display().to_string();
        let env = move |name: &str| (name == "HOME").then(|| home_text.clone());
        let mut store = TrustStore::load(&env);
        let ws = Path::new("/work/project");
        assert!(!store.trusts(ws, "aa"));
        store.trust(ws, "aa").unwrap();
        let store = TrustStore::load(&env);
        assert!(store.trusts(ws, "aa"));
        assert!(!store.trusts(ws, "bb"), "an edited file is not trusted");
        assert!(!store.trusts(Path::new("/work/other"), "aa"));
        assert!(store.warning.is_none());
    }

    #[test]
    fn a_corrupt_store_trusts_nothing_with_a_warning_and_can_be_rewritten() {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join("trusted.toml");
        std::fs::write(&file, "[[workspace]]\npath = 3\n").unwrap();
        let file_text = file.display().to_string();
        let env = move |name: &str| (name == "REBOUND_TRUST_FILE").then(|| file_text.clone());
        let mut store = TrustStore::load(&env);
        assert!(store.warning.as_deref().unwrap().contains("corrupt"));
        store.trust(Path::new("/w"), "cc").unwrap();
        let store = TrustStore::load(&env);
        assert!(store.trusts(Path::new("/w"), "cc"));
        assert!(store.warning.is_none());
    }

    #[test]
    fn sha256_of_known_input() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
