//! Localization without the model: a failing check's output is read into
//! structured [`Failure`]s (tracebacks, test reports, compiler, `make` and
//! data-file errors), each mapped with tree-sitter to the code it points
//! at ([`Suspect`]s: the enclosing function, or the functions a failed
//! assertion calls), and rendered as a short text with numbered windows of
//! code: the model sees where it failed and the code to change, not a log.
//!
//! ```no_run
//! use std::path::Path;
//! use rebound_agent::localize::{locate, parse, render};
//!
//! let workspace = Path::new("/path/to/project");
//! let output = "Traceback (most recent call last):\n  File \"calc.py\", line 5, in sub\n    return b - a\nTypeError: unsupported operand type(s)\n";
//! let failures = parse("python3 -m unittest", output, workspace);
//! let suspects = locate(workspace, &failures);
//! let text = render(&failures, &suspects, 1500);
//! ```
//!
//! - [`parse`] reads Python tracebacks, unittest and pytest reports, node's
//!   TAP reports, rustc errors, Rust panics, gcc/clang and linker errors
//!   (a header the workspace has but the include path misses is placed at
//!   the build file's compiler line), `make` errors, and
//!   JSON (`json`, `jq`), TOML (`tomllib`) and YAML (PyYAML) errors; output
//!   in no known format is one [`FailureKind::Unknown`] failure holding its
//!   last lines, and empty output no failure. Paths are made relative to
//!   the workspace; a path outside it, or to a file that is gone, is kept
//!   but marked ([`Place`]).
//! - [`locate`] reads only workspace files: a traceback or panic frame in
//!   code under test gives its enclosing definition; a failed assertion in
//!   a test ([`is_test_file`], Rust `#[test]`) gives the definitions of the
//!   names its line calls ([`find_definition`]); a compiler or data-file
//!   error gives the reported line's definition or the lines around it.
//! - [`render`] writes every failure's header first and fits the code
//!   windows ([`Window`]) into what is left of its budget.
//!
//! The building blocks ([`Language`], [`enclosing_definition`],
//! [`called_names`], [`find_definition`], [`Window`]) are public for
//! harness code that edits a definition.

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
mod test_files;
mod text;
mod undefined;
mod window;

pub(crate) use build::{build_file, compiler_at, is_makefile, missing_flags, BuildFlag};
pub use calls::called_names;
pub use definitions::{enclosing_definition, DefinitionKind, Span};
pub use failure::{Failure, FailureKind, Location, Place, MAX_MESSAGE_CHARS};
pub use find::{find_definition, DefinitionSite, MAX_FILES_SCANNED};
pub use languages::Language;
pub use locate::{locate, Suspect, SuspectReason, MAX_CALLED_SUSPECTS, MAX_FAILURES_LOCATED};
pub use parse::{parse, UNKNOWN_MAX_CHARS, UNKNOWN_TAIL_LINES};
pub use render::{failing_lines, render};
pub(crate) use test_files::in_rust_test;
pub use test_files::is_test_file;
pub use undefined::{undefined_name, NameKind, UndefinedName};
pub use window::{Window, MAX_LINE_CHARS, MAX_WINDOW_LINES};

// For the edit step, which finds a named definition in the file it edits.
pub(crate) use definitions::{named_definitions, preorder};
pub(crate) use find::{find_definitions, source_files};
pub(crate) use languages::{parse_source, Parsers};
