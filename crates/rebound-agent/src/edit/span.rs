//! The span an edit replaces: a target (a definition's name, a line range
//! or the whole file) resolved against the file, with tree-sitter for
//! names.

use std::path::Path;

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::file::read_for_edit;
use super::target::{parse_target, Target};
use super::EditError;
use crate::localize::{enclosing_definition, named_definitions, parse_source};
use crate::localize::{DefinitionKind, Language, Span};

/// The most lines one edit may replace.
pub const MAX_EDIT_LINES: u32 = 150;

/// The most definition names listed when a target is not found.
const MAX_LISTED_NAMES: usize = 20;

/// The lines an edit replaces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditSpan {
    /// The file, relative to the workspace root, as resolved (`calc.py`
    /// for `./calc.py`).
    pub file: String,
    /// The first line, from 1.
    pub start_line: u32,
    /// The last line, inclusive; for a new or empty file `start_line` is 1
    /// and this is 0.
    pub end_line: u32,
    /// How to name it to a model or a user: `def subtract (lines 4-5)`,
    /// `lines 3-9`, `the whole file (12 lines)`, `a new file`.
    pub label: String,
    /// The original text of those lines, exactly, with their line ends.
    pub text: String,
    /// The file's language, when it has a tree-sitter grammar.
    pub language: Option<Language>,
    /// Whether the file exists; `false` when the edit creates it.
    pub exists: bool,
}

impl EditSpan {
    /// How many lines it has.
    pub fn line_count(&self) -> u32 {
        (self.end_line + 1).saturating_sub(self.start_line)
    }
}

/// The span of `file` (relative to `workspace`) that `target` names: the
/// whole file (`""`, `file`, `whole file`, `all`), a line range (`12-20`,
/// `lines 12-20`, `L7`…) or a definition (`subtract`, `def subtract`,
/// `Calc.subtract`…; when several have the name, the one containing
/// `hint_line`, else the first). An empty target with a `hint_line` names
/// the definition around that line when the file's language has a grammar.
/// A file that does not exist yet gives an empty span (the edit creates it).
pub fn resolve_target(
    workspace: &Path,
    file: &str,
    target: &str,
    hint_line: Option<u32>,
) -> Result<EditSpan, EditError> {
    let found = read_for_edit(workspace, file)?;
    let language = Language::from_path(&found.relative);
    let Some(source) = found.text else {
        return Ok(EditSpan {
            file: found.relative,
            start_line: 1,
            end_line: 0,
            label: "a new file".to_string(),
            text: String::new(),
            language,
            exists: false,
        });
    };
    let lines: Vec<&str> = source.split_inclusive('\n').collect();
    let total = u32::try_from(lines.len()).unwrap_or(u32::MAX);
    let whole_file = || (1, total, whole_file_label(total));
    let (start_line, end_line, label) = match parse_target(target) {
        Target::WholeFile => match (hint_line, language) {
            (Some(hint), Some(language)) if target.trim().is_empty() => {
                enclosing_definition(&source, language, hint)
                    .filter(|span| span.kind != DefinitionKind::Document)
                    .map_or_else(whole_file, |span| {
                        let label = definition_label(&span, language);
                        (span.start_line, span.end_line, label)
                    })
            }
            _ => whole_file(),
        },
        Target::Lines { start, end } => {
            let bad = |message: String| EditError::BadRange {
                file: found.relative.clone(),
                target: target.trim().to_string(),
                message,
            };
            if start == 0 {
                return Err(bad("lines are numbered from 1".to_string()));
            }
            if start > end {
                return Err(bad(format!("it starts after it ends ({start} > {end})")));
            }
            if start > total {
                return Err(bad(format!(
                    "the file has {total} line{}",
                    if total == 1 { "" } else { "s" }
                )));
            }
            let end = end.min(total);
            (start, end, lines_label(start, end))
        }
        Target::Name { name, qualifier } => {
            let span = find_named(&source, language, &name, qualifier.as_deref(), hint_line)
                .map_err(|message| EditError::TargetNotFound {
                    file: found.relative.clone(),
                    target: target.trim().to_string(),
                    message,
                })?;
            let label = language.map_or_else(
                || lines_label(span.start_line, span.end_line),
                |language| definition_label(&span, language),
            );
            (span.start_line, span.end_line, label)
        }
    };
    let count = (end_line + 1).saturating_sub(start_line);
    if count > MAX_EDIT_LINES {
        return Err(EditError::TooLarge {
            file: found.relative,
            label,
            lines: count,
            max: MAX_EDIT_LINES,
        });
    }
    let first = usize::try_from(start_line.saturating_sub(1)).unwrap_or(usize::MAX);
    let last = usize::try_from(end_line).unwrap_or(usize::MAX);
    let text = lines.get(first..last).unwrap_or_default().concat();
    Ok(EditSpan {
        file: found.relative,
        start_line,
        end_line,
        label,
        text,
        language,
        exists: true,
    })
}

/// The place where a new definition `name` is added to `file`: after its
/// last line (no line of the file is replaced, `text` is empty); a file
/// that does not exist yet is created.
pub fn end_of_file(workspace: &Path, file: &str, name: &str) -> Result<EditSpan, EditError> {
    let found = read_for_edit(workspace, file)?;
    let language = Language::from_path(&found.relative);
    let Some(source) = found.text else {
        return resolve_target(workspace, file, "", None);
    };
    let total = u32::try_from(source.split_inclusive('\n').count()).unwrap_or(u32::MAX);
    Ok(EditSpan {
        label: format!("a new definition `{name}`, added at the end"),
        file: found.relative,
        start_line: total.saturating_add(1),
        end_line: total,
        text: String::new(),
        language,
        exists: true,
    })
}

impl EditSpan {
    /// Whether this span is all of an existing file of `text`.
    pub fn is_whole_file(&self, text: &str) -> bool {
        self.exists
            && self.start_line <= 1
            && usize::try_from(self.end_line).is_ok_and(|end| end >= text.lines().count())
    }

    /// Whether this span adds code after the file's last line
    /// ([`end_of_file`]) instead of replacing lines.
    pub fn is_insertion(&self) -> bool {
        self.exists && self.text.is_empty() && self.start_line > self.end_line
    }
}

/// The definition named `name` in `source`: among several, the one inside
/// a definition or impl named `qualifier`, then the one containing
/// `hint_line`, else the first. The error says what the file has instead.
fn find_named(
    source: &str,
    language: Option<Language>,
    name: &str,
    qualifier: Option<&str>,
    hint_line: Option<u32>,
) -> Result<Span, String> {
    let no_names = "it has no named definitions that can be found; give a line range \
                    (`lines 3-9`) or `whole file`";
    let Some(language) = language else {
        return Err(
            "definitions are only found in Python, Rust, C, JavaScript, \
                    TypeScript and shell files; give a line range (`lines 3-9`) or \
                    `whole file`"
                .to_string(),
        );
    };
    let Some(tree) = parse_source(language, source) else {
        return Err(no_names.to_string());
    };
    let definitions = named_definitions(&tree, source, language);
    let mut matching: Vec<&(Node<'_>, Span)> = definitions
        .iter()
        .filter(|(_, span)| span.name == name)
        .collect();
    if matching.is_empty() {
        matching = definitions
            .iter()
            .filter(|(_, span)| span.name.eq_ignore_ascii_case(name))
            .collect();
    }
    if let Some(qualifier) = qualifier {
        let inside: Vec<_> = matching
            .iter()
            .copied()
            .filter(|(node, _)| inside_named(*node, qualifier, source))
            .collect();
        if !inside.is_empty() {
            matching = inside;
        }
    }
    let chosen = matching
        .iter()
        .find(|(_, span)| hint_line.is_some_and(|line| span.contains(line)))
        .or_else(|| matching.first());
    match chosen {
        Some((_, span)) => Ok(span.clone()),
        None if definitions.is_empty() => Err(no_names.to_string()),
        None => Err(listing(definitions.iter().map(|(_, span)| span))),
    }
}

/// Whether `node` is inside a definition named `qualifier`, or a Rust impl
/// of a type named so.
fn inside_named(node: Node<'_>, qualifier: &str, source: &str) -> bool {
    let field = |node: Node<'_>, field: &str| {
        node.child_by_field_name(field)
            .and_then(|n| source.get(n.start_byte()..n.end_byte()))
            .map(|text| text.split('<').next().unwrap_or(text).trim().to_string())
    };
    std::iter::successors(node.parent(), |n| n.parent()).any(|ancestor| {
        field(ancestor, "name").as_deref() == Some(qualifier)
            || (ancestor.kind() == "impl_item"
                && field(ancestor, "type").as_deref() == Some(qualifier))
    })
}

/// The names of `definitions`, at most [`MAX_LISTED_NAMES`], for a target
/// that named none of them.
fn listing<'a>(definitions: impl Iterator<Item = &'a Span>) -> String {
    let mut names: Vec<&str> = Vec::new();
    for span in definitions {
        if !names.contains(&span.name.as_str()) {
            names.push(&span.name);
        }
    }
    let shown: Vec<String> = names
        .iter()
        .take(MAX_LISTED_NAMES)
        .map(|name| format!("`{name}`"))
        .collect();
    let more = names.len().saturating_sub(MAX_LISTED_NAMES);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "its definitions are {}{more}; give one of them, a line range (`lines 3-9`) \
         or `whole file`",
        shown.join(", ")
    )
}

/// `def subtract (lines 4-5)`.
fn definition_label(span: &Span, language: Language) -> String {
    let keyword = span.kind.keyword(Some(language));
    let lines = lines_label(span.start_line, span.end_line);
    if span.name.is_empty() {
        format!("{keyword} ({lines})")
    } else {
        format!("{keyword} {} ({lines})", span.name)
    }
}

/// `lines 3-9`, `line 7`.
fn lines_label(start: u32, end: u32) -> String {
    if start == end {
        format!("line {start}")
    } else {
        format!("lines {start}-{end}")
    }
}

/// `the whole file (12 lines)`.
fn whole_file_label(total: u32) -> String {
    match total {
        0 => "the whole file (empty)".to_string(),
        1 => "the whole file (1 line)".to_string(),
        _ => format!("the whole file ({total} lines)"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    const CALC: &str = "import math\n\n\ndef add(a, b):\n    return a + b\n\n\nclass Calc:\n    def subtract(self, a, b):\n        return b - a\n\n    def add(self, a, b):\n        return a + b\n\n\ndef subtract(a, b):\n    return a - b\n";

    use crate::checks::test_workspace as workspace;

    /// The span's lines, label and text.
    fn cut(span: &EditSpan) -> (u32, u32, &str, &str) {
        (span.start_line, span.end_line, &span.label, &span.text)
    }

    #[test]
    fn a_definition_by_name() {
        let dir = workspace(&[("calc.py", CALC)]);
        let span = resolve_target(dir.path(), "./calc.py", "def add", None).unwrap();
        assert_eq!(
            span,
            EditSpan {
                file: "calc.py".into(),
                start_line: 4,
                end_line: 5,
                label: "def add (lines 4-5)".into(),
                text: "def add(a, b):\n    return a + b\n".into(),
                language: Some(Language::Python),
                exists: true,
            }
        );
        let by_name = resolve_target(dir.path(), "calc.py", " subtract() ", None).unwrap();
        assert_eq!(by_name.start_line, 9, "the first of two is taken");
        let at_hint = resolve_target(dir.path(), "calc.py", "subtract", Some(17)).unwrap();
        assert_eq!(
            cut(&at_hint),
            (
                16,
                17,
                "def subtract (lines 16-17)",
                "def subtract(a, b):\n    return a - b\n"
            )
        );
    }

    #[test]
    fn a_method_by_its_class() {
        let dir = workspace(&[("calc.py", CALC)]);
        let method = resolve_target(dir.path(), "calc.py", "Calc.add", None).unwrap();
        assert_eq!(
            cut(&method),
            (
                12,
                13,
                "def add (lines 12-13)",
                "    def add(self, a, b):\n        return a + b\n"
            )
        );
        let class = resolve_target(dir.path(), "calc.py", "class Calc", None).unwrap();
        assert_eq!((class.start_line, class.end_line), (8, 13));
        assert_eq!(class.label, "class Calc (lines 8-13)");
    }

    #[test]
    fn a_rust_method_by_its_impl() {
        let source = "struct A;\nstruct B;\n\nimpl A {\n    fn go(&self) {}\n}\n\nimpl B {\n    fn go(&self) {\n        let _ = 1;\n    }\n}\n";
        let dir = workspace(&[("src/lib.rs", source)]);
        let span = resolve_target(dir.path(), "src/lib.rs", "B::go", None).unwrap();
        assert_eq!(cut(&span).0..=cut(&span).1, 9..=11);
        assert_eq!(span.label, "fn go (lines 9-11)");
    }

    #[test]
    fn line_ranges() {
        let dir = workspace(&[("calc.py", CALC)]);
        let span = resolve_target(dir.path(), "calc.py", "lines 4-5", None).unwrap();
        assert_eq!(
            cut(&span),
            (4, 5, "lines 4-5", "def add(a, b):\n    return a + b\n")
        );
        let clamped = resolve_target(dir.path(), "calc.py", "L16-L99", None).unwrap();
        assert_eq!((clamped.start_line, clamped.end_line), (16, 17));
        let one = resolve_target(dir.path(), "calc.py", "line 1", None).unwrap();
        assert_eq!(cut(&one), (1, 1, "line 1", "import math\n"));
        for (target, message) in [
            ("9-4", "it starts after it ends (9 > 4)"),
            ("lines 30-40", "the file has 17 lines"),
            ("0-3", "lines are numbered from 1"),
        ] {
            assert_eq!(
                resolve_target(dir.path(), "calc.py", target, None),
                Err(EditError::BadRange {
                    file: "calc.py".into(),
                    target: target.into(),
                    message: message.into()
                })
            );
        }
    }

    #[test]
    fn the_whole_file_or_the_definition_at_the_hint() {
        let dir = workspace(&[("calc.py", CALC), ("Makefile", "all:\n\ttrue\n")]);
        let whole = resolve_target(dir.path(), "calc.py", "whole file", Some(5)).unwrap();
        assert_eq!(
            cut(&whole),
            (1, 17, "the whole file (17 lines)", CALC),
            "an explicit target wins over the hint"
        );
        let hinted = resolve_target(dir.path(), "calc.py", "", Some(10)).unwrap();
        assert_eq!(hinted.label, "def subtract (lines 9-10)");
        let outside_any = resolve_target(dir.path(), "calc.py", "", Some(1)).unwrap();
        assert_eq!(outside_any.label, "the whole file (17 lines)");
        let no_grammar = resolve_target(dir.path(), "Makefile", "", Some(2)).unwrap();
        assert_eq!(
            cut(&no_grammar),
            (1, 2, "the whole file (2 lines)", "all:\n\ttrue\n")
        );
        assert_eq!(no_grammar.language, None);
    }

    #[test]
    fn a_name_not_found_lists_the_definitions() {
        let dir = workspace(&[("calc.py", CALC), ("Makefile", "all:\n\ttrue\n")]);
        let error = resolve_target(dir.path(), "calc.py", "def multiply", None).unwrap_err();
        assert_eq!(
            error,
            EditError::TargetNotFound {
                file: "calc.py".into(),
                target: "def multiply".into(),
                message: "its definitions are `add`, `Calc`, `subtract`; give one of them, \
                          a line range (`lines 3-9`) or `whole file`"
                    .into()
            }
        );
        let error = resolve_target(dir.path(), "Makefile", "all", None);
        assert!(
            matches!(&error, Ok(span) if span.label.starts_with("the whole file")),
            "`all` is the whole file: {error:?}"
        );
        let error = resolve_target(dir.path(), "Makefile", "test", None).unwrap_err();
        assert!(error.to_string().contains("give a line range"), "{error}");
    }

    #[test]
    fn a_missing_file_is_created() {
        let dir = workspace(&[("calc.py", CALC)]);
        let span = resolve_target(dir.path(), "pkg/new.py", "def anything", Some(3)).unwrap();
        assert_eq!(
            span,
            EditSpan {
                file: "pkg/new.py".into(),
                start_line: 1,
                end_line: 0,
                label: "a new file".into(),
                text: String::new(),
                language: Some(Language::Python),
                exists: false,
            }
        );
        assert_eq!(span.line_count(), 0);
    }

    #[test]
    fn an_empty_file_is_an_empty_span() {
        let dir = workspace(&[("empty.py", "")]);
        let span = resolve_target(dir.path(), "empty.py", "", None).unwrap();
        assert_eq!(cut(&span), (1, 0, "the whole file (empty)", ""));
        assert!(span.exists);
    }

    #[test]
    fn paths_that_leave_the_workspace_are_refused() {
        let dir = workspace(&[("calc.py", CALC)]);
        assert_eq!(
            resolve_target(dir.path(), "../calc.py", "", None),
            Err(EditError::OutsideWorkspace("../calc.py".into()))
        );
        #[cfg(unix)]
        {
            let outside = workspace(&[("secret.py", "def add():\n    pass\n")]);
            std::os::unix::fs::symlink(
                outside.path().join("secret.py"),
                dir.path().join("link.py"),
            )
            .unwrap();
            assert_eq!(
                resolve_target(dir.path(), "link.py", "add", None),
                Err(EditError::OutsideWorkspace("link.py".into()))
            );
        }
    }

    #[test]
    fn a_span_too_large_is_refused() {
        let body: String = (0..200).map(|i| format!("    x{i} = {i}\n")).collect();
        let source = format!("def big():\n{body}\n\ndef small():\n    pass\n");
        let dir = workspace(&[("big.py", &source)]);
        assert_eq!(
            resolve_target(dir.path(), "big.py", "big", None),
            Err(EditError::TooLarge {
                file: "big.py".into(),
                label: "def big (lines 1-201)".into(),
                lines: 201,
                max: MAX_EDIT_LINES,
            })
        );
        let error = resolve_target(dir.path(), "big.py", "", None).unwrap_err();
        assert!(error.to_string().contains("205 lines"), "{error}");
        let small = resolve_target(dir.path(), "big.py", "small", None).unwrap();
        assert_eq!(small.line_count(), 2);
        let range = resolve_target(dir.path(), "big.py", "1-150", None).unwrap();
        assert_eq!(range.line_count(), 150);
    }
}
