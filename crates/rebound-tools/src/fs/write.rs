//! `write_file`, and the atomic write `edit_file` shares.

use std::fs::{Metadata, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::path::{check_opened, raced};
use super::{plural, relative, resolve, run_blocking};
use crate::{ToolContext, ToolError, ToolOutput, TypedTool};

/// The arguments of `write_file`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// The file to write, relative to the workspace (an absolute path must lie inside the workspace). Missing parent directories are created.
    pub path: String,
    /// The whole new content of the file.
    pub content: String,
}

/// `write_file`: creates or replaces a file with the given content,
/// creating missing parent directories inside the workspace. The write is
/// atomic (a temporary file in the same directory, renamed over the target),
/// so the file is either the old or the new content; a replaced file keeps
/// its permissions. Writing through a symlink writes its target, which must
/// lie inside the workspace.
#[derive(Debug, Clone, Default)]
pub struct WriteFile;

impl WriteFile {
    /// The tool.
    pub fn new() -> Self {
        WriteFile
    }
}

#[async_trait]
impl TypedTool for WriteFile {
    type Args = WriteFileArgs;
    const NAME: &'static str = "write_file";

    fn description(&self) -> &str {
        "Create or overwrite a file in the workspace with `content` (the whole file), creating \
         missing parent directories. To change part of an existing file, prefer edit_file."
    }

    async fn run(&self, args: WriteFileArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = ctx.workspace().to_path_buf();
        run_blocking(ctx, move || {
            if args.path.ends_with('/') {
                return Err(ToolError::failed(format!(
                    "the path {:?} ends with \"/\": give the path of a file",
                    args.path
                )));
            }
            let real = resolve(&root, &args.path)?;
            let written = write_atomically(&root, &real, &args.path, args.content.as_bytes())?;
            let shown = relative(&root, &real);
            let bytes = args.content.len();
            let content = match written.replaced {
                None => format!("created {shown} ({})", plural(bytes, "byte")),
                Some(old) => format!(
                    "wrote {} to {shown} (it had {})",
                    plural(bytes, "byte"),
                    plural(usize::try_from(old).unwrap_or(usize::MAX), "byte")
                ),
            };
            Ok(ToolOutput::ok(content).with_details(serde_json::json!({
                "path": shown,
                "bytes": bytes,
                "created": written.replaced.is_none(),
            })))
        })
        .await
    }
}

/// What [`write_atomically`] did.
pub(super) struct Written {
    /// The size of the file it replaced; `None` when it created the file.
    pub(super) replaced: Option<u64>,
}

/// Numbers temporary files apart within this process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `real` (a path from [`resolve`]; `shown` is the path as
/// given): creates missing parent directories and checks they are still
/// inside `root`, writes a new temporary file next to the target (`O_EXCL`,
/// checked to be inside `root`, with the permissions of the file it
/// replaces), syncs it and renames it over the target.
pub(super) fn write_atomically(
    root: &Path,
    real: &Path,
    shown: &str,
    bytes: &[u8],
) -> Result<Written, ToolError> {
    let existing = existing_file(root, real, shown)?;
    let parent = real
        .parent()
        .ok_or_else(|| ToolError::failed(format!("{shown:?} is not a file path")))?;
    if existing.is_none() {
        std::fs::create_dir_all(parent)
            .map_err(|e| ToolError::io(format!("creating the directories of {shown:?}"), e))?;
        // A component created by someone else as a symlink in the meantime
        // would have been followed.
        let actual = std::fs::canonicalize(parent)
            .map_err(|e| ToolError::io(format!("checking the directories of {shown:?}"), e))?;
        if actual != parent {
            return Err(raced(root, shown));
        }
    }
    let temp = parent.join(format!(
        ".rebound-tmp-{}-{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .map_err(|e| ToolError::io(format!("creating a temporary file to write {shown:?}"), e))?;
    let filled = check_opened(root, &file, shown).and_then(|()| {
        let action = format!("writing {shown:?}");
        file.write_all(bytes)
            .map_err(|e| ToolError::io(action.clone(), e))?;
        if let Some(meta) = &existing {
            file.set_permissions(meta.permissions())
                .map_err(|e| ToolError::io(action.clone(), e))?;
        }
        file.sync_all().map_err(|e| ToolError::io(action, e))
    });
    drop(file);
    let renamed = filled.and_then(|()| {
        std::fs::rename(&temp, real).map_err(|e| ToolError::io(format!("writing {shown:?}"), e))
    });
    if let Err(e) = renamed {
        // Best effort: the temporary file is ours and useless now.
        let _ = std::fs::remove_file(&temp);
        return Err(e);
    }
    Ok(Written {
        replaced: existing.map(|meta| meta.len()),
    })
}

/// The metadata of the regular file at `real`, `None` when there is none;
/// a directory, a symlink (one appeared since [`resolve`]) or a special file
/// there is an error.
fn existing_file(root: &Path, real: &Path, shown: &str) -> Result<Option<Metadata>, ToolError> {
    match std::fs::symlink_metadata(real) {
        Ok(meta) if meta.is_dir() => Err(ToolError::failed(format!(
            "{shown:?} is a directory; give the path of a file"
        ))),
        Ok(meta) if meta.file_type().is_symlink() => Err(raced(root, shown)),
        Ok(meta) if !meta.is_file() => Err(ToolError::failed(format!(
            "{shown:?} is not a regular file (it is a FIFO, socket or device); \
             the file tools work on regular files only"
        ))),
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ToolError::io(format!("checking {shown:?}"), e)),
    }
}
