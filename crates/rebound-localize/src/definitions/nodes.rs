//! Which tree-sitter nodes are definitions in each language, and what
//! they are called.

use tree_sitter::Node;

use super::{end_line, row_to_line, text, DefinitionKind, Span};
use crate::languages::Language;

/// The definition `node` is, if it is one.
pub(crate) fn definition(node: Node<'_>, source: &str, language: Language) -> Option<Span> {
    let (name, kind, outer) = match language {
        Language::Python => python(node, source)?,
        Language::Rust => rust(node, source)?,
        Language::C => c(node, source)?,
        Language::Go => go(node, source)?,
        Language::JavaScript | Language::TypeScript | Language::Tsx => script(node, source)?,
        Language::Bash => {
            (node.kind() == "function_definition").then_some(())?;
            (
                field_text(node, "name", source)?,
                DefinitionKind::Function,
                node,
            )
        }
        Language::Json => json(node, source)?,
    };
    Some(Span {
        name,
        kind,
        start_line: row_to_line(outer.start_position().row),
        end_line: end_line(outer),
    })
}

/// A definition's name, kind and the node whose lines it covers.
type Found<'t> = (String, DefinitionKind, Node<'t>);

/// Python: `def` (a method inside a class), `class`, module-level
/// `NAME = …`; decorators belong to their definition.
fn python<'t>(node: Node<'t>, source: &str) -> Option<Found<'t>> {
    let outer = match node.parent() {
        Some(parent) if parent.kind() == "decorated_definition" => parent,
        _ => node,
    };
    match node.kind() {
        "function_definition" => {
            let in_class = outer
                .parent()
                .filter(|p| p.kind() == "block")
                .and_then(|b| b.parent())
                .is_some_and(|c| c.kind() == "class_definition");
            let kind = if in_class {
                DefinitionKind::Method
            } else {
                DefinitionKind::Function
            };
            Some((field_text(node, "name", source)?, kind, outer))
        }
        "class_definition" => Some((
            field_text(node, "name", source)?,
            DefinitionKind::Class,
            outer,
        )),
        "assignment" => {
            let statement = node
                .parent()
                .filter(|p| p.kind() == "expression_statement")?;
            statement.parent().filter(|m| m.kind() == "module")?;
            let left = node
                .child_by_field_name("left")
                .filter(|l| l.kind() == "identifier")?;
            Some((text(left, source), DefinitionKind::Constant, statement))
        }
        _ => None,
    }
}

/// Rust: items (`fn`, `struct`, `enum`, `trait`, `impl`, `mod`, `const`,
/// `static`, `type`, `macro_rules!`); a `fn` in an impl or trait is a method.
fn rust<'t>(node: Node<'t>, source: &str) -> Option<Found<'t>> {
    let kind = match node.kind() {
        "function_item" => {
            let in_impl = node
                .parent()
                .filter(|p| p.kind() == "declaration_list")
                .and_then(|p| p.parent())
                .is_some_and(|p| matches!(p.kind(), "impl_item" | "trait_item"));
            if in_impl {
                DefinitionKind::Method
            } else {
                DefinitionKind::Function
            }
        }
        "function_signature_item" => DefinitionKind::Method,
        "struct_item" => DefinitionKind::Struct,
        "enum_item" => DefinitionKind::Enum,
        "union_item" => DefinitionKind::Union,
        "trait_item" => DefinitionKind::Trait,
        "mod_item" => DefinitionKind::Module,
        "const_item" | "static_item" => DefinitionKind::Constant,
        "type_item" => DefinitionKind::TypeAlias,
        "macro_definition" => DefinitionKind::Macro,
        "impl_item" => {
            let target = field_text(node, "type", source)?;
            let name = match field_text(node, "trait", source) {
                Some(tr) => format!("{tr} for {target}"),
                None => target,
            };
            return Some((name, DefinitionKind::Impl, node));
        }
        _ => return None,
    };
    Some((field_text(node, "name", source)?, kind, node))
}

/// C: function definitions, `struct`/`union`/`enum` with a body,
/// `typedef`, `#define`, and top-level variables (not prototypes).
fn c<'t>(node: Node<'t>, source: &str) -> Option<Found<'t>> {
    match node.kind() {
        "function_definition" => {
            let name = declared_name(node.child_by_field_name("declarator")?, source)?;
            Some((name, DefinitionKind::Function, node))
        }
        "struct_specifier" | "union_specifier" | "enum_specifier" => {
            node.child_by_field_name("body")?;
            let kind = match node.kind() {
                "struct_specifier" => DefinitionKind::Struct,
                "union_specifier" => DefinitionKind::Union,
                _ => DefinitionKind::Enum,
            };
            // `typedef struct {…} name;` is the typedef's.
            Some((field_text(node, "name", source)?, kind, node))
        }
        "type_definition" => {
            let name = declared_name(node.child_by_field_name("declarator")?, source)?;
            Some((name, DefinitionKind::TypeAlias, node))
        }
        "preproc_def" | "preproc_function_def" => Some((
            field_text(node, "name", source)?,
            DefinitionKind::Macro,
            node,
        )),
        "declaration" => {
            node.parent().filter(|p| p.kind() == "translation_unit")?;
            let declarator = node.child_by_field_name("declarator")?;
            if declarator.kind() == "function_declarator" {
                return None;
            }
            let name = declared_name(declarator, source)?;
            Some((name, DefinitionKind::Constant, node))
        }
        _ => None,
    }
}

/// Go: `func` (a method when it has a receiver), `type` (struct,
/// interface or other), and top-level `const` and `var` with one name. A
/// declaration of one spec is the definition (its keyword's line is
/// where a line lookup starts); in a group (`const ( … )`) each spec is.
fn go<'t>(node: Node<'t>, source: &str) -> Option<Found<'t>> {
    match node.kind() {
        "function_declaration" => Some((
            field_text(node, "name", source)?,
            DefinitionKind::Function,
            node,
        )),
        "method_declaration" => Some((
            field_text(node, "name", source)?,
            DefinitionKind::Method,
            node,
        )),
        "type_declaration" | "const_declaration" | "var_declaration" => {
            let spec = only_spec(node)?;
            let (name, kind, _) = go_spec(spec, source)?;
            Some((name, kind, node))
        }
        "type_spec" | "type_alias" | "const_spec" | "var_spec" => {
            // A spec alone in its declaration is the declaration's.
            let declaration = node.parent()?;
            if only_spec(declaration).is_some() {
                return None;
            }
            go_spec(node, source)
        }
        _ => None,
    }
}

/// The one spec of a Go declaration, when it has exactly one.
fn only_spec(declaration: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = declaration.walk();
    let mut specs = declaration
        .named_children(&mut cursor)
        .filter(|c| c.kind().ends_with("_spec") || c.kind() == "type_alias");
    match (specs.next(), specs.next()) {
        (Some(spec), None) => Some(spec),
        _ => None,
    }
}

/// What a Go spec defines: a type by its name and what it is; a
/// top-level constant or variable with one name.
fn go_spec<'t>(spec: Node<'t>, source: &str) -> Option<Found<'t>> {
    match spec.kind() {
        "type_spec" | "type_alias" => {
            let kind = match spec.child_by_field_name("type").map(|t| t.kind()) {
                Some("struct_type") => DefinitionKind::Struct,
                Some("interface_type") => DefinitionKind::Interface,
                _ => DefinitionKind::TypeAlias,
            };
            Some((field_text(spec, "name", source)?, kind, spec))
        }
        "const_spec" | "var_spec" => {
            // Only at the top level: a function's own are not definitions.
            spec.parent()?
                .parent()
                .filter(|p| p.kind() == "source_file")?;
            let mut cursor = spec.walk();
            let names: Vec<Node<'t>> = spec.children_by_field_name("name", &mut cursor).collect();
            let [name] = names.as_slice() else {
                return None;
            };
            Some((text(*name, source), DefinitionKind::Constant, spec))
        }
        _ => None,
    }
}

/// The identifier a C declarator declares (through pointers, arrays,
/// function declarators and initializers).
fn declared_name(declarator: Node<'_>, source: &str) -> Option<String> {
    let mut node = declarator;
    for _ in 0..16 {
        match node.kind() {
            "identifier" | "type_identifier" | "field_identifier" => {
                return Some(text(node, source))
            }
            "parenthesized_declarator" => node = node.named_child(0)?,
            _ => node = node.child_by_field_name("declarator")?,
        }
    }
    None
}

/// JavaScript and TypeScript: functions, classes, methods, interfaces,
/// type aliases, enums, namespaces, and functions bound to names.
fn script<'t>(node: Node<'t>, source: &str) -> Option<Found<'t>> {
    let kind = match node.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            DefinitionKind::Function
        }
        "class_declaration" | "abstract_class_declaration" => DefinitionKind::Class,
        "method_definition" | "method_signature" | "abstract_method_signature" => {
            DefinitionKind::Method
        }
        "interface_declaration" => DefinitionKind::Interface,
        "type_alias_declaration" => DefinitionKind::TypeAlias,
        "enum_declaration" => DefinitionKind::Enum,
        "module" | "internal_module" => DefinitionKind::Module,
        "variable_declarator" => return bound_script_value(node, source),
        "assignment_expression" => return assigned_function(node, source),
        _ => return None,
    };
    Some((field_text(node, "name", source)?, kind, node))
}

/// `const add = (a, b) => a + b` (a function), `const Cart = class {}`,
/// or a top-level `const LIMIT = 10`; spanning the whole declaration.
fn bound_script_value<'t>(node: Node<'t>, source: &str) -> Option<Found<'t>> {
    let name = node
        .child_by_field_name("name")
        .filter(|n| n.kind() == "identifier")?;
    let declaration = node
        .parent()
        .filter(|p| matches!(p.kind(), "lexical_declaration" | "variable_declaration"))?;
    let outer = if declaration.named_child_count() == 1 {
        declaration
    } else {
        node
    };
    let kind = match node.child_by_field_name("value").map(|v| v.kind()) {
        Some("arrow_function" | "function_expression" | "function" | "generator_function") => {
            DefinitionKind::Function
        }
        Some("class") => DefinitionKind::Class,
        _ => {
            let top = declaration
                .parent()
                .is_some_and(|p| matches!(p.kind(), "program" | "export_statement"));
            if !top {
                return None;
            }
            DefinitionKind::Constant
        }
    };
    Some((text(name, source), kind, outer))
}

/// `exports.add = function (a, b) {…}` or `module.exports.add = (a, b) =>
/// …`: a function named by the assigned property.
fn assigned_function<'t>(node: Node<'t>, source: &str) -> Option<Found<'t>> {
    let right = node.child_by_field_name("right")?;
    if !matches!(
        right.kind(),
        "arrow_function" | "function_expression" | "function" | "generator_function"
    ) {
        return None;
    }
    let left = node.child_by_field_name("left")?;
    let name = match left.kind() {
        "member_expression" => left.child_by_field_name("property")?,
        "identifier" => left,
        _ => return None,
    };
    let outer = node
        .parent()
        .filter(|p| p.kind() == "expression_statement")
        .unwrap_or(node);
    Some((text(name, source), DefinitionKind::Function, outer))
}

/// JSON: a key whose value is an object or an array.
fn json<'t>(node: Node<'t>, source: &str) -> Option<Found<'t>> {
    if node.kind() != "pair" {
        return None;
    }
    let value = node.child_by_field_name("value")?;
    if !matches!(value.kind(), "object" | "array") {
        return None;
    }
    let key = node.child_by_field_name("key")?;
    let name = text(key, source).trim_matches('"').to_string();
    Some((name, DefinitionKind::Member, node))
}

/// The text of `node`'s `field` child.
fn field_text(node: Node<'_>, field: &str, source: &str) -> Option<String> {
    node.child_by_field_name(field).map(|n| text(n, source))
}
