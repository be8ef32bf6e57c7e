//! The planner's answer schema for one workspace: the grammar admits only
//! what exists. A step is one of four shapes, told apart by its `kind`:
//!
//! - `run` / `observe`: a `command` (required);
//! - `edit`: a `file` from an enum of the workspace's text files (the
//!   files the goal protects left out) and a `target` from an enum of the
//!   definitions tree-sitter finds in them, a line range `A-B`, or `""`
//!   for the whole file;
//! - `create`: a new `file`, a path with no spaces;
//! - `script`: a description only (the program is asked for apart).
//!
//! Every shape is written description first, then kind (the order of its
//! `required` list, which the local model's grammar follows): the model
//! says what the step does before it names the kind of step.
//!
//! A provider that enforces schemas (the local model's grammar) cannot
//! write a command as a file or code as a target. The enums are bounded
//! ([`MAX_FILE_CHOICES`], [`MAX_DEFINITION_CHOICES`]): past the bound the
//! field is free text of bounded length, and [`crate::step_check`] reads
//! it as before.

use std::path::Path;

use serde_json::{json, Value};

/// Most files an `edit` may choose from; a larger workspace gives a free
/// `file` field.
pub const MAX_FILE_CHOICES: usize = 80;

/// Most definition names a `target` may choose from; more give a free
/// `target` field.
pub const MAX_DEFINITION_CHOICES: usize = 200;

/// Longest definition name offered in the enum, in characters.
const MAX_NAME_CHARS: usize = 100;

/// Longest step description, command or free field, in characters (as
/// [`crate::PlanStep`]'s own schema bounds them).
const MAX_TEXT_CHARS: u64 = 300;

/// What an edit step may name in this workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StepChoices {
    /// The files an edit may change; `None` when there are too many to
    /// list (the field is free).
    pub files: Option<Vec<String>>,
    /// The definitions in them an edit may target; `None` when there are
    /// too many to list.
    pub definitions: Option<Vec<String>>,
    /// Targets no longer offered (`""` is the whole file): edits of them
    /// found nothing to change in this run. A name is refused in every
    /// file that has it; a line range is always offered.
    pub refused_targets: Vec<String>,
}

impl StepChoices {
    /// These choices without the targets of `edits` (edits whose model
    /// found nothing to change): see [`StepChoices::refused_targets`].
    pub fn without_targets_of(mut self, edits: &[crate::PlanStep]) -> StepChoices {
        for edit in edits {
            let (_, target) = crate::plan::edit_place(edit);
            if !self.refused_targets.iter().any(|t| t == target) {
                self.refused_targets.push(target.to_string());
            }
        }
        self
    }
}

/// The choices of `workspace`: its text files (sorted; binary files and
/// the `protected` ones left out) and the names of the definitions in
/// them (sorted, each once).
pub fn step_choices(workspace: &Path, protected: &[String]) -> StepChoices {
    let listed = crate::workspace::project_files(workspace, MAX_FILE_CHOICES + 1);
    let files: Vec<String> = listed
        .into_iter()
        .filter(|file| !protected.iter().any(|p| p == file))
        .filter(|file| !crate::workspace::is_binary(&workspace.join(file)))
        .collect();
    let files = (files.len() <= MAX_FILE_CHOICES).then_some(files);
    let mut names: Vec<String> = Vec::new();
    for source in crate::localize::source_files(workspace) {
        if files
            .as_ref()
            .is_some_and(|files| !files.contains(&source.relative))
        {
            continue;
        }
        let Some(tree) = crate::localize::parse_source(source.language, &source.source) else {
            continue;
        };
        for (_, span) in crate::localize::named_definitions(&tree, &source.source, source.language)
        {
            let name = span.name.trim();
            if !name.is_empty() && name.chars().count() <= MAX_NAME_CHARS && !name.contains('\n') {
                names.push(name.to_string());
            }
        }
    }
    names.sort();
    names.dedup();
    let definitions = (names.len() <= MAX_DEFINITION_CHOICES).then_some(names);
    StepChoices {
        files,
        definitions,
        refused_targets: Vec::new(),
    }
}

/// `base` (the schema of [`crate::plan::PlanAnswer`] or
/// [`crate::plan::PlanWithCheck`]) with its steps held to `choices`: see
/// the module's doc.
pub fn plan_schema(mut base: Value, choices: &StepChoices) -> Value {
    if let Some(steps) = base.pointer_mut("/properties/steps") {
        steps["items"] = step_schema(choices);
    }
    if let Some(Value::Object(defs)) = base.get_mut("$defs") {
        defs.remove("PlanStep");
        defs.remove("StepKind");
        if defs.is_empty() {
            if let Value::Object(object) = &mut base {
                object.remove("$defs");
            }
        }
    }
    base
}

/// One step: a union of the four shapes.
fn step_schema(choices: &StepChoices) -> Value {
    let text = json!({"type": "string", "maxLength": MAX_TEXT_CHARS});
    let shape = |kind: Value, fields: Vec<(&str, Value)>| {
        let mut properties = serde_json::Map::new();
        properties.insert("kind".into(), kind);
        properties.insert("description".into(), text.clone());
        // In this order (a grammar follows it): what the step does, in
        // words, then which kind of step that is, then its fields.
        let mut required = vec![json!("description"), json!("kind")];
        for (name, schema) in fields {
            properties.insert(name.into(), schema);
            required.push(json!(name));
        }
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    };
    let mut shapes = vec![shape(
        json!({"enum": ["run", "observe"]}),
        vec![("command", text.clone())],
    )];
    let no_files = choices.files.as_ref().is_some_and(Vec::is_empty);
    if !no_files {
        let file = match &choices.files {
            Some(files) => json!({"enum": files}),
            None => text.clone(),
        };
        let range = json!({"type": "string", "pattern": "^[0-9]{1,6}-[0-9]{1,6}$"});
        let target = match &choices.definitions {
            Some(names) => {
                let names: Vec<&str> = std::iter::once("")
                    .chain(names.iter().map(String::as_str))
                    .filter(|name| !choices.refused_targets.iter().any(|t| t == name))
                    .collect();
                if names.is_empty() {
                    range
                } else {
                    json!({"anyOf": [{"enum": names}, range]})
                }
            }
            None => json!({"type": "string", "maxLength": MAX_NAME_CHARS}),
        };
        shapes.push(shape(
            json!({"const": "edit"}),
            vec![("file", file), ("target", target)],
        ));
    }
    shapes.push(shape(
        json!({"const": "create"}),
        vec![(
            "file",
            json!({"type": "string", "pattern": "^[A-Za-z0-9_.][A-Za-z0-9_./-]*$"}),
        )],
    ));
    shapes.push(shape(json!({"const": "script"}), Vec::new()));
    json!({"anyOf": shapes})
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::plan::{PlanAnswer, PlanWithCheck};
    use crate::{PlanStep, StepKind};

    /// Files of different lengths as one slice of bytes.
    fn workspace(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        crate::checks::test_workspace(files)
    }

    fn shapes(schema: &Value) -> Vec<Value> {
        schema["properties"]["steps"]["items"]["anyOf"]
            .as_array()
            .unwrap()
            .clone()
    }

    fn shape<'a>(shapes: &'a [Value], kind: &str) -> Option<&'a Value> {
        shapes.iter().find(|s| {
            s["properties"]["kind"]["const"] == kind
                || s["properties"]["kind"]["enum"]
                    .as_array()
                    .is_some_and(|kinds| kinds.iter().any(|k| k == kind))
        })
    }

    #[test]
    fn an_edit_chooses_among_the_workspaces_text_files_and_their_definitions() {
        let dir = workspace(&[
            ("calc.py", b"def add(a, b):\n    return a - b\n\nclass Cart:\n    def total(self):\n        return 0\n"),
            ("test_calc.py", b"from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"),
            ("data/sales.csv", b"region,total\nNorth,1\n"),
            ("hello", &[0x7f, b'E', b'L', b'F', 0, 0, 1]),
            (".git/HEAD", b"ref: refs/heads/main\n"),
        ]);
        let choices = step_choices(dir.path(), &["data/sales.csv".to_string()]);
        assert_eq!(
            choices.files.as_deref(),
            Some(&["calc.py".to_string(), "test_calc.py".to_string()][..]),
            "binary, hidden and protected files are not offered"
        );
        let names = choices.definitions.clone().unwrap();
        for name in ["add", "Cart", "total", "test_add"] {
            assert!(names.contains(&name.to_string()), "{name} in {names:?}");
        }
        let schema = plan_schema(schemars::schema_for!(PlanAnswer).to_value(), &choices);
        let shapes = shapes(&schema);
        let edit = shape(&shapes, "edit").unwrap();
        assert_eq!(
            edit["properties"]["file"]["enum"],
            json!(["calc.py", "test_calc.py"])
        );
        let targets = &edit["properties"]["target"]["anyOf"];
        assert_eq!(targets[0]["enum"][0], "", "the whole file is a choice");
        assert!(targets[0]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("add")));
        assert_eq!(targets[1]["pattern"], "^[0-9]{1,6}-[0-9]{1,6}$");
        let run = shape(&shapes, "observe").unwrap();
        assert_eq!(run["required"], json!(["description", "kind", "command"]));
        assert!(shape(&shapes, "create").is_some());
        assert!(shape(&shapes, "script").is_some());
        assert!(
            schema.get("$defs").is_none(),
            "the type's own step schema is gone: {schema}"
        );
    }

    #[test]
    fn too_many_files_or_names_leave_the_field_free_and_no_files_leave_no_edit() {
        let many: Vec<(String, Vec<u8>)> = (0..=MAX_FILE_CHOICES)
            .map(|i| (format!("f{i:03}.txt"), b"x\n".to_vec()))
            .collect();
        let refs: Vec<(&str, &[u8])> = many
            .iter()
            .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
            .collect();
        let dir = workspace(&refs);
        let choices = step_choices(dir.path(), &[]);
        assert_eq!(choices.files, None);
        let schema = plan_schema(schemars::schema_for!(PlanAnswer).to_value(), &choices);
        let edit = shape(&shapes(&schema), "edit").unwrap().clone();
        assert_eq!(edit["properties"]["file"]["type"], "string");

        let source: String = (0..=MAX_DEFINITION_CHOICES)
            .map(|i| format!("def f{i}():\n    return {i}\n\n"))
            .collect();
        let dir = workspace(&[("many.py", source.as_bytes())]);
        let choices = step_choices(dir.path(), &[]);
        assert_eq!(choices.files.as_deref(), Some(&["many.py".to_string()][..]));
        assert_eq!(choices.definitions, None);
        let schema = plan_schema(schemars::schema_for!(PlanAnswer).to_value(), &choices);
        let edit = shape(&shapes(&schema), "edit").unwrap().clone();
        assert_eq!(edit["properties"]["target"]["type"], "string");

        let empty = workspace(&[]);
        let choices = step_choices(empty.path(), &[]);
        let schema = plan_schema(schemars::schema_for!(PlanAnswer).to_value(), &choices);
        assert!(
            shape(&shapes(&schema), "edit").is_none(),
            "nothing to edit: only new files"
        );
    }

    #[test]
    fn targets_that_needed_no_change_are_not_offered_and_a_range_always_is() {
        let dir = workspace(&[(
            "calc.py",
            b"def add(a, b):\n    return a - b\n\ndef sub(a, b):\n    return a - b\n",
        )]);
        let target = |refused: &[&str]| {
            let edits: Vec<PlanStep> = refused
                .iter()
                .map(|t| PlanStep::edit("fix", "calc.py", *t))
                .collect();
            let choices = step_choices(dir.path(), &[]).without_targets_of(&edits);
            let schema = plan_schema(schemars::schema_for!(PlanAnswer).to_value(), &choices);
            shape(&shapes(&schema), "edit").unwrap()["properties"]["target"].clone()
        };
        assert_eq!(target(&[])["anyOf"][0]["enum"], json!(["", "add", "sub"]));
        assert_eq!(target(&["add"])["anyOf"][0]["enum"], json!(["", "sub"]));
        assert_eq!(target(&[" sub ", ""])["anyOf"][0]["enum"], json!(["add"]));
        let none_left = target(&["", "add", "sub"]);
        assert_eq!(
            none_left,
            json!({"type": "string", "pattern": "^[0-9]{1,6}-[0-9]{1,6}$"}),
            "with every name refused, only a line range is left"
        );
    }

    #[test]
    fn the_check_stays_required_and_every_shape_reads_as_a_step() {
        let dir = workspace(&[("calc.py", b"def add(a, b):\n    return a - b\n")]);
        let choices = step_choices(dir.path(), &[]);
        let schema = plan_schema(schemars::schema_for!(PlanWithCheck).to_value(), &choices);
        assert_eq!(schema["required"][0], "check");
        let answer = json!({
            "check": "python3 -m pytest -q",
            "steps": [
                {"kind": "observe", "description": "see", "command": "ls"},
                {"kind": "edit", "description": "fix", "file": "calc.py", "target": "add"},
                {"kind": "create", "description": "notes", "file": "notes/todo.md"},
                {"kind": "script", "description": "count the lines of calc.py into n.txt"},
            ]
        });
        let plan: PlanWithCheck = serde_json::from_value(answer).unwrap();
        assert_eq!(plan.steps[1], PlanStep::edit("fix", "calc.py", "add"));
        assert_eq!(plan.steps[2].kind, StepKind::Create);
        assert_eq!(plan.steps[2].file.as_deref(), Some("notes/todo.md"));
        assert_eq!(plan.steps[3].kind, StepKind::Script);
    }
}
