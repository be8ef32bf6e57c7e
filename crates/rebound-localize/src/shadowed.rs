//! A Python module a program replaced with a value of its own: `import os`
//! at the top, then `os = fields[2]` in a loop, so the next `os.path.join`
//! fails with `AttributeError: 'str' object has no attribute 'path'` — at
//! a line that is right, while the cause is the assignment elsewhere.
//! Found on dev: a small model's data script failed this way three times
//! in a row, each time shown only the traceback, which names the line of
//! `os.path` and not the assignment.
//!
//! Read from the syntax tree (tree-sitter): the names a program imports,
//! and the places it binds them again (an assignment, a `for` target, a
//! `with … as` or `except … as` name, a parameter).

use tree_sitter::Node;

use super::definitions::{preorder, row_to_line, text};
use super::languages::{parse_source, Language};

/// A name the program imports and then binds to another value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShadowedImport {
    /// The name (`os`).
    pub name: String,
    /// The line (from 1) of the import that binds it first; 0 when it
    /// was imported before the program's own lines (a harness's prelude).
    pub imported_at: u32,
    /// The line (from 1) that binds it again.
    pub bound_at: u32,
    /// That line's text, trimmed.
    pub binding: String,
}

impl ShadowedImport {
    /// One sentence for the program's author: what replaced the module and
    /// what to do.
    pub fn explain(&self, attribute: &str) -> String {
        let imported = if self.imported_at == 0 {
            "already imported for the program".to_string()
        } else {
            format!("imported on line {}", self.imported_at)
        };
        format!(
            "`{name}` is {imported}, but line {bound} (`{binding}`) binds `{name}` to another value, so `{name}.{attribute}` fails once that line has run: give that value another name.",
            name = self.name,
            bound = self.bound_at,
            binding = self.binding,
        )
    }

    /// The same, with its lines counted after the first `lines` of the
    /// source (a prelude the program's author did not write): `None` when
    /// the prelude itself binds the name again.
    pub fn after_prelude(mut self, lines: u32) -> Option<ShadowedImport> {
        self.bound_at = self.bound_at.checked_sub(lines).filter(|&line| line > 0)?;
        self.imported_at = self.imported_at.saturating_sub(lines);
        Some(self)
    }
}

/// The attribute a Python error says a value lacks, when the value is
/// not a module: `'str' object has no attribute 'path'` and `type object
/// 'datetime.datetime' has no attribute 'datetime'` give `path` and
/// `datetime`; `module 'os' has no attribute 'x'` (the module itself)
/// gives none. The last such line of `output` counts.
pub fn missing_attribute(output: &str) -> Option<String> {
    output.lines().rev().find_map(|line| {
        let message = line.trim().strip_prefix("AttributeError: ")?;
        if message.starts_with("module ") {
            return None;
        }
        let (_, rest) = message.split_once(" has no attribute '")?;
        let attribute = rest.split('\'').next()?;
        let is_identifier = attribute
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && attribute.chars().all(|c| c.is_alphanumeric() || c == '_');
        is_identifier.then(|| attribute.to_string())
    })
}

/// The imported names of the Python `source` that are used with
/// `.attribute` and bound again elsewhere in it, first import first (each
/// name once, with its first rebinding).
pub fn shadowed_imports(source: &str, attribute: &str) -> Vec<ShadowedImport> {
    let Some(tree) = parse_source(Language::Python, source) else {
        return Vec::new();
    };
    let root = tree.root_node();
    let mut imported: Vec<(String, u32)> = Vec::new();
    let mut used: Vec<String> = Vec::new();
    let mut bound: Vec<(String, u32)> = Vec::new();
    preorder(root, |node| match node.kind() {
        "import_statement" | "import_from_statement" => {
            for name in imported_names(node, source) {
                imported.push((name, row_to_line(node.start_position().row)));
            }
        }
        "attribute" => {
            let object = node.child_by_field_name("object");
            let field = node.child_by_field_name("attribute");
            if let (Some(object), Some(field)) = (object, field) {
                if object.kind() == "identifier" && text(field, source) == attribute {
                    used.push(text(object, source));
                }
            }
        }
        _ => {
            for target in binding_targets(node) {
                let mut names = Vec::new();
                identifiers(target, source, &mut names);
                for name in names {
                    bound.push((name, row_to_line(target.start_position().row)));
                }
            }
        }
    });
    let lines: Vec<&str> = source.lines().collect();
    let mut found: Vec<ShadowedImport> = Vec::new();
    for (name, first_import) in &imported {
        if found.iter().any(|f| f.name == *name) || !used.contains(name) {
            continue;
        }
        let Some(&(_, bound_at)) = bound.iter().find(|(n, _)| n == name) else {
            continue;
        };
        // The import the binding replaces: the last one before it.
        let imported_at = imported
            .iter()
            .filter(|(n, line)| n == name && *line < bound_at)
            .map(|(_, line)| *line)
            .next_back()
            .unwrap_or(*first_import);
        let name = name.clone();
        let binding = lines
            .get(
                usize::try_from(bound_at)
                    .unwrap_or(usize::MAX)
                    .saturating_sub(1),
            )
            .map(|line| line.trim().to_string())
            .unwrap_or_default();
        found.push(ShadowedImport {
            name,
            imported_at,
            bound_at,
            binding,
        });
    }
    found
}

/// The sentences that explain a Python program's `AttributeError` in
/// `output` by an import its `source` binds again ([`shadowed_imports`]);
/// empty when the output has no such error or the source no such name.
pub fn explain_attribute_error(source: &str, output: &str) -> String {
    explain_attribute_error_after(source, 0, output)
}

/// [`explain_attribute_error`] of a program whose first `prelude` lines
/// of `source` its author did not write: its lines are counted after
/// them, and a name the prelude imports counts as imported.
pub fn explain_attribute_error_after(source: &str, prelude: u32, output: &str) -> String {
    let Some(attribute) = missing_attribute(output) else {
        return String::new();
    };
    shadowed_imports(source, &attribute)
        .into_iter()
        .filter_map(|shadowed| shadowed.after_prelude(prelude))
        .map(|shadowed| shadowed.explain(&attribute))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names an import statement binds: `import os.path` binds `os`,
/// `import numpy as np` `np`, `from datetime import datetime as dt` `dt`.
fn imported_names(node: Node<'_>, source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        // `from X import ...`: X is not bound.
        if node.kind() == "import_from_statement"
            && node
                .child_by_field_name("module_name")
                .is_some_and(|module| module.id() == child.id())
        {
            continue;
        }
        let name = match child.kind() {
            "dotted_name" => child.named_child(0).map(|first| text(first, source)),
            "aliased_import" => child
                .child_by_field_name("alias")
                .map(|alias| text(alias, source)),
            _ => None,
        };
        names.extend(name);
    }
    names
}

/// The nodes that `node` binds names in: an assignment's left side, a
/// `for` loop's target, an `as` name, a parameter.
fn binding_targets(node: Node<'_>) -> Vec<Node<'_>> {
    let field = match node.kind() {
        "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => "left",
        "named_expression" => "name",
        "as_pattern" => "alias",
        "typed_parameter" | "default_parameter" | "typed_default_parameter" => "name",
        "parameters" | "lambda_parameters" => {
            let mut cursor = node.walk();
            return node
                .named_children(&mut cursor)
                .filter(|child| child.kind() == "identifier")
                .collect();
        }
        _ => return Vec::new(),
    };
    node.child_by_field_name(field).into_iter().collect()
}

/// The identifiers a binding target binds: itself, or those of a tuple or
/// list pattern (not an attribute's or a subscript's: `self.os = …` binds
/// no name).
fn identifiers(node: Node<'_>, source: &str, names: &mut Vec<String>) {
    match node.kind() {
        "identifier" => names.push(text(node, source)),
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "as_pattern_target"
        | "list_splat_pattern"
        | "parenthesized_expression"
        | "tuple"
        | "list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                identifiers(child, source, names);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The dev failure's shape: `os` imported, then bound to a regex's
    /// match in the loop that calls `os.path.join`.
    const SCRIPT: &str = "import os\nimport re\n\nhosts_dir = 'hosts'\nfor file in os.listdir(hosts_dir):\n    with open(os.path.join(hosts_dir, file)) as f:\n        content = f.read()\n    os = re.search(r'os = (.+)', content).group(1)\n    print(os)\n";

    const TRACEBACK: &str = "Traceback (most recent call last):\n  File \"/tmp/x/step1-1.py\", line 6, in <module>\n    with open(os.path.join(hosts_dir, file)) as f:\n              ^^^^^^^\nAttributeError: 'str' object has no attribute 'path'\n";

    #[test]
    fn the_attribute_a_value_lacks_is_read_from_the_error_and_a_module_s_own_is_not() {
        assert_eq!(missing_attribute(TRACEBACK).as_deref(), Some("path"));
        assert_eq!(
            missing_attribute(
                "AttributeError: type object 'datetime.datetime' has no attribute 'datetime'"
            )
            .as_deref(),
            Some("datetime")
        );
        assert_eq!(
            missing_attribute("AttributeError: module 'os' has no attribute 'joinpath'"),
            None
        );
        assert_eq!(missing_attribute("KeyError: 'path'"), None);
    }

    #[test]
    fn a_module_bound_again_in_a_loop_is_named_with_the_line_that_binds_it() {
        let found = shadowed_imports(SCRIPT, "path");
        assert_eq!(
            found,
            vec![ShadowedImport {
                name: "os".into(),
                imported_at: 1,
                bound_at: 8,
                binding: "os = re.search(r'os = (.+)', content).group(1)".into(),
            }]
        );
        let explained = explain_attribute_error(SCRIPT, TRACEBACK);
        assert!(explained.contains("line 8 (`os = re.search"), "{explained}");
        assert!(explained.contains("`os.path` fails"), "{explained}");
    }

    #[test]
    fn a_module_a_prelude_imported_is_counted_after_it() {
        let prelude = "import os, csv\nfrom pathlib import Path\n";
        let program = "for row in open('a'):\n    csv = row\n    csv.reader\n";
        let explained = explain_attribute_error_after(
            &format!("{prelude}{program}"),
            2,
            "AttributeError: 'str' object has no attribute 'reader'",
        );
        assert_eq!(
            explained,
            "`csv` is already imported for the program, but line 2 (`csv = row`) binds `csv` to another value, so `csv.reader` fails once that line has run: give that value another name."
        );
    }

    #[test]
    fn for_targets_as_names_parameters_and_aliases_bind_too() {
        let source = "import csv\nfrom datetime import datetime as dt\nimport json as j\n\ndef load(j):\n    return j.loads('1')\n\nfor csv in ['a']:\n    csv.reader\nwith open('f') as dt:\n    dt.now()\n";
        let names = |attribute: &str| -> Vec<(String, u32)> {
            shadowed_imports(source, attribute)
                .into_iter()
                .map(|s| (s.name, s.bound_at))
                .collect()
        };
        assert_eq!(names("reader"), vec![("csv".to_string(), 8)]);
        assert_eq!(names("now"), vec![("dt".to_string(), 10)]);
        assert_eq!(names("loads"), vec![("j".to_string(), 5)]);
    }

    #[test]
    fn a_program_that_binds_no_import_again_or_does_not_use_the_attribute_gets_nothing() {
        let fine = "import os\nname = 'x'\nprint(os.path.join('a', name))\n";
        assert!(shadowed_imports(fine, "path").is_empty());
        // Bound again, but the failing attribute is used on another name.
        let other = "import os\nos = 'x'\nrow = {}\nrow.path\n";
        assert!(shadowed_imports(other, "path").is_empty());
        // An attribute assignment binds no name.
        let field = "import os\nclass A:\n    pass\na = A()\na.os = 1\nos.path\n";
        assert!(shadowed_imports(field, "path").is_empty());
        assert_eq!(explain_attribute_error(fine, TRACEBACK), "");
        assert_eq!(explain_attribute_error(SCRIPT, "all good"), "");
    }
}
