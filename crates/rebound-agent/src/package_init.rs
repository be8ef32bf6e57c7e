//! The harness's plan for a Python package that lost its `__init__.py`:
//! a check fails with `cannot import name 'load_items' from 'inventory'
//! (unknown location)` (or `module 'inventory' has no attribute
//! 'load_items'`) and the workspace has `inventory/` as a directory of
//! modules with no `__init__.py`, so Python imports it as an empty
//! namespace package. The plan writes `inventory/__init__.py` importing
//! each name the workspace's code takes from the package (`from inventory
//! import a, b`, `inventory.c`) from the one module of the package that
//! defines it. Names no module defines, or that two
//! define, are left out; with none found, the planner decides. Found on
//! dev: the planner edited `main.py`, which the goal said to keep, and
//! wrote placeholder functions.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::checks::clauses::single_quote;
use crate::checks::CheckResult;
use crate::localize::DefinitionKind;
use crate::PlanStep;

/// `cannot import name 'x' from 'pkg' (unknown location)`: the package
/// is group 1; `module 'pkg' has no attribute 'x'`: group 2.
static EMPTY_PACKAGE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"cannot import name '[A-Za-z_][A-Za-z0-9_]*' from '([A-Za-z_][A-Za-z0-9_]*)' \(unknown location\)|module '([A-Za-z_][A-Za-z0-9_]*)' has no attribute '[A-Za-z_][A-Za-z0-9_]*'"#,
    )
    .ok()
});

/// Most Python files read for the names taken from the package.
const MAX_FILES_READ: usize = 500;

/// The most names the written `__init__.py` imports.
const MAX_NAMES: usize = 60;

/// The plan for the first failing check in `results` that shows an
/// empty namespace package of the workspace; `None` when there is none,
/// no name could be placed, or `tried` holds the plan.
pub(crate) fn init_plan(
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let regex = EMPTY_PACKAGE.as_ref()?;
    let package = results
        .iter()
        .filter(|r| !r.passed)
        .flat_map(|r| regex.captures_iter(&r.output))
        .filter_map(|c| c.get(1).or_else(|| c.get(2)))
        .map(|m| m.as_str().to_string())
        .find(|package| {
            let dir = workspace.join(package);
            dir.is_dir() && !dir.join("__init__.py").exists()
        })?;
    let lines = init_lines(workspace, &package);
    if lines.is_empty() {
        return None;
    }
    let file = format!("{package}/__init__.py");
    let quoted: Vec<String> = lines.iter().map(|l| single_quote(l)).collect();
    let plan = vec![PlanStep::command(
        format!(
            "Write {file}: `{package}` has no __init__.py, so Python imports it empty; import the names the code takes from it from the modules that define them"
        ),
        format!(
            "set -C; printf '%s\\n' {} > {}",
            quoted.join(" "),
            single_quote(&file)
        ),
    )];
    (!tried.contains(&plan)).then_some(plan)
}

/// The `from .module import a, b` lines of `package`'s `__init__.py`: the
/// names the workspace's Python files take from it, each from the one
/// module directly in the package that defines it (tree-sitter's
/// definitions, methods left out).
fn init_lines(workspace: &Path, package: &str) -> Vec<String> {
    let wanted: Vec<String> = names_taken(workspace, package)
        .into_iter()
        .take(MAX_NAMES)
        .collect();
    let inside = format!("{package}/");
    let sites = crate::localize::find_definitions(workspace, &wanted);
    let mut by_module: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for name in &wanted {
        let mut defining = sites
            .iter()
            .filter(|site| site.span.name == *name && site.span.kind != DefinitionKind::Method)
            .filter_map(|site| {
                let module = site.file.strip_prefix(&inside)?.strip_suffix(".py")?;
                (!module.contains('/')).then_some(module)
            })
            .collect::<BTreeSet<&str>>()
            .into_iter();
        if let (Some(module), None) = (defining.next(), defining.next()) {
            by_module
                .entry(module.to_string())
                .or_default()
                .insert(name.clone());
        }
    }
    by_module
        .into_iter()
        .map(|(module, names)| {
            let names: Vec<String> = names.into_iter().collect();
            format!("from .{module} import {}", names.join(", "))
        })
        .collect()
}

/// The names the workspace's Python files (outside the package) take
/// from `package`: `from package import a, b` and `package.c`.
fn names_taken(workspace: &Path, package: &str) -> BTreeSet<String> {
    let escaped = regex::escape(package);
    let (Ok(from_import), Ok(attribute)) = (
        Regex::new(&format!(
            r"(?m)^\s*from\s+{escaped}\s+import\s+\(?([A-Za-z0-9_,\s]+)\)?"
        )),
        Regex::new(&format!(r"\b{escaped}\.([A-Za-z_][A-Za-z0-9_]*)")),
    ) else {
        return BTreeSet::new();
    };
    let mut names = BTreeSet::new();
    let inside = format!("{package}/");
    let files = crate::localize::source_files(workspace)
        .filter(|file| file.relative.ends_with(".py") && !file.relative.starts_with(&inside))
        .take(MAX_FILES_READ);
    for file in files {
        let source = file.source;
        for captures in from_import.captures_iter(&source) {
            let Some(list) = captures.get(1) else {
                continue;
            };
            for name in list.as_str().split(',') {
                // `a as b` imports `a`.
                if let Some(name) = name.split_whitespace().next() {
                    names.insert(name.to_string());
                }
            }
        }
        if source.contains(&format!("import {package}")) {
            for captures in attribute.captures_iter(&source) {
                if let Some(name) = captures.get(1) {
                    names.insert(name.as_str().to_string());
                }
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::checks::test_bash as bash;

    fn failing(output: &str) -> CheckResult {
        CheckResult {
            command: "python3 main.py".to_string(),
            passed: false,
            exit_code: Some(1),
            output: output.to_string(),
            duration_ms: 0,
        }
    }

    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("inventory")).unwrap();
        std::fs::write(
            root.join("inventory/loader.py"),
            "import csv\n\n\ndef load_items(path):\n    return []\n",
        )
        .unwrap();
        std::fs::write(
            root.join("inventory/pricing.py"),
            "LIMIT = 5\n\n\ndef total_value(items):\n    return 0\n\n\ndef low_stock(items):\n    return []\n",
        )
        .unwrap();
        std::fs::write(
            root.join("main.py"),
            "from inventory import load_items, low_stock as low\n\nprint(load_items('x'), low([]))\n",
        )
        .unwrap();
        std::fs::write(
            root.join("test_inventory.py"),
            "import inventory\n\nassert inventory.total_value([]) == 0\nassert inventory.LIMIT == 5\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn an_empty_namespace_package_gets_the_names_its_users_import() {
        let dir = workspace();
        let root = dir.path();
        let error =
            "ImportError: cannot import name 'load_items' from 'inventory' (unknown location)";
        let plan = init_plan(&[failing(error)], root, &[]).unwrap();
        let command = plan[0].command.clone().unwrap();
        let out = bash(root, &command);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            std::fs::read_to_string(root.join("inventory/__init__.py")).unwrap(),
            "from .loader import load_items\nfrom .pricing import LIMIT, low_stock, total_value\n"
        );
        for program in ["main.py", "test_inventory.py"] {
            let out = bash(root, &format!("python3 {program}"));
            assert!(out.status.success(), "{program}: {out:?}");
        }
        // It exists now: no plan, and the command never overwrites it.
        assert_eq!(init_plan(&[failing(error)], root, &[]), None);
        assert!(!bash(root, &command).status.success());
    }

    #[test]
    fn no_plan_for_other_errors_a_real_package_or_a_tried_plan() {
        let dir = workspace();
        let root = dir.path();
        let attribute = "AttributeError: module 'inventory' has no attribute 'total_value'";
        let plan = init_plan(&[failing(attribute)], root, &[]).unwrap();
        assert_eq!(init_plan(&[failing(attribute)], root, &[plan]), None);
        assert_eq!(
            init_plan(&[failing("NameError: name 'x' is not defined")], root, &[]),
            None
        );
        let outside = "cannot import name 'x' from 'os' (unknown location)";
        assert_eq!(init_plan(&[failing(outside)], root, &[]), None);
    }
}
