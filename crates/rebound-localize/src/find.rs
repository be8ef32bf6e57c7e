//! Finding where a name is defined in the workspace: every source file the
//! walker allows (`.gitignore` respected, build and dependency directories
//! skipped) is parsed with tree-sitter, never matched with a regex.

use std::cmp::Ordering;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::definitions::{named_definitions, Span};
use super::languages::{Language, Parsers};
use super::paths::{normalize, MAX_FILE_BYTES};
use super::test_files::{in_rust_test, is_test_file};

/// The most files looked at in one search.
pub const MAX_FILES_SCANNED: usize = 5000;

/// Directories never searched: dependencies, build output, caches.
const SKIPPED_DIRS: &[&str] = &[
    "node_modules",
    "target",
    "__pycache__",
    "venv",
    ".venv",
    "dist",
    "build",
    ".git",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
];

/// Where a name is defined.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DefinitionSite {
    /// The file, relative to the workspace root.
    pub file: String,
    /// The definition.
    pub span: Span,
    /// Whether it is test code (a test file, or a Rust `#[cfg(test)]`
    /// module or `#[test]` function).
    pub in_test: bool,
}

/// The definitions (functions, methods, classes, structs, constants…)
/// named `name` in the workspace's source files: code under test first,
/// then test code; by file, then line. At most [`MAX_FILES_SCANNED`] files
/// of at most 1 MB are looked at; JSON files are not.
pub fn find_definition(workspace: &Path, name: &str) -> Vec<DefinitionSite> {
    find_definitions(workspace, &[name.to_string()])
}

/// The definitions named any of `names`, in one walk of the workspace,
/// ordered as [`find_definition`] orders them.
pub fn find_definitions(workspace: &Path, names: &[String]) -> Vec<DefinitionSite> {
    let names: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() {
        return Vec::new();
    }
    let mut parsers = Parsers::default();
    let mut sites = Vec::new();
    for file in source_files(workspace) {
        if file.language == Language::Json || !names.iter().any(|name| file.source.contains(name)) {
            continue;
        }
        let Ok(tree) = parsers.parse(file.language, &file.source) else {
            continue;
        };
        let test_file = is_test_file(&file.relative);
        for (node, span) in named_definitions(&tree, &file.source, file.language) {
            if names.contains(&span.name.as_str()) {
                let in_test = test_file
                    || (file.language == Language::Rust && in_rust_test(node, &file.source));
                sites.push(DefinitionSite {
                    file: file.relative.clone(),
                    span,
                    in_test,
                });
            }
        }
    }
    sites.sort_by(order);
    sites
}

/// Code under test first, then by file and line.
fn order(a: &DefinitionSite, b: &DefinitionSite) -> Ordering {
    (a.in_test, &a.file, a.span.start_line).cmp(&(b.in_test, &b.file, b.span.start_line))
}

/// A source file of the workspace, read.
pub struct SourceFile {
    /// Its path relative to the workspace root, with `/` separators.
    pub relative: String,
    /// Its language (JSON too).
    pub language: Language,
    /// Its text.
    pub source: String,
}

/// The workspace's files, sorted by path: `.gitignore` respected,
/// [`SKIPPED_DIRS`] and links not followed.
pub(crate) fn workspace_files(workspace: &Path) -> impl Iterator<Item = ignore::DirEntry> {
    ignore::WalkBuilder::new(workspace)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| {
            let skipped = entry.file_type().is_some_and(|t| t.is_dir())
                && entry.depth() > 0
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| SKIPPED_DIRS.contains(&name));
            !skipped
        })
        .build()
        .flatten()
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
}

/// The workspace's source files in a tree-sitter language, by path:
/// `.gitignore` respected, [`SKIPPED_DIRS`] and links not followed, files
/// over 1 MB or not UTF-8 left out, at most [`MAX_FILES_SCANNED`] looked
/// at.
pub fn source_files(workspace: &Path) -> impl Iterator<Item = SourceFile> + '_ {
    workspace_files(workspace)
        .filter_map(|entry| {
            let language = Language::from_path(entry.path())?;
            Some((entry, language))
        })
        .take(MAX_FILES_SCANNED)
        .filter_map(move |(entry, language)| {
            let relative = entry
                .path()
                .strip_prefix(workspace)
                .ok()
                .and_then(normalize)?;
            if entry.metadata().map_or(true, |m| m.len() > MAX_FILE_BYTES) {
                return None;
            }
            let source = std::fs::read_to_string(entry.path()).ok()?;
            Some(SourceFile {
                relative,
                language,
                source,
            })
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::definitions::DefinitionKind;

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    #[test]
    fn definitions_under_test_come_first() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                ("tests/test_calc.py", "def sub(a, b):\n    return 0\n"),
                (
                    "calc.py",
                    "# sub is below\n\n\ndef sub(a, b):\n    return b - a\n",
                ),
                ("node_modules/x/calc.js", "function sub() {}\n"),
                ("build/calc.py", "def sub(a, b):\n    pass\n"),
                ("notes.txt", "def sub(a, b):\n"),
                (
                    "lib/mod.rs",
                    "pub fn sub() {}\n#[cfg(test)]\nmod t {\n    fn sub() {}\n}\n",
                ),
            ],
        );
        let sites = find_definition(dir.path(), "sub");
        let found: Vec<(&str, u32, bool)> = sites
            .iter()
            .map(|s| (s.file.as_str(), s.span.start_line, s.in_test))
            .collect();
        assert_eq!(
            found,
            [
                ("calc.py", 4, false),
                ("lib/mod.rs", 1, false),
                ("lib/mod.rs", 4, true),
                ("tests/test_calc.py", 1, true),
            ]
        );
        assert_eq!(sites[0].span.kind, DefinitionKind::Function);
    }

    #[test]
    fn gitignored_files_and_unknown_names_are_not_found() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                (".gitignore", "generated/\n"),
                ("generated/calc.py", "def sub(a, b):\n    pass\n"),
                ("calc.py", "def add(a, b):\n    return a + b\n"),
            ],
        );
        assert_eq!(find_definition(dir.path(), "sub"), []);
        assert_eq!(find_definition(dir.path(), "missing"), []);
        assert_eq!(find_definition(dir.path(), ""), []);
    }
}
