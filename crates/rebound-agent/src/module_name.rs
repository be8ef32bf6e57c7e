//! The harness's plan for a Python module whose file is named apart from
//! its import: a check fails with `No module named 'textutils'` while the
//! workspace holds `text_utils.py` (or `TextUtils.py`, `text-utils.py`)
//! where `textutils.py` would be. Names are compared without case, `_` and
//! `-`; a dotted module (`shop.pricing`) is looked for in its package's
//! directory. When exactly one file matches and no other Python file of
//! the workspace uses its current name, the plan renames it (`mv -n`, so
//! nothing is overwritten); otherwise this is left to the planner (a
//! rename would break the files that use the old name).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::checks::CheckResult;
use crate::PlanStep;

/// `No module named 'x.y'` (quoted or not), the module in group 1.
static MISSING_MODULE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"No module named ['"]?([A-Za-z_][A-Za-z0-9_.]*)['"]?"#).ok());

/// Most Python files read to see whether the old name is used elsewhere.
const MAX_FILES_READ: usize = 500;

/// The modules `output` says are missing (`No module named 'x.y'`), in
/// order, without a sentence's `.` after them.
pub(crate) fn missing_modules(output: &str) -> impl Iterator<Item = &str> {
    MISSING_MODULE.as_ref().into_iter().flat_map(move |regex| {
        regex
            .captures_iter(output)
            .filter_map(|c| c.get(1))
            .map(|m| m.as_str().trim_end_matches('.'))
    })
}

/// The rename plan for the first failing check in `results` whose missing
/// module is a workspace file named apart; `None` when there is none, the
/// file is one the goal protects (`protected`), or `tried` holds the plan.
pub fn rename_plan(
    results: &[CheckResult],
    workspace: &Path,
    protected: &[String],
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    results
        .iter()
        .filter(|r| !r.passed)
        .flat_map(|r| missing_modules(&r.output))
        .find_map(|module| {
            let (from, to) = named_apart(workspace, module)?;
            if protected.contains(&from) || used_elsewhere(workspace, &from) {
                return None;
            }
            let plan = vec![PlanStep::command(
                format!("Rename {from} to {to}: the code imports `{module}` (No module named '{module}')"),
                format!("mv -n {} {}", shell_word(&from), shell_word(&to)),
            )];
            (!tried.contains(&plan)).then_some(plan)
        })
}

/// The workspace file (relative path) that is `module` named apart, and
/// the path it should have: `None` unless exactly one matches and the
/// right name is free.
fn named_apart(workspace: &Path, module: &str) -> Option<(String, String)> {
    let mut segments: Vec<&str> = module.split('.').collect();
    let last = segments.pop()?;
    let dir: String = segments.iter().map(|s| format!("{s}/")).collect();
    let expected = format!("{dir}{last}.py");
    if workspace.join(&expected).exists() || workspace.join(format!("{dir}{last}")).is_dir() {
        return None;
    }
    let wanted = normalized(last);
    let matches: Vec<String> = std::fs::read_dir(workspace.join(&dir))
        .ok()?
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_string();
            let stem = name.strip_suffix(".py")?;
            (entry.file_type().ok()?.is_file() && normalized(stem) == wanted)
                .then(|| format!("{dir}{name}"))
        })
        .collect();
    match matches.as_slice() {
        [one] => Some((one.clone(), expected)),
        _ => None,
    }
}

/// A module name without case, `_` and `-`.
fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether a Python file of `workspace` other than `file` names `file`'s
/// module (as a word): renaming it would break that file.
fn used_elsewhere(workspace: &Path, file: &str) -> bool {
    let stem = Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let Ok(word) = Regex::new(&format!(r"\b{}\b", regex::escape(&stem))) else {
        return true;
    };
    crate::localize::source_files(workspace)
        .take(MAX_FILES_READ)
        .filter(|source| source.relative.ends_with(".py") && source.relative != file)
        .any(|source| word.is_match(&source.source))
}

/// `path` quoted for the shell when it needs it.
fn shell_word(path: &str) -> String {
    if path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c))
    {
        path.to_string()
    } else {
        crate::checks::clauses::single_quote(path)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn failed(output: &str) -> CheckResult {
        CheckResult {
            command: "python3 -m unittest".to_string(),
            passed: false,
            exit_code: Some(1),
            output: output.to_string(),
            duration_ms: 1,
        }
    }

    use crate::checks::test_workspace as workspace;

    const ERROR: &str = "ImportError: Failed to import test module: test_textutils\nModuleNotFoundError: No module named 'textutils'\n";

    #[test]
    fn a_module_file_named_apart_from_its_import_is_renamed() {
        let dir = workspace(&[
            ("text_utils.py", "def slug(s):\n    return s\n"),
            ("test_textutils.py", "from textutils import slug\n"),
        ]);
        let plan = rename_plan(&[failed(ERROR)], dir.path(), &[], &[]).unwrap();
        assert_eq!(
            plan[0].command.as_deref(),
            Some("mv -n text_utils.py textutils.py")
        );
        assert_eq!(
            rename_plan(&[failed(ERROR)], dir.path(), &[], &[plan]),
            None,
            "tried once"
        );
        let status = std::process::Command::new("bash")
            .arg("-c")
            .arg("mv -n text_utils.py textutils.py && python3 -c 'import textutils'")
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
    }

    #[test]
    fn a_dotted_module_is_looked_for_in_its_package() {
        let dir = workspace(&[("shop/__init__.py", ""), ("shop/Pricing.py", "RATE = 2\n")]);
        let output = "ModuleNotFoundError: No module named 'shop.pricing'";
        let plan = rename_plan(&[failed(output)], dir.path(), &[], &[]).unwrap();
        assert_eq!(
            plan[0].command.as_deref(),
            Some("mv -n shop/Pricing.py shop/pricing.py")
        );
    }

    #[test]
    fn no_rename_when_the_old_name_is_used_protected_ambiguous_or_absent() {
        let used = workspace(&[
            ("text_utils.py", "X = 1\n"),
            ("app.py", "import text_utils\n"),
        ]);
        assert_eq!(rename_plan(&[failed(ERROR)], used.path(), &[], &[]), None);
        let alone = workspace(&[("text_utils.py", "X = 1\n")]);
        let protected = ["text_utils.py".to_string()];
        assert_eq!(
            rename_plan(&[failed(ERROR)], alone.path(), &protected, &[]),
            None
        );
        let two = workspace(&[("text_utils.py", ""), ("TextUtils.py", "")]);
        assert_eq!(rename_plan(&[failed(ERROR)], two.path(), &[], &[]), None);
        let none = workspace(&[("other.py", "")]);
        assert_eq!(rename_plan(&[failed(ERROR)], none.path(), &[], &[]), None);
        let there = workspace(&[("textutils.py", ""), ("text_utils.py", "")]);
        assert_eq!(
            rename_plan(&[failed(ERROR)], there.path(), &[], &[]),
            None,
            "the right name exists: another problem"
        );
    }
}
