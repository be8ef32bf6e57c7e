//! The harness's plan for a program that fails for want of its local
//! settings file when the project ships an example of it: a check that
//! runs a workspace script fails, the workspace has `digest.ini.example`
//! (or `.sample`, `.dist`, `.template`; or `config.example.yml` for
//! `config.yml`) and no `digest.ini`, and the script names `digest.ini`.
//! The plan is a copy of the example to that name, with no model call;
//! the checks then show what is left (a path in it to adjust, say), and
//! the planner repairs from there. The example itself is only read.
//! Found on dev: `python3 digest.py` died with `KeyError: 'paths'`, and
//! the planner wrote the digest by hand and rewrote the example instead.

use std::path::Path;

use crate::checks::clauses::single_quote;
use crate::checks::CheckResult;
use crate::PlanStep;

/// The words that mark a file as an example of another.
const EXAMPLE_WORDS: &[&str] = &["example", "sample", "dist", "template"];

/// The largest script read for the settings file's name.
const MAX_SCRIPT_BYTES: u64 = 1 << 20;

/// The plan for the first failing check in `results` that runs a
/// workspace script naming a settings file that is missing while its
/// example is there; `None` when there is none, or `tried` holds it.
pub(crate) fn example_copy_plan(
    results: &[CheckResult],
    workspace: &Path,
    tried: &[Vec<PlanStep>],
) -> Option<Vec<PlanStep>> {
    let examples = examples(workspace);
    if examples.is_empty() {
        return None;
    }
    results
        .iter()
        .filter(|r| !r.passed)
        .filter_map(|r| crate::checks::guard::script(&r.command))
        .filter_map(|script| script_text(&workspace.join(script.trim_start_matches("./"))))
        .find_map(|text| {
            let (example, target) = examples.iter().find(|(_, target)| {
                let name = target.rsplit('/').next().unwrap_or(target);
                text.contains(name)
            })?;
            let plan = vec![PlanStep::command(
                format!(
                    "Create {target} from {example}: the program reads {target}, which is missing, and the project ships its example"
                ),
                format!("cp -- {} {}", single_quote(example), single_quote(target)),
            )];
            (!tried.contains(&plan)).then_some(plan)
        })
}

/// The text of a script, when it is a small workspace file.
fn script_text(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SCRIPT_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The example files of the workspace's top folder and the folders in it
/// (hidden folders left out), each with the file it is an example of,
/// when that file does not exist: relative paths, sorted.
fn examples(workspace: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut folders = vec![String::new()];
    if let Ok(entries) = std::fs::read_dir(workspace) {
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|name| !name.starts_with('.') && name != "node_modules" && name != "target")
            .collect();
        names.sort();
        folders.extend(names);
    }
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(workspace.join(&folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            if !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let Some(target) = example_of(&name) else {
                continue;
            };
            let join = |file: &str| {
                if folder.is_empty() {
                    file.to_string()
                } else {
                    format!("{folder}/{file}")
                }
            };
            let target = join(&target);
            if !workspace.join(&target).exists() {
                found.push((join(&name), target));
            }
        }
    }
    found.sort();
    found
}

/// The name of the file `name` is an example of: `digest.ini.example` →
/// `digest.ini`, `.env.sample` → `.env`, `config.example.yml` →
/// `config.yml`; `None` for any other name.
fn example_of(name: &str) -> Option<String> {
    let parts: Vec<&str> = name.split('.').collect();
    let position = parts
        .iter()
        .enumerate()
        .skip(1)
        .rfind(|(_, part)| EXAMPLE_WORDS.contains(&part.to_lowercase().as_str()))
        .map(|(i, _)| i)?;
    let rest: Vec<&str> = parts
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != position)
        .map(|(_, part)| *part)
        .collect();
    let target = rest.join(".");
    (!target.is_empty() && target != "." && rest.iter().any(|p| !p.is_empty())).then_some(target)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn failed(command: &str) -> CheckResult {
        CheckResult {
            command: command.to_string(),
            passed: false,
            exit_code: Some(1),
            output: "KeyError: 'paths'".to_string(),
            duration_ms: 1,
        }
    }

    #[test]
    fn example_names_give_the_file_they_are_an_example_of() {
        assert_eq!(
            example_of("digest.ini.example").as_deref(),
            Some("digest.ini")
        );
        assert_eq!(example_of(".env.sample").as_deref(), Some(".env"));
        assert_eq!(
            example_of("config.example.yml").as_deref(),
            Some("config.yml")
        );
        assert_eq!(
            example_of("settings.toml.dist").as_deref(),
            Some("settings.toml")
        );
        assert_eq!(example_of("example.py"), None, "the first part is a name");
        assert_eq!(example_of("digest.ini"), None);
    }

    #[test]
    fn a_missing_settings_file_the_failing_script_names_is_copied_from_its_example() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("digest.py"), "config.read(HERE / \"digest.ini\")\n").unwrap();
        std::fs::write(ws.join("digest.ini.example"), "[paths]\n").unwrap();
        let plan = example_copy_plan(&[failed("python3 digest.py")], ws, &[]).unwrap();
        assert_eq!(
            plan[0].command.as_deref(),
            Some("cp -- 'digest.ini.example' 'digest.ini'")
        );
        assert!(
            example_copy_plan(&[failed("python3 digest.py")], ws, &[plan]).is_none(),
            "tried once"
        );
        assert!(
            example_copy_plan(&[failed("python3 other.py")], ws, &[]).is_none(),
            "a script that is not there names nothing"
        );
        std::fs::write(ws.join("digest.ini"), "[paths]\n").unwrap();
        assert!(
            example_copy_plan(&[failed("python3 digest.py")], ws, &[]).is_none(),
            "the file is there"
        );
    }

    #[test]
    fn a_script_that_does_not_name_the_file_gets_no_copy() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir(ws.join("conf")).unwrap();
        std::fs::write(ws.join("app.py"), "print('hi')\n").unwrap();
        std::fs::write(ws.join("conf/app.example.toml"), "").unwrap();
        assert!(example_copy_plan(&[failed("python3 app.py")], ws, &[]).is_none());
        std::fs::write(ws.join("app.py"), "open('conf/app.toml')\n").unwrap();
        let plan = example_copy_plan(&[failed("python3 app.py")], ws, &[]).unwrap();
        assert_eq!(
            plan[0].command.as_deref(),
            Some("cp -- 'conf/app.example.toml' 'conf/app.toml'")
        );
    }
}
