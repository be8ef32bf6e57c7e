#![doc = include_str!("../README.md")]

mod build;
mod calls;
mod definitions;
mod failure;
mod find;
mod languages;
mod locate;
mod parse;
mod paths;
mod render;
mod shadowed;
mod test_files;
mod text;
mod undefined;
mod window;

pub use build::{
    build_file, compiler_at, header_rule_gap, is_makefile, missing_flags, missing_header, BuildFlag,
};
pub use calls::called_names;
pub use definitions::{enclosing_definition, DefinitionKind, Span};
pub use failure::{Failure, FailureKind, Location, Place, MAX_MESSAGE_CHARS};
pub use find::{find_definition, DefinitionSite, MAX_FILES_SCANNED};
pub use languages::Language;
pub use locate::{locate, Suspect, SuspectReason, MAX_CALLED_SUSPECTS, MAX_FAILURES_LOCATED};
pub use parse::{parse, UNKNOWN_MAX_CHARS, UNKNOWN_TAIL_LINES};
pub use render::{failing_lines, render};
pub use shadowed::{
    explain_attribute_error, explain_attribute_error_after, missing_attribute, shadowed_imports,
    ShadowedImport,
};
pub use test_files::{in_rust_test, is_test_file};
pub use undefined::{undefined_name, NameKind, UndefinedName};
pub use window::{Window, MAX_LINE_CHARS, MAX_WINDOW_LINES};

// For an editor that finds a named definition in the file it edits.
pub use definitions::{named_definitions, preorder};
pub use find::{find_definitions, source_files, SourceFile};
pub use languages::{parse_source, Parsers, SyntaxError};
