//! A cheap fingerprint of a workspace's files, to tell whether a step
//! changed anything since the checks last ran.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::time::UNIX_EPOCH;

/// Files looked at, at most: a bigger tree is fingerprinted by its first
/// files in walk order (a change beyond them goes unnoticed until a finish
/// runs the checks anyway).
const MAX_FILES: usize = 50_000;

/// Directories that builds and test runs write to (a check's own output
/// must not count as a change) or that are not the project's.
const SKIPPED_DIRS: &[&str] = &["target", "__pycache__", "node_modules", ".pytest_cache"];

/// A walk over the project's own files under `workspace`: hidden entries
/// (`.git`, `.rebound`), what `.gitignore` ignores, and build and cache
/// directories are skipped.
pub(crate) fn project_files(workspace: &Path) -> ignore::Walk {
    ignore::WalkBuilder::new(workspace)
        .hidden(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .filter_entry(|entry| {
            !(entry.file_type().is_some_and(|t| t.is_dir())
                && SKIPPED_DIRS.contains(&entry.file_name().to_string_lossy().as_ref()))
        })
        .build()
}

/// A hash of every file's path, size and modification time under
/// `workspace`, skipping hidden entries (`.git`, `.rebound`), what
/// `.gitignore` ignores, and build and cache directories. Equal
/// fingerprints mean no file changed (as far as sizes and times tell).
/// `DefaultHasher` with its fixed keys: stable within a build, and a
/// different build at worst sees one spurious change.
pub fn fingerprint(workspace: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    files_state(workspace).hash(&mut hasher);
    git_state(workspace).hash(&mut hasher);
    hasher.finish()
}

/// A hash of what [`fingerprint`] reads besides git: every project file's
/// path, size and modification time, and the project's own environments
/// (virtualenvs, `node_modules`).
pub fn files_state(workspace: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    let walker = project_files(workspace);
    // A file's permission bits too: `chmod +x` changes no size or
    // modification time, and can be all a fix is.
    let mut entries: Vec<(String, u64, u128, u32)> = Vec::new();
    for entry in walker.flatten().take(MAX_FILES) {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let modified = modified_nanos(&meta);
        let name = entry
            .path()
            .strip_prefix(workspace)
            .unwrap_or(entry.path())
            .to_string_lossy()
            .to_string();
        if name.ends_with(".pyc") {
            continue;
        }
        entries.push((name, meta.len(), modified, permission_bits(&meta)));
    }
    entries.sort();
    entries.hash(&mut hasher);
    environment_state(workspace).hash(&mut hasher);
    hasher.finish()
}

/// A file's permission bits (0 where there are none).
fn permission_bits(meta: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode()
    }
    #[cfg(not(unix))]
    {
        u32::from(meta.permissions().readonly())
    }
}

/// What installing a package into the project's own environment changes,
/// which the project's files do not show: the modification times of each
/// virtualenv's `site-packages` (a directory at the top of the workspace
/// with a `pyvenv.cfg`) and of `node_modules`. A step that runs `pip
/// install` then counts as a change, and the checks run again.
fn environment_state(workspace: &Path) -> Vec<(String, u128)> {
    let mut state = Vec::new();
    let mut dirs = vec![workspace.join("node_modules")];
    if let Ok(entries) = std::fs::read_dir(workspace) {
        for entry in entries.flatten() {
            let venv = entry.path();
            if !venv.join("pyvenv.cfg").is_file() {
                continue;
            }
            for lib in ["lib", "lib64"] {
                if let Ok(pythons) = std::fs::read_dir(venv.join(lib)) {
                    dirs.extend(pythons.flatten().map(|p| p.path().join("site-packages")));
                }
            }
        }
    }
    for dir in dirs {
        if let Ok(meta) = std::fs::metadata(&dir) {
            state.push((dir.to_string_lossy().to_string(), modified_nanos(&meta)));
        }
    }
    state.sort();
    state
}

/// A file's modification time in nanoseconds since the epoch (0 when
/// unknown).
fn modified_nanos(meta: &std::fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// Branch and tag refs looked at, at most.
const MAX_REFS: usize = 500;

/// What a commit, a `git add`, a new branch or a tag changes in a git
/// work tree that the files themselves do not show: the commit `HEAD`
/// names (through its ref), the index's size and time, and each loose
/// branch and tag ref (name, size, time). Empty outside a git work tree.
fn git_state(workspace: &Path) -> Vec<(String, u64, u128)> {
    let git = workspace.join(".git");
    if !git.is_dir() {
        return Vec::new();
    }
    let mut state = Vec::new();
    let head = std::fs::read_to_string(git.join("HEAD")).unwrap_or_default();
    let mut files = vec![git.join("index"), git.join("packed-refs")];
    if let Some(reference) = head.trim().strip_prefix("ref: ") {
        if !reference.split('/').any(|part| part == "..") {
            files.push(git.join(reference));
        }
    }
    state.push((head.trim().to_string(), 0, 0));
    for file in files {
        let Ok(meta) = std::fs::metadata(&file) else {
            continue;
        };
        let modified = modified_nanos(&meta);
        let content = if meta.len() <= 256 {
            std::fs::read_to_string(&file).unwrap_or_default()
        } else {
            String::new()
        };
        state.push((content, meta.len(), modified));
    }
    let mut refs_state = Vec::new();
    for kind in ["heads", "tags"] {
        let refs = git.join("refs").join(kind);
        let walk = ignore::WalkBuilder::new(&refs)
            .standard_filters(false)
            .build()
            .flatten()
            .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
            .take(MAX_REFS);
        for entry in walk {
            let Ok(meta) = entry.metadata() else { continue };
            let name = entry
                .path()
                .strip_prefix(&git)
                .unwrap_or(entry.path())
                .to_string_lossy()
                .to_string();
            refs_state.push((name, meta.len(), modified_nanos(&meta)));
        }
    }
    // Sorted: the walk's order is the directory's, not the names'.
    refs_state.sort();
    state.extend(refs_state);
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_to_a_file_changes_the_fingerprint_and_build_output_does_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        let before = fingerprint(dir.path());
        assert_eq!(before, fingerprint(dir.path()), "stable");
        std::fs::create_dir_all(dir.path().join("__pycache__")).unwrap();
        std::fs::write(dir.path().join("__pycache__/a.cpython-311.pyc"), "x").unwrap();
        std::fs::create_dir_all(dir.path().join(".rebound")).unwrap();
        std::fs::write(dir.path().join(".rebound/state.db"), "x").unwrap();
        assert_eq!(
            before,
            fingerprint(dir.path()),
            "caches and state are not changes"
        );
        std::fs::write(dir.path().join("a.py"), "x = 22\n").unwrap();
        assert_ne!(before, fingerprint(dir.path()));
        let edited = fingerprint(dir.path());
        std::fs::write(dir.path().join("b.txt"), "new").unwrap();
        assert_ne!(edited, fingerprint(dir.path()), "a new file");
    }

    #[test]
    fn a_commit_changes_the_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| crate::checks::test_git(dir.path(), args);
        git(&["init", "-q"]);
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        let before = fingerprint(dir.path());
        git(&["add", "a.py"]);
        let staged = fingerprint(dir.path());
        assert_ne!(before, staged, "staging is a change");
        git(&["commit", "-q", "-m", "a"]);
        assert_ne!(staged, fingerprint(dir.path()), "a commit is a change");
        assert_eq!(fingerprint(dir.path()), fingerprint(dir.path()), "stable");
        let committed = fingerprint(dir.path());
        git(&["tag", "v1.0"]);
        let tagged = fingerprint(dir.path());
        assert_ne!(committed, tagged, "a tag is a change");
        git(&["branch", "feature"]);
        assert_ne!(tagged, fingerprint(dir.path()), "a branch is a change");
    }
}
