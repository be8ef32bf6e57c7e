//! Whether a file's content parses, told by its name: JSON, TOML and YAML
//! with their parsers, Python with `ast.parse` (which runs nothing), shell
//! with `bash -n`, and the other languages with a grammar with tree-sitter
//! (the fallback for Python and shell too, when the program is missing or
//! too slow).

use std::path::Path;

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::process::{run_checker, CHECK_TIMEOUT};
use crate::localize::{parse_source, Language};

/// The longest message of an [`Syntax::Invalid`], in characters.
pub const MAX_SYNTAX_MESSAGE_CHARS: usize = 300;

/// The characters of source quoted in a tree-sitter error.
const QUOTED_CHARS: usize = 40;

/// Parses Python source from standard input without running it; prints
/// `line N: Kind: message` and exits 1 on a syntax error.
const PYTHON_CHECK: &str = "import ast, sys
try:
    ast.parse(sys.stdin.buffer.read(), sys.argv[1])
except (SyntaxError, ValueError) as error:
    line = getattr(error, 'lineno', None) or '?'
    message = getattr(error, 'msg', None) or str(error)
    print(f'line {line}: {type(error).__name__}: {message}')
    sys.exit(1)
";

/// Whether a file's content parses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Syntax {
    /// It parses.
    Valid,
    /// It does not: the first error (`line 4: …`), at most
    /// [`MAX_SYNTAX_MESSAGE_CHARS`] characters.
    Invalid(String),
    /// There is no checker for this kind of file.
    Unchecked,
}

/// Whether `content`, the content of the file `path` (relative; only its
/// name is looked at), parses. `.json`, `.toml`, `.yaml`/`.yml`, `.py`,
/// `.sh`/`.bash` and the languages with a tree-sitter grammar (`.rs`, `.c`,
/// `.h`, `.js`, `.ts`, `.tsx`…) are checked; anything else is
/// [`Syntax::Unchecked`].
pub fn check_syntax(path: &str, content: &str) -> Syntax {
    let extension = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let syntax = match extension.as_str() {
        "json" => json(content),
        "toml" => toml(content),
        "yaml" | "yml" => yaml(content),
        "py" | "pyi" => python(path, content),
        "sh" | "bash" => shell(content),
        _ => match Language::from_path(path) {
            Some(language) => tree_sitter(language, content),
            None => Syntax::Unchecked,
        },
    };
    match syntax {
        Syntax::Invalid(message) => Syntax::Invalid(bounded(&message)),
        other => other,
    }
}

/// Why an edit broke the syntax: `Some` only when the file parsed (or was
/// not checked) `before` and does not `after`.
pub fn broken_by_edit(before: &Syntax, after: &Syntax) -> Option<String> {
    match (before, after) {
        (Syntax::Invalid(_), _) => None,
        (_, Syntax::Invalid(message)) => Some(message.clone()),
        _ => None,
    }
}

/// JSON, with serde_json.
fn json(content: &str) -> Syntax {
    match serde_json::from_str::<serde_json::Value>(content) {
        Ok(_) => Syntax::Valid,
        Err(error) => {
            let text = error.to_string();
            let place = format!(" at line {} column {}", error.line(), error.column());
            let message = text.strip_suffix(&place).unwrap_or(&text);
            Syntax::Invalid(format!(
                "line {}, column {}: {message}",
                error.line(),
                error.column()
            ))
        }
    }
}

/// TOML, with the `toml` crate.
fn toml(content: &str) -> Syntax {
    match content.parse::<toml::Table>() {
        Ok(_) => Syntax::Valid,
        Err(error) => {
            let line = error
                .span()
                .and_then(|span| content.get(..span.start))
                .map_or(1, |text| text.matches('\n').count() + 1);
            Syntax::Invalid(format!("line {line}: {}", error.message().trim()))
        }
    }
}

/// YAML (every document of the stream), with saphyr's parser.
fn yaml(content: &str) -> Syntax {
    for event in saphyr_parser::Parser::new_from_str(content) {
        match event {
            Ok((saphyr_parser::Event::StreamEnd, _)) => break,
            Ok(_) => {}
            Err(error) => {
                return Syntax::Invalid(format!("line {}: {}", error.marker().line(), error.info()))
            }
        }
    }
    Syntax::Valid
}

/// Python, with `python3`'s `ast.parse`; tree-sitter when `python3` is
/// missing, too slow or fails otherwise.
fn python(path: &str, content: &str) -> Syntax {
    let finished = run_checker(
        "python3",
        &["-I", "-c", PYTHON_CHECK, path],
        content,
        CHECK_TIMEOUT,
    );
    match finished {
        Some(done) if done.code == Some(0) => Syntax::Valid,
        Some(done) if done.code == Some(1) && done.stdout.starts_with("line ") => {
            Syntax::Invalid(done.stdout.lines().next().unwrap_or_default().to_string())
        }
        _ => tree_sitter(Language::Python, content),
    }
}

/// Shell, with `bash -n` (which reads the script and runs nothing);
/// tree-sitter when `bash` is missing, too slow or says nothing.
fn shell(content: &str) -> Syntax {
    match run_checker("bash", &["-n"], content, CHECK_TIMEOUT) {
        Some(done) if done.code == Some(0) => Syntax::Valid,
        Some(done) if !done.stderr.trim().is_empty() => {
            let first = done.stderr.lines().find(|l| !l.trim().is_empty());
            let first = first.unwrap_or_default().trim();
            Syntax::Invalid(first.strip_prefix("bash: ").unwrap_or(first).to_string())
        }
        _ => tree_sitter(Language::Bash, content),
    }
}

/// With tree-sitter: invalid when the tree has an error or a missing node.
fn tree_sitter(language: Language, content: &str) -> Syntax {
    let Some(tree) = parse_source(language, content) else {
        return Syntax::Unchecked;
    };
    let root = tree.root_node();
    if !root.has_error() {
        return Syntax::Valid;
    }
    let message = match first_problem(root) {
        Some(node) => describe(node, content),
        None => "line 1: syntax error".to_string(),
    };
    Syntax::Invalid(message)
}

/// The first error or missing node under `node`, in source order.
fn first_problem(node: Node<'_>) -> Option<Node<'_>> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
    children
        .into_iter()
        .filter(|child| child.has_error() || child.is_missing())
        .find_map(first_problem)
}

/// `line 4: missing "}"`, `line 4: syntax error at "…"`.
fn describe(node: Node<'_>, content: &str) -> String {
    let line = node.start_position().row + 1;
    if node.is_missing() {
        return format!("line {line}: missing `{}`", node.kind());
    }
    let quoted: String = content
        .get(node.start_byte()..node.end_byte())
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .chars()
        .take(QUOTED_CHARS)
        .collect();
    if quoted.is_empty() {
        format!("line {line}: syntax error")
    } else {
        format!("line {line}: syntax error at `{quoted}`")
    }
}

/// `message` cut to [`MAX_SYNTAX_MESSAGE_CHARS`] characters (ending with
/// `…` when cut).
fn bounded(message: &str) -> String {
    let message = message.trim();
    if message.chars().count() <= MAX_SYNTAX_MESSAGE_CHARS {
        return message.to_string();
    }
    let mut cut: String = message.chars().take(MAX_SYNTAX_MESSAGE_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn invalid(syntax: &Syntax) -> &str {
        match syntax {
            Syntax::Invalid(message) => message,
            other => panic!("expected invalid, got {other:?}"),
        }
    }

    fn has(program: &str) -> bool {
        std::process::Command::new(program)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    #[test]
    fn python_with_python3() {
        if !has("python3") {
            assert!(
                std::env::var_os("REBOUND_REQUIRE_PYTHON").is_none(),
                "REBOUND_REQUIRE_PYTHON is set, but python3 is not installed"
            );
            eprintln!("skipped: python3 is not installed");
            return;
        }
        assert_eq!(
            check_syntax("calc.py", "def f(a):\n    return a\n"),
            Syntax::Valid
        );
        let broken = check_syntax("pkg/calc.py", "x = 1\n\n\ndef f(a)\n    return a\n");
        assert_eq!(
            broken,
            Syntax::Invalid("line 4: SyntaxError: expected ':'".into())
        );
        let indent = check_syntax("calc.py", "def f():\nreturn 1\n");
        assert!(
            invalid(&indent).starts_with("line 2: IndentationError"),
            "{indent:?}"
        );
        let nul = check_syntax("calc.py", "x = 1\0\n");
        assert!(matches!(nul, Syntax::Invalid(_)), "{nul:?}");
    }

    #[test]
    fn python_with_tree_sitter() {
        assert_eq!(
            tree_sitter(Language::Python, "def f(a):\n    return a\n"),
            Syntax::Valid
        );
        let broken = tree_sitter(Language::Python, "x = 1\n\n\ndef f(a)\n    return a\n");
        assert!(invalid(&broken).starts_with("line 4: "), "{broken:?}");
    }

    #[test]
    fn json_toml_and_yaml() {
        assert_eq!(
            check_syntax("package.json", "{\"a\": [1, 2]}\n"),
            Syntax::Valid
        );
        assert_eq!(
            check_syntax("package.json", "{\n  \"a\": 1,\n}\n"),
            Syntax::Invalid("line 3, column 1: trailing comma".into())
        );
        assert_eq!(
            check_syntax("Cargo.toml", "[package]\nname = \"x\"\n"),
            Syntax::Valid
        );
        let toml = check_syntax("Cargo.toml", "[package]\nname = \"x\"\nversion = \n");
        assert!(invalid(&toml).starts_with("line 3: "), "{toml:?}");
        assert_eq!(
            check_syntax("ci.yml", "a:\n  - 1\n  - 2\n---\nb: c\n"),
            Syntax::Valid
        );
        let yaml = check_syntax("ci.YAML", "a:\n  - 1\n - 2\nb: [1, 2\n");
        assert!(invalid(&yaml).starts_with("line "), "{yaml:?}");
    }

    #[test]
    fn shell_with_bash() {
        if !has("bash") {
            eprintln!("skipped: bash is not installed");
            return;
        }
        assert_eq!(
            check_syntax("run.sh", "if true; then\n  echo hi\nfi\n"),
            Syntax::Valid
        );
        let open = check_syntax("run.sh", "if true; then\n  echo hi\n");
        assert!(
            invalid(&open).starts_with("line 3: syntax error"),
            "{open:?}"
        );
        assert_eq!(
            check_syntax("run.sh", "touch /tmp/rebound-must-not-exist\n"),
            Syntax::Valid
        );
        assert!(
            !Path::new("/tmp/rebound-must-not-exist").exists(),
            "bash -n ran the script"
        );
    }

    #[test]
    fn tree_sitter_languages() {
        assert_eq!(
            check_syntax("src/main.rs", "fn main() {\n    let x = 1;\n}\n"),
            Syntax::Valid
        );
        let rust = check_syntax("src/main.rs", "fn main() {\n    let x = 1;\n\nfn g() {}\n");
        assert!(invalid(&rust).starts_with("line "), "{rust:?}");
        let c = check_syntax("a.c", "int main(void) {\n  return 0\n}\n");
        assert!(invalid(&c).starts_with("line 2: missing `;`"), "{c:?}");
        assert_eq!(
            check_syntax("a.ts", "const x: number = 1;\n"),
            Syntax::Valid
        );
        assert!(matches!(
            check_syntax("a.js", "function f( {\n"),
            Syntax::Invalid(_)
        ));
    }

    #[test]
    fn other_files_are_unchecked() {
        assert_eq!(
            check_syntax("Makefile", "all:\n\ttrue\n"),
            Syntax::Unchecked
        );
        assert_eq!(check_syntax("notes.txt", "{{{"), Syntax::Unchecked);
    }

    #[test]
    fn messages_are_bounded() {
        let long = "x".repeat(1000);
        let cut = bounded(&long);
        assert_eq!(cut.chars().count(), MAX_SYNTAX_MESSAGE_CHARS);
        assert!(cut.ends_with('…'));
        let json = check_syntax("a.json", &format!("{{\"{long}\": }}"));
        assert!(invalid(&json).chars().count() <= MAX_SYNTAX_MESSAGE_CHARS);
    }

    #[test]
    fn an_edit_breaks_only_what_parsed() {
        let bad = Syntax::Invalid("line 4: oops".into());
        assert_eq!(
            broken_by_edit(&Syntax::Valid, &bad),
            Some("line 4: oops".into())
        );
        assert_eq!(
            broken_by_edit(&Syntax::Unchecked, &bad),
            Some("line 4: oops".into())
        );
        assert_eq!(
            broken_by_edit(&bad, &Syntax::Invalid("line 5: x".into())),
            None
        );
        assert_eq!(broken_by_edit(&bad, &Syntax::Valid), None);
        assert_eq!(broken_by_edit(&Syntax::Valid, &Syntax::Valid), None);
        assert_eq!(broken_by_edit(&Syntax::Valid, &Syntax::Unchecked), None);
    }
}
