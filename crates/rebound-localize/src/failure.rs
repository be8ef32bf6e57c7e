//! What a failing check's output says went wrong: [`Failure`]s with their
//! [`Location`]s.

use serde::{Deserialize, Serialize};

/// The longest [`Failure::message`] of a known format, in characters.
pub const MAX_MESSAGE_CHARS: usize = 500;

/// Which tool or report a failure was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailureKind {
    /// A Python traceback outside a test report (`Traceback (most recent
    /// call last):` … `ZeroDivisionError: division by zero`).
    PythonTraceback,
    /// A `FAIL:` or `ERROR:` block of a `unittest` report.
    UnittestFailure,
    /// A failed or erroring test of a pytest report.
    PytestFailure,
    /// A `not ok` test of a TAP report of node's test runner.
    NodeTestFailure,
    /// A failed Go test (`--- FAIL: TestParse` and its
    /// `size_test.go:20: message` line).
    GoTestFailure,
    /// A Go panic (`panic: runtime error: …` and its goroutine trace).
    GoPanic,
    /// A Go compiler or vet error (`calc/calc.go:4:13: undefined: c`).
    GoCompileError,
    /// A rustc error (`error[E0308]: mismatched types` + ` --> src/lib.rs:2:21`).
    RustCompileError,
    /// A Rust panic (`thread 'tests::t' panicked at src/lib.rs:10:9:`).
    RustPanic,
    /// A gcc or clang error (`main.c:7:20: error: …`) or a linker error.
    CCompileError,
    /// An error of `make` itself (`Makefile:4: *** missing separator.  Stop.`).
    MakeError,
    /// Invalid JSON, as Python's `json` module or `jq` reports it.
    JsonParseError,
    /// Invalid TOML, as Python's `tomllib` reports it.
    TomlParseError,
    /// Invalid YAML, as PyYAML reports it.
    YamlParseError,
    /// Files left uncommitted, as `git status --porcelain` lists them: no
    /// file's content is wrong, so there is no location.
    Uncommitted,
    /// A failed check a test program printed with its place in a test
    /// file (`FAIL test_strutil.c:19: starts_with("makefile", "make")`),
    /// in no framework's format.
    TestAssertion,
    /// Output in no known format: the message is its last lines.
    Unknown,
}

/// Where a [`Location`]'s file is, as far as the workspace is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// A file of the workspace; [`Location::file`] is relative to its root.
    Workspace,
    /// Outside the workspace (a library, the standard library), or not a
    /// file at all (`<string>`): [`Location::file`] is as the tool printed
    /// it, and the file is never read.
    Outside,
    /// Inside the workspace but not there (any more): [`Location::file`] is
    /// relative to the root.
    Missing,
}

/// A position in a file, as a tool reported it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Location {
    /// The file: relative to the workspace root (with `/` separators) when
    /// it is in the workspace, otherwise as printed (see [`Place`]).
    pub file: String,
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1, when the tool gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// The function the tool named for this position (Python's `in f`,
    /// gcc's `In function ‘main’`, a Rust backtrace's symbol).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// Whether the file is in the workspace.
    pub place: Place,
}

impl Location {
    /// Whether the file is a file of the workspace (and so may be read).
    pub fn in_workspace(&self) -> bool {
        self.place == Place::Workspace
    }
}

/// One failure read from a check's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The format it was read from.
    pub kind: FailureKind,
    /// The failing test's id (`test_calc.T.test_sub`,
    /// `tests/test_x.py::test_y`, `tests::t`), for a test report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    /// The assertion or error message, on one line and at most
    /// [`MAX_MESSAGE_CHARS`] characters; for [`FailureKind::Unknown`], the
    /// output's last lines instead.
    pub message: String,
    /// Where the failure shows: the reported position of a compiler or
    /// parser error; for a traceback or panic, its innermost frame in the
    /// project (a workspace file, or one that is gone), else its innermost
    /// frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// A traceback's or backtrace's frames, outermost first and innermost
    /// last, inside the workspace or not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<Location>,
}

impl Failure {
    /// A failure of `kind` with `message` and nothing else known.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Failure {
            kind,
            test: None,
            message: message.into(),
            location: None,
            frames: Vec::new(),
        }
    }

    /// The innermost frame in the workspace.
    pub fn innermost_workspace_frame(&self) -> Option<&Location> {
        self.frames.iter().rev().find(|frame| frame.in_workspace())
    }
}

/// Where a traceback shows: its innermost frame in the project (in the
/// workspace, or meant to be but gone), else its innermost frame.
pub(crate) fn innermost_project_frame(frames: &[Location]) -> Option<Location> {
    frames
        .iter()
        .rev()
        .find(|frame| frame.place != Place::Outside)
        .or(frames.last())
        .cloned()
}
