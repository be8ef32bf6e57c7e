//! Why an edit cannot be made: each message says what to do instead, since
//! it goes back to the model (or the user) that asked for the edit.

use serde::{Deserialize, Serialize};

/// Why a span cannot be cut, or a model's answer cannot be spliced in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EditError {
    /// The path is absolute, climbs out of the workspace with `..`, or
    /// goes through a symbolic link that leads outside it.
    #[error(
        "{0} is outside the workspace: name a file by its path relative to the \
         workspace root, without `..` that leaves it or links that lead out of it"
    )]
    OutsideWorkspace(String),
    /// The file cannot be edited as text: a directory, a file over 1 MB, not
    /// UTF-8, or an I/O error.
    #[error("cannot edit {file}: {reason}; name a text file of at most 1 MB in the workspace")]
    Unreadable {
        /// The file, as named.
        file: String,
        /// Why it cannot be read.
        reason: String,
    },
    /// The target names no definition of the file.
    #[error("{file} has no definition `{target}`: {message}")]
    TargetNotFound {
        /// The file, relative to the workspace root.
        file: String,
        /// The target, as given.
        target: String,
        /// The definitions the file does have, or what to give instead.
        message: String,
    },
    /// The target is a line range that does not fit the file.
    #[error("the lines `{target}` do not fit {file}: {message}")]
    BadRange {
        /// The file, relative to the workspace root.
        file: String,
        /// The target, as given.
        target: String,
        /// What is wrong with the range.
        message: String,
    },
    /// The span has more lines than one edit may replace.
    #[error(
        "{label} of {file} has {lines} lines, more than the {max} one edit may replace: \
         target one definition by name, or a line range of at most {max} lines"
    )]
    TooLarge {
        /// The file, relative to the workspace root.
        file: String,
        /// The span, as it would be named (`class Cart (lines 3-400)`).
        label: String,
        /// How many lines it has.
        lines: u32,
        /// The most lines an edit may replace.
        max: u32,
    },
    /// The file changed after its span was cut: the span no longer matches.
    #[error("{file} changed after the part to edit was cut from it: cut it again")]
    Stale {
        /// The file, relative to the workspace root.
        file: String,
    },
    /// The model's answer holds no usable replacement.
    #[error(
        "the answer cannot be used: {0}; answer with the replacement code in one \
         fenced block (```), and nothing else"
    )]
    Unusable(String),
    /// The replacement is the code it replaces, unchanged.
    #[error(
        "the replacement is the same as the code it replaces: change the code so \
         that the step's goal is met"
    )]
    NoChange,
}
