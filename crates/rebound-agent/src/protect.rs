//! Files the goal says not to change ("do not change test_calc.py",
//! "without touching spread.c"): read before each step, and put back
//! byte for byte when the step changed them, which then fails with the
//! reason. A file that did not exist is removed again.

use std::path::{Path, PathBuf};

/// The biggest protected file kept to restore; a bigger one is only
/// compared by length and time, and not restored.
const MAX_KEPT_BYTES: u64 = 1 << 20;

/// The protected files' contents before a step.
#[derive(Debug, Clone, Default)]
pub(crate) struct Protected {
    root: PathBuf,
    files: Vec<(String, Option<Vec<u8>>)>,
}

impl Protected {
    /// Reads `files` (relative to `workspace`) as they are now.
    pub(crate) fn take(workspace: &Path, files: &[String]) -> Protected {
        let files = files
            .iter()
            .map(|file| {
                let path = workspace.join(file);
                let small = std::fs::metadata(&path).is_ok_and(|m| m.len() <= MAX_KEPT_BYTES);
                let contents = if small {
                    std::fs::read(&path).ok()
                } else {
                    None
                };
                (file.clone(), contents)
            })
            .collect();
        Protected {
            root: workspace.to_path_buf(),
            files,
        }
    }

    /// Puts back every file that changed since [`Protected::take`], and
    /// names them.
    pub(crate) fn restore_changed(&self) -> Vec<String> {
        let mut restored = Vec::new();
        for (file, before) in &self.files {
            let path = self.root.join(file);
            let now = std::fs::read(&path).ok();
            if &now == before {
                continue;
            }
            let put_back = match before {
                Some(bytes) => std::fs::write(&path, bytes).is_ok(),
                None => std::fs::remove_file(&path).is_ok() || !path.exists(),
            };
            if put_back {
                restored.push(file.clone());
            } else {
                tracing::warn!(file, "a protected file changed and could not be restored");
            }
        }
        restored
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_changed_or_deleted_protected_file_is_put_back() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("test_a.py"), "assert True\n").unwrap();
        std::fs::write(ws.join("keep.txt"), "k").unwrap();
        let files = vec!["test_a.py".to_string(), "keep.txt".to_string()];
        let before = Protected::take(ws, &files);
        assert!(before.restore_changed().is_empty());
        std::fs::write(ws.join("test_a.py"), "pass\n").unwrap();
        std::fs::remove_file(ws.join("keep.txt")).unwrap();
        assert_eq!(before.restore_changed(), files);
        assert_eq!(
            std::fs::read_to_string(ws.join("test_a.py")).unwrap(),
            "assert True\n"
        );
        assert_eq!(std::fs::read_to_string(ws.join("keep.txt")).unwrap(), "k");
    }
}
