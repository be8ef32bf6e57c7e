//! `list_files`: the files under a directory, as `git` would see them.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{plural, relative, resolve, run_blocking};
use crate::{ToolContext, ToolError, ToolOutput, TypedTool};

/// Directories never listed (unless asked for by `path`).
const SKIPPED_DIRS: [&str; 2] = [".git", ".rebound"];

/// The arguments of `list_files`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFilesArgs {
    /// The directory to list, recursively, relative to the workspace. Default: "." (the whole workspace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Only files matching this glob. A pattern without "/" (like "*.py") matches file names at any depth; one with "/" (like "src/**/*.rs") matches paths, relative to `path` or to the workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    /// The most files to return. Default: 200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_entries: Option<usize>,
}

/// `list_files`: the files under a directory of the workspace, recursively,
/// as `/`-separated paths relative to the workspace, sorted. It respects
/// `.gitignore`, `.ignore` and `.git/info/exclude` (inside the workspace
/// only, and whether or not it is a git repository; not the user's global
/// excludes), lists dotfiles, and skips `.git` and `.rebound`. Symlinks are
/// listed, not followed. Past `max_entries` the list is cut, with a note
/// saying how many files there are.
#[derive(Debug, Clone)]
pub struct ListFiles {
    default_max_entries: usize,
    max_max_entries: usize,
    scan_limit: usize,
}

impl ListFiles {
    /// The tool: 200 files unless the model asks for more, at most 5,000;
    /// it stops counting after 100,000 files.
    pub fn new() -> Self {
        ListFiles {
            default_max_entries: 200,
            max_max_entries: 5_000,
            scan_limit: 100_000,
        }
    }
}

impl Default for ListFiles {
    fn default() -> Self {
        ListFiles::new()
    }
}

#[async_trait]
impl TypedTool for ListFiles {
    type Args = ListFilesArgs;
    const NAME: &'static str = "list_files";

    fn description(&self) -> &str {
        "List the files under a directory of the workspace, recursively, as paths relative to \
         the workspace, sorted. Files ignored by .gitignore and the .git and .rebound \
         directories are left out. Filter with `glob`: \"*.py\" matches file names at any \
         depth, \"src/**/*.rs\" matches paths."
    }

    async fn run(&self, args: ListFilesArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = ctx.workspace().to_path_buf();
        let settings = self.clone();
        let cancellation = ctx.cancellation().clone();
        run_blocking(ctx, move || settings.list(&root, &args, &cancellation)).await
    }
}

impl ListFiles {
    /// Lists what `args` asks for.
    fn list(
        &self,
        root: &Path,
        args: &ListFilesArgs,
        cancellation: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let limit = match args.max_entries {
            Some(0) => return Err(ToolError::failed("max_entries must be at least 1")),
            Some(n) => n.min(self.max_max_entries),
            None => self.default_max_entries,
        };
        let path = args.path.as_deref().unwrap_or(".");
        let filter = args.glob.as_deref().map(NameFilter::new).transpose()?;
        let target = resolve(root, path)?;
        match std::fs::metadata(&target) {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(ToolError::failed(format!(
                    "the directory {path:?} does not exist"
                )))
            }
            Err(e) => return Err(ToolError::io(format!("listing {path:?}"), e)),
        }
        let walk = self.walk(root, &target, filter.as_ref(), limit, cancellation)?;
        let shown_dir = relative(root, &target);
        let mut scope = format!("in {shown_dir}");
        if let Some(glob) = &args.glob {
            scope.push_str(&format!(" matching {glob:?}"));
        }
        let mut content = if walk.matched == 0 {
            format!("no files {scope} (files ignored by .gitignore are not listed)")
        } else {
            let count = if walk.stopped {
                format!("more than {}", plural(walk.matched, "file"))
            } else {
                plural(walk.matched, "file")
            };
            format!("{count} {scope}:\n{}", walk.files.join("\n"))
        };
        let truncated = walk.files.len() < walk.matched;
        if truncated {
            content.push_str(&format!(
                "\n[cut: showing {} of {}; narrow it with `path` or `glob`, or raise max_entries]",
                walk.files.len(),
                walk.matched
            ));
        }
        if walk.stopped {
            content.push_str(&format!(
                "\n[stopped counting after {} entries]",
                self.scan_limit
            ));
        }
        if walk.unreadable > 0 {
            let entries = match walk.unreadable {
                1 => "1 entry".to_string(),
                n => format!("{n} entries"),
            };
            content.push_str(&format!("\n[{entries} could not be read]"));
        }
        Ok(ToolOutput::ok(content).with_details(serde_json::json!({
            "path": shown_dir,
            "files": walk.files,
            "total": walk.matched,
            "truncated": truncated || walk.stopped,
        })))
    }

    /// Walks the workspace down to `target` and everything under it, so
    /// that the workspace's ignore files apply to any subdirectory.
    fn walk(
        &self,
        root: &Path,
        target: &Path,
        filter: Option<&NameFilter>,
        limit: usize,
        cancellation: &CancellationToken,
    ) -> Result<Walked, ToolError> {
        let keep: PathBuf = target.to_path_buf();
        let mut builder = WalkBuilder::new(root);
        builder
            .standard_filters(true)
            .hidden(false)
            .parents(false)
            .git_global(false)
            .require_git(false)
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(move |entry| {
                let path = entry.path();
                if keep.starts_with(path) {
                    return true;
                }
                let skipped = entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| SKIPPED_DIRS.contains(&name));
                !skipped && path.starts_with(&keep)
            });
        let mut walked = Walked::default();
        let mut scanned = 0usize;
        for entry in builder.build() {
            if cancellation.is_cancelled() {
                return Err(ToolError::Cancelled);
            }
            let entry = match entry {
                Ok(entry) => entry,
                Err(_) => {
                    walked.unreadable += 1;
                    continue;
                }
            };
            if entry.depth() == 0 || entry.file_type().is_none_or(|t| t.is_dir()) {
                continue;
            }
            let path = entry.path();
            let Ok(in_target) = path.strip_prefix(target) else {
                continue;
            };
            scanned += 1;
            if scanned > self.scan_limit {
                walked.stopped = true;
                break;
            }
            let from_root = relative(root, path);
            if filter.is_some_and(|f| !f.matches(&from_root, in_target, entry.file_name())) {
                continue;
            }
            walked.matched += 1;
            if walked.files.len() < limit {
                walked.files.push(from_root);
            }
        }
        walked.files.sort();
        Ok(walked)
    }
}

/// What a walk found.
#[derive(Debug, Default)]
struct Walked {
    /// The first files matched, relative to the workspace, sorted.
    files: Vec<String>,
    /// How many files matched.
    matched: usize,
    /// Whether it stopped at the scan limit.
    stopped: bool,
    /// How many entries could not be read.
    unreadable: usize,
}

/// A `glob` argument: a pattern without `/` matches file names, one with
/// `/` matches paths relative to the listed directory or the workspace.
struct NameFilter {
    matcher: GlobMatcher,
    names_only: bool,
}

impl NameFilter {
    /// The filter for `glob`; an invalid glob is an error saying why.
    fn new(glob: &str) -> Result<Self, ToolError> {
        let matcher = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| ToolError::failed(format!("invalid glob {glob:?}: {e}")))?
            .compile_matcher();
        Ok(NameFilter {
            matcher,
            names_only: !glob.contains('/'),
        })
    }

    /// Whether a file matches, given its path from the workspace, its path
    /// from the listed directory and its name.
    fn matches(&self, from_root: &str, in_target: &Path, name: &std::ffi::OsStr) -> bool {
        if self.names_only {
            self.matcher.is_match(name)
        } else {
            self.matcher.is_match(in_target) || self.matcher.is_match(from_root)
        }
    }
}
