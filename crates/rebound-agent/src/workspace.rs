//! What the planner is told about the workspace: a short file listing.

use std::path::Path;

/// Up to `max` file paths of `root`, relative and sorted, skipping hidden
/// entries (`.git`, `.rebound`...) and caches; one per line.
pub(crate) fn listing(root: &Path, max: usize) -> String {
    let mut files = Vec::new();
    collect(root, root, 0, &mut files, max * 4);
    files.sort();
    let more = files.len().saturating_sub(max);
    files.truncate(max);
    let mut text = files.join("\n");
    if more > 0 {
        text.push_str(&format!("\n(and {more} more)"));
    }
    if text.is_empty() {
        text.push_str("(no files)");
    }
    text
}

fn collect(root: &Path, dir: &Path, depth: usize, files: &mut Vec<String>, cap: usize) {
    if depth > 3 || files.len() >= cap {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with('.')
            || name == "__pycache__"
            || name == "node_modules"
            || name == "target"
        {
            continue;
        }
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            collect(root, &path, depth + 1, files, cap);
        } else if let Ok(relative) = path.strip_prefix(root) {
            files.push(relative.to_string_lossy().to_string());
        }
        if files.len() >= cap {
            return;
        }
    }
}
