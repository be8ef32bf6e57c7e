//! Paths as tools print them, made relative to the workspace root; and the
//! one way this module reads a workspace file, which never leaves the
//! workspace.

use std::path::{Component, Path, PathBuf};

use super::failure::Place;

/// The largest file read for localization, in bytes.
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Resolves printed paths against a workspace (and the directories the
/// check's command `cd`s into).
#[derive(Debug, Clone)]
pub(crate) struct Paths {
    root: PathBuf,
    canonical_root: Option<PathBuf>,
    /// Relative directories the command changes into (`cd sub && …`):
    /// relative paths may be relative to them instead of the root.
    bases: Vec<String>,
}

impl Paths {
    /// Paths of `workspace`, for output of `command`.
    pub(crate) fn new(workspace: &Path, command: &str) -> Self {
        Paths {
            root: workspace.to_path_buf(),
            canonical_root: workspace.canonicalize().ok(),
            bases: cd_dirs(command),
        }
    }

    /// The workspace root as given.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The workspace root as given, with a trailing `/`, for removing it
    /// from messages.
    pub(crate) fn root_prefixes(&self) -> Vec<String> {
        let mut prefixes = Vec::new();
        for root in [Some(&self.root), self.canonical_root.as_ref()]
            .into_iter()
            .flatten()
        {
            let mut text = root.to_string_lossy().into_owned();
            if !text.ends_with('/') {
                text.push('/');
            }
            if text.len() > 1 && !prefixes.contains(&text) {
                prefixes.push(text);
            }
        }
        prefixes
    }

    /// `printed` made relative to the root, and where it is. Nothing is
    /// read: only the file's metadata is looked at.
    pub(crate) fn resolve(&self, printed: &str) -> (String, Place) {
        let printed = printed.trim();
        if printed.is_empty() || (printed.starts_with('<') && printed.ends_with('>')) {
            return (printed.to_string(), Place::Outside);
        }
        let path = Path::new(printed);
        let relative = if path.is_absolute() {
            let inside = [Some(&self.root), self.canonical_root.as_ref()]
                .into_iter()
                .flatten()
                .find_map(|root| path.strip_prefix(root).ok());
            match inside {
                Some(relative) => relative.to_path_buf(),
                None => return (printed.to_string(), Place::Outside),
            }
        } else {
            path.to_path_buf()
        };
        let Some(relative) = normalize(&relative) else {
            return (printed.to_string(), Place::Outside);
        };
        let mut candidates = vec![relative.clone()];
        if !path.is_absolute() {
            for base in &self.bases {
                if let Some(joined) = normalize(&Path::new(base).join(&relative)) {
                    candidates.push(joined);
                }
            }
        }
        for candidate in &candidates {
            if self.contains_file(candidate) {
                return (candidate.clone(), Place::Workspace);
            }
        }
        if self.links_outside(&relative) {
            return (relative, Place::Outside);
        }
        (relative, Place::Missing)
    }

    /// Whether `relative` exists but, once symbolic links are resolved, is
    /// outside the workspace.
    fn links_outside(&self, relative: &str) -> bool {
        let (Some(root), Ok(real)) = (
            self.canonical_root.as_ref(),
            self.root.join(relative).canonicalize(),
        ) else {
            return false;
        };
        !real.starts_with(root)
    }

    /// Whether `relative` names a file that is really inside the workspace
    /// (symbolic links resolved).
    fn contains_file(&self, relative: &str) -> bool {
        workspace_file(&self.root, self.canonical_root.as_deref(), relative).is_some()
    }
}

/// The real path of `relative` under `root`, when it is a regular file
/// inside the root once symbolic links are resolved.
fn workspace_file(root: &Path, canonical_root: Option<&Path>, relative: &str) -> Option<PathBuf> {
    let relative = normalize(Path::new(relative))?;
    if relative.is_empty() {
        return None;
    }
    let canonical_root = match canonical_root {
        Some(root) => root.to_path_buf(),
        None => root.canonicalize().ok()?,
    };
    let real = root.join(&relative).canonicalize().ok()?;
    (real.starts_with(&canonical_root) && real.is_file()).then_some(real)
}

/// The text of the workspace file `relative` (relative to `workspace`),
/// when it is inside the workspace, at most [`MAX_FILE_BYTES`] long and
/// UTF-8 (invalid sequences replaced). Never reads outside the workspace.
pub(crate) fn read_workspace_file(workspace: &Path, relative: &str) -> Option<String> {
    let real = workspace_file(workspace, None, relative)?;
    let size = std::fs::metadata(&real).ok()?.len();
    if size > MAX_FILE_BYTES {
        return None;
    }
    let bytes = std::fs::read(&real).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// `path` without `.` components and with `..` applied, `/`-separated;
/// `None` when it is absolute or climbs above its start.
pub(crate) fn normalize(path: &Path) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

/// The relative directories `command` changes into with `cd` (`cd sub &&
/// cargo test` → `sub`).
fn cd_dirs(command: &str) -> Vec<String> {
    let mut dirs = Vec::new();
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        if pair[0] == "cd" {
            let dir = pair[1].trim_matches(|c| c == '"' || c == '\'');
            if let Some(dir) = normalize(Path::new(dir)) {
                if !dir.is_empty() && !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sub/src")).unwrap();
        std::fs::write(dir.path().join("calc.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("sub/src/lib.rs"), "fn f() {}\n").unwrap();
        dir
    }

    #[test]
    fn absolute_paths_in_the_workspace_become_relative() {
        let dir = workspace();
        let paths = Paths::new(dir.path(), "python3 -m unittest");
        let printed = format!("{}/calc.py", dir.path().display());
        assert_eq!(
            paths.resolve(&printed),
            ("calc.py".into(), Place::Workspace)
        );
        assert_eq!(
            paths.resolve("./calc.py"),
            ("calc.py".into(), Place::Workspace)
        );
    }

    #[test]
    fn paths_outside_are_kept_as_printed() {
        let dir = workspace();
        let paths = Paths::new(dir.path(), "");
        for printed in [
            "/usr/lib/python3.11/unittest/case.py",
            "<string>",
            "../elsewhere.py",
        ] {
            assert_eq!(paths.resolve(printed), (printed.into(), Place::Outside));
        }
    }

    #[test]
    fn missing_files_are_marked() {
        let dir = workspace();
        let paths = Paths::new(dir.path(), "");
        assert_eq!(paths.resolve("gone.py"), ("gone.py".into(), Place::Missing));
        let printed = format!("{}/old/gone.py", dir.path().display());
        assert_eq!(
            paths.resolve(&printed),
            ("old/gone.py".into(), Place::Missing)
        );
    }

    #[test]
    fn paths_are_tried_under_the_commands_cd() {
        let dir = workspace();
        let paths = Paths::new(dir.path(), "cd sub && cargo test");
        assert_eq!(
            paths.resolve("src/lib.rs"),
            ("sub/src/lib.rs".into(), Place::Workspace)
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_workspace_is_not_read() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.py"), "s = 1\n").unwrap();
        let dir = workspace();
        std::os::unix::fs::symlink(outside.path().join("secret.py"), dir.path().join("link.py"))
            .unwrap();
        let paths = Paths::new(dir.path(), "");
        assert_eq!(paths.resolve("link.py"), ("link.py".into(), Place::Outside));
        assert_eq!(read_workspace_file(dir.path(), "link.py"), None);
        assert_eq!(
            read_workspace_file(dir.path(), "calc.py").as_deref(),
            Some("x = 1\n")
        );
        assert_eq!(read_workspace_file(dir.path(), "../x.py"), None);
    }
}
