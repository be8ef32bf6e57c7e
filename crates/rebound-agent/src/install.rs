//! The harness's plan for a check whose own tool is missing: a check that
//! runs a Python module (`python3 -m pytest`, `.venv/bin/python -m
//! pytest`) and fails with `No module named pytest` needs that module
//! installed into that interpreter's environment, not a code change. The
//! plan installs it with the same interpreter's pip (so a virtualenv gets
//! it, not the system), through the approval policy like any command.
//! A missing module the project's code imports is the project's bug (a
//! module named differently, for the rename plan or the planner), unless
//! the program runs in a virtualenv and the module is nothing of the
//! project: then it is a dependency never installed ([`dependency_plan`]).

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

/// Import names whose package on the registry is named otherwise.
const PACKAGE_NAMES: &[(&str, &str)] = &[
    ("yaml", "PyYAML"),
    ("PIL", "Pillow"),
    ("cv2", "opencv-python"),
    ("bs4", "beautifulsoup4"),
    ("sklearn", "scikit-learn"),
    ("dateutil", "python-dateutil"),
    ("dotenv", "python-dotenv"),
];

/// The plan for a program a check runs with a virtualenv's Python that
/// fails on `No module named 'X'`, where `X` is nothing of the project
/// (no `X.py`, no `X/` in `workspace`): a third-party package the project
/// never installed. It is installed with that interpreter's pip (into the
/// virtualenv, not the system), and added to `requirements.txt` when the
/// project has one that lacks it. Tried after the rename plan (a module
/// named apart from its import is the project's own). Found on dev: `.venv/
/// bin/python disk_report.py` failed on `tabulate`, and the harness asked
/// the model to rewrite the script it was told not to change.
pub fn dependency_plan(
    results: &[CheckResult],
    workspace: &std::path::Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    results.iter().filter(|r| !r.passed).find_map(|result| {
        let python = result.command.split_whitespace().next()?;
        let name = python.rsplit('/').next().unwrap_or(python);
        if !python.contains("/bin/") || !name.starts_with("python") || python.starts_with('/') {
            return None;
        }
        let module = crate::module_name::missing_modules(&result.output).last()?;
        let top = module.split('.').next()?;
        if workspace.join(format!("{top}.py")).exists() || workspace.join(top).is_dir() {
            return None;
        }
        let package = PACKAGE_NAMES
            .iter()
            .find(|(import, _)| *import == top)
            .map_or(top, |(_, package)| package);
        let mut plan = vec![PlanStep::command(
            format!(
                "Install {package}, which `{}` imports, into {python}'s environment",
                result.command
            ),
            format!("{python} -m pip install {package}"),
        )];
        let requirements = workspace.join("requirements.txt");
        let listed = std::fs::read_to_string(&requirements).map(|text| {
            text.lines().any(|line| {
                let name = line
                    .split(['=', '<', '>', '~', '!', '[', ';', ' '])
                    .next()
                    .unwrap_or("");
                name.trim().eq_ignore_ascii_case(package)
            })
        });
        if matches!(listed, Ok(false)) {
            plan.push(PlanStep::command(
                format!("Declare {package} in requirements.txt"),
                format!("printf '%s\\n' {package} >> requirements.txt"),
            ));
        }
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
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::test_failed as failed;

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
    fn a_third_party_import_a_virtualenv_lacks_is_installed_and_declared() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("requirements.txt"), "requests==2.31\n").unwrap();
        let result = failed(
            ".venv/bin/python disk_report.py",
            "Traceback (most recent call last):\nModuleNotFoundError: No module named 'tabulate'\n",
        );
        let plan = dependency_plan(std::slice::from_ref(&result), ws, &[]).unwrap();
        let commands: Vec<&str> = plan.iter().filter_map(|s| s.command.as_deref()).collect();
        assert_eq!(
            commands,
            [
                ".venv/bin/python -m pip install tabulate",
                "printf '%s\\n' tabulate >> requirements.txt"
            ]
        );
        assert_eq!(
            dependency_plan(std::slice::from_ref(&result), ws, &[plan]),
            None,
            "tried once"
        );
        // Declared already: only installed; a known other package name.
        std::fs::write(ws.join("requirements.txt"), "PyYAML>=6\n").unwrap();
        let yaml = failed(".venv/bin/python a.py", "No module named 'yaml'");
        let plan = dependency_plan(&[yaml], ws, &[]).unwrap();
        assert_eq!(plan.len(), 1);
        assert_eq!(
            plan[0].command.as_deref(),
            Some(".venv/bin/python -m pip install PyYAML")
        );
        // The project's own module, the system's Python: not this plan.
        std::fs::write(ws.join("textutils.py"), "").unwrap();
        let own = failed(".venv/bin/python app.py", "No module named 'textutils'");
        assert_eq!(dependency_plan(&[own], ws, &[]), None);
        let system = failed("python3 disk_report.py", "No module named 'tabulate'");
        assert_eq!(dependency_plan(&[system], ws, &[]), None);
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
