//! A task of an eval suite: a directory with a `task.toml` (the goal, the
//! check that judges it, an optional setup, the files the agent must not
//! change, a budget), a `workspace/` the agent gets a copy of, and an
//! optional `solution.sh`, the reference fix.
//!
//! A suite is split in two: the tasks under a directory named `dev` are
//! the ones to look at while improving the agent, those under `test` are
//! only reported (a mechanism found by reading a test task's failure does
//! not count). A task's [`Task::split`] is that directory's name.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The file that makes a directory a task.
pub const TASK_FILE: &str = "task.toml";
/// The directory copied for the agent.
pub const WORKSPACE_DIR: &str = "workspace";
/// The reference fix, run in the copy by `rebound eval --reference`.
pub const SOLUTION_FILE: &str = "solution.sh";
/// The names of the directories that make a split: a task directly in one
/// of them belongs to it.
pub const SPLITS: &[&str] = &["dev", "test"];
/// How deep below a given path tasks are looked for (`suite/dev/task` is
/// two levels).
const MAX_DEPTH: usize = 3;

/// What `task.toml` holds. Unknown keys are errors.
///
/// ```toml
/// goal = "Make the tests pass: `python3 -m unittest` must succeed."
/// check = "python3 -m unittest"      # run with bash in the copy; exit 0 = solved
/// setup = "bash \"$TASK_DIR/setup.sh\""   # optional, before the agent
/// protected = ["test_*.py"]          # files the agent must not change
/// [budget]
/// max_iters = 8
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    /// The request, as a user would type it.
    pub goal: String,
    /// The judge: a bash command run in the copy (with `TASK_DIR` set to
    /// the task's directory); exit code 0 means solved. Hidden from the
    /// agent unless the goal states it.
    pub check: String,
    /// A bash command run in the copy after its first commit, before the
    /// agent.
    #[serde(default)]
    pub setup: Option<String>,
    /// Glob patterns (from the workspace root; `*` stays within a
    /// directory, `**` crosses them) of files the agent must not change,
    /// create or delete: its tests, the check's inputs.
    #[serde(default)]
    pub protected: Vec<String>,
    /// The agent's budget for this task.
    #[serde(default)]
    pub budget: TaskBudget,
}

/// A task's budget.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskBudget {
    /// Review rounds (`rebound run --max-iters`).
    #[serde(default)]
    pub max_iters: Option<u32>,
}

/// A task found on disk.
#[derive(Debug, Clone)]
pub struct Task {
    /// Its name: the directory's name.
    pub name: String,
    /// Its directory (absolute).
    pub dir: PathBuf,
    /// The split it belongs to (`dev` or `test`: the name of the directory
    /// holding it, see [`SPLITS`]); empty when it is in neither.
    pub split: String,
    /// Its `task.toml`, or why it is unusable (naming the file, the key
    /// and the line).
    pub spec: Result<TaskSpec, String>,
}

impl Task {
    /// The workspace the agent gets a copy of.
    pub fn workspace(&self) -> PathBuf {
        self.dir.join(WORKSPACE_DIR)
    }
}

/// Reads the task in `dir`.
pub fn load(dir: &Path) -> Task {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let name = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().to_string(),
    );
    let file = dir.join(TASK_FILE);
    let spec = std::fs::read_to_string(&file)
        .map_err(|e| format!("{}: cannot read: {e}", file.display()))
        .and_then(|text| parse(&text, &file))
        .and_then(|spec| {
            let workspace = dir.join(WORKSPACE_DIR);
            if workspace.is_dir() {
                Ok(spec)
            } else {
                Err(format!(
                    "{}: the task has no {WORKSPACE_DIR}/ directory (the files the agent gets)",
                    dir.display()
                ))
            }
        });
    let split = dir
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().to_string())
        .filter(|n| SPLITS.contains(&n.as_str()))
        .unwrap_or_default();
    Task {
        name,
        dir,
        split,
        spec,
    }
}

/// Parses `text`, the contents of `file`.
fn parse(text: &str, file: &Path) -> Result<TaskSpec, String> {
    let spec: TaskSpec = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
        let message = e.message().trim().to_string();
        match line {
            Some(line) => format!("{}:{line}: {message}", file.display()),
            None => format!("{}: {message}", file.display()),
        }
    })?;
    for (key, value) in [("goal", &spec.goal), ("check", &spec.check)] {
        if value.trim().is_empty() {
            return Err(format!("{}: `{key}` is empty", file.display()));
        }
    }
    if spec.budget.max_iters == Some(0) {
        return Err(format!(
            "{}: `budget.max_iters` must be at least 1",
            file.display()
        ));
    }
    if let Some(bad) = spec
        .protected
        .iter()
        .find(|p| globset::Glob::new(p).is_err())
    {
        return Err(format!(
            "{}: `protected` has an invalid pattern {bad:?}",
            file.display()
        ));
    }
    Ok(spec)
}

/// The tasks under `paths`: a directory with a `task.toml` is a task;
/// otherwise the tasks in its subdirectories, looked for down to
/// [`MAX_DEPTH`] levels (sorted by path, so `dev/` comes before `test/`),
/// and the subdirectories without any are skipped. A path under which no
/// task is found is a task whose spec says so.
pub fn discover(paths: &[PathBuf]) -> Vec<Task> {
    let mut tasks = Vec::new();
    for path in paths {
        if path.join(TASK_FILE).is_file() {
            tasks.push(load(path));
            continue;
        }
        let mut found = Vec::new();
        task_dirs(path, MAX_DEPTH, &mut found);
        if found.is_empty() {
            let why = if path.is_dir() {
                format!("no {TASK_FILE} here or in its subdirectories")
            } else {
                "no such directory".to_string()
            };
            tasks.push(Task {
                name: path.display().to_string(),
                dir: path.clone(),
                split: String::new(),
                spec: Err(format!("{}: {why}", path.display())),
            });
        }
        tasks.extend(found.iter().map(|dir| load(dir)));
    }
    tasks
}

/// Appends the task directories below `dir` (not `dir` itself), in path
/// order, looking `depth` levels down.
fn task_dirs(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if depth == 0 {
        return;
    }
    let mut children: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    children.sort();
    for child in children {
        if child.join(TASK_FILE).is_file() {
            found.push(child);
        } else if child.file_name().is_some_and(|n| n != WORKSPACE_DIR) {
            task_dirs(&child, depth - 1, found);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn task(dir: &Path, name: &str, toml: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::create_dir_all(path.join(WORKSPACE_DIR)).unwrap();
        std::fs::write(path.join(TASK_FILE), toml).unwrap();
        path
    }

    #[test]
    fn a_valid_task_parses_with_its_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = task(dir.path(), "a", "goal = \"fix\"\ncheck = \"true\"\n");
        let task = load(&path);
        let spec = task.spec.unwrap();
        assert_eq!(spec.goal, "fix");
        assert_eq!(spec.setup, None);
        assert!(spec.protected.is_empty());
        assert_eq!(task.name, "a");
    }

    #[test]
    fn bad_task_files_name_the_file_the_key_and_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let unknown = task(dir.path(), "u", "goal = \"g\"\ncheck = \"c\"\nchek = 1\n");
        let error = load(&unknown).spec.unwrap_err();
        assert!(error.contains("task.toml:3:"), "{error}");
        assert!(error.contains("chek"), "{error}");
        let missing = task(dir.path(), "m", "goal = \"g\"\n");
        let error = load(&missing).spec.unwrap_err();
        assert!(error.contains("missing field `check`"), "{error}");
        let empty = task(dir.path(), "e", "goal = \" \"\ncheck = \"c\"\n");
        assert!(load(&empty).spec.unwrap_err().contains("`goal` is empty"));
        let zero = task(
            dir.path(),
            "z",
            "goal = \"g\"\ncheck = \"c\"\n[budget]\nmax_iters = 0\n",
        );
        assert!(load(&zero).spec.unwrap_err().contains("budget.max_iters"));
    }

    #[test]
    fn a_split_suite_lists_dev_then_test_and_names_each_tasks_split() {
        let dir = tempfile::tempdir().unwrap();
        task(
            &dir.path().join("test"),
            "a",
            "goal = \"g\"\ncheck = \"c\"\n",
        );
        task(
            &dir.path().join("dev"),
            "b",
            "goal = \"g\"\ncheck = \"c\"\n",
        );
        task(
            &dir.path().join("dev"),
            "c",
            "goal = \"g\"\ncheck = \"c\"\n",
        );
        task(
            &dir.path().join("other"),
            "d",
            "goal = \"g\"\ncheck = \"c\"\n",
        );
        let tasks = discover(&[dir.path().to_path_buf()]);
        let found: Vec<(&str, &str)> = tasks
            .iter()
            .map(|t| (t.split.as_str(), t.name.as_str()))
            .collect();
        assert_eq!(
            found,
            [("dev", "b"), ("dev", "c"), ("", "d"), ("test", "a")]
        );
        let one = discover(&[dir.path().join("test").join("a")]);
        assert_eq!(one[0].split, "test", "a task named alone keeps its split");
    }

    #[test]
    fn a_suite_directory_lists_its_tasks_in_order_and_skips_other_dirs() {
        let dir = tempfile::tempdir().unwrap();
        task(dir.path(), "b", "goal = \"g\"\ncheck = \"c\"\n");
        task(dir.path(), "a", "goal = \"g\"\ncheck = \"c\"\n");
        std::fs::create_dir(dir.path().join("notes")).unwrap();
        let tasks = discover(&[dir.path().to_path_buf()]);
        let names: Vec<&str> = tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        let none = discover(&[dir.path().join("notes")]);
        assert!(none[0].spec.as_ref().unwrap_err().contains("no task.toml"));
        assert!(tasks.iter().all(|t| t.split.is_empty()));
        let missing = discover(&[dir.path().join("nope")]);
        assert!(missing[0]
            .spec
            .as_ref()
            .unwrap_err()
            .ends_with("nope: no such directory"));
    }
}
