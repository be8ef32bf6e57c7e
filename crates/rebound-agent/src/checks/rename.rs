//! "Rename the function calc_total in orders.py to order_total, and
//! update everything that calls it": the rename a goal asks for, and the
//! check that the old name is gone from the project's source files of
//! its language (definition, calls, an alias left behind). Tests show
//! that the new name works, not that the old one went: with them alone,
//! a new function added beside the old one passed as the rename (found
//! on dev, a false success). The check is a condition: it never settles
//! a goal alone.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::phrases::single_quote;

/// The rule of "rename X to Y".
pub const RULE_RENAME: &str = "rename";

/// "rename the function calc_total in orders.py to order_total",
/// "rename `Cart.sum` to `total`": the old name is group 1, the new
/// group 2 (the last segment of a dotted name).
static RENAME_CLAUSE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\brename\s+(?:the\s+)?(?:function|method|class|variable|constant|struct|type|field|helper)?\s*`?(?:[A-Za-z_][A-Za-z0-9_]*\.)*([A-Za-z_][A-Za-z0-9_]*)\(?\)?`?(?:\s+(?:in|from|of)\s+`?[A-Za-z0-9_./-]+`?)?\s+to\s+`?(?:[A-Za-z_][A-Za-z0-9_]*\.)*([A-Za-z_][A-Za-z0-9_]*)\(?\)?`?",
    )
    .ok()
});

/// The rename the goal asks for ("rename calc_total to order_total"), as
/// (old name, new name), when it names two different identifiers.
pub(crate) fn rename_names(goal: &str) -> Option<(String, String)> {
    let captures = RENAME_CLAUSE.as_ref()?.captures(goal)?;
    let from = captures.get(1)?.as_str().to_string();
    let to = captures.get(2)?.as_str().to_string();
    (from != to).then_some((from, to))
}

/// The check that the old name of the goal's rename appears nowhere, as
/// a word, in the workspace's files with the extension of a file that
/// defines it now (`*.py`): `None` when the goal asks for no rename or
/// nothing in the workspace defines the old name.
pub(crate) fn rename_check(goal: &str, workspace: &Path) -> Option<String> {
    let (from, _) = rename_names(goal)?;
    let mut extensions: Vec<String> = crate::localize::find_definition(workspace, &from)
        .into_iter()
        .filter_map(|site| {
            Path::new(&site.file)
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_string)
        })
        .filter(|e| e.chars().all(|c| c.is_ascii_alphanumeric()))
        .collect();
    extensions.sort();
    extensions.dedup();
    if extensions.is_empty() {
        return None;
    }
    let includes: Vec<String> = extensions
        .iter()
        .map(|e| format!("--include='*.{e}'"))
        .collect();
    Some(format!(
        "! grep -rnw {} --exclude-dir=.git --exclude-dir=.rebound --exclude-dir=node_modules --exclude-dir=target -e {} .",
        includes.join(" "),
        single_quote(&from)
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::checks::{assert_allowed, test_bash as bash};

    #[test]
    fn the_rename_is_read_from_the_goal() {
        assert_eq!(
            rename_names("Rename the function calc_total in orders.py to order_total, and update its callers."),
            Some(("calc_total".into(), "order_total".into()))
        );
        assert_eq!(
            rename_names("rename `Cart.sum()` to `total()`"),
            Some(("sum".into(), "total".into()))
        );
        assert_eq!(rename_names("Rename notes.txt to todo.txt"), None);
        assert_eq!(rename_names("Fix the rename of files."), None);
    }

    #[test]
    fn the_check_fails_while_the_old_name_is_left_anywhere_in_the_code() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("orders.py"),
            "def calc_total(items):\n    return 1\n",
        )
        .unwrap();
        std::fs::write(root.join("README.md"), "calc_total is documented\n").unwrap();
        let goal = "Rename calc_total to order_total.";
        let check = rename_check(goal, root).unwrap();
        assert!(!bash(root, &check).status.success());
        // The new function beside the old one, or an alias: not yet.
        std::fs::write(
            root.join("orders.py"),
            "def order_total(items):\n    return 1\n\n\ncalc_total = order_total\n",
        )
        .unwrap();
        let out = bash(root, &check);
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains("orders.py:5:"));
        std::fs::write(
            root.join("orders.py"),
            "def order_total(items):\n    return 1\n",
        )
        .unwrap();
        let out = bash(root, &check);
        assert!(out.status.success(), "{out:?}");
        // No rename asked, or nothing defines the old name: no check.
        assert_eq!(rename_check("Fix orders.py", root), None);
        assert_eq!(
            rename_check(goal, root),
            None,
            "calc_total is defined nowhere now"
        );
        assert_allowed(&check);
    }
}
