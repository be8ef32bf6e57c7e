//! Confinement: every path a file tool touches goes through [`resolve`].

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::{File, Metadata, OpenOptions};
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use crate::ToolError;

/// How many symlinks one path may go through (Linux's own limit).
const MAX_SYMLINK_HOPS: usize = 40;

/// Resolves `path`, as a model gave it, to a real path inside `workspace`.
///
/// - A relative path is relative to the workspace; an absolute path is
///   allowed only if it lies inside the workspace.
/// - `..` may not climb above the workspace root, even to come back in.
/// - Symlinks are followed component by component, the last one and
///   dangling ones included, as the kernel would: the result has no
///   symlinks left in it and must lie inside the workspace. A symlink inside
///   the workspace that points inside it is fine.
/// - The part of the path that does not exist yet (a file or directories
///   to be written) is appended to its deepest existing ancestor, and may not
///   contain `..`.
///
/// A path leaving the workspace is [`ToolError::PathEscape`] with the
/// reason; an empty path or one with a NUL byte is [`ToolError::Failed`].
/// `workspace` is canonicalized here, so any path to it will do.
pub fn resolve(workspace: &Path, path: &str) -> Result<PathBuf, ToolError> {
    if path.is_empty() {
        return Err(ToolError::failed(
            "the path is empty: give a path relative to the workspace (\".\" is the workspace itself)",
        ));
    }
    if path.contains('\0') {
        return Err(ToolError::failed(format!(
            "the path {path:?} contains a NUL byte"
        )));
    }
    let root = std::fs::canonicalize(workspace).map_err(|e| {
        ToolError::io(
            format!("resolving the workspace {:?}", workspace.display()),
            e,
        )
    })?;
    let escape = |reason: String| ToolError::PathEscape {
        path: path.to_string(),
        workspace: root.clone(),
        reason,
    };
    let input = Path::new(path);
    if !input.is_absolute() && climbs_above_start(input) {
        return Err(escape("`..` climbs above the workspace root".to_string()));
    }
    let walked = walk(&root, input, path)?;
    if walked.real.starts_with(&root) {
        return Ok(walked.real);
    }
    let reason = match walked.last_link {
        Some((link, target)) if link.starts_with(&root) => {
            let mut reason = format!(
                "it goes through the symlink {:?}, which points to {:?}",
                super::relative(&root, &link),
                target.display()
            );
            if target != walked.real {
                reason.push_str(&format!(", and ends at {:?}", walked.real.display()));
            }
            reason
        }
        _ if input.is_absolute() => {
            "it is an absolute path outside the workspace; use a path relative to the workspace"
                .to_string()
        }
        _ => format!("it resolves to {:?}", walked.real.display()),
    };
    Err(escape(reason))
}

/// Whether `..` in a relative path ever climbs above where it starts,
/// read lexically.
fn climbs_above_start(path: &Path) -> bool {
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::ParentDir => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => return true,
            },
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    false
}

/// One step of a path being walked.
enum Part {
    /// Back to `/` (an absolute path or symlink target).
    Root,
    /// `..`.
    Up,
    /// A name.
    Name(OsString),
}

/// The steps of `path`.
fn parts(path: &Path, shown: &str) -> Result<Vec<Part>, ToolError> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) => {
                return Err(ToolError::failed(format!(
                    "the path {shown:?} has a drive or UNC prefix, which is not supported"
                )))
            }
            Component::RootDir => parts.push(Part::Root),
            Component::CurDir => {}
            Component::ParentDir => parts.push(Part::Up),
            Component::Normal(name) => parts.push(Part::Name(name.to_os_string())),
        }
    }
    Ok(parts)
}

/// Where a walk ended.
struct Walked {
    /// The real path: symlinks resolved, the missing tail appended.
    real: PathBuf,
    /// The last symlink followed, and where it points.
    last_link: Option<(PathBuf, PathBuf)>,
}

/// Walks `input` from the workspace root (or `/` when absolute), following
/// symlinks as it meets them, until the first component that does not exist.
fn walk(root: &Path, input: &Path, shown: &str) -> Result<Walked, ToolError> {
    let mut pending: VecDeque<Part> = parts(input, shown)?.into();
    let mut current = if input.is_absolute() {
        PathBuf::from("/")
    } else {
        root.to_path_buf()
    };
    let mut missing: Vec<OsString> = Vec::new();
    let mut hops = 0usize;
    let mut last_link = None;
    while let Some(part) = pending.pop_front() {
        match part {
            // Only met before anything is missing: symlink targets are read
            // from existing links.
            Part::Root => current = PathBuf::from("/"),
            Part::Up => {
                if let Some(last) = missing.last() {
                    return Err(ToolError::failed(format!(
                        "the path {shown:?} has `..` after {:?}, which does not exist, so where it \
                         leads cannot be checked; write the path without `..`",
                        last.to_string_lossy()
                    )));
                }
                current.pop();
            }
            Part::Name(name) => {
                if !missing.is_empty() {
                    missing.push(name);
                    continue;
                }
                let next = current.join(&name);
                match std::fs::symlink_metadata(&next) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        hops += 1;
                        if hops > MAX_SYMLINK_HOPS {
                            return Err(ToolError::failed(format!(
                                "the path {shown:?} goes through more than {MAX_SYMLINK_HOPS} \
                                 symlinks (a symlink loop?)"
                            )));
                        }
                        let target = std::fs::read_link(&next).map_err(|e| {
                            ToolError::io(format!("reading the symlink {:?}", next.display()), e)
                        })?;
                        for part in parts(&target, shown)?.into_iter().rev() {
                            pending.push_front(part);
                        }
                        last_link = Some((next, target));
                    }
                    Ok(_) => current = next,
                    Err(e) if e.kind() == ErrorKind::NotFound => missing.push(name),
                    Err(e) if e.kind() == ErrorKind::NotADirectory => {
                        return Err(ToolError::failed(format!(
                            "the path {shown:?} goes on past {:?}, which is a file, not a directory",
                            super::relative(root, &current)
                        )))
                    }
                    Err(e) => {
                        return Err(ToolError::io(
                            format!("resolving {shown:?} (at {:?})", next.display()),
                            e,
                        ))
                    }
                }
            }
        }
    }
    current.extend(missing);
    Ok(Walked {
        real: current,
        last_link,
    })
}

/// Opens `real` (a path from [`resolve`]) to read it: without following a
/// symlink that appeared in its last component since, without blocking on a
/// FIFO, and only if it is a regular file. `shown` is the path as given.
pub(super) fn open_regular(
    root: &Path,
    real: &Path,
    shown: &str,
) -> Result<(File, Metadata), ToolError> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(real).map_err(|e| match e.kind() {
        ErrorKind::NotFound => ToolError::failed(format!(
            "the file {shown:?} does not exist (list_files shows the files there are)"
        )),
        _ if is_symlink_loop(&e) => raced(root, shown),
        _ => ToolError::io(format!("opening {shown:?}"), e),
    })?;
    let meta = file
        .metadata()
        .map_err(|e| ToolError::io(format!("reading the metadata of {shown:?}"), e))?;
    if meta.is_dir() {
        return Err(ToolError::failed(format!(
            "{shown:?} is a directory, not a file (list_files lists what is in it)"
        )));
    }
    if !meta.is_file() {
        return Err(ToolError::failed(format!(
            "{shown:?} is not a regular file (it is a FIFO, socket or device); \
             the file tools work on regular files only"
        )));
    }
    check_opened(root, &file, shown)?;
    Ok((file, meta))
}

/// Whether `e` is the error of opening a symlink with `O_NOFOLLOW`.
fn is_symlink_loop(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// The error for a path that changed between [`resolve`] and its use.
pub(super) fn raced(root: &Path, shown: &str) -> ToolError {
    ToolError::PathEscape {
        path: shown.to_string(),
        workspace: root.to_path_buf(),
        reason: "it changed (a symlink appeared) while it was being used; try again".to_string(),
    }
}

/// Checks, where the system says (Linux's `/proc/self/fd`), that the file
/// actually opened lies inside the workspace: this catches a directory
/// swapped for a symlink between [`resolve`] and the open.
pub(super) fn check_opened(root: &Path, file: &File, shown: &str) -> Result<(), ToolError> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let link = format!("/proc/self/fd/{}", file.as_raw_fd());
        if let Ok(actual) = std::fs::read_link(link) {
            if !actual.starts_with(root) {
                return Err(raced(root, shown));
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (root, file, shown);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn check_opened_rejects_a_file_opened_outside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let inside = root.join("ws");
        std::fs::create_dir(&inside).unwrap();
        std::fs::write(root.join("outside.txt"), "x").unwrap();
        std::fs::write(inside.join("in.txt"), "x").unwrap();
        let file = File::open(root.join("outside.txt")).unwrap();
        assert!(matches!(
            check_opened(&inside, &file, "outside.txt"),
            Err(ToolError::PathEscape { .. })
        ));
        let file = File::open(inside.join("in.txt")).unwrap();
        assert!(check_opened(&inside, &file, "in.txt").is_ok());
    }

    #[test]
    fn climbing_is_read_lexically() {
        assert!(climbs_above_start(Path::new("..")));
        assert!(climbs_above_start(Path::new("a/../../b")));
        assert!(!climbs_above_start(Path::new("a/./../b/..")));
    }
}
