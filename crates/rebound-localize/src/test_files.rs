//! Telling test code from the code under test: by path (`tests/`,
//! `test_*.py`, `*.test.ts`…) and, for Rust, by `#[test]` and
//! `#[cfg(test)]` attributes.

use tree_sitter::{Node, Tree};

use super::definitions::{ancestors, node_at_line, text};
use super::languages::Language;

/// Directories whose files are tests.
const TEST_DIRS: &[&str] = &["tests", "test", "__tests__", "spec", "testing"];

/// Whether the file at `path` (relative, `/`-separated) is a test file:
/// under a `tests/`, `test/`, `__tests__/`, `spec/` or `testing/`
/// directory, or named like `test_*.py`, `*_test.py`, `conftest.py`,
/// `*_test.go`, `*.test.ts`, `*.spec.js`, `test_*.c`.
pub fn is_test_file(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let Some(name) = parts.pop() else {
        return false;
    };
    if parts.iter().any(|dir| TEST_DIRS.contains(dir)) {
        return true;
    }
    let stem = name.split('.').next().unwrap_or(name);
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem == "conftest"
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// Whether `line` of `source` is test code: in a test file, or (Rust)
/// inside a function or module marked `#[test]`, `#[cfg(test)]` (or any
/// attribute naming `test`), or a module named `tests`.
pub(crate) fn is_test_code(
    path: &str,
    tree: &Tree,
    source: &str,
    language: Language,
    line: u32,
) -> bool {
    if is_test_file(path) {
        return true;
    }
    if language != Language::Rust {
        return false;
    }
    node_at_line(tree, source, line).is_some_and(|node| in_rust_test(node, source))
}

/// Whether `node` is inside a Rust test function or test module.
pub fn in_rust_test(node: Node<'_>, source: &str) -> bool {
    ancestors(node).any(|n| match n.kind() {
        "function_item" => has_test_attribute(n, source),
        "mod_item" => {
            has_test_attribute(n, source)
                || n.child_by_field_name("name")
                    .is_some_and(|name| matches!(text(name, source).as_str(), "tests" | "test"))
        }
        _ => false,
    })
}

/// Whether the attributes just above `item` name `test`.
fn has_test_attribute(item: Node<'_>, source: &str) -> bool {
    let mut sibling = item.prev_sibling();
    while let Some(node) = sibling {
        match node.kind() {
            "attribute_item" => {
                let attribute = text(node, source);
                if attribute
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|word| word == "test")
                {
                    return true;
                }
            }
            "line_comment" | "block_comment" => {}
            _ => return false,
        }
        sibling = node.prev_sibling();
    }
    false
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::languages::parse_source;

    #[test]
    fn test_files_by_path() {
        for path in [
            "test_calc.py",
            "pkg/calc_test.py",
            "tests/helpers.py",
            "crates/x/tests/it.rs",
            "conftest.py",
            "main_test.go",
            "src/cart.test.ts",
            "src/__tests__/cart.js",
            "web/cart.spec.tsx",
        ] {
            assert!(is_test_file(path), "{path}");
        }
        for path in [
            "calc.py",
            "src/lib.rs",
            "contest.py",
            "attestation.py",
            "src/testing_utils.rs",
        ] {
            assert!(!is_test_file(path), "{path}");
        }
    }

    #[test]
    fn rust_test_functions_and_modules() {
        let source = "pub fn double(x: i32) -> i32 {\n    x * 2\n}\n\n#[cfg(test)]\nmod checks {\n    use super::*;\n\n    fn helper() -> i32 { 2 }\n\n    #[test]\n    fn doubles() {\n        assert_eq!(double(helper()), 4);\n    }\n}\n";
        let tree = parse_source(Language::Rust, source).unwrap();
        let at = |line| is_test_code("src/lib.rs", &tree, source, Language::Rust, line);
        assert!(!at(2));
        assert!(at(9));
        assert!(at(13));
        assert!(is_test_code(
            "tests/it.rs",
            &tree,
            source,
            Language::Rust,
            2
        ));
    }
}
