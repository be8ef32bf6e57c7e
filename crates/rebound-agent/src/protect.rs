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
            if now.is_none() && self.moved_beside(file, before.as_deref()) {
                // Renamed with its contents as they were (a test given the
                // name its runner looks for): nothing it does changed.
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

    /// Whether a file beside `file` (in its directory) that is not itself
    /// protected holds exactly `before`: `file` was moved, not changed.
    fn moved_beside(&self, file: &str, before: Option<&[u8]>) -> bool {
        let Some(before) = before else {
            return false;
        };
        let dir = self.root.join(file);
        let Some(dir) = dir.parent() else {
            return false;
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        entries.flatten().any(|entry| {
            let path = entry.path();
            let relative = path
                .strip_prefix(&self.root)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            !self.files.iter().any(|(f, _)| *f == relative)
                && entry.file_type().is_ok_and(|t| t.is_file())
                && std::fs::read(&path).is_ok_and(|bytes| bytes == before)
        })
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

    #[test]
    fn a_protected_file_moved_beside_with_its_contents_stays_moved() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir(ws.join("tests")).unwrap();
        std::fs::write(ws.join("tests/parse_test.py"), "assert True\n").unwrap();
        let files = vec!["tests/parse_test.py".to_string()];
        let before = Protected::take(ws, &files);
        std::fs::rename(
            ws.join("tests/parse_test.py"),
            ws.join("tests/test_parse.py"),
        )
        .unwrap();
        assert!(before.restore_changed().is_empty());
        assert!(!ws.join("tests/parse_test.py").exists());
        // Moved and changed: put back.
        std::fs::remove_file(ws.join("tests/test_parse.py")).unwrap();
        std::fs::write(ws.join("tests/parse_test.py"), "assert True\n").unwrap();
        let before = Protected::take(ws, &files);
        std::fs::rename(
            ws.join("tests/parse_test.py"),
            ws.join("tests/test_parse.py"),
        )
        .unwrap();
        std::fs::write(ws.join("tests/test_parse.py"), "pass\n").unwrap();
        assert_eq!(before.restore_changed(), ["tests/parse_test.py"]);
    }
}
