//! The harness's plan for a check whose own tool is missing: a check that
//! runs a Python module (`python3 -m pytest`, `.venv/bin/python -m
//! pytest`) and fails with `No module named pytest` needs that module
//! installed into that interpreter's environment, not a code change. The
//! plan installs it with the same interpreter's pip (so a virtualenv gets
//! it, not the system), through the approval policy like any command.
//! Only the module the check itself runs is installed: a missing module
//! the project's code imports is the project's bug (a module named
//! differently), for the planner.

use crate::checks::CheckResult;
use crate::PlanStep;

/// The install plan for the first failing check in `results` that runs
/// `<python> -m <module>` and says `No module named <module>`; `None` when
/// there is none, or `tried` already holds that plan.
pub fn install_plan(results: &[CheckResult], tried: &[Vec<PlanStep>]) -> Option<Vec<PlanStep>> {
    results.iter().filter(|r| !r.passed).find_map(|result| {
        let (python, module) = python_module(&result.command)?;
        let missing = [
            format!("No module named {module}"),
            format!("No module named '{module}'"),
            format!("No module named \"{module}\""),
        ];
        if !missing.iter().any(|m| result.output.contains(m.as_str())) {
            return None;
        }
        let plan = vec![PlanStep::command(
            format!(
                "Install {module}, which `{}` runs, into {python}'s environment",
                result.command
            ),
            format!("{python} -m pip install {module}"),
        )];
        (!tried.contains(&plan)).then_some(plan)
    })
}

/// The interpreter and the module of `command`'s `<python> -m <module>`,
/// when its interpreter is a Python (`python3`, `.venv/bin/python`) and
/// both are plain words (nothing a shell would expand).
fn python_module(command: &str) -> Option<(String, String)> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "-m")?;
    let python = *words.get(at.checked_sub(1)?)?;
    let module = *words.get(at + 1)?;
    let name = python.rsplit('/').next().unwrap_or(python);
    let plain = |word: &str| {
        !word.is_empty()
            && !word.starts_with('-')
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c))
    };
    (name.starts_with("python") && plain(python) && plain(module) && module != "pip")
        .then(|| (python.to_string(), module.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(command: &str, output: &str) -> CheckResult {
        CheckResult {
            command: command.to_string(),
            passed: false,
            exit_code: Some(1),
            output: output.to_string(),
            duration_ms: 1,
        }
    }

    #[test]
    fn a_missing_runner_is_installed_with_the_checks_own_interpreter() {
        let result = failed(
            ".venv/bin/python -m pytest -q",
            "/w/.venv/bin/python: No module named pytest\n",
        );
        let plan = install_plan(std::slice::from_ref(&result), &[]).unwrap();
        assert_eq!(
            plan[0].command.as_deref(),
            Some(".venv/bin/python -m pip install pytest")
        );
        assert_eq!(install_plan(&[result], &[plan]), None, "tried once");
    }

    #[test]
    fn a_module_the_code_imports_is_not_installed() {
        let result = failed(
            "python3 -m pytest -q",
            "E   ModuleNotFoundError: No module named 'textutils'\n",
        );
        assert_eq!(install_plan(&[result], &[]), None);
        let other = failed("python3 app.py", "No module named app");
        assert_eq!(install_plan(&[other], &[]), None, "no -m");
        let expanded = failed("$PY -m pytest", "No module named pytest");
        assert_eq!(install_plan(&[expanded], &[]), None);
    }
}
