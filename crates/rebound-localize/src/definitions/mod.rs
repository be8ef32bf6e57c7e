//! Definitions in a syntax tree: functions, methods, classes, structs,
//! impls… with their names and line spans; the innermost one around a
//! line, and all of them in a file. Which nodes are definitions in each
//! language is in [`nodes`].

mod nodes;

use std::fmt;

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Point, Tree};

use super::languages::{parse_source, Language};
use nodes::definition;

/// What a definition defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DefinitionKind {
    /// A free function (Python `def`, Rust `fn`, a C function, JS
    /// `function` or a function bound to a name).
    Function,
    /// A function defined in a class, impl or trait.
    Method,
    /// A class.
    Class,
    /// A Rust or C struct.
    Struct,
    /// An enum.
    Enum,
    /// A Rust or C union.
    Union,
    /// A Rust trait.
    Trait,
    /// A Rust `impl` block.
    Impl,
    /// A Rust `mod` or a TypeScript namespace.
    Module,
    /// A TypeScript interface.
    Interface,
    /// A type alias (Rust `type`, C `typedef`, TypeScript `type`).
    TypeAlias,
    /// A top-level constant or variable (Rust `const`/`static`, C globals,
    /// JS `const`, Python module-level assignments).
    Constant,
    /// A macro (`macro_rules!`, C `#define`).
    Macro,
    /// A JSON key whose value is an object or an array.
    Member,
    /// A whole JSON document.
    Document,
}

impl DefinitionKind {
    /// The word that introduces such a definition in `language`'s source
    /// (`def` in Python, `fn` in Rust), or a plain word where there is none.
    pub fn keyword(self, language: Option<Language>) -> &'static str {
        use DefinitionKind as K;
        use Language as L;
        match (self, language) {
            (K::Function | K::Method, Some(L::Python)) => "def",
            (K::Function | K::Method, Some(L::Rust)) => "fn",
            (K::Function | K::Method, Some(L::Go)) => "func",
            (K::Struct | K::Interface | K::TypeAlias, Some(L::Go)) => "type",
            (K::Constant, Some(L::Go)) => "const",
            (K::Function, Some(L::JavaScript | L::TypeScript | L::Tsx | L::Bash)) => "function",
            (K::Constant, Some(L::Rust | L::JavaScript | L::TypeScript | L::Tsx)) => "const",
            (K::Macro, Some(L::Rust)) => "macro_rules!",
            (K::Macro, Some(L::C)) => "#define",
            (K::TypeAlias, Some(L::C)) => "typedef",
            (K::TypeAlias, Some(L::Rust | L::TypeScript | L::Tsx)) => "type",
            (K::Module, Some(L::Rust)) => "mod",
            (K::Module, Some(L::TypeScript | L::Tsx)) => "namespace",
            (kind, _) => kind.word(),
        }
    }

    /// The kind in plain words.
    fn word(self) -> &'static str {
        match self {
            DefinitionKind::Function => "function",
            DefinitionKind::Method => "method",
            DefinitionKind::Class => "class",
            DefinitionKind::Struct => "struct",
            DefinitionKind::Enum => "enum",
            DefinitionKind::Union => "union",
            DefinitionKind::Trait => "trait",
            DefinitionKind::Impl => "impl",
            DefinitionKind::Module => "module",
            DefinitionKind::Interface => "interface",
            DefinitionKind::TypeAlias => "type",
            DefinitionKind::Constant => "constant",
            DefinitionKind::Macro => "macro",
            DefinitionKind::Member => "key",
            DefinitionKind::Document => "document",
        }
    }
}

impl fmt::Display for DefinitionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// A definition's name, kind and lines.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    /// Its name (`sub`; `Display for Cart` for an impl; the key of a JSON
    /// member; empty for a JSON document).
    pub name: String,
    /// What it defines.
    pub kind: DefinitionKind,
    /// Its first line (decorators included), from 1.
    pub start_line: u32,
    /// Its last line, from 1.
    pub end_line: u32,
}

impl Span {
    /// How many lines it has.
    pub fn line_count(&self) -> u32 {
        self.end_line.saturating_sub(self.start_line) + 1
    }

    /// Whether `line` is one of its lines.
    pub fn contains(&self, line: u32) -> bool {
        (self.start_line..=self.end_line).contains(&line)
    }
}

/// The innermost definition (function, method, class, struct, impl…)
/// containing `line` (from 1) of `source`; for JSON, the innermost key
/// whose value is an object or array, else the whole document. `None`
/// when no definition contains the line or the line is past the end.
pub fn enclosing_definition(source: &str, language: Language, line: u32) -> Option<Span> {
    let tree = parse_source(language, source)?;
    enclosing_in_tree(&tree, source, language, line)
}

/// [`enclosing_definition`] in a parsed tree.
pub(crate) fn enclosing_in_tree(
    tree: &Tree,
    source: &str,
    language: Language,
    line: u32,
) -> Option<Span> {
    let node = node_at_line(tree, source, line)?;
    let found = ancestors(node).find_map(|n| definition(n, source, language));
    match found {
        Some(span) => Some(span),
        None if language == Language::Json => Some(Span {
            name: String::new(),
            kind: DefinitionKind::Document,
            start_line: 1,
            end_line: line_count(source),
        }),
        None => None,
    }
}

/// The smallest node at the first non-blank column of `line` (from 1).
pub(crate) fn node_at_line<'t>(tree: &'t Tree, source: &str, line: u32) -> Option<Node<'t>> {
    let row = usize::try_from(line.checked_sub(1)?).ok()?;
    let text = source.split('\n').nth(row)?;
    let column = text.len() - text.trim_start().len();
    let point = Point::new(row, column);
    tree.root_node().descendant_for_point_range(point, point)
}

/// `node` and its ancestors, innermost first.
pub(crate) fn ancestors(node: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    std::iter::successors(Some(node), |n| n.parent())
}

/// The number of lines of `source` (a final newline ends the last line).
pub(crate) fn line_count(source: &str) -> u32 {
    let lines = source
        .strip_suffix('\n')
        .unwrap_or(source)
        .split('\n')
        .count();
    u32::try_from(lines).unwrap_or(u32::MAX)
}

/// Every named definition in `tree` (not impls, JSON members or
/// documents), outermost first.
pub fn named_definitions<'t>(
    tree: &'t Tree,
    source: &str,
    language: Language,
) -> Vec<(Node<'t>, Span)> {
    let mut found = Vec::new();
    preorder(tree.root_node(), |node| {
        if let Some(span) = definition(node, source, language) {
            if !matches!(
                span.kind,
                DefinitionKind::Impl | DefinitionKind::Member | DefinitionKind::Document
            ) {
                found.push((node, span));
            }
        }
    });
    found
}

/// Calls `visit` on every node under `root` (itself included), parents
/// before their children, in source order.
pub fn preorder<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    let mut descending = true;
    loop {
        if descending {
            visit(cursor.node());
            if cursor.goto_first_child() {
                continue;
            }
        }
        if cursor.goto_next_sibling() {
            descending = true;
            continue;
        }
        if !cursor.goto_parent() {
            break;
        }
        descending = false;
    }
}

/// The source text of `node`.
pub(crate) fn text(node: Node<'_>, source: &str) -> String {
    source
        .get(node.start_byte()..node.end_byte())
        .unwrap_or_default()
        .to_string()
}

/// A 0-based row as a line from 1.
pub(crate) fn row_to_line(row: usize) -> u32 {
    u32::try_from(row).map_or(u32::MAX, |r| r.saturating_add(1))
}

/// The last line of `node` (a node that ends at the start of a line, like
/// a C `#define` with its newline, ends on the line before).
pub(crate) fn end_line(node: Node<'_>) -> u32 {
    let start = node.start_position().row;
    let end = node.end_position();
    if end.column == 0 && end.row > start {
        row_to_line(end.row - 1)
    } else {
        row_to_line(end.row)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn span(name: &str, kind: DefinitionKind, start_line: u32, end_line: u32) -> Span {
        Span {
            name: name.into(),
            kind,
            start_line,
            end_line,
        }
    }

    #[test]
    fn python_functions_methods_and_classes() {
        let source = "import os\n\nLIMIT = 3\n\n\nclass Cart:\n    @property\n    def total(self):\n        return 1\n\n    size = 2\n\n\ndef sub(a, b):\n    return b - a\n";
        let at = |line| enclosing_definition(source, Language::Python, line);
        assert_eq!(at(1), None);
        assert_eq!(at(3), Some(span("LIMIT", DefinitionKind::Constant, 3, 3)));
        assert_eq!(at(9), Some(span("total", DefinitionKind::Method, 7, 9)));
        assert_eq!(at(11), Some(span("Cart", DefinitionKind::Class, 6, 11)));
        assert_eq!(at(15), Some(span("sub", DefinitionKind::Function, 14, 15)));
        assert_eq!(at(99), None);
        assert_eq!(at(0), None);
    }

    #[test]
    fn rust_items() {
        let source = "struct Cart {\n    items: Vec<u32>,\n}\n\nimpl Cart {\n    fn total(&self) -> u32 {\n        self.items.iter().sum()\n    }\n\n    const MAX: u32 = 3;\n}\n\nimpl std::fmt::Display for Cart {\n    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {\n        write!(f, \"cart\")\n    }\n}\n";
        let at = |line| enclosing_definition(source, Language::Rust, line);
        assert_eq!(at(2), Some(span("Cart", DefinitionKind::Struct, 1, 3)));
        assert_eq!(at(7), Some(span("total", DefinitionKind::Method, 6, 8)));
        assert_eq!(at(10), Some(span("MAX", DefinitionKind::Constant, 10, 10)));
        assert_eq!(at(9), Some(span("Cart", DefinitionKind::Impl, 5, 11)));
        assert_eq!(
            at(13),
            Some(span(
                "std::fmt::Display for Cart",
                DefinitionKind::Impl,
                13,
                17
            ))
        );
    }

    #[test]
    fn c_functions_structs_and_macros() {
        let source = "#define LIMIT 10\n\nstruct point {\n    int x;\n};\n\nstatic int *find(int *xs, int n)\n{\n    return xs;\n}\n\nint clamp(int v);\n";
        let at = |line| enclosing_definition(source, Language::C, line);
        assert_eq!(at(1), Some(span("LIMIT", DefinitionKind::Macro, 1, 1)));
        assert_eq!(at(4), Some(span("point", DefinitionKind::Struct, 3, 5)));
        assert_eq!(at(9), Some(span("find", DefinitionKind::Function, 7, 10)));
        assert_eq!(at(12), None);
    }

    #[test]
    fn go_functions_methods_types_and_constants() {
        let source = "package size\n\nconst Limit = 10\n\ntype Unit struct {\n\tSuffix string\n}\n\nfunc Parse(s string) (int64, error) {\n\treturn 0, nil\n}\n\nfunc (u Unit) Bytes() int64 {\n\treturn 1\n}\n\nvar units = []Unit{\n\t{\"B\"},\n}\n";
        let at = |line| enclosing_definition(source, Language::Go, line);
        assert_eq!(at(3), Some(span("Limit", DefinitionKind::Constant, 3, 3)));
        assert_eq!(at(6), Some(span("Unit", DefinitionKind::Struct, 5, 7)));
        assert_eq!(at(10), Some(span("Parse", DefinitionKind::Function, 9, 11)));
        assert_eq!(at(14), Some(span("Bytes", DefinitionKind::Method, 13, 15)));
        assert_eq!(
            at(18),
            Some(span("units", DefinitionKind::Constant, 17, 19))
        );
        assert_eq!(at(1), None);
        assert_eq!(DefinitionKind::Function.keyword(Some(Language::Go)), "func");
    }

    #[test]
    fn javascript_and_typescript() {
        let js = "const add = (a, b) => {\n  return a + b;\n};\n\nclass Cart {\n  total() {\n    return 0;\n  }\n}\n\nexports.sub = function (a, b) {\n  return b - a;\n};\n\ndescribe('x', () => {\n  it('y', () => {});\n});\n";
        let at = |line| enclosing_definition(js, Language::JavaScript, line);
        assert_eq!(at(2), Some(span("add", DefinitionKind::Function, 1, 3)));
        assert_eq!(at(7), Some(span("total", DefinitionKind::Method, 6, 8)));
        assert_eq!(at(12), Some(span("sub", DefinitionKind::Function, 11, 13)));
        assert_eq!(at(16), None);
        let ts = "interface Item {\n  price: number;\n}\n\nexport function total(items: Item[]): number {\n  return items.length;\n}\n";
        for language in [Language::TypeScript, Language::Tsx] {
            let at = |line| enclosing_definition(ts, language, line);
            assert_eq!(at(2), Some(span("Item", DefinitionKind::Interface, 1, 3)));
            assert_eq!(at(6), Some(span("total", DefinitionKind::Function, 5, 7)));
        }
    }

    #[test]
    fn bash_functions() {
        let source = "#!/bin/bash\ngreet() {\n  echo hi\n}\ngreet\n";
        let at = |line| enclosing_definition(source, Language::Bash, line);
        assert_eq!(at(3), Some(span("greet", DefinitionKind::Function, 2, 4)));
        assert_eq!(at(5), None);
    }

    #[test]
    fn json_members_and_the_document() {
        let source = "{\n  \"name\": \"demo\",\n  \"scripts\": {\n    \"test\": \"jest\"\n  }\n}\n";
        let at = |line| enclosing_definition(source, Language::Json, line);
        assert_eq!(at(4), Some(span("scripts", DefinitionKind::Member, 3, 5)));
        assert_eq!(at(2), Some(span("", DefinitionKind::Document, 1, 6)));
    }

    #[test]
    fn keywords_follow_the_language() {
        assert_eq!(
            DefinitionKind::Function.keyword(Some(Language::Python)),
            "def"
        );
        assert_eq!(DefinitionKind::Method.keyword(Some(Language::Rust)), "fn");
        assert_eq!(DefinitionKind::Macro.keyword(Some(Language::C)), "#define");
        assert_eq!(
            DefinitionKind::Function.keyword(Some(Language::C)),
            "function"
        );
        assert_eq!(DefinitionKind::Document.keyword(None), "document");
    }
}
