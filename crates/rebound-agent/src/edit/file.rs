//! The one way the edit step reads a file: by a path relative to the
//! workspace root that stays inside it once symbolic links are resolved
//! (localization's rules), or a file that does not exist yet in a
//! directory inside it.

use std::io::ErrorKind;
use std::path::{Component, Path};

use super::EditError;

/// The largest file an edit reads, in bytes.
pub const MAX_EDIT_FILE_BYTES: u64 = 1024 * 1024;

/// A workspace file as an edit finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WorkspaceFile {
    /// Its path relative to the workspace root, `/`-separated, without `.`
    /// or `..` components.
    pub(crate) relative: String,
    /// Its text; `None` when it does not exist yet.
    pub(crate) text: Option<String>,
}

/// The workspace file `file` (relative to `workspace`): its text when it
/// exists, else nothing when its nearest existing directory is inside the
/// workspace. Never reads outside the workspace.
pub(crate) fn read_for_edit(workspace: &Path, file: &str) -> Result<WorkspaceFile, EditError> {
    let named = file.trim();
    let unreadable = |reason: String| EditError::Unreadable {
        file: named.to_string(),
        reason,
    };
    if named.is_empty() {
        return Err(unreadable("no file was named".to_string()));
    }
    let parts = relative_parts(Path::new(named))
        .ok_or_else(|| EditError::OutsideWorkspace(named.to_string()))?;
    if parts.is_empty() {
        return Err(unreadable(
            "it is the workspace root, a directory".to_string(),
        ));
    }
    let root = workspace
        .canonicalize()
        .map_err(|e| unreadable(format!("the workspace cannot be read ({e})")))?;
    let relative = parts.join("/");
    let path = workspace.join(&relative);
    match std::fs::symlink_metadata(&path) {
        Ok(_) => {}
        Err(error) if error.kind() == ErrorKind::NotFound => {
            check_new_file_dirs(workspace, &root, &parts, named)?;
            return Ok(WorkspaceFile {
                relative,
                text: None,
            });
        }
        Err(error) => return Err(unreadable(error.to_string())),
    }
    let real = path.canonicalize().map_err(|error| match error.kind() {
        ErrorKind::NotFound => unreadable("it is a symbolic link to nothing".to_string()),
        _ => unreadable(error.to_string()),
    })?;
    if !real.starts_with(&root) {
        return Err(EditError::OutsideWorkspace(named.to_string()));
    }
    let metadata = std::fs::metadata(&real).map_err(|e| unreadable(e.to_string()))?;
    if metadata.is_dir() {
        return Err(unreadable("it is a directory".to_string()));
    }
    if !metadata.is_file() {
        return Err(unreadable("it is not a regular file".to_string()));
    }
    if metadata.len() > MAX_EDIT_FILE_BYTES {
        return Err(unreadable(format!(
            "it has {} bytes, more than {MAX_EDIT_FILE_BYTES}",
            metadata.len()
        )));
    }
    let bytes = std::fs::read(&real).map_err(|e| unreadable(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| unreadable("it is not UTF-8 text".into()))?;
    Ok(WorkspaceFile {
        relative,
        text: Some(text),
    })
}

/// The one existing workspace file `text` names (a word with a `.` or a
/// `/` in it, quotes and trailing punctuation aside, that is a readable
/// file inside the workspace): for an edit step whose plan gave no file
/// but whose description says which (`Fix slug.py so that …`). `None`
/// when it names none or several.
pub(crate) fn file_named_in(workspace: &Path, text: &str) -> Option<String> {
    let mut found: Option<String> = None;
    for word in text.split(|c: char| c.is_whitespace() || "`'\"(),;:".contains(c)) {
        let word = word.trim_end_matches(['.', '!', '?']);
        if word.is_empty() || !(word.contains('.') || word.contains('/')) {
            continue;
        }
        let Ok(WorkspaceFile {
            relative,
            text: Some(_),
        }) = read_for_edit(workspace, word)
        else {
            continue;
        };
        match &found {
            Some(earlier) if *earlier != relative => return None,
            _ => found = Some(relative),
        }
    }
    found
}

/// The components of a relative `path` with `.` dropped and `..` applied;
/// `None` when it is absolute or `..` climbs above its start.
fn relative_parts(path: &Path) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?.to_string()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts)
}

/// Checks that the nearest existing directory above the missing file
/// `parts` is a directory inside the workspace (`root`, canonical).
fn check_new_file_dirs(
    workspace: &Path,
    root: &Path,
    parts: &[String],
    named: &str,
) -> Result<(), EditError> {
    for depth in (1..parts.len()).rev() {
        let dir = workspace.join(parts[..depth].join("/"));
        if std::fs::symlink_metadata(&dir).is_err() {
            continue;
        }
        let real = dir
            .canonicalize()
            .map_err(|_| EditError::OutsideWorkspace(named.to_string()))?;
        if !real.starts_with(root) {
            return Err(EditError::OutsideWorkspace(named.to_string()));
        }
        if !real.is_dir() {
            return Err(EditError::Unreadable {
                file: named.to_string(),
                reason: format!("{} is not a directory", parts[..depth].join("/")),
            });
        }
        return Ok(());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn reads_files_inside_and_normalizes_their_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("pkg/calc.py"), "x = 1\n").unwrap();
        let found = read_for_edit(dir.path(), " ./pkg/../pkg/calc.py ").unwrap();
        assert_eq!(
            found,
            WorkspaceFile {
                relative: "pkg/calc.py".into(),
                text: Some("x = 1\n".into())
            }
        );
    }

    #[test]
    fn refuses_paths_that_leave_and_files_it_cannot_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("bin.dat"), [0xff, 0xfe, 0x00]).unwrap();
        std::fs::write(
            dir.path().join("big.txt"),
            vec![b'x'; MAX_EDIT_FILE_BYTES as usize + 1],
        )
        .unwrap();
        for file in ["../x.py", "pkg/../../x.py", "/etc/passwd"] {
            assert_eq!(
                read_for_edit(dir.path(), file),
                Err(EditError::OutsideWorkspace(file.into())),
                "{file}"
            );
        }
        for (file, reason) in [
            ("pkg", "it is a directory"),
            (".", "it is the workspace root, a directory"),
            ("bin.dat", "it is not UTF-8 text"),
        ] {
            assert_eq!(
                read_for_edit(dir.path(), file),
                Err(EditError::Unreadable {
                    file: file.into(),
                    reason: reason.into()
                }),
            );
        }
        let big = read_for_edit(dir.path(), "big.txt").unwrap_err();
        assert!(big.to_string().contains("more than 1048576"), "{big}");
    }

    #[test]
    fn a_missing_file_in_a_directory_inside_is_new() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("calc.py"), "").unwrap();
        let found = read_for_edit(dir.path(), "new/sub/mod.py").unwrap();
        assert_eq!(found.relative, "new/sub/mod.py");
        assert_eq!(found.text, None);
        assert!(matches!(
            read_for_edit(dir.path(), "calc.py/x.py"),
            Err(EditError::Unreadable { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_workspace_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.py"), "s = 1\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, dir.path().join(name)).unwrap();
        };
        link(&outside.path().join("secret.py"), "link.py");
        link(outside.path(), "out");
        link(&outside.path().join("gone.py"), "dangling.py");
        for file in ["link.py", "out/secret.py", "out/new.py"] {
            assert_eq!(
                read_for_edit(dir.path(), file),
                Err(EditError::OutsideWorkspace(file.into())),
                "{file}"
            );
        }
        assert!(matches!(
            read_for_edit(dir.path(), "dangling.py"),
            Err(EditError::Unreadable { .. })
        ));
        std::fs::write(dir.path().join("real.py"), "r = 1\n").unwrap();
        link(&dir.path().join("real.py"), "inside.py");
        assert_eq!(
            read_for_edit(dir.path(), "inside.py")
                .unwrap()
                .text
                .as_deref(),
            Some("r = 1\n")
        );
    }

    #[test]
    fn the_one_file_a_description_names_is_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("slug.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("test_slug.py"), "x = 1\n").unwrap();
        let named = |text: &str| file_named_in(dir.path(), text);
        assert_eq!(
            named("Fix slug.py so that `python3 -m pytest -q` passes."),
            Some("slug.py".to_string())
        );
        assert_eq!(named("Fix `./slug.py`."), Some("slug.py".to_string()));
        assert_eq!(named("Fix slug.py; test_slug.py must pass"), None);
        assert_eq!(named("Fix the bug in main.py"), None);
        assert_eq!(named("Fix ../slug.py or /etc/passwd"), None);
    }
}
