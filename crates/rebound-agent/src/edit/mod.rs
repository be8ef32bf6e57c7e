//! The edit step. An edit is done by the harness, not by the model's shell
//! commands: the harness cuts a target span from a file, a model writes
//! only its replacement as a fenced code block, and the harness splices it
//! back, checks that the file still parses, runs the checks, and keeps the
//! first candidate that makes them pass (best-of-n: the greedy answer,
//! then seeded samples), or one that leaves fewer failures; otherwise the
//! file is restored byte for byte.
//!
//! - [`resolve_target`] reads a workspace file (never outside it) and
//!   resolves a target, `def subtract`, `Calc.subtract`, `lines 12-20` or
//!   the whole file, to an [`EditSpan`] of at most [`MAX_EDIT_LINES`]
//!   lines; names are found with tree-sitter. A missing file is an empty
//!   span: the edit creates it.
//! - [`extract_code`] takes the first fenced block of the model's answer;
//!   [`splice`] puts it in the span's place, forgiving what small models
//!   get wrong (line numbers copied from a numbered window, lost
//!   indentation, the whole file given back) and keeping the file's line
//!   ends.
//! - [`check_syntax`] tells whether the result parses (JSON, TOML, YAML,
//!   Python, shell, and the tree-sitter languages); [`broken_by_edit`]
//!   whether an edit broke a file that parsed.
//!
//! Every refusal is an [`EditError`] whose message says what to do instead.
//!
//! ```no_run
//! use std::path::Path;
//! use rebound_agent::edit::{broken_by_edit, check_syntax, extract_code, resolve_target, splice};
//!
//! # fn main() -> Result<(), rebound_agent::edit::EditError> {
//! let workspace = Path::new("/path/to/project");
//! let span = resolve_target(workspace, "calc.py", "def subtract", None)?;
//! let original = std::fs::read_to_string(workspace.join(&span.file)).unwrap_or_default();
//! let answer = "```python\ndef subtract(a, b):\n    return a - b\n```";
//! let edited = splice(&original, &span, &extract_code(answer)?)?;
//! let broken = broken_by_edit(
//!     &check_syntax(&span.file, &original),
//!     &check_syntax(&span.file, &edited),
//! );
//! # Ok(())
//! # }
//! ```

mod build_flags;
mod build_headers;
mod build_objects;
mod candidates;
mod error;
mod fence;
mod file;
mod forgive;
mod job;
mod json5;
mod keep;
mod makefile;
mod mutant_trials;
mod mutate;
mod process;
mod rename;
mod replay;
mod request;
mod run;
mod span;
mod splice;
mod syntax;
mod syntax_repair;
mod tally;
pub(crate) mod target;
mod toml_merge;

pub use error::EditError;
pub use fence::{extract_code, MAX_ANSWER_BYTES};
pub use file::MAX_EDIT_FILE_BYTES;
pub(crate) use job::write as write_file;
pub(crate) use keep::losses;
pub use keep::{changed_data_words, dropped_definitions, is_data_file, lost_most_lines};
pub use request::FENCE_GRAMMAR;
pub(crate) use run::run_edit_step;
pub use span::{end_of_file, resolve_target, EditSpan, MAX_EDIT_LINES};
pub use splice::splice;
pub use syntax::{broken_by_edit, check_syntax, Syntax, MAX_SYNTAX_MESSAGE_CHARS};
pub use tally::Tally;
