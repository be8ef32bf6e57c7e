//! The languages whose code can be mapped to definitions, told by file
//! extension, and their tree-sitter grammars.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tree_sitter::{Parser, Tree};

/// A language with a tree-sitter grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Language {
    /// `.py`, `.pyi`.
    Python,
    /// `.rs`.
    Rust,
    /// `.c`, `.h`.
    C,
    /// `.go`.
    Go,
    /// `.js`, `.mjs`, `.cjs`, `.jsx`.
    JavaScript,
    /// `.ts`, `.mts`, `.cts`.
    TypeScript,
    /// `.tsx`.
    Tsx,
    /// `.sh`, `.bash`.
    Bash,
    /// `.json`.
    Json,
}

impl Language {
    /// The language of `path`, by its extension.
    pub fn from_path(path: impl AsRef<Path>) -> Option<Language> {
        let extension = path.as_ref().extension()?.to_str()?;
        Some(match extension {
            "py" | "pyi" => Language::Python,
            "rs" => Language::Rust,
            "c" | "h" => Language::C,
            "go" => Language::Go,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "sh" | "bash" => Language::Bash,
            "json" => Language::Json,
            _ => return None,
        })
    }

    /// Its tree-sitter grammar.
    fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::Bash => tree_sitter_bash::LANGUAGE.into(),
            Language::Json => tree_sitter_json::LANGUAGE.into(),
        }
    }
}

/// Why source could not be parsed.
#[derive(Debug, thiserror::Error)]
pub enum SyntaxError {
    /// The grammar does not fit the tree-sitter library (a build problem).
    #[error("the {language:?} grammar cannot be loaded: {source}")]
    Grammar {
        /// The language.
        language: Language,
        /// What tree-sitter said.
        source: tree_sitter::LanguageError,
    },
    /// The parser gave no tree (it was cancelled or timed out).
    #[error("the {0:?} parser gave no tree")]
    NoTree(Language),
}

/// One tree-sitter parser per language, made on first use.
#[derive(Default)]
pub struct Parsers {
    parsers: HashMap<Language, Parser>,
}

impl Parsers {
    /// The syntax tree of `source` in `language`. Source with syntax errors
    /// still gives a tree (with error nodes).
    pub fn parse(&mut self, language: Language, source: &str) -> Result<Tree, SyntaxError> {
        let parser = match self.parsers.entry(language) {
            std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
            std::collections::hash_map::Entry::Vacant(entry) => {
                let mut parser = Parser::new();
                parser
                    .set_language(&language.grammar())
                    .map_err(|source| SyntaxError::Grammar { language, source })?;
                entry.insert(parser)
            }
        };
        parser
            .parse(source, None)
            .ok_or(SyntaxError::NoTree(language))
    }
}

/// The syntax tree of `source` in `language`, or `None` (logged) when the
/// grammar fails to load.
pub fn parse_source(language: Language, source: &str) -> Option<Tree> {
    match Parsers::default().parse(language, source) {
        Ok(tree) => Some(tree),
        Err(error) => {
            tracing::warn!(%error, "localize: cannot parse");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn languages_by_extension() {
        assert_eq!(Language::from_path("a/b.py"), Some(Language::Python));
        assert_eq!(Language::from_path("x.h"), Some(Language::C));
        assert_eq!(Language::from_path("size.go"), Some(Language::Go));
        assert_eq!(Language::from_path("x.mjs"), Some(Language::JavaScript));
        assert_eq!(Language::from_path("x.tsx"), Some(Language::Tsx));
        assert_eq!(Language::from_path("x.json"), Some(Language::Json));
        assert_eq!(Language::from_path("Makefile"), None);
        assert_eq!(Language::from_path("x.toml"), None);
    }

    #[test]
    fn every_grammar_loads() {
        let mut parsers = Parsers::default();
        for language in [
            Language::Python,
            Language::Rust,
            Language::C,
            Language::Go,
            Language::JavaScript,
            Language::TypeScript,
            Language::Tsx,
            Language::Bash,
            Language::Json,
        ] {
            let tree = parsers.parse(language, "x").unwrap();
            assert!(tree.root_node().end_byte() >= 1, "{language:?}");
        }
    }
}
