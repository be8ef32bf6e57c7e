//! The harness's plan for a Node program that fails on a package the
//! project never installed: a check that runs `npm ...` or `node ...` in
//! a project with a `package.json` and dies with `Cannot find module 'X'`
//! (CommonJS) or `Cannot find package 'X'` (ES modules), where `X` is a
//! package name (not a path, not a Node built-in, nothing of the
//! project). A package `package.json` declares is installed with `npm
//! install`; one it does not is added with `npm install X`, which writes
//! it into `package.json` and the lock file (npm's default). npm's cache
//! goes to the temp dir, the one place outside the workspace a sandboxed
//! command may write. Through the approval policy like any command.
//! Found on dev: `npm start` died on `Cannot find module 'ms'`, and the
//! planner edited the program it was told was fine; Python has the same
//! plan ([`crate::install::dependency_plan`]).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::checks::CheckResult;
use crate::PlanStep;

/// Node's message for a package it cannot find (the name is group 1).
static CANNOT_FIND: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"Cannot find (?:module|package) '([^'\s]{1,214})'").ok());

/// The plan for the first failing check in `results` that runs a Node
/// program missing a package: see the module's doc. `None` when there is
/// none, or `tried` already holds that plan.
pub fn node_dependency_plan(
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let manifest = std::fs::read_to_string(workspace.join("package.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&manifest).ok()?;
    results.iter().filter(|r| !r.passed).find_map(|result| {
        // `npm start`, or in a wrapper: `set -o pipefail; { npm start; } | ...`.
        let runs_node = result
            .command
            .split(|c: char| c.is_whitespace() || "{}();|&".contains(c))
            .any(|word| matches!(word, "npm" | "node"));
        if !runs_node {
            return None;
        }
        let package = CANNOT_FIND
            .as_ref()?
            .captures_iter(&result.output)
            .filter_map(|c| package_name(c.get(1)?.as_str()))
            .next()?;
        let top = package.rsplit('/').next().unwrap_or(&package);
        if workspace.join(format!("{top}.js")).exists() || workspace.join(top).is_dir() {
            return None;
        }
        let declared = ["dependencies", "devDependencies", "optionalDependencies"]
            .iter()
            .any(|field| manifest.get(field).and_then(|d| d.get(&package)).is_some());
        let cache = std::env::temp_dir().join("rebound-npm-cache");
        let cache = cache.to_str().filter(|c| plain(c))?;
        let options = format!("--no-audit --no-fund --cache {cache}");
        let step = if declared {
            PlanStep::command(
                format!(
                    "Install the packages package.json declares; `{}` lacks {package}",
                    result.command
                ),
                format!("npm install {options}"),
            )
        } else {
            PlanStep::command(
                format!(
                    "Add {package}, which `{}` needs, to package.json and install it",
                    result.command
                ),
                format!("npm install {options} {package}"),
            )
        };
        let plan = vec![step];
        (!tried.contains(&plan)).then_some(plan)
    })
}

/// The package of a module specifier: `ms`, `lodash` for `lodash/fp`,
/// `@scope/pkg` for `@scope/pkg/sub`; `None` for a path, a Node built-in
/// (`node:fs`) or anything a shell would expand.
fn package_name(specifier: &str) -> Option<String> {
    if specifier.starts_with(['.', '/']) || specifier.contains(':') || !plain(specifier) {
        return None;
    }
    let mut parts = specifier.split('/');
    let first = parts.next()?;
    let name = if first.starts_with('@') {
        format!("{first}/{}", parts.next()?)
    } else {
        first.to_string()
    };
    (!name.starts_with(['-', '_']) && name.len() > 1).then_some(name)
}

/// A word with nothing a shell would expand.
fn plain(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/@".contains(c))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::test_failed as failed;

    fn commands(plan: &[PlanStep]) -> Vec<String> {
        plan.iter()
            .filter_map(|s| s.command.clone())
            .map(|c| c.replace(&format!("--no-audit --no-fund --cache {}", cache()), "…"))
            .collect()
    }

    fn cache() -> String {
        std::env::temp_dir()
            .join("rebound-npm-cache")
            .display()
            .to_string()
    }

    const MISSING: &str = "node:internal/modules/cjs/loader:1080\n  throw err;\nError: Cannot find module 'ms'\nRequire stack:\n- /w/uptime.js\n";

    #[test]
    fn an_undeclared_package_is_added_and_a_declared_one_installed() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(
            ws.join("package.json"),
            r#"{"name": "u", "scripts": {"start": "node uptime.js"}}"#,
        )
        .unwrap();
        let result = failed(
            "set -o pipefail; { npm start; } | tail -n 40 | grep .",
            MISSING,
        );
        let plan = node_dependency_plan(std::slice::from_ref(&result), ws, &[]).unwrap();
        assert_eq!(commands(&plan), ["npm install … ms"]);
        assert_eq!(
            node_dependency_plan(std::slice::from_ref(&result), ws, &[plan]),
            None,
            "tried once"
        );
        std::fs::write(
            ws.join("package.json"),
            r#"{"dependencies": {"ms": "^2.1.3"}}"#,
        )
        .unwrap();
        let plan = node_dependency_plan(&[result], ws, &[]).unwrap();
        assert_eq!(commands(&plan), ["npm install …"]);
        let esm = failed(
            "node main.mjs",
            "Error [ERR_MODULE_NOT_FOUND]: Cannot find package '@scope/pkg' imported from /w/main.mjs",
        );
        let plan = node_dependency_plan(&[esm], ws, &[]).unwrap();
        assert_eq!(commands(&plan), ["npm install … @scope/pkg"]);
    }

    #[test]
    fn a_path_a_builtin_or_the_projects_own_module_is_not_installed() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let plan = |output: &str| node_dependency_plan(&[failed("npm test", output)], ws, &[]);
        assert_eq!(plan(MISSING), None, "no package.json");
        std::fs::write(ws.join("package.json"), "{}").unwrap();
        assert_eq!(plan("Error: Cannot find module './lib/util'"), None);
        assert_eq!(plan("Error: Cannot find module 'node:fsx'"), None);
        assert_eq!(plan("Error: Cannot find module '$(rm -rf ~)'"), None);
        std::fs::write(ws.join("ms.js"), "").unwrap();
        assert_eq!(plan(MISSING), None, "the project's own");
        assert_eq!(
            node_dependency_plan(&[failed("python3 a.py", "Cannot find module 'x'")], ws, &[]),
            None,
            "not a Node program"
        );
        assert_eq!(package_name("lodash/fp"), Some("lodash".into()));
    }
}
