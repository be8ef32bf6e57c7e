//! The names a line of code calls (`self.assertEqual(sub(5, 3), 2)` →
//! `assertEqual`, `sub`), read from the syntax tree, for following a failed
//! assertion to the code under test.

use tree_sitter::{Node, Tree};

use super::definitions::{ancestors, node_at_line, text};
use super::languages::{parse_source, Language};

/// A statement longer than this many lines contributes only the calls that
/// start on the line itself (a `describe(…, () => { … })` holds a whole
/// test file).
const MAX_STATEMENT_LINES: usize = 20;

/// Nodes that hold statements: a statement is the largest node starting on
/// the line below one of these.
const BODIES: &[&str] = &[
    "block",
    "module",
    "program",
    "source_file",
    "statement_block",
    "compound_statement",
    "translation_unit",
    "declaration_list",
    "class_body",
    "do_group",
];

/// The names called on `line` (from 1) of `source`, left to right, each
/// once: the callee's last identifier (`sub` for `sub(…)`, `total` for
/// `cart.total()`, `new` for `Cart::new()`), including calls in Rust macro
/// arguments (`assert_eq!(double(2), 4)` → `double`). A call that starts
/// on the line brings its whole statement when that continues below.
pub fn called_names(source: &str, language: Language, line: u32) -> Vec<String> {
    match parse_source(language, source) {
        Some(tree) => called_in_tree(&tree, source, language, line),
        None => Vec::new(),
    }
}

/// [`called_names`] in a parsed tree.
pub(crate) fn called_in_tree(
    tree: &Tree,
    source: &str,
    language: Language,
    line: u32,
) -> Vec<String> {
    let Some(node) = node_at_line(tree, source, line) else {
        return Vec::new();
    };
    let row = node.start_position().row;
    // The largest node that starts on the line: its statement.
    let statement = ancestors(node)
        .take_while(|n| n.start_position().row == row && !BODIES.contains(&n.kind()))
        .last()
        .unwrap_or(node);
    // A statement with a body of its own (`class T:`, `fn t() {`, `if
    // check(x):`) or a very long one gives only its line's calls.
    let spans_rows = statement.end_position().row - statement.start_position().row + 1;
    let only_row = (spans_rows > MAX_STATEMENT_LINES || (spans_rows > 1 && has_body(statement)))
        .then_some(row);
    let mut names = Vec::new();
    collect(statement, source, language, only_row, &mut names);
    let mut seen = std::collections::HashSet::new();
    names.retain(|name| seen.insert(name.clone()));
    names
}

/// The most lines of a test read by [`called_before_in_tree`].
const MAX_TEST_LINES: u32 = 60;

/// The names called on the lines of a test before its failing `line`,
/// from `first_line` (the test's first line), in source order, each once:
/// where a failed assertion that calls nothing itself
/// (`self.assertEqual(cart.items, [])`) got its values from.
pub(crate) fn called_before_in_tree(
    tree: &Tree,
    source: &str,
    language: Language,
    first_line: u32,
    line: u32,
) -> Vec<String> {
    let first = first_line.max(line.saturating_sub(MAX_TEST_LINES));
    let mut names: Vec<String> = Vec::new();
    for at in first..line {
        for name in called_in_tree(tree, source, language, at) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// Whether a body (a block of statements) is under `node`.
fn has_body(node: Node<'_>) -> bool {
    let mut cursor = node.walk();
    let mut children: Vec<Node<'_>> = node.children(&mut cursor).collect();
    while let Some(child) = children.pop() {
        if BODIES.contains(&child.kind()) {
            return true;
        }
        let mut cursor = child.walk();
        children.extend(child.children(&mut cursor));
    }
    false
}

/// Pushes the callees under `node` (in source order) onto `names`.
fn collect(
    node: Node<'_>,
    source: &str,
    language: Language,
    row: Option<usize>,
    names: &mut Vec<String>,
) {
    let on_row = row.is_none_or(|r| node.start_position().row == r);
    if on_row {
        if let Some(name) = callee(node, source, language) {
            names.push(name);
        }
        if language == Language::Rust && node.kind() == "token_tree" {
            token_tree_calls(node, source, names);
            return;
        }
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if row.is_none_or(|r| child.start_position().row <= r && r <= child.end_position().row) {
            collect(child, source, language, row, names);
        }
    }
}

/// The name a call node calls, if `node` is a call.
fn callee(node: Node<'_>, source: &str, language: Language) -> Option<String> {
    let function = match (language, node.kind()) {
        (Language::Python, "call")
        | (Language::Rust | Language::C | Language::Go, "call_expression")
        | (Language::JavaScript | Language::TypeScript | Language::Tsx, "call_expression") => {
            node.child_by_field_name("function")?
        }
        (Language::JavaScript | Language::TypeScript | Language::Tsx, "new_expression") => {
            node.child_by_field_name("constructor")?
        }
        (Language::Bash, "command") => node.child_by_field_name("name")?,
        _ => return None,
    };
    last_identifier(function, source)
}

/// The last identifier of a callee expression: `sub`, `x.sub`, `m::sub`,
/// `sub::<T>`.
fn last_identifier(node: Node<'_>, source: &str) -> Option<String> {
    let inner = match node.kind() {
        "attribute" => node.child_by_field_name("attribute")?,
        "member_expression" => node.child_by_field_name("property")?,
        "field_expression" | "selector_expression" => node.child_by_field_name("field")?,
        "scoped_identifier" => node.child_by_field_name("name")?,
        "generic_function" => {
            return last_identifier(node.child_by_field_name("function")?, source)
        }
        _ => node,
    };
    let name = text(inner, source);
    let is_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '-' || c == '.');
    is_name.then_some(name)
}

/// The calls in a Rust macro's token tree, which tree-sitter does not
/// parse as expressions: an identifier followed by a `(…)` token tree.
fn token_tree_calls(tree: Node<'_>, source: &str, names: &mut Vec<String>) {
    let mut cursor = tree.walk();
    let children: Vec<Node<'_>> = tree.children(&mut cursor).collect();
    for (i, child) in children.iter().enumerate() {
        if child.kind() == "token_tree" {
            token_tree_calls(*child, source, names);
            continue;
        }
        let called = child.kind() == "identifier"
            && children.get(i + 1).is_some_and(|next| {
                next.kind() == "token_tree" && text(*next, source).starts_with('(')
            });
        if called {
            names.push(text(*child, source));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_calls() {
        let source = "class T:\n    def test_sub(self):\n        self.assertEqual(sub(5, 3), 2)\n        self.assertEqual(\n            calc.div(1, 0),\n            0,\n        )\n";
        assert_eq!(
            called_names(source, Language::Python, 3),
            ["assertEqual", "sub"]
        );
        assert_eq!(
            called_names(source, Language::Python, 4),
            ["assertEqual", "div"]
        );
        assert_eq!(called_names(source, Language::Python, 5), ["div"]);
        assert_eq!(
            called_names(source, Language::Python, 1),
            Vec::<String>::new()
        );
    }

    #[test]
    fn calls_before_a_failing_line() {
        let source = "class T:\n    def test_new(self):\n        first = Cart()\n        first.add(\"apple\")\n        second = Cart()\n        self.assertEqual(second.items, [])\n";
        let tree = parse_source(Language::Python, source).unwrap();
        assert_eq!(
            called_before_in_tree(&tree, source, Language::Python, 2, 6),
            ["Cart", "add"]
        );
        assert_eq!(
            called_before_in_tree(&tree, source, Language::Python, 6, 6),
            Vec::<String>::new()
        );
    }

    #[test]
    fn rust_calls_and_macro_arguments() {
        let source = "#[test]\nfn t() {\n    assert_eq!(double(2), Cart::new().total(), \"double(1)\");\n    let x = parse::<u8>(\"1\");\n}\n";
        assert_eq!(
            called_names(source, Language::Rust, 3),
            ["double", "new", "total"]
        );
        assert_eq!(called_names(source, Language::Rust, 4), ["parse"]);
    }

    #[test]
    fn c_javascript_and_bash_calls() {
        assert_eq!(
            called_names(
                "int main(void)\n{\n    return clamp(abs(x), 0, p->max(1));\n}\n",
                Language::C,
                3
            ),
            ["clamp", "abs", "max"]
        );
        assert_eq!(
            called_names(
                "test('t', () => {\n  expect(cart.total()).toBe(new Price(3));\n});\n",
                Language::JavaScript,
                2
            ),
            ["toBe", "expect", "total", "Price"]
        );
        assert_eq!(
            called_names(
                "greet() { echo hi; }\ngreet && check_all\n",
                Language::Bash,
                2
            ),
            ["greet", "check_all"]
        );
    }

    #[test]
    fn go_calls() {
        assert_eq!(
            called_names(
                "func TestParse(t *testing.T) {\n\tgot, err := size.Parse(strings.TrimSpace(in))\n}\n",
                Language::Go,
                2
            ),
            ["Parse", "TrimSpace"]
        );
    }

    #[test]
    fn a_long_statement_gives_only_its_line() {
        let mut source = String::from("describe('x', () => {\n");
        for n in 0..30 {
            source.push_str(&format!("  it('t{n}', () => f{n}());\n"));
        }
        source.push_str("});\n");
        assert_eq!(called_names(&source, Language::JavaScript, 1), ["describe"]);
        assert_eq!(called_names(&source, Language::JavaScript, 3), ["it", "f1"]);
    }
}
