//! Operator mutants of an edit's span: candidates that need no model.
//!
//! A small model asked to fix `return b - a` often writes the same line
//! back. Program repair by mutation (PraPR, GenProg's operator mutations,
//! the mutators of mutation testing) takes the decision from the model:
//! the harness makes the one-token changes that fix a large share of real
//! one-line bugs — a comparison's boundary (`>` → `>=`), its negation
//! (`==` → `!=`), its direction, an arithmetic or logical operator
//! (`+` ↔ `-`, `and` ↔ `or`), the operands of `-`, `/` or `%` swapped,
//! an integer literal ±1, and an arithmetic operand off by one
//! (`n * size` → `(n - 1) * size`) — and the checks judge each one. Only
//! a mutant that makes every check pass is kept, so the checks, not the
//! mutation, are the evidence.
//!
//! Mutants are found with tree-sitter (any binary expression of the
//! grammar: a named operand, an operator token, a named operand), within
//! the span only, nearest the suspect line first.

use super::EditSpan;
use crate::localize::{in_rust_test, parse_source, Language};
use tree_sitter::Node;

/// A one-token change of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mutant {
    /// The whole file with the change made.
    pub(crate) text: String,
    /// What changed, for a user: ``line 5: `b - a` → `a - b` ``.
    pub(crate) change: String,
}

/// How far a rendered expression in [`Mutant::change`] may run.
const SHOWN_CHARS: usize = 60;

/// The kinds of change, in the order they are tried on one line: operator
/// changes first (the commonest one-token bugs), operand changes last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// An operator replaced.
    Operator,
    /// The operands of a non-commutative operator swapped.
    Swap,
    /// An integer literal ±1.
    Literal,
    /// An arithmetic operand ±1.
    Operand,
}

/// The operators `op` may be replaced by in `language`.
fn replacements(op: &str, language: Language) -> &'static [&'static str] {
    match op {
        "<" => &["<=", ">"],
        "<=" => &["<", ">="],
        ">" => &[">=", "<"],
        ">=" => &[">", "<="],
        "==" => &["!="],
        "!=" => &["=="],
        "===" => &["!=="],
        "!==" => &["==="],
        "+" => &["-"],
        "-" => &["+"],
        "/" if language == Language::Python => &["//", "*"],
        "/" => &["*"],
        "//" => &["/"],
        "*" => &["/"],
        "and" => &["or"],
        "or" => &["and"],
        "&&" => &["||"],
        "||" => &["&&"],
        "+=" => &["-="],
        "-=" => &["+="],
        _ => &[],
    }
}

/// Operators whose operands, swapped, mean something else.
const NON_COMMUTATIVE: &[&str] = &["-", "/", "//", "%"];

/// Arithmetic operators, whose identifier operands may be off by one.
const ARITHMETIC: &[&str] = &["+", "-", "*", "/", "//", "%"];

/// The grammar's node kinds of an integer literal.
const INTEGER_KINDS: &[&str] = &[
    "integer",
    "integer_literal",
    "int_literal",
    "number_literal",
    "number",
];

/// A change found in the tree, before it is applied.
struct Found {
    /// Byte range replaced.
    start: usize,
    end: usize,
    /// What goes there.
    with: String,
    /// The expression shown before and after (its byte range).
    shown: (usize, usize),
    /// The 1-based line of the change.
    line: u32,
    rank: Rank,
}

/// The mutants of `span` in `original` (the whole file's text), nearest
/// `focus` (a line, else the span's first) first, at most `limit`. Empty
/// for a language with no expression grammar here (shell, JSON, data
/// files) or an empty span.
pub(crate) fn mutants(
    original: &str,
    span: &EditSpan,
    focus: Option<u32>,
    limit: usize,
) -> Vec<Mutant> {
    let Some(language) = span.language.filter(|l| {
        matches!(
            l,
            Language::Python
                | Language::Rust
                | Language::C
                | Language::Go
                | Language::JavaScript
                | Language::TypeScript
                | Language::Tsx
        )
    }) else {
        return Vec::new();
    };
    if span.text.is_empty() || limit == 0 {
        return Vec::new();
    }
    let Some(tree) = parse_source(language, original) else {
        return Vec::new();
    };
    // Tree-sitter rows count from 0, span lines from 1.
    let rows = (span.start_line.saturating_sub(1) as usize)..(span.end_line as usize);
    let mut found = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let (first, last) = (node.start_position().row, node.end_position().row);
        if last < rows.start || first >= rows.end {
            continue;
        }
        if rows.contains(&first) && rows.contains(&last) {
            changes_at(node, original, language, &mut found);
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    let focus = focus.unwrap_or(span.start_line);
    found.sort_by_key(|f| (f.line.abs_diff(focus), f.line, f.rank, f.start));
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for change in found {
        let replaced = &original[change.start..change.end];
        if change.with == replaced || !seen.insert((change.start, change.end, change.with.clone()))
        {
            continue;
        }
        let mut text = String::with_capacity(original.len() + change.with.len());
        text.push_str(&original[..change.start]);
        text.push_str(&change.with);
        text.push_str(&original[change.end..]);
        let (from, to) = change.shown;
        let before = &original[from..to];
        let after_end = to + change.with.len() - (change.end - change.start);
        let after = &text[from..after_end];
        out.push(Mutant {
            change: format!(
                "line {}: `{}` → `{}`",
                change.line,
                shown(before),
                shown(after)
            ),
            text,
        });
        if out.len() == limit {
            break;
        }
    }
    out
}

/// The changes `node` offers: as a binary expression (operand, operator
/// token, operand) or as an integer literal.
fn changes_at(node: Node<'_>, source: &str, language: Language, found: &mut Vec<Found>) {
    if language == Language::Rust && in_rust_test(node, source) {
        // The tests are the evidence, not a place to mutate.
        return;
    }
    let line = u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX);
    let shown = (node.start_byte(), node.end_byte());
    if INTEGER_KINDS.contains(&node.kind()) && node.child_count() == 0 {
        if let Ok(value) = source[node.start_byte()..node.end_byte()].parse::<u64>() {
            let parent = node
                .parent()
                .map_or(shown, |p| (p.start_byte(), p.end_byte()));
            let mut values = vec![value.saturating_add(1)];
            if value > 0 {
                values.push(value - 1);
            }
            for changed in values {
                found.push(Found {
                    start: node.start_byte(),
                    end: node.end_byte(),
                    with: changed.to_string(),
                    shown: parent,
                    line,
                    rank: Rank::Literal,
                });
            }
        }
        return;
    }
    if node.child_count() != 3 {
        return;
    }
    let (Some(left), Some(op), Some(right)) = (node.child(0), node.child(1), node.child(2)) else {
        return;
    };
    if !left.is_named() || op.is_named() || !right.is_named() {
        return;
    }
    let operator = op.kind();
    for with in replacements(operator, language) {
        found.push(Found {
            start: op.start_byte(),
            end: op.end_byte(),
            with: (*with).to_string(),
            shown,
            line,
            rank: Rank::Operator,
        });
    }
    let text = |n: Node<'_>| &source[n.start_byte()..n.end_byte()];
    if NON_COMMUTATIVE.contains(&operator) {
        let between = &source[left.end_byte()..right.start_byte()];
        found.push(Found {
            start: left.start_byte(),
            end: right.end_byte(),
            with: format!("{}{between}{}", text(right), text(left)),
            shown,
            line,
            rank: Rank::Swap,
        });
    }
    if ARITHMETIC.contains(&operator) {
        for operand in [left, right] {
            if operand.kind() != "identifier" {
                continue;
            }
            for delta in ["- 1", "+ 1"] {
                found.push(Found {
                    start: operand.start_byte(),
                    end: operand.end_byte(),
                    with: format!("({} {delta})", text(operand)),
                    shown,
                    line,
                    rank: Rank::Operand,
                });
            }
        }
    }
}

/// An expression on one line, cut to [`SHOWN_CHARS`].
fn shown(code: &str) -> String {
    let one_line = code.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= SHOWN_CHARS {
        return one_line;
    }
    let cut: String = one_line.chars().take(SHOWN_CHARS).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn span(file: &str, text: &str, start: u32, end: u32) -> EditSpan {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        EditSpan {
            file: file.to_string(),
            start_line: start,
            end_line: end,
            label: format!("lines {start}-{end}"),
            text: lines[(start - 1) as usize..end as usize].concat(),
            language: Language::from_path(file),
            exists: true,
        }
    }

    const CALC: &str =
        "def add(a, b):\n    return a + b\n\n\ndef subtract(a, b):\n    return b - a\n";

    #[test]
    fn a_swapped_subtraction_is_among_the_first_mutants() {
        let mutants = mutants(CALC, &span("calc.py", CALC, 5, 6), Some(6), 10);
        let fixed = CALC.replace("b - a", "a - b");
        let at = mutants.iter().position(|m| m.text == fixed).unwrap();
        assert!(at < 3, "{mutants:?}");
        assert_eq!(mutants[at].change, "line 6: `b - a` → `a - b`");
        assert!(
            mutants.iter().all(|m| !m.text.contains("a - b\n\n\ndef")),
            "nothing outside the span changes: {mutants:?}"
        );
    }

    #[test]
    fn comparisons_move_their_boundary() {
        let code = "def ship(total):\n    if total > LIMIT:\n        return 0\n    return 5\n";
        let mutants = mutants(code, &span("s.py", code, 1, 4), Some(2), 20);
        let texts: Vec<&str> = mutants.iter().map(|m| m.text.as_str()).collect();
        assert!(texts.contains(&code.replace("total > LIMIT", "total >= LIMIT").as_str()));
        assert!(texts.contains(&code.replace("return 5", "return 6").as_str()));
        assert!(texts.contains(&code.replace("return 0", "return 1").as_str()));
    }

    #[test]
    fn arithmetic_operands_may_be_off_by_one() {
        let code = "def page(items, number, size):\n    start = number * size\n    return items[start:start + size]\n";
        let mutants = mutants(code, &span("p.py", code, 1, 3), Some(2), 40);
        let fixed = code.replace("number * size", "(number - 1) * size");
        assert!(mutants.iter().any(|m| m.text == fixed), "{mutants:?}");
    }

    #[test]
    fn rust_and_c_operators_mutate_too() {
        let rust = "fn leap(y: u32) -> bool {\n    y % 4 == 0 && y % 100 != 0\n}\n";
        let mutants = mutants(rust, &span("src/lib.rs", rust, 1, 3), None, 40);
        assert!(mutants
            .iter()
            .any(|m| m.text == rust.replace("&& y", "|| y")));
        let c = "int mean(int s, int n) {\n    return s / n;\n}\n";
        let mutants = super::mutants(c, &span("m.c", c, 1, 3), None, 40);
        assert!(mutants
            .iter()
            .any(|m| m.text == c.replace("s / n", "n / s")));
    }

    #[test]
    fn rust_tests_in_the_span_are_not_mutated() {
        let rust = "pub fn double(x: i32) -> i32 {\n    x + x\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn doubles() {\n        assert_eq!(super::double(2), 4);\n    }\n}\n";
        let mutants = mutants(rust, &span("src/lib.rs", rust, 1, 11), None, 40);
        assert!(!mutants.is_empty());
        assert!(
            mutants.iter().all(|m| m.change.starts_with("line 2:")),
            "{mutants:?}"
        );
    }

    #[test]
    fn no_mutants_for_shell_data_or_an_empty_span() {
        let sh = "x=$((a - b))\n";
        assert!(mutants(sh, &span("r.sh", sh, 1, 1), None, 10).is_empty());
        let json = "{\"a\": 1}\n";
        assert!(mutants(json, &span("c.json", json, 1, 1), None, 10).is_empty());
        assert!(mutants(CALC, &span("calc.py", CALC, 5, 6), None, 0).is_empty());
    }

    #[test]
    fn the_limit_and_the_focus_order_hold() {
        let mutants = mutants(CALC, &span("calc.py", CALC, 1, 6), Some(2), 2);
        assert_eq!(mutants.len(), 2);
        assert!(
            mutants.iter().all(|m| m.change.starts_with("line 2:")),
            "{mutants:?}"
        );
    }
}
