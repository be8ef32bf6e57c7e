//! What a planner's step may be: an `edit` names a file of the workspace
//! (or a new one) and, in it, a definition, a line range or the whole
//! file; anything else is a command. A small model labels shell work as an
//! edit (`file: ".git"`, `target: "git init"`), puts code in a target
//! (`with open('report.txt','w') ...`) or a command in a file field. Each
//! step is read here before it runs: repaired when its intent is clear (a
//! command becomes a `run` step, code in a target becomes the instruction
//! of a whole-file edit), refused with a reason the planner sees when it
//! is not — never "edited the whole file" by accident.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::checks::detect_on_path;
use crate::edit::MAX_EDIT_LINES;
use crate::{PlanStep, StepKind};

/// Shell builtins and keywords a command in a file or target field may
/// start with (they are not files on `PATH`).
pub(crate) const SHELL_WORDS: &[&str] = &[
    "cd", "echo", "export", "printf", "source", "set", "unset", "test", "[", "mkdir", "for", "if",
    "while",
];

/// A step description that asks for git work: staging, committing,
/// amending, a git subcommand that changes history or the index (not a
/// bare "git": "add .env to .gitignore so git ignores it" is a file's
/// text). Found on dev: a small planner wrote `edit pager.py:
/// change the commit message` and `edit greet.py: add the new file to the
/// staging area`, and the harness asked for a rewrite of code that was
/// right; and `edit README.md: undo the last commit, but keep its changes
/// staged` (five model calls rewriting a README).
static GIT_WORK: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bstaging\s+area\b|\bcommit\s+message\b|\bamend(?:s|ed|ing)?\b|\bcommit\s+(?:the|all|my|these|those|it|them|changes)\b|\bgit\s+(?:add|commit|stage|branch|checkout|switch|merge|revert|rm|tag|reset|restore|rebase|stash|cherry-pick)\b|\b(?:undo|revert|drop|remove|reset)\s+(?:the\s+|that\s+)?(?:last|latest|previous|most\s+recent)\s+commit\b|\buncommit\b|\b(?:un)?staged\b|\bstage\s+(?:it|them|the|all|these|those|changes|files?)\b|\bstash\b|\bsquash\b|\bcherry-?pick\b|\brebase\b",
    )
    .ok()
});

/// A step, read: as planned, repaired, or refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// The step is what it says.
    Fine(PlanStep),
    /// The step was repaired into this one, for this reason.
    Repaired(PlanStep, String),
    /// The step cannot be run, for this reason.
    Refused(String),
    /// The step would do nothing useful and is left out of its plan, for
    /// this reason (a plan of only such steps is refused: it does
    /// nothing).
    Dropped(String),
}

/// Reads `step` against `workspace`, where the goal says not to change
/// the files `protected`: see the module's doc.
pub fn check_step(step: &PlanStep, workspace: &Path, protected: &[String]) -> Checked {
    let writes_a_file = matches!(step.kind, StepKind::Edit | StepKind::Create);
    if writes_a_file
        && GIT_WORK
            .as_ref()
            .is_some_and(|git| git.is_match(&step.description))
    {
        return Checked::Refused(
            "an edit or create step writes a file's text; git work (staging, committing, amending) is a `run` step with the git command".to_string(),
        );
    }
    match step.kind {
        StepKind::Edit => {
            let file = step.file.as_deref().unwrap_or_default().trim();
            let file = file.trim_start_matches("./");
            if protected.iter().any(|p| p == file) {
                return Checked::Refused(format!(
                    "the goal says not to change {file}: change another file"
                ));
            }
            check_edit(step, workspace)
        }
        StepKind::Create => check_create(step, workspace, protected),
        StepKind::Script => check_script(step, workspace),
        StepKind::Run | StepKind::Observe => check_command(step, workspace),
    }
}

/// A command that starts a workspace program by its bare name
/// (`total.sh`, which the shell looks for on `PATH`) runs that file
/// ([`crate::bare_program`]).
fn check_command(step: &PlanStep, workspace: &Path) -> Checked {
    let command = step.command.as_deref().unwrap_or_default();
    match crate::bare_program::repaired(command, workspace) {
        Some(fixed) => Checked::Repaired(
            PlanStep {
                command: Some(fixed.clone()),
                ..step.clone()
            },
            format!("`{command}` names a program of the project that is not on PATH: `{fixed}`"),
        ),
        None => Checked::Fine(step.clone()),
    }
}

/// A create step names one new file inside the project (a path that is
/// a command is a run step); a file that exists already is not created
/// again (a small model "adds the new files" a goal mentions that are
/// there): the step is dropped.
fn check_create(step: &PlanStep, workspace: &Path, protected: &[String]) -> Checked {
    let file = step.file.as_deref().map(str::trim).unwrap_or_default();
    let file = file.trim_start_matches("./");
    if file.is_empty() {
        return Checked::Refused("a create step must name the new file".to_string());
    }
    if protected.iter().any(|p| p == file) {
        return Checked::Refused(format!(
            "the goal says not to change {file}: write another file"
        ));
    }
    if file.split('/').any(|part| part == "..") || file.starts_with('/') {
        return Checked::Refused(format!("`{file}` is outside the project"));
    }
    let path = workspace.join(file);
    if is_command(file) && !path.exists() {
        return Checked::Repaired(
            PlanStep {
                kind: StepKind::Run,
                description: step.description.clone(),
                command: Some(file.to_string()),
                file: None,
                target: None,
            },
            format!("`{file}` is a command, not a file: a run step"),
        );
    }
    if path.is_dir() || file.ends_with('/') {
        return Checked::Refused(format!(
            "`{file}` is a directory: a create step writes one file (`mkdir` is a run step)"
        ));
    }
    if path.exists() {
        return Checked::Dropped(format!(
            "{file} exists: a create step writes a new file (to change {file}, edit it)"
        ));
    }
    Checked::Fine(step.clone())
}

/// A script step is written by the model from its description alone: one
/// that carries a command (in its command or target field) is that
/// command, a run step.
fn check_script(step: &PlanStep, workspace: &Path) -> Checked {
    let fields = [step.command.as_deref(), step.target.as_deref()];
    // A command that runs a script nobody wrote yet (`python3 check.py`)
    // names the program the step is to write: it stays a script step.
    let runnable = |command: &&str| {
        is_command(command)
            && crate::checks::guard::script(command)
                .is_none_or(|script| workspace.join(script.trim_start_matches("./")).exists())
    };
    match fields.into_iter().flatten().map(str::trim).find(runnable) {
        Some(command) => Checked::Repaired(
            PlanStep {
                kind: StepKind::Run,
                description: step.description.clone(),
                command: Some(command.to_string()),
                file: None,
                target: None,
            },
            format!("a script step with the command `{command}`: a run step"),
        ),
        None => Checked::Fine(step.clone()),
    }
}

fn check_edit(step: &PlanStep, workspace: &Path) -> Checked {
    let file = step.file.as_deref().map(str::trim).unwrap_or_default();
    let target = step.target.as_deref().map(str::trim).unwrap_or_default();
    let command = step.command.as_deref().map(str::trim).unwrap_or_default();
    let as_run = |command: &str, why: String| {
        Checked::Repaired(
            PlanStep {
                kind: StepKind::Run,
                description: step.description.clone(),
                command: Some(command.to_string()),
                file: None,
                target: None,
            },
            why,
        )
    };
    if file.is_empty() {
        if is_command(command) {
            return as_run(
                command,
                "an edit without a file, with a command: a run step".into(),
            );
        }
        return Checked::Refused("an edit must name the file it changes".to_string());
    }
    if is_command(file) && !workspace.join(file).exists() {
        let line = if target.is_empty() || is_whole_file(target) {
            file.to_string()
        } else {
            format!("{file} {target}")
        };
        return as_run(
            &line,
            format!("`{file}` is a command, not a file: a run step"),
        );
    }
    let path = workspace.join(file.trim_start_matches("./"));
    let is_dir = path.is_dir() || file.ends_with('/') || file == ".git";
    if is_dir {
        for candidate in [target, command] {
            if is_command(candidate) {
                return as_run(
                    candidate,
                    format!("`{file}` is a directory, and `{candidate}` a command: a run step"),
                );
            }
        }
        return Checked::Refused(format!(
            "`{file}` is a directory: an edit names one file (a command is a run step)"
        ));
    }
    if target.contains(char::is_whitespace) && is_command(target) {
        // `sed -i ... Makefile` as the target of an edit of the Makefile.
        return as_run(
            target,
            format!("the target of the edit of {file} is a command: a run step"),
        );
    }
    if file.split('/').any(|part| part == "..") || file.starts_with('/') {
        return Checked::Refused(format!("`{file}` is outside the project"));
    }
    if let (true, crate::edit::target::Target::Lines { start, end }) =
        (path.is_file(), crate::edit::target::parse_target(target))
    {
        let lines = std::fs::read_to_string(&path).map_or(0, |t| t.lines().count());
        if usize::try_from(start).unwrap_or(usize::MAX) > lines {
            // A range copied from an example (`12-20`) past a short file's end.
            if lines > MAX_EDIT_LINES as usize {
                return Checked::Refused(format!(
                    "{file} has {lines} lines: lines {start}-{end} are past its end"
                ));
            }
            return Checked::Repaired(
                PlanStep {
                    target: Some(String::new()),
                    ..step.clone()
                },
                format!(
                    "{file} has {lines} lines, and lines {start}-{end} are past its end: the whole file is edited"
                ),
            );
        }
    }
    if is_code(target) || (!path.exists() && !target.is_empty() && !is_whole_file(target)) {
        // Code, or a definition of a file that does not exist yet: the
        // edit writes the whole file, and the text is its instruction.
        let lines = std::fs::read_to_string(&path).map_or(0, |t| t.lines().count());
        if lines > MAX_EDIT_LINES as usize {
            return Checked::Refused(format!(
                "the target of the edit of {file} is code, not a definition or a line range, and the file is too long to rewrite whole"
            ));
        }
        let repaired = PlanStep {
            kind: StepKind::Edit,
            description: format!("{} ({})", step.description.trim_end(), target),
            command: None,
            file: Some(file.to_string()),
            target: Some(String::new()),
        };
        let why = if path.exists() {
            format!("the target of the edit of {file} is code: the whole file is rewritten with it as the instruction")
        } else {
            format!("{file} is a new file: it is written whole")
        };
        return Checked::Repaired(repaired, why);
    }
    Checked::Fine(step.clone())
}

/// Whether `text` is a shell command: its first word is a program on
/// `PATH` or a shell builtin, and it is not a bare file name.
fn is_command(text: &str) -> bool {
    let text = text.trim();
    let Some(first) = text.split_whitespace().next() else {
        return false;
    };
    if first.contains('.') && !text.contains(char::is_whitespace) {
        // `calc.py`, `report.txt`: a file name.
        return false;
    }
    SHELL_WORDS.contains(&first) || detect_on_path(first)
}

/// Whether a target names the whole file.
fn is_whole_file(target: &str) -> bool {
    matches!(
        target.to_lowercase().as_str(),
        "" | "file" | "whole file" | "the whole file" | "all" | "whole" | "entire file"
    )
}

/// Whether a target is code rather than a name or a line range: it spans
/// lines, starts like a statement, assigns, compares or ends one (`;`),
/// quotes text, or is a list no definition's name could be (`3,3,from x`).
fn is_code(target: &str) -> bool {
    if target.contains('\n') || target.contains(';') {
        return true;
    }
    let lower = target.to_lowercase();
    let statement = [
        "with ", "import ", "from ", "print(", "return ", "open(", "for ", "if ",
    ]
    .iter()
    .any(|start| lower.starts_with(start));
    let assignment = target.contains(" = ") || target.contains("==");
    let quoted_text = target.contains('\'') || target.contains('"');
    let list_like = target.contains(',')
        && target
            .split(',')
            .next()
            .is_some_and(|first| first.trim().chars().all(|c| c.is_ascii_digit()));
    statement || assignment || quoted_text || list_like
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn edit(file: &str, target: &str) -> PlanStep {
        PlanStep::edit("do it", file, target)
    }

    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("calc.py"),
            "def add(a, b):\n    return a + b\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("logs")).unwrap();
        dir
    }

    fn create(file: &str) -> PlanStep {
        PlanStep {
            kind: StepKind::Create,
            description: "write it".to_string(),
            file: Some(file.to_string()),
            ..PlanStep::default()
        }
    }

    #[test]
    fn a_create_step_names_one_new_file_inside_the_project() {
        let dir = workspace();
        let ws = dir.path();
        assert_eq!(
            check_step(&create("notes/todo.md"), ws, &[]),
            Checked::Fine(create("notes/todo.md"))
        );
        assert!(
            matches!(check_step(&create("calc.py"), ws, &[]), Checked::Dropped(why) if why.contains("calc.py exists")),
            "a file that exists is not created again"
        );
        let refused = |step: &PlanStep, protected: &[String]| match check_step(step, ws, protected)
        {
            Checked::Refused(why) => why,
            other => panic!("{other:?}"),
        };
        assert!(refused(&create(""), &[]).contains("must name"));
        assert!(refused(&create("../x.txt"), &[]).contains("outside"));
        assert!(refused(&create("logs"), &[]).contains("directory"));
        assert!(refused(&create("calc.py"), &["calc.py".to_string()]).contains("not to change"));
        let Checked::Repaired(step, _) = check_step(&create("git init"), ws, &[]) else {
            panic!()
        };
        assert_eq!(
            (step.kind, step.command.as_deref()),
            (StepKind::Run, Some("git init"))
        );
    }

    #[test]
    fn a_line_range_past_the_files_end_edits_the_whole_file() {
        let dir = workspace();
        let ws = dir.path();
        let Checked::Repaired(step, why) = check_step(&edit("calc.py", "12-20"), ws, &[]) else {
            panic!()
        };
        assert_eq!(step, edit("calc.py", ""));
        assert!(why.contains("calc.py has 2 lines"), "{why}");
        assert_eq!(
            check_step(&edit("calc.py", "2-2"), ws, &[]),
            Checked::Fine(edit("calc.py", "2-2"))
        );
        let long: String = (0..=MAX_EDIT_LINES).map(|i| format!("x = {i}\n")).collect();
        std::fs::write(ws.join("long.py"), long).unwrap();
        let far = MAX_EDIT_LINES + 10;
        assert!(matches!(
            check_step(&edit("long.py", &format!("{far}-{}", far + 5)), ws, &[]),
            Checked::Refused(why) if why.contains("past its end")
        ));
    }

    #[test]
    fn shell_work_labelled_as_an_edit_becomes_a_run_step() {
        let dir = workspace();
        let ws = dir.path();
        let Checked::Repaired(step, _) = check_step(&edit(".git", "git init"), ws, &[]) else {
            panic!()
        };
        assert_eq!(
            (step.kind, step.command.as_deref()),
            (StepKind::Run, Some("git init"))
        );
        let Checked::Repaired(step, why) = check_step(&edit("git add -A", ""), ws, &[]) else {
            panic!()
        };
        assert_eq!(step.command.as_deref(), Some("git add -A"));
        assert!(why.contains("command"), "{why}");
        let Checked::Repaired(step, _) = check_step(&edit("mkdir", "out"), ws, &[]) else {
            panic!()
        };
        assert_eq!(step.command.as_deref(), Some("mkdir out"));
    }

    #[test]
    fn a_run_step_that_names_a_project_program_bare_runs_its_file() {
        let dir = workspace();
        let ws = dir.path();
        let run = PlanStep::command("Run it", "calc.py | head -1");
        let Checked::Repaired(step, reason) = check_step(&run, ws, &[]) else {
            panic!()
        };
        assert_eq!(step.command.as_deref(), Some("python3 calc.py | head -1"));
        assert!(reason.contains("not on PATH"), "{reason}");
        let fine = PlanStep::command("Run it", "python3 calc.py");
        assert_eq!(check_step(&fine, ws, &[]), Checked::Fine(fine.clone()));
    }

    #[test]
    fn a_command_in_an_edits_target_or_a_script_step_is_a_run_step() {
        let dir = workspace();
        let ws = dir.path();
        let Checked::Repaired(step, _) =
            check_step(&edit("calc.py", "sed -i 's/a/b/' calc.py"), ws, &[])
        else {
            panic!()
        };
        assert_eq!(step.command.as_deref(), Some("sed -i 's/a/b/' calc.py"));
        let script = PlanStep {
            kind: StepKind::Script,
            description: "Check the Makefile".to_string(),
            target: Some("grep -r 'sqrt' Makefile".to_string()),
            ..PlanStep::default()
        };
        let Checked::Repaired(step, _) = check_step(&script, ws, &[]) else {
            panic!()
        };
        assert_eq!(
            (step.kind, step.command.as_deref()),
            (StepKind::Run, Some("grep -r 'sqrt' Makefile"))
        );
        let plain = PlanStep {
            kind: StepKind::Script,
            description: "Sum the sales per region into totals.txt".to_string(),
            ..PlanStep::default()
        };
        assert_eq!(check_step(&plain, ws, &[]), Checked::Fine(plain.clone()));
        let unwritten = PlanStep {
            target: Some("python3 count_errors.py".to_string()),
            ..plain.clone()
        };
        assert_eq!(
            check_step(&unwritten, ws, &[]),
            Checked::Fine(unwritten.clone()),
            "the script it runs is the one the step writes"
        );
    }

    #[test]
    fn a_directory_without_a_command_is_refused() {
        let dir = workspace();
        let Checked::Refused(why) = check_step(&edit("logs", "summary"), dir.path(), &[]) else {
            panic!()
        };
        assert!(why.contains("directory"), "{why}");
        assert!(matches!(
            check_step(&edit("../etc/passwd", "root"), dir.path(), &[]),
            Checked::Refused(_)
        ));
    }

    #[test]
    fn code_in_a_target_becomes_the_instruction_of_a_whole_file_edit() {
        let dir = workspace();
        let ws = dir.path();
        let code = "with open('report.txt','w') as f: f.write(x)";
        let Checked::Repaired(step, why) = check_step(&edit("report.txt", code), ws, &[]) else {
            panic!()
        };
        assert_eq!(step.target.as_deref(), Some(""));
        assert!(step.description.contains(code));
        assert!(why.contains("new file"), "{why}");
        let Checked::Repaired(step, _) =
            check_step(&edit("calc.py", "3,3,from x import y"), ws, &[])
        else {
            panic!()
        };
        assert_eq!(step.target.as_deref(), Some(""));
    }

    #[test]
    fn an_edit_of_a_file_the_goal_protects_is_refused() {
        let dir = workspace();
        let protected = vec!["calc.py".to_string()];
        let Checked::Refused(why) = check_step(&edit("./calc.py", "add"), dir.path(), &protected)
        else {
            panic!()
        };
        assert!(why.contains("not to change calc.py"), "{why}");
    }

    #[test]
    fn git_work_labelled_as_an_edit_is_refused_with_the_reason() {
        let dir = workspace();
        let ws = dir.path();
        for description in [
            "Edit pager.py to change the commit message to 'Fix pagination offset'",
            "Add the new file to the staging area",
            "Commit the changes with git",
            "Stage it with git add greet.py",
            "Undo the last commit, but keep its changes staged",
            "Squash the two fix-up commits",
            "Move the unstaged edits into a stash",
        ] {
            let mut step = edit("calc.py", "add");
            step.description = description.to_string();
            assert!(
                matches!(check_step(&step, ws, &[]), Checked::Refused(why) if why.contains("`run` step")),
                "{description}"
            );
        }
        let mut code = edit("calc.py", "add");
        code.description = "Make add() commit each value to the ledger, in stages".into();
        assert_eq!(check_step(&code, ws, &[]), Checked::Fine(code.clone()));
        let mut ignore = edit("calc.py", "");
        ignore.description = "Add .env to the ignore list so git stops showing it".into();
        assert_eq!(check_step(&ignore, ws, &[]), Checked::Fine(ignore.clone()));
    }

    #[test]
    fn a_real_edit_is_left_as_it_is() {
        let dir = workspace();
        let ws = dir.path();
        for (file, target) in [
            ("calc.py", "add"),
            ("calc.py", "def add"),
            ("calc.py", "1-2"),
            ("calc.py", ""),
            ("new.txt", ""),
        ] {
            let step = edit(file, target);
            assert_eq!(
                check_step(&step, ws, &[]),
                Checked::Fine(step.clone()),
                "{file} {target}"
            );
        }
        let run = PlanStep::command("build", "make");
        assert_eq!(check_step(&run, ws, &[]), Checked::Fine(run.clone()));
    }
}
