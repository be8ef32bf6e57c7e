//! File tools: read, write, edit and list files, confined to the workspace.
//!
//! Every path goes through [`resolve`], which follows symlinks the way the
//! kernel does and rejects anything that ends outside the workspace
//! ([`crate::ToolError::PathEscape`]). Between that check and the use of the
//! path something else (the shell tool, say) could swap a directory for a
//! symlink; the tools narrow that window as far as plain `std` allows:
//! files are opened with `O_NOFOLLOW` and the opened file is checked against
//! the workspace through `/proc/self/fd`; writes go to a fresh temporary file
//! (`O_EXCL`, checked the same way) renamed over the target, and directories
//! created for a write are checked again after they are made.
//!
//! The blocking file-system work runs on tokio's blocking pool.

mod edit;
mod list;
mod path;
mod read;
mod write;

use std::path::Path;
use std::sync::Arc;

pub use edit::{EditFile, EditFileArgs};
pub use list::{ListFiles, ListFilesArgs};
pub use path::resolve;
pub use read::{ReadFile, ReadFileArgs};
pub use write::{WriteFile, WriteFileArgs};

use crate::{Tool, ToolContext, ToolError, ToolRegistry};

/// The four file tools with their default settings: `read_file`,
/// `write_file`, `edit_file` and `list_files`.
pub fn file_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ReadFile::new()),
        Arc::new(WriteFile::new()),
        Arc::new(EditFile::new()),
        Arc::new(ListFiles::new()),
    ]
}

/// Adds [`file_tools`] to `registry`.
pub fn register_file_tools(registry: &mut ToolRegistry) {
    for tool in file_tools() {
        registry.register_arc(tool);
    }
}

/// Runs `work` on the blocking pool, unless the call is already cancelled.
async fn run_blocking<T, F>(ctx: &ToolContext, work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    if ctx.cancellation().is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolError::failed(format!("the file tool stopped unexpectedly: {e}")))?
}

/// `path` relative to `root`, `/`-separated, for the model (`.` for the
/// root itself; a path outside `root` as it is).
fn relative(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rest) if rest.as_os_str().is_empty() => ".".to_string(),
        Ok(rest) => rest
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.display().to_string(),
    }
}

/// `count` and the singular or plural `noun`: "1 line", "3 lines".
fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}
